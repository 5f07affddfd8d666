"""Dense retrieval: embed stored papers once (cached by content hash), then search by cosine.

Small libraries are searched exactly (one matrix-vector product); above ``ANN_THRESHOLD``
papers an HNSW graph (Malkov & Yashunin, 2018, via ``usearch``, the ``ann`` extra) answers
unfiltered queries, and filtered queries go exact over the allowed rows, so a filter never
starves results. Without usearch every search is exact (about n / 5,000 ms on 2 cores).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import random
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..progress import progress as track_progress
from ..store import Store
from ..store import vectors as stored
from .embed import Embedder, is_mostly_non_latin
from .topk import top_k
from .vector_saver import VectorSaver, takes_on_done

__all__ = [
    "embedding_text",
    "ensure_vectors",
    "DenseIndex",
    "ANN_THRESHOLD",
    "ANN_DTYPE",
    "EMBED_BATCH",
    "TITLELESS_COSINE_BONUS",
    "ANN_INSTALL",
    "ann_installed",
]

#: Papers at which search switches from exact cosine to the HNSW index. Measured by
#: ``bench/search.py``: exact search over n x 384 float32 costs about n / 5,000 ms on 2 cores,
#: so above ~50k papers it alone would use most of the 20 ms query budget.
ANN_THRESHOLD = 50_000
#: Element type of the vectors inside the HNSW graph: int8 (usearch scales each unit vector's
#: components by 127), a quarter of float32, so 1M x 384 papers take 384 MB instead of 1.5 GB and
#: a search reads a quarter of the bytes. The graph only proposes candidates: their cosines are
#: recomputed exactly from the float32 matrix, so scores are the exact ones.
ANN_DTYPE = "i8"
#: Candidates the graph proposes per hit asked, re-scored exactly. Measured on the 100k-paper
#: library of ``bench/scale.py`` (synthetic clustered vectors, 60 held-out ICLR 2026 titles,
#: k = 100, load average 11): recall@100 against exact search 0.80 / 0.94 / 0.96 for 1 / 2 / 3,
#: at 8.7 / 16.5 / 18.2 ms median.
ANN_OVERFETCH = 2
#: Papers per embedder call. The embedder sorts and pads the windows of one call together, so
#: this grouping is kept as every release has used it (another moves vectors in the 4th decimal).
EMBED_BATCH = 512
#: Added to the cosine of a paper without a title in a search's dense leg (issue 23). A titled
#: paper is embedded as "Title. abstract", and a title says in a few words what a short query
#: says, so its cosine to the query is higher than its abstract alone would have. Chosen on
#: training queries only (``bench/titleless.py``, ICLR 2026 with 50% of the titles removed,
#: training quarter, hybrid, BM25 title-less body weight 1.5): bonuses 0 / 0.005 / 0.01 / 0.015
#: keep MRR@10 over all targets at its best on both sets (author keywords 0.720, Chinese problem
#: statements 0.694), 0.02 lowers the statements' to 0.691; 0.01 is the middle of those, and
#: moves title-less / titled from 0.965 to 0.978 (keywords) and 0.974 to 1.012 (statements).
#: Vectors stay as they are: nothing is re-embedded.
TITLELESS_COSINE_BONUS = 0.01


#: The extra that brings usearch, the HNSW graph of libraries of ``ANN_THRESHOLD`` papers or more.
ANN_INSTALL = "pip install 'paperscope[ann]'"
#: Vectors added to the HNSW graph per call (float32 copies of 20k x 384 rows: 30 MB).
_ANN_ADD_BATCH = 20_000

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


def ensure_vectors(
    store: Store,
    embedder: Embedder,
    progress: bool = False,
    max_papers: int | None = None,
    budget_s: float | None = None,
) -> int:
    """Embed papers that have no current vector for ``embedder.model_id``; return how many.

    A paper whose content hash already has a vector (under any paper_id) reuses it, so
    re-ingesting or re-indexing never re-embeds unchanged text. Papers go to the embedder
    ``EMBED_BATCH`` at a time; the vectors it finishes are committed a few dozen at a time
    (:class:`paperscope.index.vector_saver.VectorSaver`), so an interrupted run keeps what it
    finished and the next run embeds only the rest.

    Args:
        store: the open library.
        embedder: the model whose vectors are wanted.
        progress: show a progress bar of papers (papers/s, ETA; see :mod:`paperscope.progress`).
        max_papers: embed nothing when more papers than this need a new vector (a search
            answers from BM25 instead of waiting; ``paperscope embed`` fills them).
        budget_s: stop after the batch during which this many seconds (wall) have passed.

    Returns:
        The number of papers given a newly computed vector (reused vectors not counted).
    """
    started = time.perf_counter()
    todo = stored.missing_vectors(store.conn, embedder.model_id)
    if not todo:
        return 0
    known = stored.vectors_by_hash(store.conn, embedder.model_id, [row[3] for row in todo])
    reused = [(pid, h, *known[h]) for pid, _, _, h in todo if h in known]
    if reused:
        with store.transaction() as conn:
            stored.save_vectors(conn, embedder.model_id, reused)
    fresh = [row for row in todo if row[3] not in known]
    if max_papers is not None and len(fresh) > max_papers:
        return 0
    done = 0
    starts = list(range(0, len(fresh), EMBED_BATCH))
    # Another process may be embedding this library too (two ingests at once): each starts at a
    # random batch and skips what the other has stored meanwhile, so the work is shared rather
    # than done twice. A single process embeds the same batches, in a rotated order.
    if len(starts) > 1:
        shift = random.randrange(len(starts))
        starts = starts[shift:] + starts[:shift]
    with track_progress(total=len(fresh), desc="embedding", unit="papers", enabled=progress) as bar:
        for start in starts:
            batch = fresh[start : start + EMBED_BATCH]
            if len(starts) > 1:
                there = stored.vectors_by_hash(store.conn, embedder.model_id, [row[3] for row in batch])
                if there:
                    with store.transaction() as conn:
                        stored.save_vectors(
                            conn,
                            embedder.model_id,
                            [(pid, h, *there[h]) for pid, _, _, h in batch if h in there],
                        )
                    bar.update(sum(row[3] in there for row in batch))
                    batch = [row for row in batch if row[3] not in there]
                    if not batch:
                        continue

            base = bar.count

            def advance(fraction: float, first: int = base, size: int = len(batch)) -> None:
                bar.update(first + round(fraction * size) - bar.count)

            # Batches of EMBED_BATCH papers, as every release has embedded them: the windows of
            # one call are sorted and padded together, so another grouping would change the
            # vectors in the 4th decimal; the progress bar follows the windows inside each call.
            texts = [embedding_text(title, text, embedder.languages) for _, title, text, _ in batch]
            with VectorSaver(store, embedder.model_id, batch) as saver:
                if takes_on_done(embedder):
                    vectors, n_chunks = embedder.embed_documents(
                        texts, progress=advance if progress else False, on_done=saver.take
                    )
                else:  # an embedder without on_done: its vectors are stored when the call ends
                    vectors, n_chunks = embedder.embed_documents(
                        texts, progress=advance if progress else False
                    )
                saver.take_rest(vectors, n_chunks)
            done += len(batch)
            advance(1.0)
            if budget_s is not None and time.perf_counter() - started >= budget_s:
                break
    return done


@dataclass
class DenseIndex:
    """The vectors of one model, searchable by cosine similarity.

    Attributes:
        paper_ids: row order of ``matrix``.
        matrix: float32, shape (n_papers, dim), rows L2-normalised; a read-only memory map of
            the cache file when loaded from one.
        n_chunks: int32, shape (n_papers,): windows each paper was embedded in (>1: chunked).
        fingerprint: ``vectors_fingerprint`` when loaded; a different value means reload.
        titleless: bool, shape (n_papers,): the paper has no title (None: unknown, none marked).
    """

    paper_ids: list[str]
    matrix: np.ndarray
    n_chunks: np.ndarray
    fingerprint: tuple[int, ...] = (0, 0, 0)
    ann_threshold: int = ANN_THRESHOLD
    cache_path: Path | None = None
    titleless: np.ndarray | None = None
    _row_of: dict[str, int] | None = field(init=False, default=None)
    _ann: Any = field(init=False, default=None)

    @property
    def row_of(self) -> dict[str, int]:
        """paper_id → row of ``matrix`` (built on first use: 10 ms at 100k papers)."""
        if self._row_of is None:
            self._row_of = {pid: i for i, pid in enumerate(self.paper_ids)}
        return self._row_of

    @classmethod
    def load(
        cls, store: Store, model_id: str, ann_threshold: int = ANN_THRESHOLD, cache_dir: Path | None = None
    ) -> DenseIndex:
        """Load the current vectors of ``model_id`` (call ``ensure_vectors`` first).

        With ``cache_dir``, the vectors are kept there as a ``.npy`` matrix (memory-mapped on
        load: a fresh process reads 100k x 384 vectors in milliseconds instead of 0.5 s of
        SQLite blobs) beside their paper_ids, and so is the HNSW graph; every file name holds a
        hash of the model and the vectors' fingerprint, so a stale file is never read. Files of
        older fingerprints are removed when new ones are written.
        """
        fingerprint = stored.vectors_fingerprint(store.conn, model_id)
        key = hashlib.sha1(f"{model_id}|{fingerprint}".encode()).hexdigest()[:16]
        if cache_dir is None:
            paper_ids, matrix, n_chunks = stored.load_vectors(store.conn, model_id)
            titleless = _titleless_rows(store, paper_ids)
            return cls(paper_ids, matrix, n_chunks, fingerprint, ann_threshold, None, titleless)
        cached = _read_vector_cache(cache_dir, key)
        if cached is None:
            paper_ids, matrix, n_chunks = stored.load_vectors(store.conn, model_id)
            titleless = _titleless_rows(store, paper_ids)
            _write_vector_cache(cache_dir, key, paper_ids, matrix, n_chunks, titleless)
        else:
            paper_ids, matrix, n_chunks, titleless = cached
        # The element type is in the name, so a graph of another type is never viewed.
        graph = cache_dir / f"hnsw-{ANN_DTYPE}-{key}.usearch"
        return cls(paper_ids, matrix, n_chunks, fingerprint, ann_threshold, graph, titleless)

    def __len__(self) -> int:
        return len(self.paper_ids)

    @property
    def uses_ann(self) -> bool:
        """True when unfiltered searches go through the HNSW index (usearch installed, and enough papers)."""
        return self.wants_ann and ann_installed()

    @property
    def wants_ann(self) -> bool:
        """True when the library is big enough for the HNSW index, whether or not usearch is installed."""
        return len(self.paper_ids) >= self.ann_threshold

    def ann_is_cached(self) -> bool:
        """Return True when the HNSW graph is loaded or saved for these vectors."""
        return self._ann is not None or (self.cache_path is not None and self.cache_path.is_file())

    def build_ann(self) -> None:
        """Build (or read from ``cache_path``) the HNSW index now, instead of at the first search.

        A built graph is saved to ``cache_path`` (temporary file, then rename), so the next
        process reads it in well under a second instead of rebuilding it.
        """
        if self._ann is not None or not self.uses_ann:
            return
        _import_openvino_before_usearch()
        from usearch.index import Index

        def new_index() -> Any:
            # usearch defaults: connectivity 16, expansion 128 (add) / 64 (search). Cosine, not
            # inner product: usearch's int8 kernels are exact for cosine of the quantised rows.
            return Index(ndim=self.matrix.shape[1], metric="cos", dtype=ANN_DTYPE)

        ann = new_index()
        if self.cache_path is not None and self.cache_path.is_file():
            # A view memory-maps the saved graph: a fresh process searches at once, without
            # reading it (about 0.5 GB at 1M papers) into memory first.
            ann.view(str(self.cache_path))
            if len(ann) == len(self.paper_ids):
                self._ann = ann
                return
            ann = new_index()
        keys = np.arange(len(self.paper_ids), dtype=np.uint64)
        for start in range(0, len(keys), _ANN_ADD_BATCH):  # float32 copies of one batch at a time
            end = start + _ANN_ADD_BATCH
            ann.add(
                keys[start:end], np.ascontiguousarray(self.matrix[start:end], dtype=np.float32), threads=0
            )
        if self.cache_path is not None:
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.cache_path.with_name(
                f"{self.cache_path.name}.{os.getpid()}.{threading.get_ident()}.tmp"
            )
            ann.save(str(tmp))
            os.replace(tmp, self.cache_path)
            _remove_stale(self.cache_path.parent, "hnsw-", self.cache_path.name)
        self._ann = ann

    def search(
        self, query: np.ndarray, k: int, allowed: set[str] | None = None, titleless_bonus: float = 0.0
    ) -> list[tuple[str, float]]:
        """Return up to ``k`` ``(paper_id, cosine)`` pairs, best first.

        Args:
            query: float32, shape (dim,), L2-normalised.
            k: how many to return.
            allowed: when set, only these papers compete (exact search over them).
            titleless_bonus: added to the cosine of each paper without a title
                (:data:`TITLELESS_COSINE_BONUS` in searches; 0: the plain cosine).

        Unfiltered searches of a library of ``ann_threshold`` papers or more use the HNSW
        graph once :meth:`build_ann` has built or saved it, and exact cosine before that.
        """
        if not self.paper_ids or k <= 0 or not np.any(query):
            return []
        if allowed is None and self.uses_ann and self.ann_is_cached():
            # A graph is never built inside a search (about 40 s at 100k papers): `embed` and
            # `ingest` build it; until then exact search answers (about 20 ms at 100k papers).
            self.build_ann()
            query = np.asarray(query, dtype=np.float32)
            matches = self._ann.search(query, min(k * ANN_OVERFETCH, len(self.paper_ids)))
            # The graph's int8 cosines only choose candidates: re-score them exactly (rows
            # sorted, so the memory-mapped matrix is read in file order).
            rows = np.unique(matches.keys.astype(np.int64))
        elif allowed is None:
            rows = None  # every row: one product over the whole matrix, no gather
        else:
            rows = np.fromiter((self.row_of[p] for p in allowed if p in self.row_of), dtype=np.int64)
        if rows is None:
            rows, scores = np.arange(len(self.paper_ids)), self.matrix @ query
        elif rows.size == 0:
            return []
        else:
            scores = self.matrix[rows] @ query
        if titleless_bonus and self.titleless is not None:
            scores = scores + np.float32(titleless_bonus) * self.titleless[rows]
        top = top_k(scores, k, tie=rows)
        ids = self.paper_ids
        # .tolist() converts in one call; per-element numpy scalars cost ~1 us each.
        return [(ids[r], s) for r, s in zip(rows[top].tolist(), scores[top].tolist(), strict=True)]

    def scores_of(
        self, query: np.ndarray, paper_ids: list[str], titleless_bonus: float = 0.0
    ) -> dict[str, float]:
        """Return the exact cosine of ``query`` with each listed paper that has a vector.

        ``titleless_bonus`` is added for papers without a title, as in :meth:`search`.
        """
        row_of = self.row_of
        rows = [r for r in map(row_of.get, paper_ids) if r is not None]
        if not rows:
            return {}
        scores = self.matrix[np.asarray(rows)] @ query
        if titleless_bonus and self.titleless is not None:
            scores = scores + np.float32(titleless_bonus) * self.titleless[np.asarray(rows)]
        ids = self.paper_ids
        return {ids[r]: s for r, s in zip(rows, scores.tolist(), strict=True)}

    def vector_of(self, paper_id: str) -> np.ndarray | None:
        """Return the paper's vector (float32, (dim,)), or None when it has none."""
        row = self.row_of.get(paper_id)
        return None if row is None else self.matrix[row]


def _titleless_rows(store: Store, paper_ids: list[str]) -> np.ndarray:
    """Return bool, shape (len(paper_ids),): True where the paper has no title."""
    bare = stored.titleless_papers(store.conn)
    return np.fromiter((pid in bare for pid in paper_ids), dtype=bool, count=len(paper_ids))


def _vector_cache_paths(cache_dir: Path, key: str) -> tuple[Path, Path, Path, Path]:
    return (
        cache_dir / f"vectors-{key}.npy",
        cache_dir / f"vectors-{key}.ids.npy",
        cache_dir / f"vectors-{key}.chunks.npy",
        cache_dir / f"vectors-{key}.titleless.npy",
    )


def _read_vector_cache(
    cache_dir: Path, key: str
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray] | None:
    """Return the cached ``(paper_ids, matrix, n_chunks, titleless)`` of ``key``, or None when absent or torn.

    A cache written before issue 23 has no ``.titleless.npy`` and is read as absent: the next
    load reads the vectors from SQLite once and writes all four files.
    """
    paths = _vector_cache_paths(cache_dir, key)
    if not all(path.is_file() for path in paths):
        return None
    matrix_path, ids_path, chunks_path, titleless_path = paths
    try:
        matrix = np.load(matrix_path, mmap_mode="r")
        paper_ids = np.load(ids_path).tolist()
        n_chunks = np.load(chunks_path)
        titleless = np.load(titleless_path)
    except (OSError, ValueError):
        return None
    n = len(paper_ids)
    if matrix.ndim != 2 or matrix.shape[0] != n or n_chunks.shape != (n,) or titleless.shape != (n,):
        return None
    return paper_ids, matrix, n_chunks, titleless


def _write_vector_cache(
    cache_dir: Path,
    key: str,
    paper_ids: list[str],
    matrix: np.ndarray,
    n_chunks: np.ndarray,
    titleless: np.ndarray,
) -> None:
    """Write the cache files of ``key`` (each to a temporary name, then renamed), best effort.

    The matrix is renamed into place last, and a reader needs all four files, so a crash
    never leaves a readable half. A read-only cache folder simply goes without a cache.
    """
    if not paper_ids:
        return
    paths = _vector_cache_paths(cache_dir, key)
    arrays = (
        np.ascontiguousarray(matrix, dtype=np.float32),
        np.asarray(paper_ids, dtype=str),
        np.asarray(n_chunks, dtype=np.int32),
        np.asarray(titleless, dtype=bool),
    )
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        for path, array in sorted(zip(paths, arrays, strict=True), key=lambda pa: pa[0] == paths[0]):
            tmp = path.with_name(
                f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp"
            )  # writers never share one
            with tmp.open("wb") as handle:
                np.save(handle, array, allow_pickle=False)
            os.replace(tmp, path)
    except OSError:
        return
    _remove_stale(cache_dir, "vectors-", *(p.name for p in paths))


def _remove_stale(folder: Path, prefix: str, *keep: str) -> None:
    """Delete ``prefix*`` files in ``folder`` other than ``keep`` (caches of older fingerprints)."""
    for path in folder.glob(f"{prefix}*"):
        if path.name not in keep:
            with contextlib.suppress(OSError):
                path.unlink()


@functools.cache
def ann_installed() -> bool:
    """Return True when usearch (the ``ann`` extra) is installed; nothing is imported."""
    from importlib.util import find_spec

    return find_spec("usearch") is not None


def _import_openvino_before_usearch() -> None:
    """Import OpenVINO (when installed) before usearch is first imported in this process.

    With usearch 2.26 loaded first, every later OpenVINO ``compile_model`` fails with an empty
    ``RuntimeError`` from ``core.cpp`` (a clash between the two extensions' native symbols:
    importing ``usearch.index`` alone is enough); with OpenVINO loaded first both work,
    whatever runs next. A library big enough for HNSW embeds its queries with OpenVINO anyway.
    """
    from importlib.util import find_spec

    if find_spec("openvino") is not None:
        import openvino  # noqa: F401
