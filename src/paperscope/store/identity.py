"""Whose on-disk caches a library file reads: its ``library_id``, renewed when the file is another one.

The caches under ``cache_dir()/indexes/LIBRARY_ID`` (vector matrix, HNSW graph, BM25 statistics,
recommendation graph) are keyed by the id stored in the file's ``library_state`` table. A copy
of the file carries that row along, so before issue 26 a copy and its original read each other's
caches: dense search in one returned the other's papers. Two guards keep them apart:

1. **The id is issued to one file.** Beside the id the library records the *file identity* it was
   issued for: device, inode and, where the OS gives one (macOS, BSD, Windows with Python 3.12+),
   birth time. On open the identity is read again from the file; when it differs (``cp``,
   ``shutil.copy``, a download, a restore that writes a new file, another machine or disk), or a
   library made before issue 26 has none, a new random id is written with the new identity, and
   the old id's caches are never read. A read-only library cannot write one: it uses an id
   derived from the stored id and the identity, without writing.

   Size, modification and change times are left out on purpose: every write moves them, so a
   library would renew its id (and drop its caches) at each write, and two processes writing it
   would renew it in turns. Inode and device stay the same for one file for its life, also while
   it is written or renamed on its disk (``mv`` keeps the id and its caches).

2. **A history that forks never repeats a cache key.** An in-place restore (``cp backup lib.db``
   over the file, SQLite's ``.restore``) or a file created on a freed inode keeps the device and
   inode, and on Linux Python shows no birth time, so guard 1 cannot tell. The caches' keys hold
   the vectors' fingerprint (top rowids of papers and vectors, and a generation; see
   :func:`paperscope.store.vectors.vectors_fingerprint`): :func:`mark_fork` adds a random amount
   to the generation in each write transaction that moved the fingerprint, so two histories that
   start from one state reach different keys, where a plain counter could reach the same one.

The vectors themselves live in the file (table ``embeddings``) and travel with a copy, which is
correct for it: a renewed id only means the caches are rebuilt from the file (no embedding).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from ..errors import StoreError

__all__ = ["file_identity", "resolve_library_id", "vectors_mark", "mark_fork"]

#: The ``library_state`` key of the file identity the stored ``library_id`` was issued for.
_IDENTITY_KEY = "file_identity"
#: Largest random step :func:`mark_fork` adds to the generation (2**31: two forks pick the same
#: step with probability 2**-31; 2**32 forks stay far below SQLite's 2**63 integer limit).
_FORK_STEP = 2**31

Transaction = Callable[[], AbstractContextManager[sqlite3.Connection]]


def file_identity(path: Path) -> str:
    """Return what tells this file from any copy of it: ``"dev:inode:birth"``.

    ``birth`` is the creation time in microseconds where ``os.stat`` gives one
    (``st_birthtime``), else ``-``.

    Raises:
        StoreError: the file cannot be stat'ed.
    """
    try:
        st = os.stat(path)
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the library file's identity: {exc.strerror or exc}") from exc
    birth = getattr(st, "st_birthtime", None)
    return f"{st.st_dev}:{st.st_ino}:{round(birth * 1e6) if birth is not None else '-'}"


def _stored_library_id(conn: sqlite3.Connection) -> str:
    """Return the ``library_id`` stored in the file, whichever file it was issued for."""
    row = conn.execute("SELECT value FROM library_state WHERE key = 'library_id'").fetchone()
    return str(row[0])


def _recorded_identity(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("SELECT value FROM library_state WHERE key = ?", (_IDENTITY_KEY,)).fetchone()
    return None if row is None else str(row[0])


def resolve_library_id(conn: sqlite3.Connection, path: Path | None, transaction: Transaction | None) -> str:
    """Return the id that keys this library's caches, renewing it when the file is not the one it was issued for.

    Args:
        conn: the open, migrated library.
        path: its file; None for an in-memory library (the stored id, nothing to check).
        transaction: opens a write transaction on ``conn`` (``Store.transaction``); None when
            the library must not be written (read-only or damaged): a mismatch then gives a
            derived id (32 hex digits of a SHA-256 of the stored id and the file identity),
            the same at each open of that file, and nothing is written.

    Returns:
        32 hex digits.

    Raises:
        StoreError: the file cannot be stat'ed, or the renewal cannot be written (another
            process holds the write lock for ``BUSY_TIMEOUT_S``).
    """
    try:
        stored = _stored_library_id(conn)
        recorded = _recorded_identity(conn) if path is not None else None
    except (sqlite3.DatabaseError, TypeError):
        if transaction is not None:
            raise
        # A damaged file (truncated, its library_state pages lost) opened for salvage: an id
        # of this file alone, so its caches are its own and nothing is written.
        stored, recorded = "unreadable", None
    if path is None:
        return stored
    identity = file_identity(path)
    if recorded == identity:
        return stored
    if transaction is None:
        return hashlib.sha256(f"{stored}|{identity}".encode()).hexdigest()[:32]
    with transaction() as tx:
        if _recorded_identity(tx) == identity:  # another process renewed it first
            return _stored_library_id(tx)
        renewed = secrets.token_hex(16)
        tx.execute("UPDATE library_state SET value = ? WHERE key = 'library_id'", (renewed,))
        tx.execute(
            "INSERT OR REPLACE INTO library_state (key, value) VALUES (?, ?)", (_IDENTITY_KEY, identity)
        )
    return renewed


def vectors_mark(conn: sqlite3.Connection) -> tuple[int, int, int]:
    """Return ``(max papers rowid, max embeddings rowid, generation)``: the state cache keys hold.

    Three indexed reads (microseconds); :func:`paperscope.store.vectors.vectors_fingerprint`
    returns it.
    """
    row = conn.execute(
        "SELECT (SELECT coalesce(max(rowid), 0) FROM papers),"
        " (SELECT coalesce(max(rowid), 0) FROM embeddings),"
        " (SELECT value FROM library_state WHERE key = 'generation')"
    ).fetchone()
    return int(row[0]), int(row[1]), int(row[2] or 0)


def mark_fork(conn: sqlite3.Connection, before: tuple[int, int, int]) -> None:
    """Add a random step to the generation when this transaction moved the vectors' state.

    Args:
        conn: inside the write transaction that is about to commit.
        before: :func:`vectors_mark` at the transaction's start.

    Writes that leave papers and vectors alone (stars, tags, notes, cards) write nothing here,
    so they invalidate no cache. See the module's guard 2 for why the step is random.
    """
    if vectors_mark(conn) == before:
        return
    step = 1 + secrets.randbelow(_FORK_STEP)
    conn.execute("UPDATE library_state SET value = value + ? WHERE key = 'generation'", (step,))
