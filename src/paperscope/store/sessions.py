"""The sessions of papers (migration 10): written when a program entry is attached, read by the plan and facets.

A row is one presentation of a paper (an oral, a poster) as the program gives it. ``starts_at``
keeps the program's offset; ``starts_utc`` (``YYYY-MM-DDTHH:MM:SSZ``) orders and compares
instants; ``day`` is the local date of the start (the day an attendee reads it as).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "SESSION_COLUMNS",
    "save_sessions",
    "delete_sessions",
    "paper_sessions",
    "session_facet_counts",
]

#: The columns a stored session row is read back with, in order.
SESSION_COLUMNS = (
    "paper_id",
    "program",
    "entry_line",
    "position",
    "kind",
    "name",
    "starts_at",
    "ends_at",
    "starts_utc",
    "ends_utc",
    "day",
    "timezone",
    "room",
    "url",
    "line",
)


def _utc(stamp: str | None) -> str | None:
    if not stamp:
        return None
    return datetime.fromisoformat(stamp).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def save_sessions(
    conn: sqlite3.Connection,
    paper_id: str,
    program: str,
    entry_line: int,
    sessions: Iterable[Mapping[str, Any]],
) -> int:
    """Replace ``paper_id``'s sessions from ``program`` by ``sessions``; return how many were stored.

    Each session is a mapping with ``kind``, ``name``, ``starts_at``, ``ends_at`` (ISO 8601 with
    an offset, or None), ``timezone``, ``room``, ``url`` and ``line``
    (``ProgramSession.to_dict()``). Call inside the transaction that attaches the entry.
    """
    delete_sessions(conn, paper_id, program)
    rows = [
        (
            paper_id,
            program,
            entry_line,
            position,
            s["kind"],
            s.get("name"),
            s.get("starts_at"),
            s.get("ends_at"),
            _utc(s.get("starts_at")),
            _utc(s.get("ends_at")),
            s["starts_at"][:10] if s.get("starts_at") else None,
            s.get("timezone"),
            s.get("room"),
            s.get("url"),
            int(s.get("line") or entry_line),
        )
        for position, s in enumerate(sessions, start=1)
    ]
    conn.executemany(
        f"INSERT INTO paper_sessions ({', '.join(SESSION_COLUMNS)}) VALUES ({', '.join('?' * len(SESSION_COLUMNS))})",
        rows,
    )
    return len(rows)


def delete_sessions(conn: sqlite3.Connection, paper_id: str, program: str | None = None) -> None:
    """Remove ``paper_id``'s sessions (of ``program`` only, when given)."""
    if program is None:
        conn.execute("DELETE FROM paper_sessions WHERE paper_id = ?", (paper_id,))
    else:
        conn.execute("DELETE FROM paper_sessions WHERE paper_id = ? AND program = ?", (paper_id, program))


def paper_sessions(
    conn: sqlite3.Connection, paper_ids: Sequence[str] | None = None, day: str | None = None
) -> list[dict[str, Any]]:
    """Return stored sessions in time order (untimed last), each a dict of :data:`SESSION_COLUMNS`.

    ``paper_ids`` keeps those papers' sessions, ``day`` (``YYYY-MM-DD``, local) those of one day.
    """
    where: list[str] = []
    params: list[Any] = []
    if paper_ids is not None:
        if not paper_ids:
            return []
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS _session_papers (paper_id TEXT PRIMARY KEY)")
        conn.execute("DELETE FROM _session_papers")
        conn.executemany("INSERT OR IGNORE INTO _session_papers VALUES (?)", [(p,) for p in paper_ids])
        where.append("paper_id IN (SELECT paper_id FROM _session_papers)")
    if day is not None:
        where.append("day = ?")
        params.append(day)
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    rows = conn.execute(
        f"SELECT {', '.join(SESSION_COLUMNS)} FROM paper_sessions{clause}"
        " ORDER BY starts_utc IS NULL, starts_utc, ends_utc, name, paper_id, position",
        params,
    ).fetchall()
    return [dict(zip(SESSION_COLUMNS, tuple(r), strict=True)) for r in rows]


def session_facet_counts(
    conn: sqlite3.Connection, facet: str, paper_ids: Sequence[str] | None = None
) -> list[tuple[str, str, int]]:
    """Return ``(value, label, papers)`` of the ``session`` or ``day`` facet, in time order.

    A session's value is its name (its kind when it has none), a day's the local date
    (``YYYY-MM-DD``); each paper counts once per value. Values come in the order of their first
    start, as an attendee reads the program.
    """
    rows = paper_sessions(conn, paper_ids)
    counts: dict[str, set[str]] = {}
    for row in rows:
        value = row["name"] or row["kind"] if facet == "session" else row["day"]
        if value:
            counts.setdefault(value, set()).add(row["paper_id"])
    return [(v, v, len(p)) for v, p in counts.items()]
