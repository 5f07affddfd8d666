"""Stored vectors of the ICLR 2026 area papers, read from a built library (no embedding here).

Training the area model's embedding block (``scripts/train_area_model.py``) and the held-out
area run of ``paperscope eval cards --area-vectors LIB`` need each ICLR 2026 paper's vector.
Embedding the 4,302 abstracts takes minutes on two cores, so both read the vectors a library
already holds (one built from the ICLR 2026 CSVs with the MiniLM embedder) and match its papers
to the CSV rows by clean title and abstract.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..library import Library
from ..store import vectors as stored

__all__ = ["library_vectors"]


def library_vectors(
    papers: Sequence[tuple[str, str, str, str]], library_path: Path
) -> tuple[np.ndarray, np.ndarray, str]:
    """Return ``(matrix, found, model_id)``: each paper's stored vector from ``library_path``.

    Args:
        papers: ``(abstract, title, keywords, area)`` rows of clean text
            (:func:`paperscope.evaluation.cards.load_iclr_area_papers`).
        library_path: a built library; it is opened read-only and the embedding model with the
            most stored vectors is used.

    Returns:
        ``matrix`` float32 (len(papers), dim), zero rows where no vector was found; ``found``
        a boolean mask of the rows with a vector; ``model_id`` of the vectors. A row matches a
        library paper with the same clean title and abstract, else the same abstract.

    Raises:
        InputError: the library cannot be opened or holds no vectors.

    """
    try:
        lib = Library(library_path, read_only=True)
    except Exception as exc:  # StoreError and OS errors: one line naming the file
        raise InputError(f"cannot open the library: {exc}", str(library_path)) from exc
    with lib:
        conn = lib.store.conn
        row = conn.execute(
            "SELECT model_id FROM embeddings GROUP BY model_id ORDER BY count(*) DESC LIMIT 1"
        ).fetchone()
        if row is None:
            raise InputError("the library holds no vectors (run `paperscope embed` on it)", str(library_path))
        model_id = str(row[0])
        ids, matrix, _ = stored.load_vectors(conn, model_id)
        position = {pid: i for i, pid in enumerate(ids)}
        by_text: dict[tuple[str, str], int] = {}
        for pid, title, clean in conn.execute("SELECT paper_id, title, clean_text FROM papers"):
            if pid in position:
                by_text[(title or "", clean)] = position[pid]
                by_text.setdefault(("", clean), position[pid])
    out = np.zeros((len(papers), matrix.shape[1] if len(ids) else 0), dtype=np.float32)
    found = np.zeros(len(papers), dtype=bool)
    for n, (abstract, title, _, _) in enumerate(papers):
        i = by_text.get((title, abstract), by_text.get(("", abstract)))
        if i is not None:
            out[n] = matrix[i]
            found[n] = True
    return out, found, model_id
