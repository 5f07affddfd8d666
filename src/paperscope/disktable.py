"""Read-only lookup tables on disk: big dictionaries a fresh process needs a few keys of.

The cleaned CC-CEDICT senses (115k words) take 0.3 s to read from the shipped file, while a
Chinese query looks up a few dozen strings. Each table is built once into an SQLite file under
``config.cache_dir()/tables`` (a primary-key b-tree: a lookup costs
a few microseconds and opening the file under a millisecond), named by what it was built from
(``key``: the source package's version and our own building code), so a new version builds a
new table and a stale one is never read. Built into a temporary file and renamed into place:
a crash never leaves half a table, and two processes never read one being written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from .config import cache_dir

__all__ = ["DiskTable", "open_table", "table_path"]


class DiskTable(Mapping[str, Any]):
    """A read-only ``str → value`` mapping stored in an SQLite file (values JSON-encoded).

    Args:
        path: the table file written by :func:`open_table`.

    Attributes:
        meta: the JSON object stored beside the rows when the table was built.
    """

    def __init__(self, path: Path):
        self.path = path
        self._conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        self._lock = threading.Lock()
        (meta,) = self._conn.execute("SELECT v FROM meta WHERE k = 'meta'").fetchone()
        self.meta: dict[str, Any] = json.loads(meta)

    def _fetch(self, key: str) -> Any:
        with self._lock:
            row = self._conn.execute("SELECT v FROM t WHERE k = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def __getitem__(self, key: str) -> Any:
        value = self._fetch(key)
        if value is None:
            raise KeyError(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        value = self._fetch(key)
        return default if value is None else value

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        with self._lock:
            return self._conn.execute("SELECT 1 FROM t WHERE k = ?", (key,)).fetchone() is not None

    def __iter__(self) -> Iterator[str]:
        with self._lock:
            keys = [k for (k,) in self._conn.execute("SELECT k FROM t")]
        return iter(keys)

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM t").fetchone()[0])


def table_path(name: str, key: str) -> Path:
    """Return the file of table ``name`` built from ``key`` (a string naming its sources)."""
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
    return cache_dir() / "tables" / f"{name}-{digest}.sqlite"


def open_table(
    name: str,
    key: str,
    build: Callable[[], tuple[Iterable[tuple[str, Any]], dict[str, Any]]],
    encoded: bool = False,
) -> Mapping[str, Any] | None:
    """Return table ``name`` for ``key``, building it first when no file has it yet.

    Args:
        name: what the table holds, e.g. ``"cedict-senses"``.
        key: everything the rows depend on (versions, a hash of the building code).
        build: returns ``(rows, meta)``: the ``(key, JSON-serialisable value)`` pairs (later
            duplicates are ignored) and a JSON object kept with them.
        encoded: the values ``build`` gives are JSON texts already (stored as they are).

    Returns:
        The table, or None when the cache folder cannot be written (the caller then keeps
        the rows in memory; a read-only home loses speed, not results).
    """
    path = table_path(name, key)
    if path.is_file():
        with contextlib.suppress(sqlite3.DatabaseError):
            return DiskTable(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.unlink(missing_ok=True)
        rows, meta = build()
        conn = sqlite3.connect(tmp)
        try:
            conn.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID")
            conn.execute("CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)")
            conn.executemany(
                "INSERT OR IGNORE INTO t VALUES (?, ?)",
                rows if encoded else ((k, json.dumps(v, ensure_ascii=False)) for k, v in rows),
            )
            conn.execute("INSERT INTO meta VALUES ('meta', ?)", (json.dumps(meta),))
            conn.commit()
        finally:
            conn.close()
        os.replace(tmp, path)
    except OSError:
        return None
    return DiskTable(path)
