"""Dense retrieval: embed stored papers once (cached by content hash), then search by cosine.

Small libraries are searched exactly (one matrix-vector product); above ``ANN_THRESHOLD``
papers an HNSW graph (Malkov & Yashunin, 2018, via ``usearch``) answers unfiltered queries,
and filtered queries go exact over the allowed rows, so a filter never starves results.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..store import Store
from ..store import vectors as stored
from .embed import Embedder, is_mostly_non_latin

__all__ = ["embedding_text", "ensure_vectors", "DenseIndex", "ANN_THRESHOLD", "EMBED_BATCH"]

#: Papers at which search switches from exact cosine to the HNSW index. Measured by
#: ``bench/search.py``: exact search over n x 384 float32 costs about n / 5,000 ms on 2 cores,
#: so above ~50k papers it alone would use most of the 20 ms query budget.
ANN_THRESHOLD = 50_000
#: Papers embedded between two commits, so an interrupted run keeps what it finished.
EMBED_BATCH = 512
#: Papers to embed at or above which a one-line notice goes to stderr when no progress bar is shown
#: (about 20 s of embedding at ~50 abstracts/s).
NOTICE_AT = 1000


_SENTENCE_END_RE = re.compile(r"(?<=[.!?。！？])\s+")


def _distinct_sentences(text: str) -> str:
    """Return ``text`` with each repeated sentence kept only at its first occurrence."""
    seen: set[str] = set()
    kept = []
    for sentence in _SENTENCE_END_RE.split(text):
        key = sentence.strip().casefold()
        if key and key not in seen:
            seen.add(key)
            kept.append(sentence.strip())
    return " ".join(kept)


def embedding_text(title: str | None, clean_text: str, languages: str = "en") -> str:
    """Return the text a paper is embedded from: ``"Title. abstract"``, or the abstract alone.

    Two changes make the vector reflect the whole abstract:

    - A sentence repeated verbatim is embedded once. Window vectors are averaged, so 300 copies
      of a boilerplate sentence would otherwise drown the one sentence that says what the paper
      does (case 16: its cosine to a paper on the same topic fell from 0.69 to 0.01).
    - For an English-only model (``languages == "en"``), a title and abstract mostly in a
      non-Latin script are replaced by their English dictionary glosses
      (:func:`paperscope.index.crosslingual.gloss_query`), since such a model reads Chinese
      as unrelated single characters (case 17).

    Changing this function changes stored vectors: re-embed (delete the ``embeddings`` rows).
    """
    text = _distinct_sentences(clean_text)
    if title:
        text = f"{title}. {text}"
    if languages == "en" and is_mostly_non_latin(text):
        from .crosslingual import gloss_query

        text = gloss_query(text).text or text
    return text


def ensure_vectors(store: Store, embedder: Embedder, progress: bool = False) -> int:
    """Embed every paper that has no current vector for ``embedder.model_id``; return how many.

    A paper whose content hash already has a vector (under any paper_id) reuses it, so
    re-ingesting or re-indexing never re-embeds unchanged text. Vectors are committed every
    ``EMBED_BATCH`` papers.
    """
    todo = stored.missing_vectors(store.conn, embedder.model_id)
    if not todo:
        return 0
    known = stored.vectors_by_hash(store.conn, embedder.model_id, [row[3] for row in todo])
    reused = [(pid, h, *known[h]) for pid, _, _, h in todo if h in known]
    if reused:
        with store.transaction() as conn:
            stored.save_vectors(conn, embedder.model_id, reused)
    fresh = [row for row in todo if row[3] not in known]
    if len(fresh) >= NOTICE_AT and not progress:
        # Without a progress bar (stderr not a terminal) a long first search would look frozen.
        print(
            f"embedding {len(fresh):,} papers with {embedder.model_id} before the first dense search"
            " (once; vectors are stored in the library)",
            file=sys.stderr,
            flush=True,
        )
    for start in range(0, len(fresh), EMBED_BATCH):
        batch = fresh[start : start + EMBED_BATCH]
        vectors, n_chunks = embedder.embed_documents(
            [embedding_text(title, text, embedder.languages) for _, title, text, _ in batch],
            progress=progress,
        )
        with store.transaction() as conn:
            stored.save_vectors(
                conn,
                embedder.model_id,
                [(pid, h, vectors[i], int(n_chunks[i])) for i, (pid, _, _, h) in enumerate(batch)],
            )
    return len(fresh)


@dataclass
class DenseIndex:
    """The vectors of one model, searchable by cosine similarity.

    Attributes:
        paper_ids: row order of ``matrix``.
        matrix: float32, shape (n_papers, dim), rows L2-normalised.
        n_chunks: int32, shape (n_papers,): windows each paper was embedded in (>1: chunked).
        fingerprint: ``vectors_fingerprint`` when loaded; a different value means reload.
    """

    paper_ids: list[str]
    matrix: np.ndarray
    n_chunks: np.ndarray
    fingerprint: tuple[int, int] = (0, 0)
    ann_threshold: int = ANN_THRESHOLD
    cache_path: Path | None = None
    row_of: dict[str, int] = field(init=False)
    _ann: Any = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.row_of = {pid: i for i, pid in enumerate(self.paper_ids)}

    @classmethod
    def load(
        cls, store: Store, model_id: str, ann_threshold: int = ANN_THRESHOLD, cache_dir: Path | None = None
    ) -> DenseIndex:
        """Load the current vectors of ``model_id`` from the store (call ``ensure_vectors`` first).

        With ``cache_dir``, the HNSW graph is kept there under a name that holds the model and
        the vectors' fingerprint, so a stale graph is never read.
        """
        fingerprint = stored.vectors_fingerprint(store.conn, model_id)
        paper_ids, matrix, n_chunks = stored.load_vectors(store.conn, model_id)
        cache_path = None
        if cache_dir is not None:
            key = hashlib.sha1(f"{model_id}|{fingerprint}".encode()).hexdigest()[:16]
            cache_path = cache_dir / f"hnsw-{key}.usearch"
        return cls(paper_ids, matrix, n_chunks, fingerprint, ann_threshold, cache_path)

    def __len__(self) -> int:
        return len(self.paper_ids)

    @property
    def uses_ann(self) -> bool:
        """True when unfiltered searches go through the HNSW index."""
        return len(self.paper_ids) >= self.ann_threshold

    def build_ann(self) -> None:
        """Build (or read from ``cache_path``) the HNSW index now, instead of at the first search.

        A built graph is saved to ``cache_path`` (temporary file, then rename), so the next
        process reads it in well under a second instead of rebuilding it.
        """
        if self._ann is not None or not self.uses_ann:
            return
        from usearch.index import Index

        # usearch defaults: connectivity 16, expansion 128 (add) / 64 (search).
        ann = Index(ndim=self.matrix.shape[1], metric="ip", dtype="f32")
        if self.cache_path is not None and self.cache_path.is_file():
            ann.load(str(self.cache_path))
            if len(ann) == len(self.paper_ids):
                self._ann = ann
                return
            ann = Index(ndim=self.matrix.shape[1], metric="ip", dtype="f32")
        ann.add(np.arange(len(self.paper_ids), dtype=np.uint64), self.matrix, threads=0)
        if self.cache_path is not None:
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.cache_path.with_name(self.cache_path.name + ".tmp")
            ann.save(str(tmp))
            os.replace(tmp, self.cache_path)
        self._ann = ann

    def search(self, query: np.ndarray, k: int, allowed: set[str] | None = None) -> list[tuple[str, float]]:
        """Return up to ``k`` ``(paper_id, cosine)`` pairs, best first.

        Args:
            query: float32, shape (dim,), L2-normalised.
            k: how many to return.
            allowed: when set, only these papers compete (exact search over them).
        """
        if not self.paper_ids or k <= 0 or not np.any(query):
            return []
        if allowed is None and self.uses_ann:
            self.build_ann()
            matches = self._ann.search(query.astype(np.float32), min(k, len(self.paper_ids)))
            ids = self.paper_ids
            # .tolist() converts in one call; per-element numpy scalars cost ~1 us each.
            return [
                (ids[key], 1.0 - dist)
                for key, dist in zip(matches.keys.tolist(), matches.distances.tolist(), strict=True)
            ]
        if allowed is None:
            rows = np.arange(len(self.paper_ids))
            scores = self.matrix @ query
        else:
            rows = np.fromiter((self.row_of[p] for p in allowed if p in self.row_of), dtype=np.int64)
            if rows.size == 0:
                return []
            scores = self.matrix[rows] @ query
        k = min(k, rows.size)
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((rows[top], -scores[top]))]
        ids = self.paper_ids
        return [(ids[r], s) for r, s in zip(rows[top].tolist(), scores[top].tolist(), strict=True)]

    def scores_of(self, query: np.ndarray, paper_ids: list[str]) -> dict[str, float]:
        """Return the exact cosine of ``query`` with each listed paper that has a vector."""
        row_of = self.row_of
        rows = [r for r in map(row_of.get, paper_ids) if r is not None]
        if not rows:
            return {}
        scores = self.matrix[np.asarray(rows)] @ query
        ids = self.paper_ids
        return {ids[r]: s for r, s in zip(rows, scores.tolist(), strict=True)}

    def vector_of(self, paper_id: str) -> np.ndarray | None:
        """Return the paper's vector (float32, (dim,)), or None when it has none."""
        row = self.row_of.get(paper_id)
        return None if row is None else self.matrix[row]
