"""Reads never wait behind a slow request: requests run on a pool of Library instances."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.index.embed import FakeEmbedder
from paperscope.web import create_app
from paperscope.web.pool import LibraryPool, PoolBusy

LIST = (
    "ICML 2026 Papers\n\n"
    "We present APM, an adaptive pruning method with a 9.6x speedup on CIFAR-10.\n\n"
    "Sparse attention kernels make long-context transformers twice as fast on one GPU.\n"
)
UPLOAD = "ICML 2026 Papers\n\nWombat routing balances mixture-of-experts layers across accelerators.\n"
#: A quick request answers well under this many seconds while another one is held for 30.
QUICK_S = 1.0


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[Library]:
    path = tmp_path / "list.txt"
    path.write_text(LIST, encoding="utf-8")
    library = Library(tmp_path / "web.db")
    library.ingest([path])
    yield library
    library.close()


def _quick_requests(client: TestClient, paper_id: str) -> dict[str, tuple[int, float]]:
    """Send the reads and a write that must not wait; return ``{name: (status, seconds)}``."""
    timed = {}
    for name, send in (
        ("stats", lambda: client.get("/api/stats")),
        ("bm25 search", lambda: client.get("/api/search", params={"q": "pruning", "mode": "bm25"})),
        ("paper", lambda: client.get(f"/api/papers/{paper_id}")),
        ("star", lambda: client.put(f"/api/papers/{paper_id}/star")),
    ):
        started = time.perf_counter()
        response = send()
        timed[name] = (response.status_code, time.perf_counter() - started)
    return timed


def _first_id(lib: Library) -> str:
    return next(lib.papers()).paper_id


def test_reads_and_marks_do_not_wait_behind_a_slow_search(
    lib: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    entered, release = threading.Event(), threading.Event()
    original = Library.search

    def search(self: Library, query: str, *args, **kwargs):
        if query == "slow":  # stands for a search that embeds, or a cold model load
            entered.set()
            release.wait(30)
        return original(self, query, *args, **kwargs)

    monkeypatch.setattr(Library, "search", search)
    paper_id = _first_id(lib)
    with TestClient(create_app(lib)) as client, ThreadPoolExecutor(1) as background:
        slow = background.submit(client.get, "/api/search", params={"q": "slow", "mode": "bm25"})
        assert entered.wait(10)
        timed = _quick_requests(client, paper_id)
        assert not slow.done()  # the slow request was still running the whole time
        release.set()
        assert slow.result(timeout=30).status_code == 200
    assert {name: status for name, (status, _) in timed.items()} == dict.fromkeys(timed, 200)
    assert max(seconds for _, seconds in timed.values()) < QUICK_S, timed
    assert lib.marks(paper_id)["starred"] is True


def test_reads_and_marks_do_not_wait_behind_an_ingest_job(
    lib: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job held in its cards phase (papers stored, not yet embedded) blocks nothing."""
    entered, release = threading.Event(), threading.Event()
    original = Library.build_cards

    def build_cards(self: Library, *args, **kwargs):
        entered.set()
        release.wait(30)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Library, "build_cards", build_cards)
    paper_id = _first_id(lib)
    with TestClient(create_app(lib)) as client:
        job_id = client.post("/api/ingest", params={"name": "up.txt"}, content=UPLOAD.encode()).json()[
            "data"
        ]["job_id"]
        assert entered.wait(30)
        timed = _quick_requests(client, paper_id)
        # Papers the job stored but has not embedded yet: a hybrid search answers from BM25 at
        # once and says so, instead of embedding them inside the request.
        started = time.perf_counter()
        hybrid = client.get("/api/search", params={"q": "wombat routing experts"}).json()
        timed["hybrid search"] = (200, time.perf_counter() - started)
        assert "no embedding yet" in hybrid["notice"] and hybrid["data"][0]["missing_vector"] is True
        assert lib.missing_vectors() == 1  # the request embedded nothing
        assert client.get(f"/api/ingest/{job_id}").json()["data"]["state"] == "running"
        release.set()
        done = client.app.state.jobs.wait(job_id, timeout_s=60)
        assert done["state"] == "done" and lib.missing_vectors() == 0
        after = client.get("/api/search", params={"q": "wombat routing experts"}).json()
        assert after["notice"] is None and after["data"][0]["paper_id"] == done["new_paper_ids"][0]
    assert max(seconds for _, seconds in timed.values()) < QUICK_S, timed


def test_concurrent_hybrid_searches_agree_with_serial_ones(lib: Library) -> None:
    """Pooled instances share the process's embedder: queries embedded at once give the same hits."""
    queries = ["pruning speedup", "sparse attention", "long context GPU", "CIFAR-10", "transformers"]
    pool = LibraryPool(lib, size=4)
    try:
        serial = {q: [h.paper_id for h in lib.search(q)] for q in queries}
        checkouts = [pool.checkout() for _ in range(4)]
        instances = [c.__enter__() for c in checkouts]
        assert len({id(i) for i in instances}) == 4
        start = threading.Barrier(4)

        def run(instance: Library) -> list[list[str]]:
            start.wait(10)
            return [[h.paper_id for h in instance.search(q)] for q in queries * 5]

        with ThreadPoolExecutor(4) as workers:
            results = list(workers.map(run, instances))
        for c in checkouts:
            c.__exit__(None, None, None)
        assert all(found == [serial[q] for q in queries * 5] for found in results)
    finally:
        pool.close()


def test_warming_a_pool_opens_every_instance_with_its_dense_index_loaded(lib: Library) -> None:
    pool = LibraryPool(lib, size=3)
    try:
        assert pool.warm() == 3 and len(pool._opened) == 2
        held = [pool._take() for _ in range(3)]  # all three are idle again, none newly opened
        assert len(pool._opened) == 2 and all(h._dense is not None for h in held)
        for h in held:
            pool._idle.put(h)
    finally:
        pool.close()


def test_a_pool_opens_instances_only_as_needed_and_at_most_its_size(lib: Library) -> None:
    pool = LibraryPool(lib, size=2)
    try:
        with pool.checkout() as first:
            assert first is lib and pool._opened == []
            with pool.checkout() as second:
                assert second is not lib and second.store.path == lib.store.path
                assert second.embedder_name == lib.embedder_name == "fake"
                assert second.search_embed_max_papers == 0  # a server search never embeds
        with pool.checkout() as again:
            assert again in (lib, *pool._opened) and len(pool._opened) == 1
    finally:
        pool.close()


@pytest.mark.parametrize("kind", ["memory", "embedder object"])
def test_a_library_that_cannot_be_opened_twice_has_a_pool_of_one(kind: str, tmp_path: Path) -> None:
    library = Library(":memory:") if kind == "memory" else Library(tmp_path / "x.db", embedder=FakeEmbedder())
    try:
        pool = LibraryPool(library, size=4, timeout_s=0.2)
        assert (pool.size, pool.is_shareable) == (1, False)
        with pool.checkout() as only:
            assert only is library
            with pytest.raises(PoolBusy, match="the server is busy"), pool.checkout():
                pass
    finally:
        library.close()


def test_a_busy_pool_answers_503_in_the_error_shape(lib: Library) -> None:
    app = create_app(lib, pool_size=1)
    app.state.pool.timeout_s = 0.1
    with TestClient(app) as client, app.state.pool.checkout():
        response = client.get("/api/stats")
        assert response.status_code == 503
        assert response.json() == {
            "ok": False,
            "error": "the server is busy: all 1 library connections stayed in use for 0.1 s; try again",
            "status": 503,
        }


def test_a_real_server_answers_while_a_request_is_held(lib: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same over loopback HTTP: uvicorn's worker threads each get a pooled Library."""
    import httpx
    import uvicorn

    entered, release = threading.Event(), threading.Event()
    original = Library.search

    def search(self: Library, query: str, *args, **kwargs):
        if query == "slow":
            entered.set()
            release.wait(30)
        return original(self, query, *args, **kwargs)

    monkeypatch.setattr(Library, "search", search)
    app = create_app(lib, allowed_hosts={"127.0.0.1"})
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(500):
            if server.started:
                break
            time.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        base = f"http://127.0.0.1:{port}"
        paper_id = _first_id(lib)
        with ThreadPoolExecutor(1) as background, httpx.Client(base_url=base, timeout=30) as http:
            slow = background.submit(http.get, "/api/search", params={"q": "slow", "mode": "bm25"})
            assert entered.wait(10)
            timed = {}
            for name, send in (
                ("stats", lambda: http.get("/api/stats")),
                ("bm25", lambda: http.get("/api/search", params={"q": "pruning", "mode": "bm25"})),
                ("paper", lambda: http.get(f"/api/papers/{paper_id}")),
                ("star", lambda: http.put(f"/api/papers/{paper_id}/star", headers={"Origin": base})),
            ):
                started = time.perf_counter()
                timed[name] = (send().status_code, time.perf_counter() - started)
            assert not slow.done()
            release.set()
            assert slow.result(timeout=30).status_code == 200
        assert {name: status for name, (status, _) in timed.items()} == dict.fromkeys(timed, 200)
        assert max(seconds for _, seconds in timed.values()) < QUICK_S, timed
    finally:
        release.set()
        server.should_exit = True
        thread.join(10)


@pytest.mark.model
def test_the_real_model_embeds_queries_from_many_threads_at_once() -> None:
    """The process-wide MiniLM embedder is safe to share between pooled Libraries (same vectors)."""
    import numpy as np

    from paperscope.index.embed import get_embedder, prepare_embedder

    prepare_embedder("minilm")
    embedder = get_embedder("minilm")
    queries = [
        "dataset distillation",
        "graph networks for molecules",
        "sparse attention",
        "剪枝",
        "video diffusion",
    ]
    serial = [embedder.embed([q])[0] for q in queries * 6]
    with ThreadPoolExecutor(8) as workers:
        parallel = list(workers.map(lambda q: embedder.embed([q])[0], queries * 6))
    assert all(np.allclose(a, b, atol=1e-6) for a, b in zip(serial, parallel, strict=True))


def test_searches_run_at_most_search_slots_at_once_and_the_rest_wait(
    lib: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Six searches at once on a pool of four: two run, the others queue and then answer."""
    from paperscope.web import pool as pool_module

    assert pool_module.SEARCH_SLOTS == 2
    active, most = [0], [0]
    lock = threading.Lock()
    original = Library.search

    def search(self: Library, query: str, *args, **kwargs):
        with lock:
            active[0] += 1
            most[0] = max(most[0], active[0])
        try:
            time.sleep(0.2)  # long enough for every request to arrive while the first ones run
            return original(self, query, *args, **kwargs)
        finally:
            with lock:
                active[0] -= 1

    monkeypatch.setattr(Library, "search", search)
    with TestClient(create_app(lib, pool_size=4)) as client, ThreadPoolExecutor(6) as senders:
        answers = list(
            senders.map(
                lambda _: client.get("/api/search", params={"q": "pruning", "mode": "bm25"}), range(6)
            )
        )
    assert [a.status_code for a in answers] == [200] * 6
    assert all(a.json()["data"][0]["label"] for a in answers)
    assert most[0] == 2


def test_a_search_that_waits_past_the_timeout_for_a_slot_is_a_503(lib: Library) -> None:
    app = create_app(lib)
    app.state.pool.timeout_s = 0.1
    with TestClient(app) as client, app.state.pool.searching(), app.state.pool.searching():
        response = client.get("/api/search", params={"q": "pruning", "mode": "bm25"})
        stats = client.get("/api/stats")  # not a search: it needs no slot
    assert response.status_code == 503
    assert response.json()["error"] == "the server is busy: searches stayed queued for 0.1 s; try again"
    assert stats.status_code == 200
