"""The job board the workers of ``serve --workers N`` share: any worker reads any job."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from paperscope.web.job_board import JobBoard


def _snapshot(job_id: str, state: str, **extra: object) -> dict:
    return {"job_id": job_id, "name": "a.txt", "state": state, "queued_ahead": 0, **extra}


def test_a_job_written_by_one_worker_reads_the_same_from_another(tmp_path: Path):
    writer, reader = JobBoard(tmp_path / "lab.uploads"), JobBoard(tmp_path / "lab.uploads")
    writer.put(_snapshot("j1", "running", phase="embed", done=40, total=95), created=100.0)
    got = reader.get("j1")
    assert got is not None and (got["state"], got["phase"], got["done"], got["total"]) == (
        "running",
        "embed",
        40,
        95,
    )
    writer.put(_snapshot("j1", "done", phase="done", done=95, total=95), created=100.0)
    assert reader.get("j1")["state"] == "done"
    assert reader.get("nope") is None


def test_queued_jobs_count_every_worker_and_order_by_upload_time(tmp_path: Path):
    one, two = JobBoard(tmp_path / "u"), JobBoard(tmp_path / "u")
    one.put(_snapshot("a", "running"), created=1.0)
    two.put(_snapshot("b", "queued"), created=2.0)
    one.put(_snapshot("c", "queued"), created=3.0)
    one.put(_snapshot("d", "done"), created=0.5)
    assert two.count_live(("queued",)) == 2
    assert two.get("c")["queued_ahead"] == 2  # a (running) and b (queued), not the finished d
    assert one.get("b")["queued_ahead"] == 1


def test_a_job_of_a_worker_that_died_reads_as_failed(tmp_path: Path):
    board = JobBoard(tmp_path / "u")
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead_pid = int(gone.stdout)
    board.put(_snapshot("x", "running"), created=1.0)
    with sqlite3.connect(board.path) as conn:  # as if a worker that has exited had written it
        conn.execute("UPDATE jobs SET pid = ? WHERE job_id = 'x'", (dead_pid,))
    got = board.get("x")
    assert got["state"] == "failed" and f"process {dead_pid}" in got["error"] and "stopped" in got["error"]
    assert board.count_live(("running",)) == 0


def test_only_the_newest_finished_jobs_are_kept(tmp_path: Path):
    board = JobBoard(tmp_path / "u")
    for n in range(6):
        board.put(_snapshot(f"f{n}", "done"), created=float(n))
    board.put(_snapshot("q", "queued"), created=0.0)
    board.forget(keep=2)
    assert [board.get(f"f{n}") is not None for n in range(6)] == [False] * 4 + [True] * 2
    assert board.get("q") is not None  # a job in flight is never forgotten


def test_a_dead_workers_uploads_are_deleted_once_by_a_live_worker_unless_kept(tmp_path: Path):
    """A worker killed mid-job never deletes its upload; the next lookup on another worker does."""
    from paperscope.web.jobs import IngestJobs

    folder = tmp_path / "lab.uploads"
    board = JobBoard(folder)
    dead_pid = int(
        subprocess.run(
            [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
        ).stdout
    )
    for job_id, name, state, keep in (
        ("dead", "dead.txt", "running", False),
        ("queued", "waiting.txt", "queued", False),
        ("kept", "kept.txt", "running", True),
        ("live", "live.txt", "running", False),
    ):
        (folder / name).write_text("ICML 2026 Papers\n\nAn abstract.\n", encoding="utf-8")
        board.put({**_snapshot(job_id, state, keep=keep), "name": name}, created=1.0)
    with sqlite3.connect(board.path) as conn:  # written by a worker that has exited since
        conn.execute("UPDATE jobs SET pid = ? WHERE job_id != 'live'", (dead_pid,))
    jobs = IngestJobs(None, folder, shared=True)  # type: ignore[arg-type]  # no job runs here
    got = jobs.get("dead")
    assert got["state"] == "failed" and f"process {dead_pid}" in got["error"]
    assert sorted(p.name for p in folder.glob("*.txt")) == ["kept.txt", "live.txt"]
    assert jobs.get("live")["state"] == "running" and jobs.get("kept")["state"] == "failed"
    assert JobBoard(folder).claim_abandoned() == []  # claimed once: no second worker deletes again
