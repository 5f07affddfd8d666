"""Card areas refined with the papers' vectors: which cards are due, and the in-place update.

Cards are built before a paper has a vector (ingest writes cards, then embeds), so a card's
area starts from the text model alone; ``Library.refine_areas`` re-predicts it once the vector
exists. Only the ``area`` field of the card JSON changes (``json_set``); the label, the other
fields and the extractor version stay as they are, and the facet trigger of migration 6 keeps
the area facet in step.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator

import numpy as np

__all__ = ["AreaRow", "areas_to_refine", "set_card_areas", "vectors_of"]

#: (paper_id, title, clean_text, keywords, source_area, vector) of one card due for refinement.
AreaRow = tuple[str, str, str, list[str], str | None, np.ndarray]


def areas_to_refine(
    conn: sqlite3.Connection, version: str, model_id: str, batch: int = 500
) -> Iterator[list[AreaRow]]:
    """Yield, ``batch`` at a time, the full cards (``version``) whose area lacks ``model_id``'s vector.

    A card is due when the paper has a current vector of ``model_id`` (same content hash), its
    area did not come from the record itself, and its area does not name ``model_id`` yet. The
    ids are read first, so the caller may update cards between batches.
    """
    ids = [
        r[0]
        for r in conn.execute(
            "SELECT c.paper_id FROM cards c JOIN papers p USING (paper_id)"
            " JOIN embeddings e ON e.paper_id = p.paper_id AND e.model_id = ? AND e.content_hash = p.content_hash"
            " WHERE c.extractor_version = ? AND json_extract(c.data, '$.area.label') IS NOT NULL"
            " AND coalesce(json_extract(c.data, '$.area.source'), '') != 'source'"
            " AND coalesce(json_extract(c.data, '$.area.embedding'), '') != ? ORDER BY p.rowid",
            (model_id, version, model_id),
        )
    ]
    for start in range(0, len(ids), batch):
        chunk = ids[start : start + batch]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            "SELECT p.paper_id, p.title, p.clean_text, p.keywords, p.source_area, e.vector FROM papers p"
            " JOIN embeddings e ON e.paper_id = p.paper_id AND e.model_id = ?"
            f" WHERE p.paper_id IN ({marks})",
            (model_id, *chunk),
        ).fetchall()
        yield [
            (r[0], r[1] or "", r[2], json.loads(r[3]), r[4], np.frombuffer(r[5], dtype=np.float32))
            for r in rows
        ]


def set_card_areas(conn: sqlite3.Connection, areas: Iterable[tuple[str, dict[str, object]]]) -> int:
    """Replace the ``area`` field of each paper's card (call inside a transaction); return the count."""
    rows = [(json.dumps(area, ensure_ascii=False), pid) for pid, area in areas]
    conn.executemany("UPDATE cards SET data = json_set(data, '$.area', json(?)) WHERE paper_id = ?", rows)
    return len(rows)


def vectors_of(conn: sqlite3.Connection, model_id: str, paper_ids: Iterable[str]) -> dict[str, np.ndarray]:
    """Return the current vectors of ``model_id`` of those of ``paper_ids`` that have one.

    Read 500 ids at a time, so building the cards of a few new papers in a large library reads
    a few rows rather than every vector (float32, shape (dim,) each).
    """
    ids = list(paper_ids)
    out: dict[str, np.ndarray] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for pid, blob in conn.execute(
            "SELECT p.paper_id, e.vector FROM papers p JOIN embeddings e ON e.paper_id = p.paper_id"
            f" AND e.model_id = ? AND e.content_hash = p.content_hash WHERE p.paper_id IN ({marks})",
            (model_id, *chunk),
        ):
            out[pid] = np.frombuffer(blob, dtype=np.float32)
    return out
