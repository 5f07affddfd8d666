"""The SQLite connection: WAL mode, migrations on open, one transaction per write batch."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

from ..errors import ReadOnlyLibrary, StoreError
from ..text import strip_controls
from . import health, identity
from .lexical import ensure_lexical_index
from .migrations import MIGRATIONS

__all__ = ["Store", "SCHEMA_VERSION", "BUSY_TIMEOUT_S", "WAIT_MESSAGE"]

SCHEMA_VERSION = len(MIGRATIONS)
#: Seconds a write waits in all for another process's write transaction before it fails with a
#: StoreError. Writers hold the lock for one batch at a time (an ingest commits every 1,000
#: records, cards every 500, vectors every embedding batch: about a second each), so only a
#: ``--strict`` ingest (one transaction for everything) or a damaged lock holds it longer.
BUSY_TIMEOUT_S = 60.0
#: Seconds a write waits silently before it says once on stderr that it is waiting.
_QUIET_WAIT_S = 0.25
#: The line printed (once per open library) when a write has to wait for another writer.
WAIT_MESSAGE = "waiting for another paperscope writing this library…"

#: Stores of this process open on each library file, by ``(st_dev, st_ino)``. Closing any
#: descriptor of a file drops every POSIX lock this process holds on it (fcntl(2)), SQLite's
#: included; another process closing the library then takes itself for the last one and deletes
#: the WAL under the open connections (a server that opened one more pooled connection did
#: that, and later answered "file is not a database"). So the raw reads of the file
#: (``health.check_file``, ``health.truncation``) run only while no Store of this process has it
#: open, under ``_FILES_LOCK`` so that no other thread connects meanwhile.
_OPEN_FILES: dict[tuple[int, int], int] = {}
_FILES_LOCK = threading.Lock()


def _file_key(file: Path) -> tuple[int, int] | None:
    """Return the ``(st_dev, st_ino)`` of ``file``, None when it cannot be stat-ed."""
    try:
        st = file.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


class Store:
    """An open library database.

    Args:
        path: database file, created with its parent folders if missing; ``":memory:"`` for tests.
        read_only: open without writing; None (default) decides: read-only when the file or its
            folder cannot be written (a read-only mount or copy) or fails the quick check,
            read-write otherwise. False opens even a damaged file for writing (for repairs).

    A read-only library opens with SQLite's ``mode=ro``, or ``immutable=1`` when the WAL side
    files cannot be created beside it. An existing file that fails SQLite's quick check
    (:mod:`paperscope.store.health`) is opened read-only too, with :attr:`damaged` saying why.
    Any write then raises StoreError with one line saying the library is read-only.

    Attributes:
        read_only: why the library is read-only (one phrase), or None when it is writable.
        damaged: the quick check's finding when the file failed it, else None.
        library_id: what this file's on-disk caches are keyed by (32 hex digits): the stored id,
            renewed on open when the file is a copy of the one it was issued for
            (:mod:`paperscope.store.identity`).

    Raises:
        StoreError: the file cannot be opened, is empty (0 bytes), is not a paperscope library,
            was written by a newer paperscope (its schema version is above ``SCHEMA_VERSION``),
            or is read-only and needs a migration.

    """

    def __init__(self, path: str | Path, read_only: bool | None = None):
        self.path = str(path)
        self.read_only: str | None = None
        self.damaged: str | None = None
        self._verified = False
        self._checked_ours = False
        self._marks_forks = False
        self._file_key: tuple[int, int] | None = None
        try:
            if self.path == ":memory:":
                self._connect(self.path)
            else:
                self._open_file(Path(self.path), read_only)
            self.conn.row_factory = sqlite3.Row
            self._migrate()
            self._marks_forks = self.read_only is None
            if self.read_only is None:
                ensure_lexical_index(self.conn, self.transaction)
            writable = self.read_only is None and self.damaged is None
            self.library_id = identity.resolve_library_id(
                self.conn,
                None if self.path == ":memory:" else Path(self.path),
                self.transaction if writable else None,
            )
            if self._file_key is None and self.path != ":memory:":
                self._hold_file(Path(self.path))  # a new file: it exists now
        except sqlite3.DatabaseError as exc:
            self._release_file()
            raise StoreError(f"{self.path}: cannot open library database: {exc}") from exc
        except BaseException:
            self._release_file()
            raise

    def _hold_file(self, file: Path) -> None:
        """Count this Store among those of this process open on ``file`` (see ``_OPEN_FILES``)."""
        with _FILES_LOCK:
            self._count_open(_file_key(file))

    def _count_open(self, key: tuple[int, int] | None) -> None:
        """Count this Store as open on the file of ``key`` (call with ``_FILES_LOCK`` held)."""
        if key is not None:
            _OPEN_FILES[key] = _OPEN_FILES.get(key, 0) + 1
            self._file_key = key

    def _release_file(self) -> None:
        """Stop counting this Store as open on its file (once; see ``_OPEN_FILES``)."""
        key, self._file_key = self._file_key, None
        if key is None:
            return
        with _FILES_LOCK:
            left = _OPEN_FILES.get(key, 0) - 1
            if left > 0:
                _OPEN_FILES[key] = left
            else:
                _OPEN_FILES.pop(key, None)

    def _connect(self, target: str, uri: bool = False) -> None:
        self.conn = sqlite3.connect(
            target, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S, uri=uri
        )

    def _open_file(self, file: Path, read_only: bool | None) -> None:
        explicit_write = read_only is False
        exists = file.exists()
        if exists:
            with _FILES_LOCK:
                key = _file_key(file)
                cut = None
                if key is None or not _OPEN_FILES.get(key):
                    # No Store here has the file open: reading it raw drops no lock of ours.
                    health.check_file(file)
                    cut = health.truncation(file)
                self._count_open(key)  # before connecting: no thread reads it raw from now
            if cut is not None:
                self._open_truncated(file, cut, explicit_write)
                return
        elif read_only:
            raise StoreError(f"{file}: no library there")
        if read_only is None and exists:
            read_only = not (os.access(file, os.W_OK) and os.access(file.parent, os.W_OK))
            reason = "its file or folder cannot be written (a read-only mount or copy)"
        else:
            reason = "opened read-only"
        if read_only:
            self._open_read_only(file, reason)
            return
        if explicit_write and exists and not (os.access(file, os.W_OK) and os.access(file.parent, os.W_OK)):
            raise ReadOnlyLibrary(
                f"{file}: the library is read-only (its file or folder cannot be written): copy it to a"
                " folder you can write to repair or change it"
            )
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"{file.parent}: cannot create the library folder: {exc.strerror or exc}"
            ) from exc
        verified = not exists or health.is_verified(file)
        self._connect(str(file))
        if exists:  # before WAL mode is set: a refused file is left exactly as it was
            version = self.conn.execute("PRAGMA user_version").fetchone()[0]
            health.check_ours(self.conn, str(file), version)
            self._checked_ours = True
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.conn.execute("PRAGMA foreign_keys = ON")
        if verified:
            self._verified = True
            return
        problem = health.quick_check(self.conn)
        if problem is None:
            self._verified = True
            health.record_verified(file)
            return
        self.damaged = problem
        if explicit_write:
            return  # `doctor --repair` opens a damaged library to repair it
        self.conn.close()
        self._open_read_only(file, "it failed SQLite's quick check")

    def _open_truncated(self, file: Path, cut: health.Truncation, explicit_write: bool) -> None:
        """Open a truncated file read-only, reading the pages it still holds.

        ``writable_schema`` makes SQLite take the file's own size instead of refusing every read
        (https://www.sqlite.org/pragma.html#pragma_writable_schema); a read-only connection
        cannot write, so nothing else changes. Rows on the missing pages fail one by one.

        Raises:
            StoreError: ``explicit_write`` (a repair in place): a truncated file cannot be mended.
        """
        if explicit_write:
            raise StoreError(
                f"{file}: {cut}; a repair in place cannot mend it: `paperscope --db {file} doctor"
                " --salvage NEW.db` copies the rows it still holds into a new library"
            )
        self.damaged = str(cut)
        self._open_read_only(file, "it is truncated", truncated=True)

    def _open_read_only(self, file: Path, reason: str, truncated: bool = False) -> None:
        """Open with ``mode=ro``; fall back to ``immutable=1`` when the WAL side files cannot exist."""
        base = "file:" + urllib.parse.quote(str(file.resolve()))
        self.read_only = reason
        self._connect(base + "?mode=ro", uri=True)
        if truncated:
            self.conn.execute("PRAGMA writable_schema = ON")
        try:
            probe = (
                "SELECT 1 FROM sqlite_master LIMIT 1" if truncated else "SELECT count(*) FROM sqlite_master"
            )
            self.conn.execute(probe).fetchone()
        except sqlite3.OperationalError:
            self.conn.close()
            self._connect(base + "?immutable=1", uri=True)
            if truncated:
                self.conn.execute("PRAGMA writable_schema = ON")
        except sqlite3.DatabaseError:
            # A truncated file whose schema lost pages: with writable_schema, SQLite keeps the
            # part of the schema it read before the failure for the statements that follow.
            if not truncated:
                raise

    def _migrate(self) -> None:
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if not self._checked_ours:  # a read-only or new file: checked here, once
            health.check_ours(self.conn, self.path, version)
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: schema version {version} is newer than this paperscope "
                f"understands ({SCHEMA_VERSION}); upgrade paperscope"
            )
        if version < SCHEMA_VERSION and self.read_only:
            raise StoreError(
                f"{self.path}: this library has schema version {version} and needs upgrading to"
                f" {SCHEMA_VERSION}, but it is read-only ({self.read_only}); open it once where it"
                " can be written"
            )
        if version < SCHEMA_VERSION:
            # Migration 13 cleans the user's tags and notes with the function ingest uses.
            self.conn.create_function("strip_controls", 1, strip_controls, deterministic=True)
        for number in range(version, SCHEMA_VERSION):
            with self.transaction():
                for statement in _split_sql(MIGRATIONS[number]):
                    self.conn.execute(statement)
                self.conn.execute(f"PRAGMA user_version = {number + 1}")

    @property
    def schema_version(self) -> int:
        """The schema version of the open database (``PRAGMA user_version``)."""
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Run the block in one ``BEGIN IMMEDIATE`` transaction: all of it is written, or none.

        Writers queue: when another connection (another paperscope process, or the web server)
        holds the write lock, this waits up to ``BUSY_TIMEOUT_S`` seconds in all, printing
        :data:`WAIT_MESSAGE` once on stderr after the first ``_QUIET_WAIT_S``.

        A transaction that adds, edits or deletes papers or vectors also moves the generation by
        a random step (:func:`paperscope.store.identity.mark_fork`), so a restored or copied
        file that is then written never reaches the cache keys of the history it forked from.

        Raises:
            ReadOnlyLibrary: the library is read-only (:attr:`read_only`).
            StoreError: the lock stayed taken for ``BUSY_TIMEOUT_S`` seconds.
        """
        self._begin_immediate()
        try:
            before = identity.vectors_mark(self.conn) if self._marks_forks else None
            yield self.conn
            if before is not None:
                identity.mark_fork(self.conn, before)
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        else:
            self.conn.execute("COMMIT")

    def _begin_immediate(self) -> None:
        """Take the write lock (``BEGIN IMMEDIATE``), waiting for other writers as documented above."""
        self.require_writable()
        started = time.monotonic()
        wait_s = _QUIET_WAIT_S
        try:
            while True:
                self.conn.execute(f"PRAGMA busy_timeout = {int(wait_s * 1000)}")
                try:
                    self.conn.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as exc:
                    if not _is_busy(exc):
                        raise StoreError(f"{self.path}: cannot write the library: {exc}") from exc
                waited = time.monotonic() - started
                if waited >= BUSY_TIMEOUT_S:
                    raise StoreError(
                        f"{self.path}: another paperscope kept this library locked for writing for"
                        f" {waited:.0f} s; try again when it has finished"
                    )
                if not getattr(self, "_told_waiting", False):
                    self._told_waiting = True
                    print(WAIT_MESSAGE, file=sys.stderr, flush=True)
                wait_s = max(0.01, min(1.0, BUSY_TIMEOUT_S - waited))
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")

    def require_writable(self) -> None:
        """Raise ReadOnlyLibrary (a StoreError) with one line when the library is read-only."""
        if self.read_only is None:
            return
        hint = (
            "run `paperscope doctor` to see what is wrong and how to repair it"
            if self.damaged
            else "nothing was written; copy it to a folder you can write to change it"
        )
        raise ReadOnlyLibrary(f"{self.path}: the library is read-only ({self.read_only}): {hint}")

    def count(self, table: str) -> int:
        """Return the number of rows in ``table`` (one of the schema's tables)."""
        if table not in _TABLES:
            raise ValueError(f"unknown table {table!r}; choose from {sorted(_TABLES)}")
        return int(self.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    def close(self) -> None:
        """Close the connection; the file stays consistent (WAL is checkpointed by SQLite).

        A library that passed the quick check when it was opened has its new stamp recorded, so
        the next open skips the check (:mod:`paperscope.store.health`).
        """
        self.conn.close()
        self._release_file()
        if self._verified and self.path != ":memory:":
            health.record_verified(Path(self.path))
            self._verified = False


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    """Return True when ``exc`` is SQLite's "database is locked" (another writer holds the lock)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return bool(code & 0xFF == sqlite3.SQLITE_BUSY)
    return "locked" in str(exc) or "busy" in str(exc)


_TABLES = {"papers", "sources", "cards", "stars", "tags", "notes", "papers_fts"}


def _split_sql(script: str) -> list[str]:
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    return [s for s in statements if s]
