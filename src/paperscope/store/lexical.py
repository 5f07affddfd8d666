"""The lexical index ``papers_fts``: writing its rows with the analyzer, and BM25 search over it."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterable

from ..analyzer import LEXICAL_ANALYZER, index_row

__all__ = [
    "search_fts",
    "write_fts_rows",
    "FtsRow",
    "rebuild_fts",
    "ensure_lexical_index",
    "TITLE_WEIGHT",
    "TITLELESS_BODY_WEIGHT",
    "EXACT_WEIGHT",
]

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

#: bm25() weight of the ``exact`` column: the surface forms whose stem differs from them
#: (:mod:`paperscope.analyzer`), matched by a query word as written on top of its stem (the
#: ``keyword_repeat`` idea of Elasticsearch), so "transformers" ranks a paper saying it above
#: one saying "transform". Chosen on training queries only (``bench/lexical_analyzer.py --split
#: train``, BM25 leg, mean of ICLR 2026 title MRR@10, ICLR keywords nDCG@10 and SciFact-train
#: nDCG@10, the objective ``eval`` tunes fusion by): 0.7815 / 0.7850 / 0.7880 / 0.7877 / 0.7871 /
#: 0.7862 / 0.7849 / 0.7827 / 0.7769 at 0 / 0.02 / 0.05 / 0.075 / 0.1 / 0.15 / 0.25 / 0.5 / 1,
#: unstemmed 0.7708. Exact forms help title and keyword queries (ICLR title 0.9390 at 0, 0.9450
#: at 0.05, 0.9462 at 0.15) and cost SciFact's paraphrased claims (0.6967 at 0, 0.6961 at 0.05,
#: 0.6636 at 1): a small weight keeps the first and not the second.
EXACT_WEIGHT = 0.05

_SQL = (
    "SELECT paper_id, -bm25(papers_fts, 0, ?, 1.0, ?) AS score"
    " FROM papers_fts WHERE papers_fts MATCH ? ORDER BY score DESC"
)
# A row's title is empty when its title column holds 0 tokens: FTS5 keeps each row's column sizes
# in the shadow table %_docsize as one varint per column (paper_id, title, body; sqlite.org/fts5.html
# "The %_docsize table"); the UNINDEXED paper_id is always 0, so the title's size is byte 2 (a
# size of 128 or more starts with a byte of 0x80 or more). Reading
# this small blob costs about 1 ms per 1,000 matching rows, reading the title text itself 4 times more.
_SQL_TITLELESS = (
    "SELECT paper_id, -bm25(papers_fts, 0, ?, CASE WHEN (SELECT substr(sz, 2, 1)"
    " FROM papers_fts_docsize WHERE id = papers_fts.rowid) = x'00' THEN ? ELSE 1.0 END, ?) AS score"
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
    ``TITLE_WEIGHT``, exact-form matches ``EXACT_WEIGHT``, body matches 1, or ``titleless_body_weight`` in a paper whose title is
    empty (FTS5 reads the column weights for each row, so the weight can depend on the row);
    1.0 scores every paper as before issue 23.
    With ``allowed`` set, only those papers are kept, before the ``limit`` cut.
    """
    if titleless_body_weight == 1.0:
        sql, params = _SQL, (TITLE_WEIGHT, EXACT_WEIGHT, expression)
    else:
        sql, params = _SQL_TITLELESS, (TITLE_WEIGHT, titleless_body_weight, EXACT_WEIGHT, expression)
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


#: Rows written per executemany batch, and papers above which a rebuild says so on stderr.
_FTS_BATCH = 1000
_LOUD_REBUILD = 5000


#: A lexical index row to write: ``(paper_id, title, clean_text)``, or with a fourth item, the
#: row's ``(title, body, exact)`` columns already analysed (``index_row`` of that title and
#: text, e.g. made by ``build`` in the cluster), or None to analyse them here.
FtsRow = tuple[str, str | None, str] | tuple[str, str | None, str, tuple[str, str, str] | None]


def write_fts_rows(conn: sqlite3.Connection, rows: Iterable[FtsRow]) -> int:
    """Write the lexical index rows of ``(paper_id, title, clean_text)`` (call inside a transaction).

    The one writer of ``papers_fts``: a paper's row has the paper's rowid in ``papers``
    (migration 15), so its old row, if any, is replaced by rowid (a B-tree lookup, not a scan of
    the table by the UNINDEXED ``paper_id``) with its title and body stems and exact forms
    (:func:`paperscope.analyzer.index_row`). Call after the paper's ``papers`` row is written; a
    ``paper_id`` not in ``papers`` is not written. Returns the rows written.
    """
    written = 0
    batch: list[FtsRow] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= _FTS_BATCH:
            written += _write_batch(conn, batch)
            batch = []
    return written + (_write_batch(conn, batch) if batch else 0)


def _write_batch(conn: sqlite3.Connection, batch: list[FtsRow]) -> int:
    marks = ",".join("?" * len(batch))
    rowids = dict(
        conn.execute(f"SELECT paper_id, rowid FROM papers WHERE paper_id IN ({marks})", [r[0] for r in batch])
    )
    rows = [
        (
            rowids[row[0]],
            row[0],
            *(row[3] if len(row) > 3 and row[3] is not None else index_row(row[1], row[2])),
        )
        for row in batch
        if row[0] in rowids
    ]
    conn.executemany("DELETE FROM papers_fts WHERE rowid = ?", [(r[0],) for r in rows])
    conn.executemany("INSERT INTO papers_fts (rowid, paper_id, title, body, exact) VALUES (?,?,?,?,?)", rows)
    return len(rows)


def rebuild_fts(conn: sqlite3.Connection, show_progress: bool = False) -> int:
    """Rebuild ``papers_fts`` from ``papers`` (call inside a transaction); return the rows written.

    Records :data:`~paperscope.analyzer.LEXICAL_ANALYZER` as the index's analyzer. About 1 s per
    5,000 papers; with ``show_progress``, a library of more than 5,000 papers shows its progress
    on stderr (:mod:`paperscope.progress`).
    """
    from ..progress import progress

    conn.execute("DELETE FROM papers_fts")
    (total,) = conn.execute("SELECT count(*) FROM papers").fetchone()
    loud = show_progress and total > _LOUD_REBUILD
    written = 0
    cursor = conn.execute("SELECT rowid, paper_id, title, clean_text FROM papers ORDER BY rowid")
    with progress(total=total, desc="lexical index", unit="papers", enabled=loud) as bar:
        while rows := cursor.fetchmany(_FTS_BATCH):
            conn.executemany(
                "INSERT INTO papers_fts (rowid, paper_id, title, body, exact) VALUES (?,?,?,?,?)",
                [(rowid, pid, *index_row(title, text)) for rowid, pid, title, text in rows],
            )
            written += len(rows)
            bar.update(len(rows))
    conn.execute(
        "INSERT OR REPLACE INTO library_state (key, value) VALUES ('lexical_analyzer', ?)",
        (LEXICAL_ANALYZER,),
    )
    return written


def ensure_lexical_index(conn: sqlite3.Connection, transaction) -> bool:  # type: ignore[no-untyped-def]
    """Rebuild the lexical index in one transaction when another analyzer built it; return True if so.

    ``transaction`` is the store's write transaction (a context manager). A library whose
    ``library_state`` names no analyzer, or another one (migration 11 records "none"), is
    rebuilt from ``papers``, so no statistic of an old analysis is ever read.
    """
    if _analyzer(conn) == LEXICAL_ANALYZER:
        return False
    with transaction():
        if _analyzer(conn) == LEXICAL_ANALYZER:  # another process rebuilt it while we waited
            return False
        n = rebuild_fts(conn, show_progress=True)
    if n > _LOUD_REBUILD:
        print(f"rebuilt the lexical index for {LEXICAL_ANALYZER} ({n:,} papers)", file=sys.stderr)
    return True


def _analyzer(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("SELECT value FROM library_state WHERE key = 'lexical_analyzer'").fetchone()
    return None if row is None else str(row[0])
