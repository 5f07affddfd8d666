"""The plain full-text index other tools read (``papers_search_fts``): paused for a bulk load.

``papers_search_fts`` (migration 12) is an FTS5 external-content index of the papers' title and
abstract for Datasette and the SQLite shell; paperscope's own search never reads it. Triggers
on ``papers`` keep it in step, one row at a time. During ``paperscope load`` those triggers were
the largest single cost: 20 s of an 85 s load of 100,000 papers (``bench/build_stages.py
--load 100000``, 2026-12-07), where rebuilding the index from ``papers`` once at the end costs
a few seconds (FTS5's ``'rebuild'`` command: https://www.sqlite.org/fts5.html#the_rebuild_command).

So a bulk load pauses the index: :func:`pause` drops the triggers and records who paused it in
``library_state`` (key ``search_fts_paused``), in the caller's transaction; :func:`resume`
rebuilds the index from ``papers`` and puts the triggers back, in one transaction. SQLite's DDL
is transactional, so the library is always either indexed with its triggers or marked paused. A
load that dies leaves the mark; the next ``load`` or ``ingest`` resumes the index before it
writes (:func:`resume_abandoned`), and ``doctor`` names it and ``doctor --repair`` resumes it.
"""

from __future__ import annotations

import os
import sqlite3

from ..worker_guard import process_running

__all__ = ["PAUSED_KEY", "holder_running", "pause", "paused_by", "resume", "resume_abandoned"]

#: The ``library_state`` key that marks the index paused; its value names the pausing process.
PAUSED_KEY = "search_fts_paused"

#: The triggers of migration 12, as it made them (the index follows every insert, edit, delete).
_TRIGGERS = (
    """CREATE TRIGGER IF NOT EXISTS papers_search_insert AFTER INSERT ON papers
    BEGIN
        INSERT INTO papers_search_fts (rowid, title, abstract) VALUES (NEW.rowid, NEW.title, NEW.abstract);
    END""",
    """CREATE TRIGGER IF NOT EXISTS papers_search_delete AFTER DELETE ON papers
    BEGIN
        INSERT INTO papers_search_fts (papers_search_fts, rowid, title, abstract)
        VALUES ('delete', OLD.rowid, OLD.title, OLD.abstract);
    END""",
    """CREATE TRIGGER IF NOT EXISTS papers_search_update AFTER UPDATE OF title, abstract ON papers
    BEGIN
        INSERT INTO papers_search_fts (papers_search_fts, rowid, title, abstract)
        VALUES ('delete', OLD.rowid, OLD.title, OLD.abstract);
        INSERT INTO papers_search_fts (rowid, title, abstract) VALUES (NEW.rowid, NEW.title, NEW.abstract);
    END""",
)
_TRIGGER_NAMES = ("papers_search_insert", "papers_search_delete", "papers_search_update")


def pause(conn: sqlite3.Connection) -> None:
    """Stop keeping the index in step with ``papers`` (call inside a transaction).

    Drops the three triggers (all of them: a ``'delete'`` of a row never indexed would corrupt
    an external-content index) and records this process (``pid HOST:PID``) as the one that
    paused it. Pausing a paused index only records this process.
    """
    for name in _TRIGGER_NAMES:
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    conn.execute(
        "INSERT OR REPLACE INTO library_state (key, value) VALUES (?, ?)",
        (PAUSED_KEY, f"pid {os.uname().nodename}:{os.getpid()}"),
    )


def paused_by(conn: sqlite3.Connection) -> str | None:
    """Return who paused the index (``pid HOST:PID``), or None when it is kept in step."""
    row = conn.execute("SELECT value FROM library_state WHERE key = ?", (PAUSED_KEY,)).fetchone()
    return None if row is None else str(row[0])


def resume(conn: sqlite3.Connection) -> bool:
    """Rebuild the index from ``papers`` and put its triggers back (call inside a transaction).

    Returns:
        True when the index was paused (and is now rebuilt), False when there was nothing to do.
        Costs one pass over every paper's title and abstract: about 4 s per 100,000 papers.
    """
    if paused_by(conn) is None:
        return False
    conn.execute("INSERT INTO papers_search_fts (papers_search_fts) VALUES ('rebuild')")
    for sql in _TRIGGERS:
        conn.execute(sql)
    conn.execute("DELETE FROM library_state WHERE key = ?", (PAUSED_KEY,))
    return True


def resume_abandoned(conn: sqlite3.Connection) -> bool:
    """Resume an index a process that no longer runs paused (call inside a transaction).

    A load still running on this host keeps its pause (it resumes at its end); see
    :func:`holder_running`. Returns True when the index was rebuilt.
    """
    holder = paused_by(conn)
    if holder is None or holder_running(holder):
        return False
    return resume(conn)


def holder_running(holder: str) -> bool:
    """Return True when the process ``holder`` (``pid HOST:PID``) names runs on this host.

    A holder on another host (a library on a shared disk) cannot be asked and is taken as gone:
    resuming under a running load only costs that load its speed, never a paper.
    """
    host, _, pid = holder.removeprefix("pid ").rpartition(":")
    if host != os.uname().nodename or not pid.isdigit() or int(pid) == os.getpid():
        return False
    return process_running(int(pid))
