"""The SQLite connection: WAL mode, migrations on open, one transaction per write batch."""

from __future__ import annotations

import contextlib
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from ..errors import StoreError
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


class Store:
    """An open library database.

    Args:
        path: database file, created with its parent folders if missing; ``":memory:"`` for tests.

    Raises:
        StoreError: the file cannot be opened, is not a paperscope library, or was written by a
            newer paperscope (its schema version is above ``SCHEMA_VERSION``).

    """

    def __init__(self, path: str | Path):
        self.path = str(path)
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S
            )
            self.conn.row_factory = sqlite3.Row
            self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot open library database: {exc}") from exc

    def _migrate(self) -> None:
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: schema version {version} is newer than this paperscope "
                f"understands ({SCHEMA_VERSION}); upgrade paperscope"
            )
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

        Raises:
            StoreError: the lock stayed taken for ``BUSY_TIMEOUT_S`` seconds.
        """
        self._begin_immediate()
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        else:
            self.conn.execute("COMMIT")

    def _begin_immediate(self) -> None:
        """Take the write lock (``BEGIN IMMEDIATE``), waiting for other writers as documented above."""
        if getattr(self, "read_only", None):
            raise StoreError(f"{self.path}: the library is read-only ({self.read_only}); nothing was written")
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

    def count(self, table: str) -> int:
        """Return the number of rows in ``table`` (one of the schema's tables)."""
        if table not in _TABLES:
            raise ValueError(f"unknown table {table!r}; choose from {sorted(_TABLES)}")
        return int(self.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    def close(self) -> None:
        """Close the connection; the file stays consistent (WAL is checkpointed by SQLite)."""
        self.conn.close()


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    """Return True when ``exc`` is SQLite's "database is locked" (another writer holds the lock)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF == sqlite3.SQLITE_BUSY
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
