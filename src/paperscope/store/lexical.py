"""Lexical search over the FTS5 table, with BM25 ranking."""

from __future__ import annotations

import sqlite3

__all__ = ["search_fts", "TITLE_WEIGHT"]

#: bm25() column weights: a title match counts twice a body match (paper_id column unindexed).
TITLE_WEIGHT = 2.0


def search_fts(
    conn: sqlite3.Connection, expression: str, limit: int, allowed: set[str] | None = None
) -> list[tuple[str, float]]:
    """Return ``(paper_id, score)`` best first for an FTS5 MATCH ``expression``.

    ``score`` is the negated FTS5 ``bm25()`` value, so higher is better. With ``allowed``
    set, only those papers are kept, before the ``limit`` cut.
    """
    sql = (
        "SELECT paper_id, -bm25(papers_fts, 0, ?, 1.0) AS score FROM papers_fts"
        " WHERE papers_fts MATCH ? ORDER BY score DESC"
    )
    if allowed is None:
        rows = conn.execute(sql + " LIMIT ?", (TITLE_WEIGHT, expression, limit)).fetchall()
        return [(r[0], float(r[1])) for r in rows]
    out: list[tuple[str, float]] = []
    for r in conn.execute(sql, (TITLE_WEIGHT, expression)):
        if r[0] in allowed:
            out.append((r[0], float(r[1])))
            if len(out) >= limit:
                break
    return out
