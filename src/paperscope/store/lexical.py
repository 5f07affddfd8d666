"""Lexical search over the FTS5 table, with BM25 ranking."""

from __future__ import annotations

import sqlite3

__all__ = ["search_fts", "TITLE_WEIGHT", "TITLELESS_BODY_WEIGHT"]

#: bm25() column weights: a title match counts twice a body match (paper_id column unindexed).
TITLE_WEIGHT = 2.0
#: Body weight of a paper without a title (issue 23), so a missing title costs it nothing in
#: ranking: its abstract stands in for the title it lacks (BM25F-style field weighting,
#: Robertson & Zaragoza, 2009, with part of the missing field's weight moved to the field that
#: is there). Chosen on training queries only (``bench/titleless.py``: ICLR 2026 with 50% of the
#: titles removed, the training quarter of its author-keyword queries, hybrid, MRR@10 over all
#: targets): 0.716 / 0.719 / 0.718 / 0.719 / 0.720 / 0.716 at 1.0 / 1.2 / 1.3 / 1.4 / 1.5 / 2.0,
#: title-less / titled 0.894 at 1.0, 0.965 at 1.5, 1.017 at 2.0. A title repeats terms the
#: abstract already holds (on the titled ICLR papers a body term seen k = 1 / 2 / 4 / 8 times is
#: in the title 0.02 / 0.13 / 0.42 / 0.87 times), so moving the whole title weight 2 over-corrects.
TITLELESS_BODY_WEIGHT = 1.5

_SQL = (
    "SELECT paper_id, -bm25(papers_fts, 0, ?, 1.0) AS score"
    " FROM papers_fts WHERE papers_fts MATCH ? ORDER BY score DESC"
)
# A row's title is empty when its title column holds 0 tokens: FTS5 keeps each row's column sizes
# in the shadow table %_docsize as one varint per column (paper_id, title, body; sqlite.org/fts5.html
# "The %_docsize table"); the UNINDEXED paper_id is always 0, so the title's size is byte 2. Reading
# this small blob costs about 1 ms per 1,000 matching rows, reading the title text itself 4 times more.
_SQL_TITLELESS = (
    "SELECT paper_id, -bm25(papers_fts, 0, ?, CASE WHEN (SELECT substr(sz, 2, 1)"
    " FROM papers_fts_docsize WHERE id = papers_fts.rowid) = x'00' THEN ? ELSE 1.0 END) AS score"
    " FROM papers_fts WHERE papers_fts MATCH ? ORDER BY score DESC"
)


def search_fts(
    conn: sqlite3.Connection,
    expression: str,
    limit: int,
    allowed: set[str] | None = None,
    titleless_body_weight: float = 1.0,
) -> list[tuple[str, float]]:
    """Return ``(paper_id, score)`` best first for an FTS5 MATCH ``expression``.

    ``score`` is the negated FTS5 ``bm25()`` value, so higher is better: title matches weigh
    ``TITLE_WEIGHT``, body matches 1, or ``titleless_body_weight`` in a paper whose title is
    empty (FTS5 reads the column weights for each row, so the weight can depend on the row);
    1.0 scores every paper as before issue 23.
    With ``allowed`` set, only those papers are kept, before the ``limit`` cut.
    """
    if titleless_body_weight == 1.0:
        sql, params = _SQL, (TITLE_WEIGHT, expression)
    else:
        sql, params = _SQL_TITLELESS, (TITLE_WEIGHT, titleless_body_weight, expression)
    if allowed is None:
        rows = conn.execute(sql + " LIMIT ?", (*params, limit)).fetchall()
        return [(r[0], float(r[1])) for r in rows]
    out: list[tuple[str, float]] = []
    for r in conn.execute(sql, params):
        if r[0] in allowed:
            out.append((r[0], float(r[1])))
            if len(out) >= limit:
                break
    return out
