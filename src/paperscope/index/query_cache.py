"""Query vectors shared by the worker processes of one server, in a small SQLite file.

``paperscope serve --workers N`` embeds a query in whichever worker takes the request; the
same query (a page of results, a facet click, a popular search) then reaches another worker.
Each process keeps its own LRU of query vectors (:func:`paperscope.index.search.query_vector`);
a server's workers also share this file, so a query embedded once (5-25 ms on 2 cores) is a
SQLite lookup (about 0.05 ms) for every worker after. A CLI process does not use it.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from pathlib import Path

import numpy as np

__all__ = ["SharedQueryVectors", "share_query_vectors", "shared"]


class SharedQueryVectors:
    """Query vectors in a SQLite file, shared by the worker processes of one server.

    Keyed by ``(model_id, text)``; the value is the float32 vector's bytes. Reads and writes
    that fail (a locked or unwritable file) are skipped: the cache only saves embedding time.
    Each thread has its own connection. Kept to ``MAX_ROWS`` rows: past that, the oldest half
    is deleted.

    Args:
        path: the SQLite file (created with its folder when missing).
    """

    MAX_ROWS = 50_000

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._local = threading.local()
        self._writes = 0
        # Workers start together and each sets up the file: one that finds it locked for the
        # whole busy timeout (CI, a loaded machine) goes on without it instead of failing to start.
        with contextlib.suppress(sqlite3.Error):
            self._conn()

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=1.0, isolation_level=None)
            self._local.conn = conn
            conn.execute("PRAGMA synchronous=OFF")
            with contextlib.suppress(sqlite3.OperationalError):  # another process is setting it up
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS query_vectors (model TEXT, text TEXT, vector BLOB,"
                    " PRIMARY KEY (model, text))"
                )
        return conn

    def get(self, model: str, text: str) -> np.ndarray | None:
        """The stored vector (float32, read-only) or None."""
        try:
            row = (
                self._conn()
                .execute("SELECT vector FROM query_vectors WHERE model = ? AND text = ?", (model, text))
                .fetchone()
            )
        except sqlite3.Error:
            return None
        if row is None:
            return None
        vector = np.frombuffer(row[0], dtype=np.float32)
        return vector

    def put(self, model: str, text: str, vector: np.ndarray) -> None:
        """Store a vector (float32 (dim,)); trims the table every 1,000 writes."""
        try:
            conn = self._conn()
            conn.execute(
                "INSERT OR IGNORE INTO query_vectors VALUES (?, ?, ?)",
                (model, text, np.ascontiguousarray(vector, dtype=np.float32).tobytes()),
            )
            self._writes += 1
            if self._writes % 1000 == 0:
                conn.execute(
                    "DELETE FROM query_vectors WHERE rowid <= (SELECT max(rowid) FROM query_vectors) - ?",
                    (self.MAX_ROWS // 2,),
                )
        except sqlite3.Error:
            return


_shared_vectors: SharedQueryVectors | None = None


def shared() -> SharedQueryVectors | None:
    """The shared cache this process uses, or None (the default: a CLI process keeps its own)."""
    return _shared_vectors


def share_query_vectors(path: Path | None = None) -> SharedQueryVectors:
    """Keep query vectors in a SQLite file too, for every process that calls this (server workers).

    Args:
        path: the file; default ``$PAPERSCOPE_CACHE/query_vectors.sqlite``.
    """
    global _shared_vectors
    if path is None:
        from ..config import cache_dir

        path = cache_dir() / "query_vectors.sqlite"
    _shared_vectors = SharedQueryVectors(path)
    return _shared_vectors
