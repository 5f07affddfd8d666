"""Is a file a healthy paperscope library? Header and ownership checks, and SQLite's quick check, cached.

A library file is refused (``StoreError``) when it is empty (0 bytes: SQLite would silently make
it a new library) or is not an SQLite database; an SQLite database of another program (tables but
no paperscope schema) is refused by :func:`check_ours`.

``PRAGMA quick_check`` reads every page (2.75 s cold, 0.18 s warm for a 225 MB library of 21k
papers on this machine), far more than a cold search may spend. So the check runs only when the
file changed since it last passed: a *stamp* (size, modification time and inode of the database
file; changes that sit in the ``-wal`` file are SQLite's own, replayed or discarded whole) is recorded in ``cache_dir()/checked-libraries.json`` when a check passes and
when a paperscope process closes a library it verified, so a file changed by anything else — a
crash mid-write, a copy, a disk fault — is checked again on its next open.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..config import cache_dir
from ..errors import StoreError

__all__ = [
    "SQLITE_HEADER",
    "check_file",
    "check_ours",
    "truncation",
    "Truncation",
    "quick_check",
    "Stamp",
    "stamp_of",
    "is_verified",
    "record_verified",
]

#: The first 16 bytes of every SQLite 3 database file (https://www.sqlite.org/fileformat.html §1.3.1).
SQLITE_HEADER = b"SQLite format 3\x00"
#: Stamps kept in the cache file (the most recently verified libraries).
_MAX_STAMPS = 200
_STAMPS_FILE = "checked-libraries.json"
#: Problems quick_check may list before it stops (the message shows the first few).
_QUICK_CHECK_ROWS = 20

Stamp = list[int]


def check_file(path: Path) -> None:
    """Refuse an existing file that cannot be a library: empty, unreadable, or not SQLite.

    Raises:
        StoreError: the file is 0 bytes, cannot be read, or does not start with the SQLite header.
    """
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the library file: {exc.strerror or exc}") from exc
    if not head:
        raise StoreError(
            f"{path}: the file is empty (0 bytes), not a paperscope library; refusing to reuse it"
            " (delete it, or give --db a new file name)"
        )
    if head != SQLITE_HEADER:
        raise StoreError(
            f"{path}: not a paperscope library (not an SQLite database); give --db a library file"
            " or a new file name"
        )


@dataclass(frozen=True)
class Truncation:
    """A library file shorter than its header says: ``whole_pages`` of ``pages`` remain whole."""

    page_size: int
    pages: int
    whole_pages: int
    size_bytes: int

    def __str__(self) -> str:
        return (
            f"the file is truncated: it holds {self.whole_pages:,} of the {self.pages:,} pages its"
            f" header counts ({self.size_bytes:,} of {self.pages * self.page_size:,} bytes)"
        )


def truncation(path: Path) -> Truncation | None:
    """Say whether ``path`` is shorter than its header says (a copy or download cut short).

    The header's page size (bytes 16-17) and page count (bytes 28-31, valid while the change
    counter at bytes 24-27 equals the version-valid-for number at 92-95) give the file's size
    (https://www.sqlite.org/fileformat.html §1.3). SQLite then calls every read "database disk
    image is malformed"; its ``writable_schema`` setting lets a read-only connection read the
    pages that remain. A non-empty ``-wal`` file beside it may hold the missing pages (a
    checkpoint cut short), so the file is then not called truncated.

    Returns:
        None when the file is whole, shorter than the 100-byte header or its header count is
        not valid; else its sizes (``str()`` of it is one phrase for messages).

    Raises:
        StoreError: the file cannot be read.
    """
    try:
        with path.open("rb") as handle:
            header = handle.read(100)
        size_bytes = path.stat().st_size
        wal = path.with_name(path.name + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            return None
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the library file: {exc.strerror or exc}") from exc
    if len(header) < 100:
        return None
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    if not page_size or not pages or header[24:28] != header[92:96] or size_bytes // page_size >= pages:
        return None
    return Truncation(page_size, pages, size_bytes // page_size, size_bytes)


def check_ours(conn: sqlite3.Connection, path: str, version: int) -> None:
    """Refuse an SQLite database that another program wrote.

    Args:
        conn: the open database.
        path: its file, for the message.
        version: its ``PRAGMA user_version`` (0 for a new or foreign database).

    Raises:
        StoreError: the database has tables but no paperscope ``papers`` table.
        sqlite3.DatabaseError: the schema cannot be read and holds no ``papers`` table.
    """
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError:  # a truncated schema: the part read holds the papers table
        if version > 0 and conn.execute("PRAGMA table_info(papers)").fetchall():
            return
        raise
    if not tables or (version > 0 and "papers" in tables):
        return
    shown = ", ".join(sorted(tables)[:5]) + (" …" if len(tables) > 5 else "")
    raise StoreError(
        f"{path}: an SQLite database of another program (tables: {shown}), not a paperscope library;"
        " give --db a library file or a new file name"
    )


def quick_check(conn: sqlite3.Connection) -> str | None:
    """Run ``PRAGMA quick_check``; return None when the file is sound, else its first problems in one line."""
    try:
        rows = [r[0] for r in conn.execute(f"PRAGMA quick_check({_QUICK_CHECK_ROWS})")]
    except sqlite3.DatabaseError as exc:
        return str(exc)
    if rows == ["ok"]:
        return None
    # A row may hold several lines ("*** in database main ***\nOn tree page 244 cell 97: …").
    problems = [
        p.strip() for row in rows for p in str(row).splitlines() if p.strip() and not p.startswith("***")
    ]
    shown = "; ".join(problems[:2])
    more = len(problems) - 2
    return shown + (
        f" and {more}{'+' if len(problems) >= _QUICK_CHECK_ROWS else ''} more" if more > 0 else ""
    )


def stamp_of(path: Path) -> Stamp | None:
    """Return the stamp of a library file: its size (bytes), mtime (ns) and inode; None if unreadable."""
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _stamps_path() -> Path:
    return cache_dir() / _STAMPS_FILE


def _load() -> dict[str, Stamp]:
    try:
        data = json.loads(_stamps_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def is_verified(path: Path) -> bool:
    """Return True when ``path`` passed the quick check and has not changed since."""
    stamp = stamp_of(path)
    return stamp is not None and _load().get(str(path.resolve())) == stamp


def record_verified(path: Path) -> None:
    """Record ``path``'s current stamp as checked (best effort: an unwritable cache only costs re-checks)."""
    stamp = stamp_of(path)
    if stamp is None:
        return
    stamps = _load()
    key = str(path.resolve())
    stamps.pop(key, None)
    stamps[key] = stamp
    if len(stamps) > _MAX_STAMPS:
        stamps = dict(list(stamps.items())[-_MAX_STAMPS:])
    target = _stamps_path()
    with contextlib.suppress(OSError):
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".checked-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(stamps, handle)
        os.replace(tmp, target)
