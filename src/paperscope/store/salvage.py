"""Salvage: copy every row a damaged library can still give into a new library file.

``paperscope doctor --salvage NEW.db`` (:meth:`paperscope.Library.salvage`) for damage that a
reindex cannot mend (pages overwritten, a truncated copy). The damaged file is opened read-only
and never written. Rows are read in rowid ranges of ``_CHUNK``; a range that fails is split in
halves down to single rows, so one bad page costs the rows on it, not the table. Rows whose text
is not valid UTF-8 (bytes of a damaged page read as text) count as lost.

Copied: papers, their sources, cards and vectors, and the user's own data (stars, tags, notes,
triage states), keeping rowids so the order papers were added in stays. Rebuilt afterwards by
``doctor --repair`` on the new file (the caller runs it): the lexical index, near-duplicate keys
and facet rows. Topics are not copied: fit them again.
"""

from __future__ import annotations

import sqlite3
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["SALVAGED_TABLES", "SalvageReport", "salvage_rows"]

#: Tables copied, parents before children; the others are rebuilt or refitted.
SALVAGED_TABLES = (
    "papers", "sources", "cards", "embeddings", "stars", "tags", "notes", "triage",
    "enrichments", "enrich_suggestions",  # what enrich attached, so `enrich --undo` still works
    "paper_sessions",  # the sessions enrich attached: a rerun does not attach them again
)  # fmt: skip
#: Tables an older schema may lack (they are then skipped, not reported unreadable).
_OPTIONAL_TABLES = ("enrichments", "enrich_suggestions", "paper_sessions")
#: Rowids read per statement.
_CHUNK = 512
#: Rows per paper a table is scanned for when its b-tree ends cannot be read.
_FALLBACK_ROWS_PER_PAPER = 4
#: Consecutive ranges of only unreadable rows after which a table's scan stops.
_GIVE_UP_CHUNKS = 4


@dataclass
class SalvageReport:
    """Rows copied and lost per table (``{table: count}``), and tables that could not be read."""

    copied: dict[str, int] = field(default_factory=dict)
    lost: dict[str, int] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {"copied": self.copied, "lost": self.lost, "unreadable": self.unreadable}


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


def _bounds(old: sqlite3.Connection, table: str) -> tuple[int, int] | None:
    try:
        low, high = old.execute(f"SELECT min(rowid), max(rowid) FROM {table}").fetchone()
    except sqlite3.DatabaseError:
        return None
    return (low, high) if low is not None else (1, 0)


def _read(old: sqlite3.Connection, sql: str, low: int, high: int, lost: list[int]) -> list[tuple]:
    """Return the rows with rowid in [low, high]; bisect around ranges that fail, counting losses."""
    try:
        rows = old.execute(sql, (low, high)).fetchall()
    except (sqlite3.DatabaseError, UnicodeDecodeError, ValueError):
        if low >= high:
            lost[0] += 1
            return []
        middle = (low + high) // 2
        return _read(old, sql, low, middle, lost) + _read(old, sql, middle + 1, high, lost)
    return rows


def salvage_rows(damaged: Path, target: sqlite3.Connection) -> SalvageReport:
    """Copy the readable rows of ``damaged`` into the open (new, empty) library ``target``.

    Args:
        damaged: the damaged library file; opened read-only (``mode=ro``), never written.
        target: a connection to a new library of the current schema, inside no transaction.

    Returns:
        What was copied and lost per table. A lost count is of rows in failing rowid ranges
        (a gap in the rowids of a damaged page may count as one).

    Raises:
        sqlite3.DatabaseError: the damaged file cannot be opened at all.
    """
    report = SalvageReport()
    old = sqlite3.connect(f"file:{urllib.parse.quote(str(damaged.resolve()))}?mode=ro", uri=True)
    try:
        target.execute("PRAGMA foreign_keys = OFF")  # a card whose paper row was lost: kept, then judged
        for table in SALVAGED_TABLES:
            try:
                old_columns = set(_columns(old, table))
            except sqlite3.DatabaseError:
                old_columns = set()
            if not old_columns and table in _OPTIONAL_TABLES and _missing_table(old, table):
                continue
            if not old_columns:
                report.unreadable.append(table)
                continue
            # min/max read the b-tree's ends; when those pages are gone, scan a range sized
            # from the papers copied (sources, cards, vectors and marks have a few rows per paper).
            bounds = _bounds(old, table) or (
                1,
                _FALLBACK_ROWS_PER_PAPER * (report.copied.get("papers", 0) + 1000),
            )
            columns = [c for c in _columns(target, table) if c in old_columns]
            names = ", ".join(columns)
            select = f"SELECT rowid, {names} FROM {table} WHERE rowid BETWEEN ? AND ? ORDER BY rowid"
            insert = f"INSERT OR IGNORE INTO {table} (rowid, {names}) VALUES ({', '.join('?' * (len(columns) + 1))})"
            copied, lost = 0, [0]
            low, high = bounds
            failing = 0
            for start in range(low, high + 1, _CHUNK):
                end = min(start + _CHUNK - 1, high)
                before_lost = lost[0]
                rows = _read(old, select, start, end, lost)
                failing = failing + 1 if lost[0] - before_lost > end - start else 0
                if failing >= _GIVE_UP_CHUNKS:  # the table's pages are gone from here on
                    report.unreadable.append(table)
                    break
                target.execute("BEGIN IMMEDIATE")
                before = target.total_changes
                target.executemany(insert, rows)
                copied += target.total_changes - before
                target.execute("COMMIT")
            report.copied[table] = copied
            report.lost[table] = lost[0]
        target.execute("UPDATE papers SET dedup_indexed = 0")
    finally:
        target.execute("PRAGMA foreign_keys = ON")
        old.close()
    return report


def _missing_table(conn: sqlite3.Connection, table: str) -> bool:
    """True when the schema has no such table (an older library), False when it cannot be read."""
    try:
        row = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        ).fetchone()
    except sqlite3.DatabaseError:
        return False
    return row is None
