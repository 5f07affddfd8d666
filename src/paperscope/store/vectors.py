"""Stored embeddings: one float32 vector per (paper_id, model_id), valid while its content_hash holds."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..model_ids import compatible_model_ids
from . import identity

if TYPE_CHECKING:
    import numpy as np  # imported where vectors are read or written: counting them needs none

__all__ = [
    "missing_vectors",
    "count_missing_vectors",
    "delete_vectors",
    "load_vectors",
    "save_vectors",
    "vectors_by_hash",
    "vectors_fingerprint",
    "library_generation",
    "titleless_papers",
]

#: Rows copied into the matrix per step of :func:`load_vectors` (4096 x 1.5 KB = 6 MB at dim 384).
_LOAD_BATCH = 4096


def missing_vectors(conn: sqlite3.Connection, model_id: str) -> list[tuple[str, str | None, str, str]]:
    """Return ``(paper_id, title, clean_text, content_hash)`` of papers without a current vector.

    A vector is current when it was made by ``model_id`` from the paper's current content hash.
    """
    rows = conn.execute(
        "SELECT p.paper_id, p.title, p.clean_text, p.content_hash FROM papers p"
        " LEFT JOIN embeddings e ON e.paper_id = p.paper_id AND e.model_id = ?"
        " WHERE e.paper_id IS NULL OR e.content_hash != p.content_hash ORDER BY p.rowid",
        (model_id,),
    )
    return [(r[0], r[1], r[2], r[3]) for r in rows]


def titleless_papers(conn: sqlite3.Connection) -> set[str]:
    """Return the paper_ids of papers without a title (NULL or empty)."""
    return {r[0] for r in conn.execute("SELECT paper_id FROM papers WHERE title IS NULL OR title = ''")}


def count_missing_vectors(conn: sqlite3.Connection, model_id: str) -> int:
    """Return how many papers have no current vector for ``model_id`` (see :func:`missing_vectors`)."""
    (n,) = conn.execute(
        "SELECT count(*) FROM papers p"
        " LEFT JOIN embeddings e ON e.paper_id = p.paper_id AND e.model_id = ?"
        " WHERE e.paper_id IS NULL OR e.content_hash != p.content_hash",
        (model_id,),
    ).fetchone()
    return int(n)


def stored_model_ids(conn: sqlite3.Connection) -> list[str]:
    """Return the distinct model ids of stored vectors, sorted (one index seek per id)."""
    found: list[str] = []
    row = conn.execute("SELECT min(model_id) FROM embeddings").fetchone()
    while row is not None and row[0] is not None:
        found.append(str(row[0]))
        row = conn.execute("SELECT min(model_id) FROM embeddings WHERE model_id > ?", (row[0],)).fetchone()
    return found


def document_model_id(conn: sqlite3.Connection, active: str) -> str:
    """Return the model id whose stored vectors the library's papers are searched by.

    ``active`` (the embedder that embeds queries) when any vector of it is stored, or when
    no compatible vector is; else the compatible id with the most vectors: a library embedded
    with ``--device cuda`` (``torch-fp16``) is searched on a machine without a GPU with its
    own vectors and CPU query vectors. Vectors of two ids are never mixed in one index.
    Cost: one index seek, plus one per stored id when ``active`` has none.
    """
    if conn.execute("SELECT 1 FROM embeddings WHERE model_id = ? LIMIT 1", (active,)).fetchone():
        return active
    others = [m for m in stored_model_ids(conn) if compatible_model_ids(active, m)]
    if len(others) <= 1:
        return others[0] if others else active
    counts = {
        m: conn.execute("SELECT count(*) FROM embeddings WHERE model_id = ?", (m,)).fetchone()[0]
        for m in others
    }
    return max(others, key=lambda m: (counts[m], m))


def vectors_by_hash(
    conn: sqlite3.Connection, model_id: str, content_hashes: Iterable[str]
) -> dict[str, tuple[np.ndarray, int]]:
    """Return ``content_hash -> (vector, n_chunks)`` for hashes some stored row of ``model_id`` has."""
    import numpy as np

    found: dict[str, tuple[np.ndarray, int]] = {}
    hashes = list(dict.fromkeys(content_hashes))
    for start in range(0, len(hashes), 500):
        chunk = hashes[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for content_hash, blob, n_chunks in conn.execute(
            "SELECT content_hash, vector, n_chunks FROM embeddings"
            f" WHERE model_id = ? AND content_hash IN ({marks})",
            [model_id, *chunk],
        ):
            found[content_hash] = (np.frombuffer(blob, dtype=np.float32).copy(), int(n_chunks))
    return found


def save_vectors(
    conn: sqlite3.Connection,
    model_id: str,
    rows: list[tuple[str, str, np.ndarray, int]],
) -> None:
    """Insert or replace ``(paper_id, content_hash, vector, n_chunks)`` rows (call inside a transaction).

    ``vector`` is float32, shape (dim,); ``n_chunks`` > 1 records that the text was longer than
    the model's window and was embedded in that many windows, then pooled.
    """
    import numpy as np

    conn.executemany(
        "INSERT OR REPLACE INTO embeddings (paper_id, model_id, content_hash, dim, vector, n_chunks)"
        " VALUES (?,?,?,?,?,?)",
        [
            (pid, model_id, h, int(v.shape[0]), np.ascontiguousarray(v, dtype=np.float32).tobytes(), int(n))
            for pid, h, v, n in rows
        ],
    )


def delete_vectors(conn: sqlite3.Connection, model_id: str) -> int:
    """Delete every stored vector of ``model_id`` (call inside a transaction); return how many."""
    return conn.execute("DELETE FROM embeddings WHERE model_id = ?", (model_id,)).rowcount


def load_vectors(conn: sqlite3.Connection, model_id: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Return ``(paper_ids, matrix, n_chunks)`` of the current vectors of ``model_id``, in paper order.

    ``matrix`` is float32, shape (n_papers, dim); ``n_chunks`` int32, shape (n_papers,). Papers
    without a current vector are left out (see :func:`missing_vectors`).

    Rows are streamed into one preallocated matrix, so loading takes the matrix's size once
    (150 MB at 100k papers x 384) instead of three times (fetched blobs, their join, the copy).
    """
    import numpy as np

    join = (
        " FROM papers p JOIN embeddings e ON e.paper_id = p.paper_id AND e.model_id = ?"
        " AND e.content_hash = p.content_hash"
    )
    # One savepoint (a read transaction, or nested in the caller's): the count and the rows
    # see the same snapshot.
    conn.execute("SAVEPOINT load_vectors")
    try:
        (n,) = conn.execute(f"SELECT count(*){join}", (model_id,)).fetchone()
        first = conn.execute(f"SELECT length(e.vector){join} LIMIT 1", (model_id,)).fetchone()
        if not n or first is None:
            return [], np.zeros((0, 0), dtype=np.float32), np.zeros(0, dtype=np.int32)
        dim = int(first[0]) // 4  # float32 bytes
        paper_ids: list[str] = []
        matrix = np.empty((n, dim), dtype=np.float32)
        n_chunks = np.empty(n, dtype=np.int32)
        cursor = conn.execute(f"SELECT p.paper_id, e.vector, e.n_chunks{join} ORDER BY p.rowid", (model_id,))
        start = 0
        while batch := cursor.fetchmany(_LOAD_BATCH):
            end = start + len(batch)
            paper_ids.extend(r[0] for r in batch)
            matrix[start:end] = np.frombuffer(b"".join(r[1] for r in batch), dtype=np.float32).reshape(
                -1, dim
            )
            n_chunks[start:end] = [r[2] for r in batch]
            start = end
    finally:
        conn.execute("RELEASE load_vectors")
    return paper_ids, matrix, n_chunks


def vectors_fingerprint(conn: sqlite3.Connection, model_id: str) -> tuple[int, int, int]:
    """Return ``(max papers rowid, max embeddings rowid, generation)``: changes whenever vectors may have.

    The rowids are read from the end of their b-trees (constant time, unlike ``count(*)``):
    inserted papers and vectors (an ``INSERT OR REPLACE`` gets a new rowid) move one of them.
    ``generation`` is bumped by triggers on every in-place change that the rowids miss (a
    paper's text or content hash updated, a paper or vector deleted; migration 4), so the
    check costs microseconds per query even at 100k papers and is never fooled; each write
    transaction that moved any of the three also adds a random step, so a copied or restored
    file that is then written never repeats another history's value
    (:func:`paperscope.store.identity.mark_fork`). ``model_id``
    is part of the signature for callers; any model's new vector counts as a change.
    """
    return identity.vectors_mark(conn)


def library_generation(conn: sqlite3.Connection) -> int:
    """Return the library's change counter (see :func:`vectors_fingerprint`)."""
    row = conn.execute("SELECT value FROM library_state WHERE key = 'generation'").fetchone()
    return int(row[0]) if row else 0
