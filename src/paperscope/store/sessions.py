"""The sessions of papers (migration 10): written when a program entry is attached, read by the plan and facets.

A row is one presentation of a paper (an oral, a poster) as the program gives it. ``starts_at``
keeps the program's offset; ``starts_utc`` (``YYYY-MM-DDTHH:MM:SSZ``) orders and compares
instants; ``day`` is the local date of the start (the day an attendee reads it as).

Each program keeps its own rows, so undoing one program leaves another's. Two programs may give
the same session (a copy of the program under another file name, a corrected re-release): the
same paper, kind, start, end and name (case ignored) is one session to every reader
(:func:`paper_sessions` returns the first stored row), so the plan, the calendar and the paper
page show it once, with the UID it had.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "SESSION_COLUMNS",
    "save_sessions",
    "delete_sessions",
    "shared_sessions",
    "paper_sessions",
    "session_facet_counts",
    "session_paper_ids",
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


#: The columns that make two stored rows one session: the same paper, kind, instants and name.
_SAME_SESSION = "paper_id, kind, starts_utc, ends_utc, lower(name)"


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


def shared_sessions(conn: sqlite3.Connection, program: str) -> int:
    """Return how many of ``program``'s stored sessions another program has stored too.

    Those are the rows :func:`paper_sessions` shows once: the same paper, kind, start and end
    instants and name (case ignored).
    """
    (count,) = conn.execute(
        "SELECT count(*) FROM paper_sessions AS a WHERE a.program = ? AND EXISTS (SELECT 1 FROM"
        " paper_sessions AS b WHERE b.program != a.program AND b.paper_id = a.paper_id AND b.kind = a.kind"
        " AND b.starts_utc IS a.starts_utc AND b.ends_utc IS a.ends_utc AND lower(b.name) IS lower(a.name))",
        (program,),
    ).fetchone()
    return int(count)


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
    A session two programs give (same paper, kind, start, end and name, case ignored) is
    returned once: the row stored first.
    """
    where: list[str] = []
    params: list[Any] = []
    if paper_ids is not None:
        if not paper_ids:
            return []
        where.append("paper_id IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(list(paper_ids)))
    if day is not None:
        where.append("day = ?")
        params.append(day)
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    # SQLite's window functions (3.25+) number the rows of one session in the order stored;
    # NULLs (no time, no name) partition together, as they should
    rows = conn.execute(
        f"SELECT {', '.join(SESSION_COLUMNS)} FROM (SELECT *, row_number() OVER"
        f" (PARTITION BY {_SAME_SESSION} ORDER BY rowid) AS copy FROM paper_sessions{clause})"
        " WHERE copy = 1 ORDER BY starts_utc IS NULL, starts_utc, ends_utc, name, paper_id, position",
        params,
    ).fetchall()
    return [dict(zip(SESSION_COLUMNS, tuple(r), strict=True)) for r in rows]


#: The value of the ``session`` facet and filter: the session's name, its kind when it has none.
_SESSION_VALUE = "coalesce(name, kind)"


def session_facet_counts(
    conn: sqlite3.Connection, facet: str, where: str = "", bound: Sequence[Any] = ()
) -> list[tuple[str, str, int]]:
    """Return ``(value, label, papers)`` of the ``session`` or ``day`` facet, in time order.

    A session's value is its name (its kind when it has none), a day's the local date
    (``YYYY-MM-DD``); each paper counts once per value. Values come in the order of their first
    start (untimed ones last), as an attendee reads the program. ``where`` (`` AND paper_id IN
    …``) with ``bound`` keeps the papers counted.
    """
    value = {"session": _SESSION_VALUE, "day": "day"}[facet]
    rows = conn.execute(
        f"SELECT {value}, {value}, count(DISTINCT paper_id), min(starts_utc) FROM paper_sessions"
        f" WHERE {value} IS NOT NULL{where} GROUP BY {value} ORDER BY min(starts_utc) IS NULL,"
        f" min(starts_utc), {value}",
        list(bound),
    ).fetchall()
    return [(str(v), str(label), int(n)) for v, label, n, _ in rows]


def session_paper_ids(
    conn: sqlite3.Connection, session: str | None = None, day: str | None = None
) -> set[str]:
    """Return the papers with a session named ``session`` (ignoring case) on local day ``day``, each when given."""
    clauses, params = [], []
    if session is not None:
        clauses.append(f"lower({_SESSION_VALUE}) = lower(?)")
        params.append(session.strip())
    if day is not None:
        clauses.append("day = ?")
        params.append(day.strip())
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    return {r[0] for r in conn.execute(f"SELECT DISTINCT paper_id FROM paper_sessions{where}", params)}
