"""Salvage: copy every row a damaged library can still give into a new library file.

``paperscope doctor --salvage NEW.db`` (:meth:`paperscope.Library.salvage`) for damage that a
reindex cannot mend (pages overwritten, a truncated copy). The damaged file is opened read-only
and never written; ``writable_schema`` lets SQLite read a truncated file's remaining pages (it
refuses every read of a file shorter than its header says otherwise). Rows on leaves that no
b-tree reaches any more (their interior page is lost) are then read from the pages themselves
(:mod:`paperscope.store.pagewalk`). Rows are read in rowid ranges of ``_CHUNK``; a range that fails is split in
halves down to single rows, so one bad page costs the rows on it, not the table. Rows whose text
is not valid UTF-8 (bytes of a damaged page read as text) count as lost.

Copied: papers, their sources, cards and vectors, and the user's own data (stars, tags, notes,
triage states), keeping rowids so the order papers were added in stays. Rebuilt afterwards by
``doctor --repair`` on the new file (the caller runs it): the lexical index, near-duplicate keys
and facet rows. Topics are not copied: fit them again.
"""

from __future__ import annotations

import contextlib
import sqlite3
import tempfile
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .health import Truncation, truncation
from .pagewalk import orphan_rows

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
#: Consecutive ranges of only unreadable rows after which a table's scan stops.
_GIVE_UP_CHUNKS = 4
#: Consecutive ranges without a row after which the scan of a table whose last rowid cannot be
#: read (its b-tree's right edge is on a lost page, as in every truncated file) stops: 8,192
#: rowids, past any gap that deletes leave in this library's tables.
_GIVE_UP_CHUNKS_UNBOUNDED = 16


@dataclass
class SalvageReport:
    """What a salvage copied: rows copied and lost per table (``{table: count}``) and more.

    ``unreadable`` names the tables that could not be read to their end (some rows may be
    copied); ``truncated`` says how the file is truncated
    (:func:`paperscope.store.health.truncation`), or is None; ``walked``
    counts per table the rows (among those copied) read from pages no b-tree reached.
    """

    copied: dict[str, int] = field(default_factory=dict)
    lost: dict[str, int] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)
    truncated: str | None = None
    walked: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {
            "copied": self.copied,
            "lost": self.lost,
            "unreadable": self.unreadable,
            "truncated": self.truncated,
            "walked": self.walked,
        }


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


def _bounds(old: sqlite3.Connection, table: str) -> tuple[int, int] | None:
    try:
        low, high = old.execute(f"SELECT min(rowid), max(rowid) FROM {table}").fetchone()
    except sqlite3.DatabaseError:
        return None
    return (low, high) if low is not None else (1, 0)


def _read(old: sqlite3.Connection, sql: str, low: int, high: int, lost: list[int]) -> list[tuple[Any, ...]]:
    """Return the rows with rowid in [low, high]; bisect around ranges that fail, appending failed rowids to ``lost``."""
    try:
        if low == high:  # a point lookup: a range read steps on to the next leaf, which may be lost
            return old.execute(sql.replace("BETWEEN ? AND ?", "= ?"), (low,)).fetchall()
        rows = old.execute(sql, (low, high)).fetchall()
    except (sqlite3.DatabaseError, UnicodeDecodeError, ValueError):
        if low >= high:
            lost.append(low)
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
        What was copied and lost per table. A lost count is of rowids that failed to read (a
        gap in the rowids of a damaged page may count as one); where a table's last rowid cannot
        be read (a truncated file), of those below the last rowid copied.

    Raises:
        sqlite3.DatabaseError: the damaged file cannot be opened at all.
        StoreError: the damaged file cannot be read (from :func:`truncation`).
    """
    cut = truncation(damaged)
    report = SalvageReport(truncated=str(cut) if cut else None)
    with contextlib.ExitStack() as stack:
        if cut is not None:
            damaged = stack.enter_context(_whole_pages(damaged, cut, target))
        old = sqlite3.connect(f"file:{urllib.parse.quote(str(damaged.resolve()))}?mode=ro", uri=True)
        stack.callback(old.close)
        # A truncated file: SQLite refuses every read of a file shorter than its header says
        # unless writable_schema is on (then it reads the pages that remain); read-only here.
        old.execute("PRAGMA writable_schema = ON")
        _copy_tables(old, target, report, damaged)
    return report


@contextlib.contextmanager
def _whole_pages(damaged: Path, cut: Truncation, target: sqlite3.Connection) -> Iterator[Path]:
    """Yield a temporary copy of the whole pages of a truncated file, beside the target library.

    SQLite reads a last page cut mid-way as if its missing bytes were zeros, and rows decoded
    from zeros are not data (NUL text, zero vectors); without that page they count as lost.
    """
    folder = Path(target.execute("PRAGMA database_list").fetchone()[2]).parent
    with tempfile.TemporaryDirectory(dir=folder, prefix=".salvage-") as temp:
        copy = Path(temp) / "whole-pages.db"
        with damaged.open("rb") as source, copy.open("wb") as sink:
            left = cut.whole_pages * cut.page_size
            while left:
                block = source.read(min(left, 1 << 20))
                sink.write(block)
                left -= len(block)
        yield copy


def _copy_tables(
    old: sqlite3.Connection, target: sqlite3.Connection, report: SalvageReport, damaged: Path
) -> None:
    """Copy each of ``SALVAGED_TABLES`` from ``old`` into ``target``, filling ``report``.

    First through SQLite (rowid ranges), then from the orphan leaves of ``damaged``, the rows
    under a lost interior page that SQLite cannot reach (:mod:`paperscope.store.pagewalk`).
    """
    failed: dict[str, list[int]] = {}
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
            columns = [c for c in _columns(target, table) if c in old_columns]
            copied, failed[table], whole = _copy_table(old, target, table, columns)
            if not whole:
                report.unreadable.append(table)
            report.copied[table] = copied
            report.lost[table] = len(failed[table])
        _copy_orphans(old, target, report, damaged, failed)
        target.execute("UPDATE papers SET dedup_indexed = 0")
    finally:
        target.execute("PRAGMA foreign_keys = ON")


def _copy_table(
    old: sqlite3.Connection, target: sqlite3.Connection, table: str, columns: list[str]
) -> tuple[int, list[int], bool]:
    """Copy the readable rows of one table in rowid ranges; return (copied, lost rowids, whole).

    ``whole`` is False when the scan stopped at a run of unreadable ranges before the table's
    last rowid, or read nothing at all from a table whose last rowid is unknown. When the last
    rowid cannot be read, the scan goes on until ``_GIVE_UP_CHUNKS_UNBOUNDED`` ranges in a row
    give no row, and only failures below the last rowid copied count as lost (past the table's
    end, rowids fail just as on a lost page, so they may never have held a row).
    """
    names = ", ".join(columns)
    select = f"SELECT rowid, {names} FROM {table} WHERE rowid BETWEEN ? AND ? ORDER BY rowid"
    insert = f"INSERT OR IGNORE INTO {table} (rowid, {names}) VALUES ({', '.join('?' * (len(columns) + 1))})"
    bounds = _bounds(old, table)
    low, high = bounds if bounds is not None else (1, 2**63 - 1)
    copied, last = 0, 0
    lost: list[int] = []
    failing = 0
    for start in range(low, high + 1, _CHUNK):
        end = min(start + _CHUNK - 1, high)
        before_lost = len(lost)
        rows = _read(old, select, start, end, lost)
        if rows:
            last = rows[-1][0]
        if bounds is not None:
            failing = failing + 1 if len(lost) - before_lost > end - start else 0
            if failing >= _GIVE_UP_CHUNKS:  # the table's pages are gone from here on
                return copied, lost, False
        else:
            failing = 0 if rows else failing + 1
            if failing >= _GIVE_UP_CHUNKS_UNBOUNDED:
                return copied, [rowid for rowid in lost if rowid < last], copied > 0
        target.execute("BEGIN IMMEDIATE")
        # rowcount counts the rows inserted, not what the lexical index's triggers wrote
        copied += max(target.executemany(insert, rows).rowcount, 0)
        target.execute("COMMIT")
    return copied, lost, True


def _copy_orphans(
    old: sqlite3.Connection,
    target: sqlite3.Connection,
    report: SalvageReport,
    damaged: Path,
    failed: dict[str, list[int]],
) -> None:
    """Copy the rows of orphan leaves (:func:`orphan_rows`) of the tables already scanned.

    A row found so is no longer counted lost; ``report.walked`` says how many each table got.
    """
    info = {table: list(old.execute(f"PRAGMA table_info({table})")) for table in failed}
    orphans = orphan_rows(damaged, {table: [row[2] for row in rows] for table, rows in info.items()})
    target_columns = {table: set(_columns(target, table)) for table in orphans.rows}
    for table, rows in orphans.rows.items():
        names = [row[1] for row in info[table]]
        keys = [row for row in info[table] if row[5]]
        alias = names.index(keys[0][1]) if len(keys) == 1 and keys[0][2].upper() == "INTEGER" else None
        copied = 0
        target.execute("BEGIN IMMEDIATE")
        for rowid, values in rows:
            if alias is not None and alias < len(values):
                values[alias] = rowid
            kept = [(n, v) for n, v in zip(names, values, strict=False) if n in target_columns[table]]
            insert = (
                f"INSERT OR IGNORE INTO {table} (rowid, {', '.join(n for n, _ in kept)})"
                f" VALUES ({', '.join('?' * (len(kept) + 1))})"
            )
            copied += target.execute(insert, [rowid, *(v for _, v in kept)]).rowcount
        target.execute("COMMIT")
        found = {rowid for rowid, _ in rows}
        report.walked[table] = copied
        report.copied[table] += copied
        report.lost[table] = len([rowid for rowid in failed[table] if rowid not in found])


def _missing_table(conn: sqlite3.Connection, table: str) -> bool:
    """True when the schema has no such table (an older library), False when it cannot be read."""
    try:
        row = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        ).fetchone()
    except sqlite3.DatabaseError:
        return False
    return row is None
