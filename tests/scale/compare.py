"""Compare two libraries paper for paper: ids, fields, sources, cards, both full-text indexes and vectors."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np

_PAPER_COLUMNS = (
    "paper_id, abstract, clean_text, title, authors, venue, year, decision, keywords,"
    " source_area, urls, external_ids, content_hash"
)


def snapshot(db: Path) -> dict[str, object]:
    """Return what must be equal between two libraries of the same files (vectors apart)."""
    conn = sqlite3.connect(db)
    try:
        papers = conn.execute(f"SELECT {_PAPER_COLUMNS} FROM papers ORDER BY rowid").fetchall()
        sources = sorted(conn.execute("SELECT paper_id, path, line, format FROM sources").fetchall())
        cards = {
            pid: (json.loads(data), version)
            for pid, data, version in conn.execute("SELECT paper_id, data, extractor_version FROM cards")
        }
        labels = sorted(conn.execute("SELECT paper_id, label FROM cards").fetchall())
        triggers = [
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        ]
        paused = conn.execute("SELECT value FROM library_state WHERE key = 'search_fts_paused'").fetchall()
        # Every (term, paper, column, offset) the index for other tools holds: all of it.
        conn.execute(
            "CREATE VIRTUAL TABLE temp.search_terms USING fts5vocab(main, papers_search_fts, 'instance')"
        )
        search_terms = sorted(conn.execute("SELECT term, doc, col, offset FROM temp.search_terms").fetchall())
        keys = sorted(conn.execute("SELECT key, paper_id FROM dedup_keys").fetchall())
        lexical = conn.execute(
            "SELECT rowid, paper_id, title, body, exact FROM papers_fts ORDER BY rowid"
        ).fetchall()
    finally:
        conn.close()
    return {
        "papers": papers,
        "sources": sources,
        "cards": cards,
        "labels": labels,
        "dedup_keys": keys,
        "lexical": lexical,
        "triggers": triggers,
        "search_fts_paused": paused,
        "search_terms": search_terms,
    }


def vectors(db: Path) -> dict[str, tuple[np.ndarray, int, str]]:
    """Return ``paper_id -> (vector, n_chunks, model_id)`` of every current vector."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT e.paper_id, e.vector, e.n_chunks, e.model_id FROM embeddings e"
            " JOIN papers p ON p.paper_id = e.paper_id AND p.content_hash = e.content_hash"
        ).fetchall()
    finally:
        conn.close()
    return {pid: (np.frombuffer(blob, dtype=np.float32), n, model) for pid, blob, n, model in rows}


def _without_area_confidence(card: tuple[dict, str]) -> tuple[dict, str, float]:
    data, version = card
    area = dict(data.get("area") or {})
    confidence = float(area.pop("confidence", 0.0))
    return {**data, "area": area}, version, confidence


def assert_same_library(
    built: Path, ingested: Path, min_cosine: float = 1.0 - 1e-5, area_confidence: float = 0.0
) -> None:
    """Assert the two libraries hold the same papers, sources, cards, lexical index rows and vectors.

    Vectors within ``min_cosine``.

    ``area_confidence``: how far a card's area confidence may differ, as the area fuses the
    paper's vector (``Library.refine_areas``); every other field of every card must be equal.
    """
    a, b = snapshot(built), snapshot(ingested)
    assert [p[0] for p in a["papers"]] == [p[0] for p in b["papers"]], "paper_ids or their order differ"
    assert a["papers"] == b["papers"]
    assert a["sources"] == b["sources"]
    assert a["cards"].keys() == b["cards"].keys()
    differ = []
    for pid in a["cards"]:
        card, version, confidence = _without_area_confidence(a["cards"][pid])
        other, other_version, other_confidence = _without_area_confidence(b["cards"][pid])
        if (card, version) != (other, other_version) or abs(confidence - other_confidence) > area_confidence:
            differ.append(pid)
    assert not differ, f"{len(differ)} cards differ, first {differ[0]}"
    assert a["labels"] == b["labels"]
    assert a["dedup_keys"] == b["dedup_keys"]
    assert a["lexical"] == b["lexical"], "the lexical index rows (or their rowids) differ"
    assert a["triggers"] == b["triggers"] and not a["search_fts_paused"] and not b["search_fts_paused"]
    assert a["search_terms"] == b["search_terms"] and a["search_terms"], "papers_search_fts differs"
    va, vb = vectors(built), vectors(ingested)
    assert va.keys() == vb.keys() == {p[0] for p in a["papers"]}
    worst = 1.0
    for pid, (vec, n, model) in va.items():
        other, n_other, model_other = vb[pid]
        assert (n, model) == (n_other, model_other)
        cosine = float(vec @ other / (np.linalg.norm(vec) * np.linalg.norm(other) or 1.0))
        worst = min(worst, cosine)
    assert worst >= min_cosine, f"lowest cosine {worst}"
