"""The ingest jobs of every worker of one server, in a small SQLite file all of them read.

``paperscope serve --workers N`` runs N processes over one library; an upload is taken by
whichever worker the kernel hands the connection to, and the client's next ``GET
/api/ingest/{job_id}`` may reach another. Each worker therefore writes its jobs' snapshots
(the IngestJobModel fields) to ``jobs.sqlite`` in the library's uploads folder, and a worker
asked about a job it does not hold reads it from there. The same file counts the jobs queued
across workers (the ``MAX_QUEUED_JOBS`` limit is the server's, not each worker's) and how many
are ahead of a queued job.

A worker that dies leaves its jobs behind as ``queued`` or ``running``: a reader sees that the
process named in the row is gone and reports the job failed ("the worker ... stopped"), and the
next upload or job lookup on any worker marks it failed on the board and deletes its uploaded
file (unless it was kept) (:meth:`JobBoard.claim_abandoned`).

The board is a cache of what the workers know, never the library's data: deleting it loses
only the state of jobs in flight (their papers stay stored). WAL mode, a 5 s busy timeout and
one short transaction per write keep workers from waiting on each other.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from ..worker_guard import process_running

__all__ = ["JobBoard", "BOARD_FILE"]

#: The board's file name inside the uploads folder.
BOARD_FILE = "jobs.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    job_id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    pid INTEGER NOT NULL,
    state TEXT NOT NULL,
    snapshot TEXT NOT NULL
)
"""


class JobBoard:
    """Job snapshots shared by the worker processes of one server.

    Args:
        folder: the library's uploads folder (created when missing); the board is
            ``folder/jobs.sqlite``.
    """

    def __init__(self, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / BOARD_FILE
        self._local = threading.local()
        with self._conn() as conn:
            conn.execute(_SCHEMA)

    def _conn(self) -> sqlite3.Connection:
        """This thread's connection (a connection is never shared between threads)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=5.0, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    def put(self, snapshot: dict[str, Any], created: float) -> None:
        """Write a job's snapshot (a dict with ``job_id`` and ``state``); ``created`` is a Unix time."""
        self._conn().execute(
            "INSERT INTO jobs(job_id, created, pid, state, snapshot) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT(job_id) DO UPDATE SET state = excluded.state, snapshot = excluded.snapshot,"
            " pid = excluded.pid",
            (snapshot["job_id"], created, os.getpid(), snapshot["state"], json.dumps(snapshot)),
        )

    def get(self, job_id: str) -> dict[str, Any] | None:
        """Return the job's snapshot as its worker last wrote it, or None when no worker has it.

        A job left queued or running by a worker that no longer runs reads as failed, and its
        ``queued_ahead`` counts the live jobs queued or running before it on any worker.
        """
        row = (
            self._conn()
            .execute("SELECT created, pid, state, snapshot FROM jobs WHERE job_id = ?", (job_id,))
            .fetchone()
        )
        if row is None:
            return None
        created, pid, state, text = row
        snapshot: dict[str, Any] = json.loads(text)
        if state in ("queued", "running") and not process_running(pid):
            snapshot["state"] = "failed"
            snapshot["error"] = f"the server worker that took this upload (process {pid}) stopped"
            snapshot["queued_ahead"] = 0
        elif state == "queued":
            snapshot["queued_ahead"] = self.count_live(("queued", "running"), before=created)
        return snapshot

    def claim_abandoned(self) -> list[dict[str, Any]]:
        """Mark failed the jobs left queued or running by workers that no longer run; return them.

        Each job is claimed by one conditional update, so of several workers sweeping at once
        only one gets it (and deletes its upload). Returns the claimed jobs' snapshots, with
        ``state`` failed and ``error`` saying which worker stopped.
        """
        conn = self._conn()
        rows = conn.execute("SELECT job_id, pid, snapshot FROM jobs WHERE state IN ('queued', 'running')")
        claimed = []
        for job_id, pid, text in rows.fetchall():
            if process_running(pid):
                continue
            snapshot: dict[str, Any] = json.loads(text)
            snapshot.update(
                state="failed",
                error=f"the server worker that took this upload (process {pid}) stopped",
                queued_ahead=0,
            )
            taken = conn.execute(
                "UPDATE jobs SET state = 'failed', snapshot = ? WHERE job_id = ? AND pid = ?"
                " AND state IN ('queued', 'running')",
                (json.dumps(snapshot), job_id, pid),
            ).rowcount
            if taken:
                claimed.append(snapshot)
        return claimed

    def count_live(self, states: tuple[str, ...], before: float | None = None) -> int:
        """Count jobs in ``states`` whose worker still runs (created before ``before`` when given)."""
        marks = ",".join("?" for _ in states)
        sql = f"SELECT pid FROM jobs WHERE state IN ({marks})"
        params: list[Any] = list(states)
        if before is not None:
            sql += " AND created < ?"
            params.append(before)
        return sum(1 for (pid,) in self._conn().execute(sql, params) if process_running(pid))

    def forget(self, keep: int) -> None:
        """Delete the oldest finished jobs beyond the newest ``keep``."""
        self._conn().execute(
            "DELETE FROM jobs WHERE state IN ('done', 'failed') AND job_id NOT IN"
            " (SELECT job_id FROM jobs WHERE state IN ('done', 'failed') ORDER BY created DESC LIMIT ?)",
            (keep,),
        )

    @staticmethod
    def now() -> float:
        """The creation time a new job is stamped with (Unix seconds)."""
        return time.time()
