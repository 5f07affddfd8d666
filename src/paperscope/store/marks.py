"""The user's own data: stars, tags and notes. Ingest and rebuilds never write these tables.

Every tag and note is stored through :func:`paperscope.text.strip_controls` (no NUL, ESC or other
C0/C1 control; line ends as LF), whichever way it comes (the Python API, the CLI, the web API, a
restored backup), so every export of the library reads back.
"""

from __future__ import annotations

import re
import sqlite3

from ..text import strip_controls

__all__ = [
    "storable_text",
    "set_star",
    "is_starred",
    "add_tag",
    "remove_tag",
    "tags_of",
    "set_note",
    "note_of",
    "marked_ids",
    "tag_counts",
    "TRIAGE_STATES",
    "triage_states",
    "UNSEEN",
    "ALL_TRIAGE_STATES",
    "set_triage",
    "triage_of",
    "marked_in_order",
]

#: The triage states a paper can be given, stored as a row of ``triage`` (migration 8).
TRIAGE_STATES = ("skimmed", "maybe", "keep", "reject")

#: The state of a paper without a triage row: not seen yet. Setting it clears the row.
UNSEEN = "unseen"

#: Every state a user can choose, ``unseen`` first (the one-key buttons, the CLI's choices).
ALL_TRIAGE_STATES = (UNSEEN, *TRIAGE_STATES)


def set_star(conn: sqlite3.Connection, paper_id: str, starred: bool = True) -> None:
    """Star (or unstar) a paper; starring twice keeps the first time stamp."""
    if starred:
        conn.execute("INSERT OR IGNORE INTO stars (paper_id) VALUES (?)", (paper_id,))
    else:
        conn.execute("DELETE FROM stars WHERE paper_id = ?", (paper_id,))


def is_starred(conn: sqlite3.Connection, paper_id: str) -> bool:
    """Return True when the paper is starred."""
    return conn.execute("SELECT 1 FROM stars WHERE paper_id = ?", (paper_id,)).fetchone() is not None


#: Lone surrogates: what Python makes of bytes that are not UTF-8 in a command-line argument or
#: on stdin (``surrogateescape``); SQLite cannot store them as text, so they are dropped.
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def storable_text(text: str) -> str:
    """Return ``text`` as a mark stores it: no control characters, LF line ends, no lone surrogates.

    A note or tag typed with bytes that are not UTF-8 (``tags add ID $'bad<0xff>byte'``) arrives
    with lone surrogates, which SQLite refuses to encode (a traceback before); they are removed.
    """
    return strip_controls(_SURROGATE_RE.sub("", text))


def _tag_text(tag: str) -> str:
    return storable_text(tag).strip()


def add_tag(conn: sqlite3.Connection, paper_id: str, tag: str) -> None:
    """Tag a paper (idempotent). Tags ignore case: "To-Read" joins an existing "to-read" as written first.

    The tag is stored without control characters and surrounding whitespace; a tag with no text
    left is not stored.
    """
    tag = _tag_text(tag)
    if not tag:
        return
    known = conn.execute("SELECT tag FROM tags WHERE lower(tag) = lower(?) LIMIT 1", (tag,)).fetchone()
    conn.execute(
        "INSERT OR IGNORE INTO tags (paper_id, tag) VALUES (?, ?)", (paper_id, known[0] if known else tag)
    )


def remove_tag(conn: sqlite3.Connection, paper_id: str, tag: str) -> None:
    """Remove one tag from a paper, ignoring case and control characters (no error when absent)."""
    conn.execute("DELETE FROM tags WHERE paper_id = ? AND lower(tag) = lower(?)", (paper_id, _tag_text(tag)))


def tags_of(conn: sqlite3.Connection, paper_id: str) -> list[str]:
    """Return the paper's tags in the order they were added."""
    rows = conn.execute("SELECT tag FROM tags WHERE paper_id = ? ORDER BY rowid", (paper_id,))
    return [r[0] for r in rows]


def set_note(conn: sqlite3.Connection, paper_id: str, body: str) -> None:
    """Set (replace) the note of a paper; a body with no text (control characters aside) deletes it.

    The note is stored without control characters, its line ends as LF (:func:`strip_controls`).
    """
    body = storable_text(body)
    if body.strip():
        conn.execute(
            "INSERT INTO notes (paper_id, body) VALUES (?, ?) ON CONFLICT (paper_id) DO UPDATE"
            " SET body = excluded.body, updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')",
            (paper_id, body),
        )
    else:
        conn.execute("DELETE FROM notes WHERE paper_id = ?", (paper_id,))


def note_of(conn: sqlite3.Connection, paper_id: str) -> str | None:
    """Return the paper's note, or None."""
    row = conn.execute("SELECT body FROM notes WHERE paper_id = ?", (paper_id,)).fetchone()
    return row[0] if row else None


def marked_ids(conn: sqlite3.Connection, starred: bool = False, tag: str | None = None) -> set[str]:
    """Return the ids of papers that are starred (when ``starred``) and carry ``tag`` (when given)."""
    ids: set[str] | None = None
    if starred:
        ids = {r[0] for r in conn.execute("SELECT paper_id FROM stars")}
    if tag is not None:
        tagged = {r[0] for r in conn.execute("SELECT paper_id FROM tags WHERE lower(tag) = lower(?)", (tag,))}
        ids = tagged if ids is None else ids & tagged
    return ids if ids is not None else set()


def tag_counts(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    """Return ``(tag, papers)`` pairs, most used first."""
    rows = conn.execute("SELECT tag, count(*) AS n FROM tags GROUP BY tag ORDER BY n DESC, tag")
    return [(r[0], int(r[1])) for r in rows]


def set_triage(conn: sqlite3.Connection, paper_id: str, state: str | None) -> None:
    """Set the triage state of a paper (one of :data:`TRIAGE_STATES`); None or ``"unseen"`` clears it.

    Raises:
        ValueError: ``state`` is not None and not one of :data:`ALL_TRIAGE_STATES`.
    """
    if state is None or state == UNSEEN:
        conn.execute("DELETE FROM triage WHERE paper_id = ?", (paper_id,))
        return
    if state not in TRIAGE_STATES:
        raise ValueError(f"unknown triage state {state!r}; choose one of: {', '.join(ALL_TRIAGE_STATES)}")
    conn.execute(
        "INSERT INTO triage (paper_id, state) VALUES (?, ?) ON CONFLICT (paper_id) DO UPDATE"
        " SET state = excluded.state, updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')",
        (paper_id, state),
    )


def triage_of(conn: sqlite3.Connection, paper_id: str) -> str | None:
    """Return the paper's triage state, or None when it has none."""
    row = conn.execute("SELECT state FROM triage WHERE paper_id = ?", (paper_id,)).fetchone()
    return row[0] if row else None


def triage_states(conn: sqlite3.Connection) -> dict[str, str]:
    """Return ``paper_id -> state`` of every triaged paper, in one query."""
    return {r[0]: r[1] for r in conn.execute("SELECT paper_id, state FROM triage")}


#: kind -> SQL giving (paper_id, time stamp) of papers with that kind of mark.
_MARKED_SQL = {
    "starred": "SELECT paper_id, starred_at AS stamp FROM stars",
    "tagged": "SELECT paper_id, added_at AS stamp FROM tags",
    "noted": "SELECT paper_id, updated_at AS stamp FROM notes",
    "triaged": "SELECT paper_id, updated_at AS stamp FROM triage",
}


def marked_in_order(
    conn: sqlite3.Connection,
    kind: str = "all",
    tag: str | None = None,
    *,
    starred: bool = False,
    state: str | None = None,
    noted: bool = False,
) -> list[str]:
    """Return the ids of papers with a mark of ``kind``, most recently marked first.

    The filters combine (a paper must pass all of them).

    Args:
        conn: the library connection.
        kind: ``"starred"``, ``"tagged"``, ``"noted"``, ``"triaged"`` or ``"all"`` (any of them).
        tag: keep only papers with this tag (ignoring case).
        starred: keep only starred papers.
        state: keep only papers in this triage state (``"unseen"``: marked papers without one).
        noted: keep only papers with a note.

    Raises:
        ValueError: ``kind`` or ``state`` is unknown.
    """
    if kind != "all" and kind not in _MARKED_SQL:
        raise ValueError(f"unknown mark kind {kind!r}; choose one of: all, {', '.join(_MARKED_SQL)}")
    if state is not None and state not in ALL_TRIAGE_STATES:
        raise ValueError(f"unknown triage state {state!r}; choose one of: {', '.join(ALL_TRIAGE_STATES)}")
    parts = list(_MARKED_SQL.values()) if kind == "all" else [_MARKED_SQL[kind]]
    sql = f"SELECT paper_id, max(stamp) AS t FROM ({' UNION ALL '.join(parts)})"
    params: list[str] = []
    where: list[str] = []
    if tag is not None:
        where.append("paper_id IN (SELECT paper_id FROM tags WHERE lower(tag) = lower(?))")
        params.append(tag)
    if starred:
        where.append("paper_id IN (SELECT paper_id FROM stars)")
    if noted:
        where.append("paper_id IN (SELECT paper_id FROM notes)")
    if state == UNSEEN:
        where.append("paper_id NOT IN (SELECT paper_id FROM triage)")
    elif state is not None:
        where.append("paper_id IN (SELECT paper_id FROM triage WHERE state = ?)")
        params.append(state)
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    rows = conn.execute(f"{sql}{clause} GROUP BY paper_id ORDER BY t DESC, paper_id", params)
    return [r[0] for r in rows]
