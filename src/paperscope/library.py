"""Library: the one facade that the CLI, the web app and notebooks call."""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .config import default_db_path, home_dir
from .errors import InputError
from .extract import build_card
from .index.bm25 import MemoryBM25
from .index.dense import DenseIndex, ensure_vectors
from .index.embed import Embedder, embedder_languages, get_embedder, is_mostly_non_latin
from .index.fusion import DEFAULT_FUSION, Fusion
from .index.related import related_papers
from .index.search import MODES, search_papers
from .ingest import ingest_paths
from .models import Hit, IngestReport, Paper
from .store import Store, marks, papers, vectors
from .store.lexical import TITLE_WEIGHT
from .store.retrieval import filtered_paper_ids

__all__ = ["Library", "MAX_LIMIT", "MEMORY_BM25_THRESHOLD"]

#: The most hits one search returns; larger limits are refused rather than silently cut.
MAX_LIMIT = 1000
#: Papers from which BM25 runs in memory instead of through FTS5. Measured by bench/search.py on
#: 2 busy cores: FTS5 bm25 mode p50 16 ms at 4.9k papers, 43 ms at 18k (it reads every matching
#: row); the in-memory index answers in about 1 ms. Below this size FTS5 keeps exact phrase
#: matching and needs no index build.
MEMORY_BM25_THRESHOLD = 10_000


class Library:
    """A paper library stored in one SQLite file.

    Args:
        path: the database file; None means ``$PAPERSCOPE_DB`` or ``$PAPERSCOPE_HOME/library.db``.
        embedder: an embedder name from ``paperscope.index.embed.EMBEDDERS`` or an Embedder;
            None means ``$PAPERSCOPE_EMBEDDER``, else ``"minilm"``. Loaded on first use.

    Raises:
        StoreError: the database cannot be opened or migrated.
    """

    def __init__(self, path: str | Path | None = None, embedder: str | Embedder | None = None):
        self.path = Path(path) if path is not None and str(path) != ":memory:" else path
        self.store = Store(path if path is not None else default_db_path())
        self._embedder_choice = embedder or os.environ.get("PAPERSCOPE_EMBEDDER") or "minilm"
        self._dense: DenseIndex | None = None
        self._bm25: tuple[int, MemoryBM25] | None = None

    def close(self) -> None:
        """Close the database."""
        self.store.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ingest ---------------------------------------------------------------------------
    def ingest(self, paths: Iterable[str | Path], fmt: str | None = None, progress: bool = False) -> IngestReport:
        """Read files or folders into the library; see :func:`paperscope.ingest.ingest_paths`."""
        before = self.store.conn.execute("SELECT coalesce(max(rowid), 0) FROM papers").fetchone()[0]
        report = ingest_paths(self.store, paths, build_card=build_card, fmt=fmt, progress=progress)
        self._bm25 = None
        self._warn_language_mismatch(report, before)
        return report

    def _warn_language_mismatch(self, report: IngestReport, after_rowid: int) -> None:
        """Warn when new abstracts are mostly non-Latin script and the embedder is English-only (case 17)."""
        choice = self._embedder_choice
        name = choice if isinstance(choice, str) else None
        languages = embedder_languages(name) if name else choice.languages  # type: ignore[union-attr]
        if languages != "en" or not report.new:
            return
        rows = self.store.conn.execute("SELECT clean_text FROM papers WHERE rowid > ?", (after_rowid,))
        count = sum(1 for (text,) in rows if is_mostly_non_latin(text))
        if count:
            model = name or choice.model_id  # type: ignore[union-attr]
            report.warnings.append(
                f"{count} abstract(s) are mostly in a non-Latin script, but the embedding model {model!r} is"
                " English-only: dense search and related papers will be weak for them (keyword search works)"
            )

    # -- read -----------------------------------------------------------------------------
    def get(self, paper_id: str) -> Paper:
        """Return a paper by ``paper_id`` or a unique prefix of it (4+ hex characters).

        Raises:
            NotFound: no paper matches.
            InputError: the id is malformed or the prefix is ambiguous.
        """
        return papers.get_paper(self.store.conn, papers.resolve_paper_id(self.store.conn, paper_id))

    def papers(self) -> Iterator[Paper]:
        """Yield every paper in the order it was added."""
        return papers.iter_papers(self.store.conn)

    def __len__(self) -> int:
        return self.store.count("papers")

    def stats(self) -> dict[str, Any]:
        """Return counts: papers, sources, cards, stars, tags, notes, and papers per venue/year."""
        conn = self.store.conn
        by_venue = [
            {"venue": r[0], "year": r[1], "papers": r[2]}
            for r in conn.execute(
                "SELECT venue, year, count(*) FROM papers GROUP BY venue, year ORDER BY venue, year"
            )
        ]
        return {
            "db": str(self.store.path),
            "schema_version": self.store.schema_version,
            **{t: self.store.count(t) for t in ("papers", "sources", "cards", "stars", "tags", "notes")},
            "by_venue": by_venue,
        }

    # -- search ---------------------------------------------------------------------------
    def search(
        self,
        query: str,
        limit: int = 10,
        mode: str = "hybrid",
        venue: str | None = None,
        year: int | None = None,
        decision: str | None = None,
        source_area: str | None = None,
        has_code: bool | None = None,
        fusion: Fusion = DEFAULT_FUSION,
    ) -> list[Hit]:
        """Return the best ``limit`` papers for ``query``.

        Args:
            query: words, a phrase, or a Chinese/mixed query (glossed into English).
            limit: 1..MAX_LIMIT hits.
            mode: ``"hybrid"`` (BM25 and dense, fused), ``"bm25"`` or ``"dense"``.
            venue: only this venue (case-insensitive). Filters apply before ranking, see
                :func:`paperscope.store.retrieval.filtered_paper_ids`.
            year: only this year.
            decision: only decisions containing this text (``"oral"``).
            source_area: only source areas containing this text.
            has_code: only papers with (True) or without (False) a code URL.
            fusion: how hybrid mode combines its legs (default: tuned on training queries).

        Returns:
            Hits best first; ``Hit.legs`` gives each leg's rank and raw score (BM25 score,
            cosine), so a reader can see why a paper matched.

        Raises:
            InputError: ``query`` is empty or whitespace, ``limit`` is not in 1..MAX_LIMIT,
                or ``mode`` is unknown.
            ModelUnavailable: dense or hybrid mode, and the embedding model is not installed.
        """
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
            raise InputError(f"limit must be an integer from 1 to {MAX_LIMIT}, got {limit!r}")
        if not query or not query.strip():
            raise InputError("empty query: type some words to search for")
        if mode not in MODES:
            raise InputError(f"unknown search mode {mode!r}; choose one of: {', '.join(MODES)}")
        allowed = filtered_paper_ids(self.store.conn, venue, year, decision, source_area, has_code)
        ranked = search_papers(
            self.store,
            query,
            limit,
            mode=mode,
            allowed=allowed,
            embedder=self.embedder if mode != "bm25" else None,
            dense_index=self.dense_index,
            fusion=fusion,
            memory_bm25=self.memory_bm25,
        )
        hits = []
        for item in ranked:
            paper = papers.get_paper(self.store.conn, item.paper_id)
            hits.append(
                Hit(
                    paper_id=item.paper_id,
                    score=item.score,
                    rank=item.rank,
                    label=paper.label,
                    sources=paper.sources,
                    legs=item.legs,
                )
            )
        return hits

    def related(self, paper_id: str, limit: int = 10) -> list[Hit]:
        """Return the ``limit`` papers nearest to ``paper_id`` by embedding cosine.

        The paper itself and its near-duplicates (same folded title, or cosine >= 0.98: the
        same abstract lightly edited) are never returned. ``Hit.terms`` lists the rarest words
        the two papers share, to explain each neighbour.

        Raises:
            NotFound: no paper matches ``paper_id``.
            InputError: the id is malformed or ambiguous, or ``limit`` is not in 1..MAX_LIMIT.
        """
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
            raise InputError(f"limit must be an integer from 1 to {MAX_LIMIT}, got {limit!r}")
        paper = self.get(paper_id)
        neighbours = related_papers(self.store, self.dense_index(), paper, limit)
        hits = []
        for rank, (other, score, terms) in enumerate(neighbours, start=1):
            hits.append(
                Hit(
                    paper_id=other.paper_id,
                    score=score,
                    rank=rank,
                    label=other.label,
                    sources=other.sources,
                    legs={"dense": {"rank": rank, "score": score}},
                    terms=terms,
                )
            )
        return hits

    # -- embeddings -----------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        """The active embedder (loaded on first use).

        Raises:
            InputError: the configured embedder name is unknown.
            ModelUnavailable: its model or runtime is not installed.
        """
        if isinstance(self._embedder_choice, str):
            self._embedder_choice = get_embedder(self._embedder_choice)
        return self._embedder_choice

    def dense_index(self, progress: bool | None = None) -> DenseIndex:
        """Return the dense index of the active embedder, embedding papers that lack a vector first.

        The index is kept in memory and reloaded only when papers or vectors were added since.
        ``progress`` (default: when stderr is a terminal) shows a progress bar while embedding.
        """
        if progress is None:
            progress = sys.stderr.isatty()
        embedder = self.embedder
        index = self._dense
        fingerprint = vectors.vectors_fingerprint(self.store.conn, embedder.model_id)
        if index is not None and index.fingerprint == fingerprint:
            return index
        if ensure_vectors(self.store, embedder, progress=progress):
            fingerprint = vectors.vectors_fingerprint(self.store.conn, embedder.model_id)
        if index is None or index.fingerprint != fingerprint:
            index = self._dense = DenseIndex.load(self.store, embedder.model_id, cache_dir=self._cache_dir())
        return index

    def _cache_dir(self) -> Path | None:
        """Return where derived indexes of this library are kept (None for an in-memory library)."""
        if self.store.path == ":memory:":
            return None
        key = hashlib.sha1(str(Path(self.store.path).resolve()).encode()).hexdigest()[:16]
        return home_dir() / "cache" / key

    def memory_bm25(self) -> MemoryBM25 | None:
        """Return the in-memory BM25 index for a library of ``MEMORY_BM25_THRESHOLD`` papers or more.

        Smaller libraries return None and are searched through SQLite FTS5. The index is built
        once (about 1 s per 5k papers), saved under the cache folder, and rebuilt only when
        papers or titles changed.
        """
        conn = self.store.conn
        # max(rowid) is read in constant time; papers are never deleted, so it counts papers
        # added (merged duplicates aside) and changes whenever one is.
        (top,) = conn.execute("SELECT coalesce(max(rowid), 0) FROM papers").fetchone()
        if top < MEMORY_BM25_THRESHOLD:
            return None
        if self._bm25 is not None and self._bm25[0] == top:
            return self._bm25[1]
        n, titles = conn.execute("SELECT count(*), coalesce(sum(length(title)), 0) FROM papers").fetchone()
        cache = self._cache_dir()
        path = None
        if cache is not None:
            path = cache / f"bm25-{n}-{top}-{titles}.npz"
        if path is not None and path.is_file():
            index = MemoryBM25.load(path)
        else:
            rows = conn.execute("SELECT paper_id, title, clean_text FROM papers ORDER BY rowid")
            index = MemoryBM25.build(rows, title_weight=TITLE_WEIGHT)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                index.save(path)
        self._bm25 = (top, index)
        return index

    def embeddings(self, progress: bool = False) -> tuple[list[str], np.ndarray]:
        """Return ``(paper_ids, matrix)``: every paper's vector from the active embedder.

        Vectors are computed once per (content hash, model) and stored in the library, so a
        second call (or a call after re-ingesting the same files) embeds nothing.

        Returns:
            paper_ids in the order papers were added, and a float32 matrix of shape
            (n_papers, dim) whose rows are L2-normalised (the embedder's ``dim``, 384 for MiniLM).
        """
        index = self.dense_index(progress=progress)
        return list(index.paper_ids), index.matrix

    # -- marks ----------------------------------------------------------------------------
    def star(self, paper_id: str, starred: bool = True) -> None:
        """Star or unstar a paper (by id or prefix)."""
        pid = papers.resolve_paper_id(self.store.conn, paper_id)
        with self.store.transaction() as conn:
            marks.set_star(conn, pid, starred)

    def tag(self, paper_id: str, tag: str) -> None:
        """Add a tag to a paper.

        Raises:
            InputError: the tag is empty.
        """
        if not tag.strip():
            raise InputError("empty tag")
        pid = papers.resolve_paper_id(self.store.conn, paper_id)
        with self.store.transaction() as conn:
            marks.add_tag(conn, pid, tag.strip())

    def set_note(self, paper_id: str, body: str) -> None:
        """Set the note of a paper (an empty body removes it)."""
        pid = papers.resolve_paper_id(self.store.conn, paper_id)
        with self.store.transaction() as conn:
            marks.set_note(conn, pid, body)

    def marks(self, paper_id: str) -> dict[str, Any]:
        """Return ``{"starred": bool, "tags": [...], "note": str | None}`` for a paper."""
        conn = self.store.conn
        pid = papers.resolve_paper_id(conn, paper_id)
        return {"starred": marks.is_starred(conn, pid), "tags": marks.tags_of(conn, pid), "note": marks.note_of(conn, pid)}
