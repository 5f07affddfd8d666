"""``paperscope serve --workers 2``: one library, two processes, jobs and papers seen by both.

A real server (a child process of the console entry point, the fake embedder) on a free
127.0.0.1 port. Every request opens a new connection, so the kernel hands requests to either
worker; each answer names its worker (``X-Paperscope-Worker``). The test uploads a list through
one worker and polls until the *other* worker reports the job done and finds the new papers.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from browser_helpers import free_port

from paperscope import Library
from paperscope.web.workers import WORKER_HEADER

pytestmark = pytest.mark.slow


def _get(base: str, path: str) -> tuple[str, dict]:
    with urllib.request.urlopen(base + path, timeout=30) as reply:  # a new connection each time
        return reply.headers[WORKER_HEADER], json.loads(reply.read())


def _from_another_worker(base: str, path: str, not_worker: str, ok, timeout_s: float = 90.0) -> dict:
    """GET ``path`` until a worker other than ``not_worker`` answers with a body ``ok`` accepts."""
    deadline = time.monotonic() + timeout_s
    seen: dict[str, object] = {}
    while time.monotonic() < deadline:
        worker, body = _get(base, path)
        seen[worker] = body
        if worker != not_worker and ok(body):
            return body
        time.sleep(0.05)
    raise AssertionError(f"no other worker answered {path} as expected within {timeout_s} s: {seen}")


@pytest.fixture
def server(tmp_path: Path, icml_dir: Path):
    lists = sorted(icml_dir.glob("*.txt"))
    lib = Library(tmp_path / "lab.db")
    lib.ingest(lists[:1])
    lib.close()
    port = free_port()
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "paperscope", "--db", str(tmp_path / "lab.db"), "serve", "--workers", "2"]
        + ["--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=os.environ.copy(),
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    workers: set[str] = set()
    while len(workers) < 2 and time.monotonic() < deadline:  # both workers up and answering
        try:
            workers.add(_get(base, "/api/stats")[0])
        except OSError:
            time.sleep(0.2)
    assert len(workers) == 2, (tmp_path / "serve.log").read_text()
    yield base, lists[1], proc
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
        log.close()


def test_ingest_through_one_worker_is_seen_and_searched_through_the_other(server):
    base, second_list, proc = server
    before = _get(base, "/api/stats")[1]["data"]["papers"]
    request = urllib.request.Request(
        base + "/api/ingest?name=" + urllib.parse.quote(second_list.name),
        data=second_list.read_bytes(),
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        assert reply.status == 202
        taker = reply.headers[WORKER_HEADER]
        job_id = json.loads(reply.read())["data"]["job_id"]

    job = _from_another_worker(base, f"/api/ingest/{job_id}", taker, lambda b: b["data"]["state"] == "done")
    new_ids = job["data"]["new_paper_ids"]
    assert job["data"]["report"]["new"] == len(new_ids) > 0 and job["data"]["error"] is None
    after = _get(base, "/api/stats")[1]["data"]["papers"]
    assert after == before + len(new_ids)

    # A new paper, found by its own words through the worker that did not ingest it.
    paper = _get(base, f"/api/papers/{new_ids[0]}")[1]["data"]
    words = " ".join(paper["abstract"].split()[:12])
    query = "/api/search?" + urllib.parse.urlencode({"q": words, "mode": "bm25", "limit": 5})
    hits = _from_another_worker(base, query, taker, lambda b: bool(b["data"]))
    assert new_ids[0] in [hit["paper_id"] for hit in hits["data"]]

    # An unknown job is a 404 from every worker, not a worker's private blind spot.
    for _ in range(4):
        with pytest.raises(urllib.error.HTTPError) as missing:
            _get(base, "/api/ingest/0123456789abcdef")
        assert missing.value.code == 404
        missing.value.close()
    assert proc.poll() is None


def test_workers_refuse_an_in_memory_library(tmp_path: Path):
    run = subprocess.run(
        [sys.executable, "-m", "paperscope", "--db", ":memory:", "serve", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0 and "in-memory library cannot be shared" in run.stderr
    assert "Traceback" not in run.stderr
