"""Writing program fields onto papers with their provenance, undoing them, and keeping suggestions.

An attachment fills only what a paper lacks: the title (a paper is only matched when it has
none), authors when it has none, venue and year when it has no venue, the decision when it has
none, the source area (the program's topic) when it has none, and adds the entry's links and
external ids it does not hold yet; the entry's sessions go to ``paper_sessions`` (migration 10)
in the same transaction, and an undo removes them. The paper's card is
rebuilt (its label and area read the title). One ``enrichments`` row (migration 9) records the
program file, the entry (line and content), the method, the score, the time, and the paper's
columns and card row before, and the paper's stored vectors of its content before (every
model's, while current), so :func:`undo` puts back exactly those bytes (the lexical-index row is
written again from the restored title): a vector is
keyed by the content hash, the attached title changes that hash and ``Library.enrich`` then
embeds the paper again (replacing the row), so without them an undo left the paper without a
current vector.
A paper's ``paper_id`` never changes, so stars, tags, notes and triage states are untouched.

All functions take the open connection and must run inside one ``Store.transaction()``; the
attachments are read back by :func:`paperscope.store.enrichments.enrichments`.
"""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..ingest.pipeline import content_hash_for
from ..store import lexical, papers, sessions
from .match import SUGGESTIONS
from .program import ProgramEntry

__all__ = [
    "attach",
    "undo",
    "UndoReport",
    "close_suggestions",
    "save_suggestions",
    "open_suggestions",
    "reject_suggestion",
    "stored_titles",
    "enriched_papers",
    "enriched_lines",
    "rejected_pairs",
    "attach_sessions_by_title",
]

#: Paper columns an attachment may change (and undo restores).
_COLUMNS = (
    "title",
    "authors",
    "venue",
    "year",
    "decision",
    "source_area",
    "urls",
    "external_ids",
    "content_hash",
)
_JSON_COLUMNS = ("authors", "urls", "external_ids")


def _of_program(program: str | None, joiner: str) -> tuple[str, tuple[str, ...]]:
    """Return the SQL condition (after ``joiner``: WHERE or AND) and parameters keeping one program's rows."""
    return ("", ()) if program is None else (f" {joiner} program = ?", (program,))


def _row(conn: sqlite3.Connection, paper_id: str) -> dict[str, Any] | None:
    row = conn.execute(f"SELECT {', '.join(_COLUMNS)} FROM papers WHERE paper_id = ?", (paper_id,)).fetchone()
    return None if row is None else dict(zip(_COLUMNS, tuple(row), strict=True))


def _card_row(conn: sqlite3.Connection, paper_id: str) -> list[Any] | None:
    row = conn.execute(
        "SELECT label, data, extractor_version FROM cards WHERE paper_id = ?", (paper_id,)
    ).fetchone()
    return None if row is None else list(row)


def _vector_rows(conn: sqlite3.Connection, paper_id: str) -> list[list[Any]]:
    """Return ``[model_id, content_hash, dim, vector (base64), n_chunks]`` of the paper's current vectors."""
    rows = conn.execute(
        "SELECT e.model_id, e.content_hash, e.dim, e.vector, e.n_chunks FROM embeddings e"
        " JOIN papers p ON p.paper_id = e.paper_id AND p.content_hash = e.content_hash WHERE e.paper_id = ?",
        (paper_id,),
    ).fetchall()
    return [[m, h, int(d), base64.b64encode(bytes(v)).decode("ascii"), int(n)] for m, h, d, v, n in rows]


def _restore_vectors(conn: sqlite3.Connection, paper_id: str, rows: list[list[Any]]) -> None:
    """Put back the vectors :func:`_vector_rows` saved (each replaces the model's row of the paper)."""
    conn.executemany(
        "INSERT OR REPLACE INTO embeddings (paper_id, model_id, content_hash, dim, vector, n_chunks)"
        " VALUES (?,?,?,?,?,?)",
        [(paper_id, m, h, d, base64.b64decode(v), n) for m, h, d, v, n in rows],
    )


def attach(
    conn: sqlite3.Connection,
    paper_id: str,
    entry: ProgramEntry,
    program: str,
    score: float,
    method: str,
) -> bool:
    """Fill ``paper_id``'s missing fields from ``entry``; return False when it has a title already.

    Args:
        conn: the library connection, inside a transaction.
        paper_id: the paper to fill.
        entry: the program entry whose fields are attached.
        program: the program file's resolved path (:attr:`Program.key`).
        score: the pairing's score (see :class:`~paperscope.enrich.match.Pairing`: a probability
            for the assignment, a mean z-score for the margins matcher).
        method: ``"agreed"`` (matched automatically: by the one-to-one assignment, or both
            rankings agreed in the margins matcher) or ``"review"`` (accepted by hand).

    """
    from ..extract import build_card

    before = _row(conn, paper_id)
    if before is None or (before["title"] or "").strip():
        return False
    paper = papers.get_paper(conn, paper_id)
    changed = ["title"]
    paper.title = entry.title
    if not paper.authors and entry.authors:
        paper.authors = list(entry.authors)
        changed.append("authors")
    if not paper.venue and entry.venue:
        paper.venue, changed = entry.venue, [*changed, "venue"]
        if paper.year is None and entry.year is not None:
            paper.year, changed = entry.year, [*changed, "year"]
    if not paper.decision and entry.decision:
        paper.decision, changed = entry.decision, [*changed, "decision"]
    if not paper.source_area and entry.area:
        paper.source_area, changed = entry.area, [*changed, "source_area"]
    new_urls = [u for u in entry.urls if u not in paper.urls]
    if new_urls:
        paper.urls, changed = [*paper.urls, *new_urls], [*changed, "urls"]
    new_ids = {k: v for k, v in entry.external_ids.items() if k not in paper.external_ids}
    if new_ids:
        paper.external_ids, changed = {**paper.external_ids, **new_ids}, [*changed, "external_ids"]
    state = {
        "columns": before,
        "card": _card_row(conn, paper_id),
        "vectors": _vector_rows(conn, paper_id),
    }
    papers.update_paper_fields(conn, paper, changed, content_hash_for(paper.title, paper.clean_text))
    papers.save_cards(conn, [(paper_id, build_card(paper))])
    after = _row(conn, paper_id)
    assert after is not None
    conn.execute(
        "INSERT INTO enrichments (paper_id, program, entry_line, entry, session, method, score, before, after)"
        " VALUES (?,?,?,?,?,?,?,?,?)",
        (
            paper_id,
            program,
            entry.line,
            json.dumps(entry.to_dict(), ensure_ascii=False),
            entry.session,
            method,
            float(score),
            json.dumps(state, ensure_ascii=False),
            json.dumps({k: after[k] for k in [*changed, "content_hash"]}, ensure_ascii=False),
        ),
    )
    sessions.save_sessions(conn, paper_id, program, entry.line, (s.to_dict() for s in entry.sessions))
    close_suggestions(conn, paper_id, entry.title)
    return True


def _fold(title: str | None) -> str:
    """The title as titles are compared: case and spacing ignored."""
    return " ".join((title or "").casefold().split())


def close_suggestions(conn: sqlite3.Connection, paper_id: str, title: str) -> int:
    """Close the open suggestions a paper's new title settles; return how many were closed.

    The paper's own open suggestions go (it has its title), and so do the open suggestions of
    every entry with the same title (case and spacing ignored), of any program, for other
    papers: that title is taken. Rejected suggestions stay (they are never suggested again).
    """
    folded = _fold(title)
    gone = [
        (sid,)
        for sid, pid, entry in conn.execute(
            "SELECT suggestion_id, paper_id, entry FROM enrich_suggestions WHERE status = 'open'"
        )
        if pid == paper_id or _fold(json.loads(entry).get("title")) == folded
    ]
    conn.executemany("DELETE FROM enrich_suggestions WHERE suggestion_id = ?", gone)
    return len(gone)


@dataclass
class UndoReport:
    """What :func:`undo` did.

    Attributes:
        restored: the papers whose fields were put back.
        kept: the papers with a field changed since the attachment (that field left as it is).
        suggestions: open suggestions removed.
        sessions: stored sessions removed (of attached papers and of papers titled already).

    It unpacks as ``(restored, kept)``, the pair ``undo`` returned before it counted the rest.
    """

    restored: list[str]
    kept: list[str]
    suggestions: int = 0
    sessions: int = 0

    def __iter__(self) -> Iterator[list[str]]:
        return iter((self.restored, self.kept))


def undo(conn: sqlite3.Connection, program: str | None = None) -> UndoReport:
    """Undo attachments, newest first (only ``program``'s when given); return what was undone.

    Each column the attachment wrote is set back to its value before, but only while it still
    holds what the attachment wrote: a column changed since (a later ingest merged a title) is
    left as it is and the paper is listed in ``kept``. When the title is restored, the
    lexical-index row is written again from it and the card row is restored byte for byte, and when the content
    hash is, the vectors of that content (attachments made before they were saved have none; the
    library embeds those again, see ``Library.undo_enrich``). The paper's sessions from the
    program go in every case (they came with the entry, not with a column), and so do the
    sessions the program gave papers that had their title already. The open suggestions
    of the program go as well (a later run makes them again); rejected ones stay.
    """
    where, params = _of_program(program, "WHERE")
    (session_rows,) = conn.execute("SELECT count(*) FROM paper_sessions" + where, params).fetchone()
    rows = conn.execute(
        "SELECT enrichment_id, paper_id, program, before, after FROM enrichments"
        f"{where} ORDER BY enrichment_id DESC",
        params,
    ).fetchall()
    restored: list[str] = []
    kept: list[str] = []
    for enrichment_id, paper_id, source, before_json, after_json in rows:
        state, after = json.loads(before_json), json.loads(after_json)
        current = _row(conn, paper_id)
        conn.execute("DELETE FROM enrichments WHERE enrichment_id = ?", (enrichment_id,))
        sessions.delete_sessions(conn, paper_id, source)
        if current is None:
            continue
        names = [k for k in after if current.get(k) == after[k]]
        if len(names) < len(after):
            kept.append(paper_id)
        if not names:
            continue
        values = [state["columns"][k] for k in names]
        sets = ", ".join(f"{k} = ?" for k in names)
        conn.execute(f"UPDATE papers SET {sets} WHERE paper_id = ?", [*values, paper_id])
        if "title" in names:
            (title, text) = conn.execute(
                "SELECT title, clean_text FROM papers WHERE paper_id = ?", (paper_id,)
            ).fetchone()
            lexical.write_fts_rows(conn, [(paper_id, title, text)])
            if state["card"] is None:
                conn.execute("DELETE FROM cards WHERE paper_id = ?", (paper_id,))
            else:
                conn.execute(
                    "INSERT OR REPLACE INTO cards (paper_id, label, data, extractor_version) VALUES (?,?,?,?)",
                    (paper_id, *state["card"]),
                )
        if "content_hash" in names:
            _restore_vectors(conn, paper_id, state.get("vectors") or [])
        restored.append(paper_id)
    dropped = conn.execute(
        "DELETE FROM enrich_suggestions WHERE status = 'open'" + _of_program(program, "AND")[0], params
    ).rowcount
    conn.execute("DELETE FROM paper_sessions" + where, params)  # those of titled papers too
    return UndoReport(restored, kept, suggestions=dropped, sessions=int(session_rows))


def save_suggestions(
    conn: sqlite3.Connection,
    program: str,
    suggestions: Iterable[tuple[str, ProgramEntry, int, float]],
    per_entry: int = SUGGESTIONS,
) -> int:
    """Replace ``program``'s open suggestions by ``(paper_id, entry, rank, score)``; return how many were stored.

    Each paper's suggestions come best first. An entry is offered to its ``per_entry`` likeliest
    papers only (highest score; the same cap as a paper's suggestions), so one vague title does
    not fill the queue; each paper's ranks are then counted again from 1. A paper that has a
    title and an entry whose title a paper has (case and spacing ignored) are not suggested. A
    pairing rejected before stays rejected and is not stored again.
    """
    conn.execute("DELETE FROM enrich_suggestions WHERE program = ? AND status = 'open'", (program,))
    titled = {
        pid: _fold(title)
        for pid, title in conn.execute(
            "SELECT paper_id, title FROM papers WHERE title IS NOT NULL AND trim(title) != ''"
        )
    }
    taken = set(titled.values())
    found = [
        (pid, entry, score)
        for pid, entry, _, score in suggestions
        if pid not in titled and _fold(entry.title) not in taken
    ]
    by_entry: dict[int, list[int]] = {}
    for k, (_, entry, _score) in enumerate(found):
        by_entry.setdefault(entry.line, []).append(k)
    kept = {k for ks in by_entry.values() for k in sorted(ks, key=lambda k: -found[k][2])[:per_entry]}
    ranks: dict[str, int] = {}
    rows = []
    for k, (pid, entry, score) in enumerate(found):
        if k not in kept:
            continue
        ranks[pid] = ranks.get(pid, 0) + 1
        rows.append(
            (
                pid,
                program,
                entry.line,
                json.dumps(entry.to_dict(), ensure_ascii=False),
                ranks[pid],
                float(score),
            )
        )
    before = conn.total_changes
    conn.executemany(
        "INSERT OR IGNORE INTO enrich_suggestions (paper_id, program, entry_line, entry, rank, score)"
        " VALUES (?,?,?,?,?,?)",
        rows,
    )
    return conn.total_changes - before


def open_suggestions(conn: sqlite3.Connection, program: str | None = None) -> list[dict[str, Any]]:
    """Return the open suggestions, surest first: ``{suggestion_id, paper_id, program, rank, score, entry}``.

    A pairing of a paper with a title that several programs suggest (a copy of a program under
    another file name) is listed once, as its surest suggestion.
    """
    where, params = _of_program(program, "AND")
    rows = conn.execute(
        "SELECT suggestion_id, paper_id, program, rank, score, entry FROM enrich_suggestions"
        f" WHERE status = 'open'{where} ORDER BY rank, score DESC, suggestion_id",
        params,
    ).fetchall()
    found, seen = [], set()
    for r in rows:
        entry = ProgramEntry.from_dict(json.loads(r[5]))
        pairing = (r[1], _fold(entry.title))
        if pairing in seen:
            continue
        seen.add(pairing)
        found.append(
            {
                "suggestion_id": r[0],
                "paper_id": r[1],
                "program": r[2],
                "rank": r[3],
                "score": r[4],
                "entry": entry,
            }
        )
    return found


def reject_suggestion(conn: sqlite3.Connection, suggestion_id: int) -> None:
    """Mark one suggestion rejected: no later run suggests this pairing again.

    The same paper's open suggestions of the same title from other programs (a copy of the
    program) are rejected with it, as :func:`open_suggestions` lists them as one.
    """
    row = conn.execute(
        "SELECT paper_id, entry FROM enrich_suggestions WHERE suggestion_id = ?", (suggestion_id,)
    ).fetchone()
    if row is None:
        return
    key = _fold(json.loads(row[1]).get("title", ""))
    twins = [
        (sid,)
        for sid, entry in conn.execute(
            "SELECT suggestion_id, entry FROM enrich_suggestions WHERE paper_id = ? AND status = 'open'",
            (row[0],),
        )
        if _fold(json.loads(entry).get("title", "")) == key
    ]
    conn.executemany(
        "UPDATE enrich_suggestions SET status = 'rejected' WHERE suggestion_id = ?",
        [*twins, (suggestion_id,)],
    )


def attach_sessions_by_title(conn: sqlite3.Connection, program: str, entries: Iterable[ProgramEntry]) -> int:
    """Store the sessions of ``entries`` on the papers that have their title already; return how many.

    A paper whose list gave its title is never matched (it has a title), but the program still
    says where and when it is presented: its sessions are stored when its title equals an
    entry's (case and spacing ignored). Papers this program attached fields to have theirs
    already. ``undo`` of the program removes them with the rest.
    """
    by_title: dict[str, list[str]] = {}
    for paper_id, title in conn.execute(
        "SELECT paper_id, title FROM papers WHERE title IS NOT NULL AND trim(title) != ''"
        " AND paper_id NOT IN (SELECT paper_id FROM enrichments WHERE program = ?)",
        (program,),
    ):
        by_title.setdefault(" ".join(title.casefold().split()), []).append(paper_id)
    stored = 0
    for entry in entries:
        for paper_id in by_title.get(" ".join(entry.title.casefold().split()), []) if entry.sessions else []:
            stored += sessions.save_sessions(
                conn, paper_id, program, entry.line, (s.to_dict() for s in entry.sessions)
            )
    return stored


def stored_titles(conn: sqlite3.Connection, program: str | None = None) -> set[str]:
    """Return the library's titles, folded (case and spacing ignored): program entries holding one are in it.

    With ``program``, the titles that program attached are left out (their entries stay matchable,
    so a second run sees what the first saw).
    """
    sql = "SELECT title FROM papers WHERE title IS NOT NULL"
    params: tuple[str, ...] = ()
    if program is not None:
        sql += " AND paper_id NOT IN (SELECT paper_id FROM enrichments WHERE program = ?)"
        params = (program,)
    return {" ".join(r[0].casefold().split()) for r in conn.execute(sql, params)}


def enriched_papers(conn: sqlite3.Connection, program: str) -> set[str]:
    """Return the papers whose fields ``program`` attached."""
    return {r[0] for r in conn.execute("SELECT paper_id FROM enrichments WHERE program = ?", (program,))}


def enriched_lines(conn: sqlite3.Connection, program: str) -> set[int]:
    """Return the lines (record numbers) of ``program``'s entries attached to a paper."""
    return {r[0] for r in conn.execute("SELECT entry_line FROM enrichments WHERE program = ?", (program,))}


def rejected_pairs(conn: sqlite3.Connection, program: str) -> set[tuple[str, int]]:
    """Return ``(paper_id, entry line)`` of the suggestions of ``program`` rejected in review."""
    return {
        (r[0], r[1])
        for r in conn.execute(
            "SELECT paper_id, entry_line FROM enrich_suggestions WHERE program = ? AND status = 'rejected'",
            (program,),
        )
    }
