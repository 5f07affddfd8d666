"""Ingest from the browser: POST /api/ingest stores the upload safely and a background job ingests it."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.errors import InputError
from paperscope.web import create_app
from paperscope.web.jobs import NAME_PATTERN, safe_file_name

FIRST = "ICML 2026 Papers\n\nWe present APM, an adaptive pruning method with a 9.6x speedup on CIFAR-10.\n"
UPLOAD = (
    "ICML 2026 Papers\n\n"
    "We introduce Zorblax, a graph tokenizer for molecules that halves the vocabulary of SMILES models.\n\n"
    "* * *\n\n"
    "Quokka distillation compresses speech recognisers into tiny students without any labelled audio.\n"
)


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[Library]:
    path = tmp_path / "first.txt"
    path.write_text(FIRST, encoding="utf-8")
    library = Library(tmp_path / "web.db")
    library.ingest([path])
    yield library
    library.close()


@pytest.fixture
def client(lib: Library) -> Iterator[TestClient]:
    with TestClient(create_app(lib)) as test_client:
        yield test_client


def _upload(client: TestClient, name: str, body: bytes, keep: bool = False, **headers: str):
    params = {"name": name, **({"keep": "true"} if keep else {})}
    return client.post("/api/ingest", params=params, content=body, headers=headers)


def _wait(client: TestClient, job_id: str) -> dict:
    return client.app.state.jobs.wait(job_id, timeout_s=60)


def test_an_upload_is_ingested_by_a_job_and_searchable_at_once(client: TestClient, tmp_path: Path) -> None:
    accepted = _upload(client, "new list.txt", UPLOAD.encode())
    assert accepted.status_code == 202
    body = accepted.json()
    assert body["ok"] is True and body["data"]["name"] == "new list.txt"
    assert body["data"]["size_bytes"] == len(UPLOAD.encode())
    job_id = body["data"]["job_id"]
    _wait(client, job_id)
    status = client.get(f"/api/ingest/{job_id}").json()["data"]
    assert (status["state"], status["phase"], status["error"]) == ("done", "done", None)
    assert len(status["new_paper_ids"]) == 2
    report = status["report"]
    assert (report["read"], report["new"], report["skipped"]) == (3, 2, 1)
    (file_report,) = report["files"]
    assert file_report["path"] == "new list.txt" and file_report["new"] == 2
    assert [(s["path"], s["line"]) for s in file_report["skipped"]] == [("new list.txt", 5)]
    assert file_report["skipped"][0]["reason"]
    assert str(tmp_path) not in json.dumps(status)  # file names only, never a local folder
    assert set(report["phases"]) == {"cards", "embed"} and report["phases"]["embed"]["count"] == 2
    # The file was stored in the library's uploads folder, beside the database, and deleted
    # once the job was done (no keep=true).
    assert (tmp_path / "web.uploads").is_dir() and list((tmp_path / "web.uploads").iterdir()) == []
    # Another pooled Library (not the job's) finds a new paper right away, in every mode.
    for mode in ("bm25", "hybrid", "dense"):
        hits = client.get("/api/search", params={"q": "Zorblax molecules tokenizer", "mode": mode}).json()
        assert hits["data"][0]["paper_id"] in status["new_paper_ids"], mode
    assert client.get("/api/stats").json()["data"]["papers"] == 3


def test_pooled_libraries_see_the_new_papers_after_the_job(lib: Library) -> None:
    """Every instance of the pool, warmed on the old papers, finds the new ones on its next search."""
    app = create_app(lib, pool_size=3)
    pool = app.state.pool
    with TestClient(app) as client:
        # Check out all three at once so that each is opened and has searched the old library.
        held = [pool.checkout() for _ in range(3)]
        instances = [c.__enter__() for c in held]
        assert len({id(i) for i in instances}) == 3
        for instance in instances:
            assert instance.search("pruning", mode="hybrid")[0].label.startswith("APM")
        for c in held:
            c.__exit__(None, None, None)
        job_id = _upload(client, "more.txt", UPLOAD.encode()).json()["data"]["job_id"]
        new_ids = set(_wait(client, job_id)["new_paper_ids"])
        for instance in instances:
            for mode in ("bm25", "hybrid"):
                (top, *_) = instance.search("Quokka distillation speech", mode=mode)
                assert top.paper_id in new_ids, mode
            assert instance.search_notice is None


def test_uploads_never_leave_the_uploads_folder(client: TestClient, tmp_path: Path) -> None:
    uploads = tmp_path / "web.uploads"
    for name, stored in (
        ("../../evil.txt", "evil.txt"),
        ("..\\..\\win.txt", "win.txt"),
        ("/etc/passwd", "passwd"),
        ("%2e%2e%2fenc.txt", "_2e_2e_2fenc.txt"),
        (".hidden.txt", "hidden.txt"),
        ("a<b>|c.txt", "a_b_c.txt"),
    ):
        response = _upload(client, name, FIRST.encode(), keep=True)
        assert response.status_code == 202, name
        assert response.json()["data"]["name"] == stored
        _wait(client, response.json()["data"]["job_id"])
    assert sorted(p.name for p in uploads.iterdir()) == sorted(
        ["evil.txt", "win.txt", "passwd", "_2e_2e_2fenc.txt", "hidden.txt", "a_b_c.txt"]
    )
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path.parent / "evil.txt").exists()
    # The same name again gets a name of its own; the first file is kept.
    again = _upload(client, "evil.txt", UPLOAD.encode(), keep=True).json()["data"]
    assert again["name"] == "evil-2.txt" and (uploads / "evil.txt").read_text() == FIRST
    _wait(client, again["job_id"])


def test_an_upload_is_deleted_when_its_job_ends_done_or_failed(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Retention: no uploaded file outlives its job unless the upload says keep=true."""
    uploads = tmp_path / "web.uploads"
    done = _upload(client, "list.txt", UPLOAD.encode()).json()["data"]
    failed = _upload(client, "broken.json", b'[{"title": "unclosed').json()["data"]
    assert (done["keep"], failed["keep"]) == (False, False)
    assert _wait(client, done["job_id"])["state"] == "done"
    failed_job = _wait(client, failed["job_id"])
    assert failed_job["report"]["files"][0]["error"] == (
        "broken.json:1: malformed JSON: Unterminated string starting at (column 12)"
    )
    assert list(uploads.iterdir()) == []

    def crash(self: Library, *args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(Library, "ingest", crash)
    crashed = _upload(client, "crash.txt", UPLOAD.encode()).json()["data"]
    assert _wait(client, crashed["job_id"])["error"] == "RuntimeError: disk on fire"
    assert list(uploads.iterdir()) == []
    monkeypatch.undo()
    kept = _upload(client, "keep me.txt", UPLOAD.encode(), keep=True).json()["data"]
    job = _wait(client, kept["job_id"])
    assert (kept["keep"], job["keep"], job["state"]) == (True, True, "done")
    assert [p.name for p in uploads.iterdir()] == ["keep me.txt"]
    assert (uploads / "keep me.txt").read_text(encoding="utf-8") == UPLOAD


def test_uploads_still_queued_when_the_server_stops_are_deleted(
    lib: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started, release = threading.Event(), threading.Event()
    real_ingest = Library.ingest

    def held_ingest(self: Library, *args, **kwargs):
        started.set()
        release.wait(30)
        return real_ingest(self, *args, **kwargs)

    monkeypatch.setattr(Library, "ingest", held_ingest)
    uploads = tmp_path / "web.uploads"
    with TestClient(create_app(lib)) as client:
        running = _upload(client, "running.txt", UPLOAD.encode()).json()["data"]
        assert started.wait(30)
        queued = _upload(client, "queued.txt", FIRST.encode()).json()["data"]
        kept = _upload(client, "kept.txt", FIRST.encode(), keep=True).json()["data"]
        assert sorted(p.name for p in uploads.iterdir()) == ["kept.txt", "queued.txt", "running.txt"]
        jobs = client.app.state.jobs
        jobs.close(timeout_s=0.1)  # the server's shutdown, while the first job still runs
        dropped = jobs.get(queued["job_id"])
        assert (dropped["state"], dropped["error"]) == (
            "failed",
            "the server stopped before this upload was ingested",
        )
        assert sorted(p.name for p in uploads.iterdir()) == ["kept.txt", "running.txt"]
        assert jobs.get(kept["job_id"])["state"] == "failed"
        release.set()
        assert _wait(client, running["job_id"])["state"] == "done"
    assert [p.name for p in uploads.iterdir()] == ["kept.txt"]


@pytest.mark.parametrize("name", ["..", ".", "///", "", "   "])
def test_an_unusable_name_is_a_400(client: TestClient, tmp_path: Path, name: str) -> None:
    response = _upload(client, name, FIRST.encode())
    assert response.status_code == 400
    assert set(response.json()) == {"ok", "error", "status"}
    assert not any((tmp_path / "web.uploads").glob("*")) if (tmp_path / "web.uploads").exists() else True


def test_safe_file_name_keeps_the_extension_of_a_long_name() -> None:
    name = safe_file_name("x" * 300 + ".jsonl")
    assert name.endswith(".jsonl") and len(name) == 120


@pytest.mark.parametrize(
    ("name", "stored"),
    [
        ("papers.txt", "papers.txt"),
        ("C:\\lists\\icml 2026.txt", "icml 2026.txt"),
        ("../../etc/passwd", "passwd"),
        ("论文.txt", "论文.txt"),
        ("论文", None),  # no ASCII letter or digit: the schema's pattern refuses it too
        ("lists/", None),
        ("a/..", None),
        ("\x9e<¡\x02", None),
        ("_" * 200 + "a", "_" * 118 + "a"),  # the cut keeps the letters
        ("." * 5 + "x.csv", "x.csv"),
    ],
)
def test_safe_file_name_follows_the_pattern_the_schema_states(name: str, stored: str | None) -> None:
    """The upload's ``name`` is usable exactly when it matches NAME_PATTERN (of /openapi.json)."""
    assert bool(re.search(NAME_PATTERN, name)) is (stored is not None)
    if stored is None:
        with pytest.raises(InputError, match="is not a usable file name"):
            safe_file_name(name)
    else:
        assert safe_file_name(name) == stored


def test_an_empty_upload_and_a_missing_name_are_400(client: TestClient, tmp_path: Path) -> None:
    empty = _upload(client, "empty.txt", b"")
    assert (empty.status_code, empty.json()["error"]) == (
        400,
        "empty upload: send the file's bytes as the request body",
    )
    nameless = client.post("/api/ingest", content=FIRST.encode())
    assert nameless.status_code == 400 and "name" in nameless.json()["error"]
    assert list((tmp_path / "web.uploads").iterdir()) == []


def test_an_upload_over_the_limit_is_a_413_and_keeps_nothing(lib: Library, tmp_path: Path) -> None:
    with TestClient(create_app(lib, max_upload_bytes=1000)) as client:
        big = b"x" * 1001
        declared = _upload(client, "big.txt", big)
        streamed = client.post(
            "/api/ingest", params={"name": "big.txt"}, content=iter([big[:600], big[600:]])
        )  # no Content-Length: chunked, counted as it streams
        for response in (declared, streamed):
            assert (response.status_code, response.json()) == (
                413,
                {
                    "ok": False,
                    "error": "the request body is larger than the limit of 1,000 bytes",
                    "status": 413,
                },
            )
            assert response.headers["x-content-type-options"] == "nosniff"
        # keep=true: without it the job deletes the upload when it ends, which may be before the
        # listing below (CI saw [] on a fast machine).
        fits = _upload(client, "fits.txt", FIRST.encode(), keep=True)
        assert fits.status_code == 202
        _wait(client, fits.json()["data"]["job_id"])
        uploads = tmp_path / "web.uploads"
        assert [p.name for p in uploads.iterdir()] == ["fits.txt"]


def test_a_foreign_origin_cannot_upload(client: TestClient, tmp_path: Path) -> None:
    response = _upload(client, "x.txt", UPLOAD.encode(), Origin="https://evil.example")
    assert response.status_code == 403 and response.json()["ok"] is False
    assert not (tmp_path / "web.uploads").exists()
    assert client.get("/api/stats").json()["data"]["papers"] == 1


def test_jobs_run_one_at_a_time_in_order_and_a_full_queue_is_a_409(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import paperscope.web.jobs as jobs_module

    release = threading.Event()
    original = Library.ingest

    def held_ingest(self: Library, *args, **kwargs):
        release.wait(30)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Library, "ingest", held_ingest)
    monkeypatch.setattr(jobs_module, "MAX_QUEUED_JOBS", 1)
    first = _upload(client, "one.txt", UPLOAD.encode()).json()["data"]["job_id"]
    for _ in range(200):  # until the worker has taken the first job
        if client.get(f"/api/ingest/{first}").json()["data"]["state"] == "running":
            break
        threading.Event().wait(0.01)
    second = _upload(client, "two.txt", FIRST.encode()).json()["data"]
    assert second["state"] == "queued"
    waiting = client.get(f"/api/ingest/{second['job_id']}").json()["data"]
    assert (waiting["state"], waiting["phase"], waiting["queued_ahead"]) == ("queued", None, 1)
    full = _upload(client, "three.txt", FIRST.encode())
    assert full.status_code == 409 and "already waiting" in full.json()["error"]
    release.set()
    assert _wait(client, first)["state"] == "done"
    done = _wait(client, second["job_id"])
    assert done["state"] == "done" and done["report"]["present"] == 1 and done["new_paper_ids"] == []


def test_an_unknown_job_is_a_404(client: TestClient) -> None:
    response = client.get("/api/ingest/0123456789abcdef")
    assert response.status_code == 404 and set(response.json()) == {"ok", "error", "status"}


def test_a_file_that_is_not_a_list_fails_the_job_with_a_reason(client: TestClient, tmp_path: Path) -> None:
    job_id = _upload(client, "blob.bin", bytes(range(256)) * 4).json()["data"]["job_id"]
    status = _wait(client, job_id)
    text = json.dumps(status)
    assert str(tmp_path) not in text
    # The job's one file could not be read: the job failed (not "done" with error null), and says why.
    assert status["state"] == "failed" and "binary file" in status["error"], status
    (file_report,) = status["report"]["files"]
    assert file_report["path"] == "blob.bin" and file_report["error"] == status["error"]


def test_an_in_memory_library_ingests_through_its_one_instance(tmp_path: Path) -> None:
    library = Library(":memory:")
    try:
        with TestClient(create_app(library)) as client:
            job_id = _upload(client, "mem.txt", UPLOAD.encode()).json()["data"]["job_id"]
            status = _wait(client, job_id)
            assert status["state"] == "done" and len(status["new_paper_ids"]) == 2
            hit = client.get("/api/search", params={"q": "Zorblax", "mode": "bm25"}).json()["data"][0]
            assert hit["paper_id"] in status["new_paper_ids"]
            assert client.app.state.jobs.uploads_dir.parent.name == "uploads"
    finally:
        library.close()


def test_a_job_reports_each_phase_with_its_counts(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paperscope.web.jobs import IngestJob

    seen: list[tuple[str, int, int | None]] = []
    original = IngestJob.set_phase

    def record(self: IngestJob, phase: str, done: int, total: int | None) -> None:
        seen.append((phase, done, total))
        original(self, phase, done, total)

    monkeypatch.setattr(IngestJob, "set_phase", record)
    job_id = _upload(client, "phases.txt", UPLOAD.encode()).json()["data"]["job_id"]
    _wait(client, job_id)
    phases = [phase for phase, _, _ in seen]
    assert phases == sorted(phases, key=["read", "cards", "embed", "done"].index)  # in order
    assert {"read", "cards", "embed", "done"} <= set(phases)
    assert ("cards", 2, 2) in seen and ("embed", 2, 2) in seen
    assert seen[0] == ("read", 0, None)  # lines are counted only when ingest shows progress


def test_no_answer_shows_a_server_folder_with_a_relative_db(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``--db web.db`` (relative), reports, errors and every read answer hold file names only."""
    monkeypatch.chdir(tmp_path)
    folders = {str(tmp_path), str(tmp_path.resolve()), "web.uploads"}
    bodies = [
        ("ok.txt", UPLOAD.encode()),
        ("broken.json", b'[{"title": "unclosed'),
        ("utf16.csv", "title,abstract\n".encode("utf-16")),
        ("no abstract.jsonl", b'{"title": "T"}\nnot json\n'),
        ("cut.bib", b"@article{a, title={T}"),
    ]
    library = Library("web.db")
    answers = []
    with TestClient(create_app(library)) as client:
        for name, body in bodies:
            job = _upload(client, name, body).json()["data"]
            _wait(client, job["job_id"])
            answers.append(client.get(f"/api/ingest/{job['job_id']}").text)

        def crash(self: Library, paths, *args, **kwargs):
            raise OSError(f"cannot read {Path(paths[0]).resolve()} (in {Path(paths[0]).parent.absolute()})")

        monkeypatch.setattr(Library, "ingest", crash)
        job = _upload(client, "crash.txt", UPLOAD.encode()).json()["data"]
        assert _wait(client, job["job_id"])["error"] == "OSError: cannot read crash.txt (in uploads)"
        answers.append(client.get(f"/api/ingest/{job['job_id']}").text)
        paper_id = client.get("/api/browse").json()["data"]["hits"][0]["paper_id"]
        for url in ("/api/stats", "/api/browse", "/api/search?q=Zorblax", f"/api/papers/{paper_id}"):
            answers.append(client.get(url).text)
        answers += [
            client.get(f"/api/export?format={fmt}").text for fmt in ("jsonl", "csv", "bibtex", "html")
        ]
    library.close()
    reports = [json.loads(a)["data"]["report"] for a in answers[:5]]
    assert [r["files"][0]["path"] for r in reports] == [name for name, _ in bodies]
    assert reports[1]["files"][0]["error"] == (
        "broken.json:1: malformed JSON: Unterminated string starting at (column 12)"
    )
    for answer in answers:
        assert not any(folder in answer for folder in folders), answer[:500]
