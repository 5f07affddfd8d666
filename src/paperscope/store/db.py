"""The SQLite connection: WAL mode, migrations on open, one transaction per write batch."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from ..errors import StoreError
from .migrations import MIGRATIONS

__all__ = ["Store", "SCHEMA_VERSION", "BUSY_TIMEOUT_S"]

SCHEMA_VERSION = len(MIGRATIONS)
#: Seconds a write waits for another connection's write transaction (an ingest writes one file
#: per transaction) before SQLite gives up with "database is locked".
BUSY_TIMEOUT_S = 30.0


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
        """Run the block in one ``BEGIN IMMEDIATE`` transaction: all of it is written, or none."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        else:
            self.conn.execute("COMMIT")

    def count(self, table: str) -> int:
        """Return the number of rows in ``table`` (one of the schema's tables)."""
        if table not in _TABLES:
            raise ValueError(f"unknown table {table!r}; choose from {sorted(_TABLES)}")
        return int(self.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    def close(self) -> None:
        """Close the connection; the file stays consistent (WAL is checkpointed by SQLite)."""
        self.conn.close()


_TABLES = {"papers", "sources", "cards", "stars", "tags", "notes", "papers_fts"}


def _split_sql(script: str) -> list[str]:
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    return [s for s in statements if s]
