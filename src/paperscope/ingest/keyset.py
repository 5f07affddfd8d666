"""Which near-duplicate keys a library holds, in memory: most keys of a new paper are held by none.

``_BatchStore.store`` looks every key of a batch up in ``dedup_keys`` (about 15 per paper). In a
large library those lookups are random B-tree probes, most of them misses: at 100k papers they
were 19 s of a 73 s ``load``. :class:`StoredKeys` answers "is this key stored at all?" from
sorted int64 arrays (8 bytes a key), so only keys that some paper holds go to SQLite.

It must never answer "no" for a stored key (a near-duplicate would be missed); answering "yes"
for a key no longer stored costs one lookup. So every key the batch writer stores is added,
a rolled-back batch only leaves extra keys, and a commit by another connection
(``PRAGMA data_version`` moved: a server or a second ingest writing meanwhile) makes the set
read again from the library before its next answer.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

import numpy as np

from ..store import papers

__all__ = ["StoredKeys"]


class StoredKeys:
    """The set of ``dedup_keys.key`` values of one library, kept as a few sorted runs.

    Runs are merged when the newest is at least half the size of the one before (as a
    log-structured merge), so adding n keys in batches costs O(n log n) and a lookup
    O(runs * log n), with about log2(n / batch) runs.

    Args:
        conn: the library's connection (read: every stored key, and ``PRAGMA data_version``).
    """

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn
        self._runs: list[np.ndarray] = []
        self._version = -1
        self._reload()

    def _reload(self) -> None:
        self._version = _data_version(self._conn)
        self._runs = [np.sort(np.frombuffer(papers.all_dedup_keys(self._conn), dtype=np.int64))]

    def add(self, keys: Iterable[int]) -> None:
        """Record keys just stored by this connection (int64 values)."""
        run = np.sort(np.fromiter(keys, dtype=np.int64))
        if not len(run):
            return
        self._runs.append(run)
        while len(self._runs) > 1 and 2 * len(self._runs[-1]) >= len(self._runs[-2]):
            newest = self._runs.pop()
            # Two sorted runs: the stable sort (timsort for int64) merges them in linear time.
            # Repeated keys stay (a lookup only needs the order), so nothing is deduplicated.
            self._runs[-1] = np.sort(np.concatenate([self._runs[-1], newest]), kind="stable")

    def stored(self, keys: Iterable[int]) -> set[int]:
        """Return those of ``keys`` that may be stored (every stored one; rarely one that is not).

        Reads the library's keys again first when another connection has committed since.
        """
        if _data_version(self._conn) != self._version:
            self._reload()
        wanted = np.fromiter(keys, dtype=np.int64)
        if not len(wanted):
            return set()
        hit = np.zeros(len(wanted), dtype=bool)
        for run in self._runs:
            if not len(run):
                continue
            at = np.minimum(np.searchsorted(run, wanted), len(run) - 1)
            hit |= run[at] == wanted
        return {int(k) for k in wanted[hit]}


def _data_version(conn: sqlite3.Connection) -> int:
    """SQLite's ``PRAGMA data_version``: it moves when another connection commits (sqlite.org/pragma.html)."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0])
