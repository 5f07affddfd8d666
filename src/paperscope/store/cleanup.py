"""Deleting rows: the papers an ingest of a failed file stored, and rows whose paper is gone.

Only derived and provenance rows are ever deleted here: sources, cards (their facet rows go
with them by trigger), vectors, near-duplicate keys, topic assignments and lexical index rows.
The user's stars, tags, notes and triage states are never deleted: a mark whose paper is
missing stays, and holds again when the paper (whose id is the hash of its abstract) is
ingested again. Every function here is called inside ``Store.transaction()``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from .lexical import write_fts_rows
from .papers import PaperSnapshot

__all__ = [
    "DERIVED_TABLES",
    "MARK_TABLES",
    "delete_papers",
    "undo_file",
    "restore_papers",
    "source_watermark",
    "orphan_counts",
    "delete_orphans",
]

#: Tables of rows derived from a paper (deleted with it, and as orphans); ``papers_fts`` is
#: checked by ``doctor`` separately (it is rebuilt, not pruned).
DERIVED_TABLES = ("sources", "cards", "embeddings", "dedup_keys", "paper_topics", "card_facets")
#: The user's own tables: reported when their paper is missing, never deleted.
MARK_TABLES = ("stars", "tags", "notes", "triage")


def delete_papers(conn: sqlite3.Connection, paper_ids: Iterable[str]) -> int:
    """Delete papers with their derived rows and lexical index rows (marks stay); return how many."""
    ids = json.dumps(sorted(set(paper_ids)))
    if ids == "[]":
        return 0
    where = "paper_id IN (SELECT value FROM json_each(?))"
    for table in DERIVED_TABLES:
        conn.execute(f"DELETE FROM {table} WHERE {where}", (ids,))
    # A paper's lexical index row has its rowid (migration 15): found by rowid, not by a scan.
    conn.execute(f"DELETE FROM papers_fts WHERE rowid IN (SELECT rowid FROM papers WHERE {where})", (ids,))
    return int(conn.execute(f"DELETE FROM papers WHERE {where}", (ids,)).rowcount)


def undo_file(conn: sqlite3.Connection, path: str, after_source_rowid: int, paper_ids: Iterable[str]) -> int:
    """Remove what the ingest of ``path`` stored before it failed; return the papers deleted.

    Args:
        conn: inside a transaction.
        path: the file, as its sources rows name it.
        after_source_rowid: ``max(rowid)`` of sources when the file's ingest began: its own
            sources rows are those of ``path`` above it.
        paper_ids: the papers the file's ingest inserted. Those that another file (another
            ingest running at the same time) also gave a source are kept.

    Metadata the file filled into papers stored before (a missing title, venue or year) is put
    back by :func:`restore_papers`, from the snapshots taken before the first change.
    """
    conn.execute("DELETE FROM sources WHERE rowid > ? AND path = ?", (after_source_rowid, path))
    ids = json.dumps(sorted(set(paper_ids)))
    orphaned = [
        r[0]
        for r in conn.execute(
            "SELECT value FROM json_each(?) WHERE value NOT IN (SELECT paper_id FROM sources"
            " WHERE paper_id IN (SELECT value FROM json_each(?)))",
            (ids, ids),
        )
    ]
    return delete_papers(conn, orphaned)


def restore_papers(conn: sqlite3.Connection, snapshots: Iterable[PaperSnapshot]) -> int:
    """Put papers back as ``snapshots`` hold them (row, lexical index row, card); return how many.

    A file that fails part-way may have filled fields of papers stored before it (a title, a
    DOI) and rebuilt their cards; :func:`undo_file` removes its own papers and sources, and this
    undoes those changes. Call inside a transaction. A paper deleted meanwhile is passed over.
    """
    restored = 0
    for row, card in snapshots:
        paper_id = row["paper_id"]
        columns = [c for c in row if c != "paper_id"]
        assignments = ", ".join(f"{c} = ?" for c in columns)
        changed = conn.execute(
            f"UPDATE papers SET {assignments} WHERE paper_id = ?", [*(row[c] for c in columns), paper_id]
        ).rowcount
        if not changed:
            continue
        title = row.get("title")
        write_fts_rows(
            conn, [(str(paper_id), None if title is None else str(title), str(row.get("clean_text") or ""))]
        )
        if card is None:
            conn.execute("DELETE FROM cards WHERE paper_id = ?", (paper_id,))
            conn.execute("DELETE FROM card_facets WHERE paper_id = ?", (paper_id,))
        else:
            conn.execute(
                "INSERT OR REPLACE INTO cards (paper_id, label, data, extractor_version) VALUES (?,?,?,?)",
                (paper_id, *card),
            )
        restored += 1
    return restored


def source_watermark(conn: sqlite3.Connection) -> int:
    """Return ``max(rowid)`` of sources (read from the end of its b-tree: constant time)."""
    return int(conn.execute("SELECT coalesce(max(rowid), 0) FROM sources").fetchone()[0])


def orphan_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Return ``table → rows whose paper_id is not a stored paper`` for derived and mark tables."""
    return {
        table: int(
            conn.execute(
                f"SELECT count(*) FROM {table} t WHERE NOT EXISTS"
                " (SELECT 1 FROM papers p WHERE p.paper_id = t.paper_id)"
            ).fetchone()[0]
        )
        for table in (*DERIVED_TABLES, *MARK_TABLES)
    }


def delete_orphans(conn: sqlite3.Connection) -> dict[str, int]:
    """Delete derived rows whose paper is missing (marks are kept); return ``table → rows deleted``."""
    return {
        table: int(
            conn.execute(f"DELETE FROM {table} WHERE paper_id NOT IN (SELECT paper_id FROM papers)").rowcount
        )
        for table in DERIVED_TABLES
    }
