"""Whose on-disk caches a library file reads: its ``library_id``, renewed when the file is another one.

The caches under ``cache_dir()/indexes/LIBRARY_ID`` (vector matrix, HNSW graph, BM25 statistics,
recommendation graph) are keyed by the id stored in the file's ``library_state`` table. A copy
of the file carries that row along, so before issue 26 a copy and its original read each other's
caches: dense search in one returned the other's papers.

**The id is issued to one file.** Beside the id the library records the *file identity* it was
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

__all__ = ["file_identity", "resolve_library_id"]

#: The ``library_state`` key of the file identity the stored ``library_id`` was issued for.
_IDENTITY_KEY = "file_identity"

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
    stored = _stored_library_id(conn)
    if path is None:
        return stored
    identity = file_identity(path)
    if _recorded_identity(conn) == identity:
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
