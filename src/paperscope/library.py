"""Library: the one facade that the CLI, the web app and notebooks call."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import MAX_QUERY_CHARS, MAX_QUERY_TERMS, cache_dir, default_db_path
from .errors import InputError, NotFound, NothingMarked
from .models import EXTRACTOR_VERSION, FIRST_CARD_VERSION, Card, Hit, IngestReport, Paper, Topic
from .store import Store, marks, papers, vectors
from .store import topics as topic_store
from .store.retrieval import document_frequencies, filtered_paper_ids
from .text import has_cjk
from .waits import doing

if TYPE_CHECKING:
    # Type names only: a command that prints stored data (show, stats, list, marks, export)
    # imports no extractor, index or model code (issue 29); each method imports what it runs.
    import sqlite3

    import numpy as np

    from .enrich.attach import UndoReport
    from .example import Example
    from .index.bm25 import MemoryBM25
    from .index.bounds import BoundedQuery
    from .index.dense import DenseIndex
    from .index.embed import Embedder
    from .index.fusion import Fusion
    from .index.search import RankedList
    from .store.doctor import DoctorReport
    from .store.salvage import SalvageReport
    from .topic_fits import TopicUpdate
    from .topics import TopicModel
    from .triage.backup import RestoreReport

__all__ = [
    "Library",
    "MAX_LIMIT",
    "MEMORY_BM25_THRESHOLD",
    "SEARCH_EMBED_MAX_PAPERS",
    "SEARCH_EMBED_BUDGET_S",
    "MAX_QUERY_TERMS",
    "MAX_QUERY_CHARS",
    "BROWSE_SORTS",
    "cut_query",
]

#: The most hits one search returns; larger limits are refused rather than silently cut.
MAX_LIMIT = 1000
#: Papers from which BM25 runs in memory instead of through FTS5. Measured by bench/search.py on
#: 2 busy cores: FTS5 bm25 mode p50 16 ms at 4.9k papers, 43 ms at 18k (it reads every matching
#: row); the in-memory index answers in about 1 ms. Below this size FTS5 keeps exact phrase
#: matching and needs no index build.
MEMORY_BM25_THRESHOLD = 10_000


#: Papers a warning names before it says "and N more".
_NAMED_PAPERS = 5
#: At most this many papers without a vector are embedded inside a search (about 1 s at ~60
#: abstracts/s); more, and the search answers from BM25 and says to run `paperscope embed`.
SEARCH_EMBED_MAX_PAPERS = 64
#: Wall seconds a search may spend embedding papers that lack a vector (issue 11: never more than 2 s).
SEARCH_EMBED_BUDGET_S = 1.5
#: How a browsed library can be ordered (:meth:`Library.browse`).
BROWSE_SORTS = ("added", "title", "year", "venue")


def _check_limit(limit: object) -> None:
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        raise InputError(f"limit must be an integer from 1 to {MAX_LIMIT}, got {limit!r}")


def cut_query(query: str) -> tuple[str, str | None]:
    """Return ``(query, notice)``: the query cut to MAX_QUERY_CHARS characters, the most a search reads.

    ``notice`` is None when nothing was cut. A query within that bound is kept whole; which of its
    terms each leg uses is decided by :func:`paperscope.index.bounds.bound_query` inside
    :meth:`Library.search`.
    """
    from .index.bounds import chars_notice, cut_text

    if len(query) <= MAX_QUERY_CHARS:
        return query, None
    kept = cut_text(query, MAX_QUERY_CHARS)
    return kept, chars_notice(len(query) - len(kept))


#: A query of at most this many terms is a keyword query: a word of it that no paper holds is
#: named in the notice. A pasted paragraph always holds such words; naming them is noise.
UNMATCHED_NOTICE_MAX_TERMS = 8


def _floor_notice(ranked: RankedList, limit: int) -> str | None:
    """The line saying that a short hybrid list left out weaker word matches, else None.

    Only when fewer than ``limit`` hits are shown: a full list hides nothing it had room for.
    """
    if not ranked.below_floor or len(ranked) >= limit:
        return None
    many = ranked.below_floor != 1 or ranked.below_floor_capped
    count = f"{'over ' if ranked.below_floor_capped else ''}{ranked.below_floor}"
    return (
        f"{count} more paper{'s' if many else ''} match{'' if many else 'es'} the query's words less"
        " than half as strongly as the best match in the library; BM25 mode lists them"
    )


def _unmatched_notice(bounded: BoundedQuery, any_hit: bool) -> str | None:
    """Return "no paper mentions 'x'; showing the closest" for a keyword query, else None.

    A Chinese query is never named: its words match English abstracts through their glosses.
    """
    if not bounded.unmatched or len(bounded.kept) > UNMATCHED_NOTICE_MAX_TERMS or has_cjk(bounded.lexical):
        return None
    words = " or ".join(f"'{t}'" for t in bounded.unmatched[:3])
    return f"no paper mentions {words}; " + ("showing the closest" if any_hit else "nothing close was found")


def _hit(row: papers.HitRow, paper_id: str, rank: int, score: float, **extra: Any) -> Hit:
    """Return the Hit of one ranked paper with the metadata a result card shows."""
    return Hit(
        paper_id=paper_id,
        score=score,
        rank=rank,
        label=row.label,
        sources=row.sources,
        title=row.title,
        title_source=row.title_source,
        venue=row.venue,
        year=row.year,
        authors=row.authors,
        decision=row.decision,
        area=row.area,
        has_code=row.has_code,
        links=row.links,
        **extra,
    )


def _ranked_hits(
    rows: dict[str, papers.HitRow], paper_ids: list[str], ranked: list[Any], leg: str, likes: list[list[str]]
) -> list[Hit]:
    """Return the Hits of ranked recommendations (``triage.learn.Recommendation``), ``likes`` per hit."""
    return [
        _hit(
            rows[paper_ids[rec.row]],
            paper_ids[rec.row],
            rank,
            rec.score,
            legs={leg: {"rank": rank, "score": rec.score}},
            terms=rec.terms,
            like=like,
        )
        for rank, (rec, like) in enumerate(zip(ranked, likes, strict=True), start=1)
    ]


#: Recommendation features of the last library used in this process (see Library._recommend_features).
_REC_FEATURES: dict[tuple[Any, ...], tuple[list[str], Any]] = {}
_REC_FEATURES_LOCK = threading.Lock()


def _rec_text(title: str | None, clean_text: str) -> str:
    """The text a paper's TF-IDF vector for recommendations is built from: title and clean abstract."""
    return f"{title}. {clean_text}" if title else clean_text


class _LoadingEmbedder:
    """The library's query embedder, loaded on a thread from the moment a search starts.

    The default model's query side is numpy (:func:`paperscope.index.embed.get_query_embedder`,
    a few ms); other embedders load their model (OpenVINO's import and compile: about 0.3 s,
    mostly native code that releases the GIL). The query needs it only after the filters, the
    dense index and the BM25 leg; reading any attribute waits for the load and re-raises its error.
    """

    def __init__(self, library: Library):
        self._library = library
        self._error: BaseException | None = None
        self._thread = None
        from .index.embed import embedder_is_ready, join_at_exit, query_embedder_loaded

        choice = library._embedder_choice
        if isinstance(choice, str) and query_embedder_loaded(choice):
            return  # loaded by an earlier search: no thread to start (a server's every search)
        if isinstance(choice, str) and embedder_is_ready(choice):
            self._thread = threading.Thread(target=self._load, name="paperscope-embedder", daemon=True)
            self._thread.start()
            join_at_exit(self._thread)  # never exit inside native loading code

    def _load(self) -> None:
        try:
            _ = self._library.query_embedder
        except BaseException as exc:  # handed to the searching thread in __getattr__
            self._error = exc

    def __getattr__(self, name: str) -> Any:
        if self._thread is not None:
            self._thread.join()
            if self._error is not None:
                raise self._error
        return getattr(self._library.query_embedder, name)


class Library:
    """A paper library stored in one SQLite file.

    Args:
        path: the database file; None means ``$PAPERSCOPE_DB`` or ``$PAPERSCOPE_HOME/library.db``.
        embedder: an embedder name from ``paperscope.index.embed.EMBEDDERS`` or an Embedder;
            None means ``$PAPERSCOPE_EMBEDDER``, else ``"minilm"``. Loaded on first use.
        read_only: never write; None (default) opens read-only only when the file or its folder
            cannot be written, or the file fails SQLite's quick check (see :class:`Store`).
            A read-only library answers every read (search, show, related, topics, export,
            serve) and refuses every write with one StoreError line; searches embed nothing.

    Raises:
        StoreError: the database cannot be opened or migrated, is empty or not a library.

    """

    def __init__(
        self,
        path: str | Path | None = None,
        embedder: str | Embedder | None = None,
        read_only: bool | None = None,
    ):
        self.path = Path(path) if path is not None and str(path) != ":memory:" else path
        self.store = Store(path if path is not None else default_db_path(), read_only=read_only)
        self._embedder_choice = embedder or os.environ.get("PAPERSCOPE_EMBEDDER") or "minilm"
        self._dense: DenseIndex | None = None
        self._embedder_lock = threading.Lock()
        self.last_prepare_s = 0.0
        self._bm25: tuple[tuple[int, int], MemoryBM25] | None = None
        # Papers the loaded dense index lacks (-1: not counted since it was loaded).
        self._dense_missing = -1
        self._with_vector_ids: set[str] | None = None
        #: One line about the last search's dense leg (vectors missing, model not prepared), or None.
        self.search_notice: str | None = None
        #: What the last ``recommend_like`` left out of its file (entries without an abstract), else None.
        self.recommend_notice: str | None = None
        #: Papers the last ``export`` wrote (counted as its text is consumed).
        self.last_export_count = 0
        #: Events an ``ics`` export holds and the papers they are of (set when ``export`` is
        #: called, before its text is consumed; 0 for the other formats).
        self.last_export_events = 0
        self.last_export_event_papers = 0
        #: Papers without a vector that one search may embed, and the wall seconds it may spend on
        #: them; the web server sets 0 so a request never embeds (its ingest job does).
        self.search_embed_max_papers = 0 if self.store.read_only else SEARCH_EMBED_MAX_PAPERS
        self.search_embed_budget_s = SEARCH_EMBED_BUDGET_S
        self._embedder_name = self._embedder_choice if isinstance(self._embedder_choice, str) else None

    @property
    def read_only(self) -> str | None:
        """Why this library is read-only (one phrase), or None when it can be written."""
        return self.store.read_only

    @property
    def damaged(self) -> str | None:
        """What SQLite's quick check found when the file failed it, or how it is truncated (then read-only), else None."""
        return self.store.damaged

    @property
    def embedder_name(self) -> str | None:
        """The registered embedder name this library was opened with; None when given an Embedder."""
        return self._embedder_name

    def close(self) -> None:
        """Close the database."""
        self.store.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ingest ---------------------------------------------------------------------------
    def ingest(
        self,
        paths: Iterable[str | Path],
        fmt: str | None = None,
        progress: bool = False,
        column_map: Mapping[str, str] | str | None = None,
        strict: bool = False,
        cards: bool = True,
        embed: bool = True,
    ) -> IngestReport:
        """Read files or folders into the library; see :func:`paperscope.ingest.ingest_paths`.

        Ingest writes a quick first card per new paper (label, method names, URLs); with
        ``cards`` (the default) the full card of every paper lacking a current one is built
        right after (:meth:`build_cards`), new or not, and with ``embed`` (the default) every
        paper without a current vector is embedded after that (:meth:`embed`, which first
        prepares the int8 model on a new machine), so no search ever waits for embeddings and
        running an interrupted ingest again finishes every stage it left (:meth:`stats` counts
        what is left). Adds a warning to the report when new abstracts are mostly
        in a non-Latin script and the embedder is English-only (case 17), naming the papers.
        ``report.timings_s`` gets the wall time of the ``cards`` and ``embed`` phases.
        """
        from .extract import build_first_card
        from .ingest import ingest_paths

        self.store.require_writable()
        before = self.store.conn.execute("SELECT coalesce(max(rowid), 0) FROM papers").fetchone()[0]
        report = ingest_paths(
            self.store,
            paths,
            build_card=build_first_card,
            fmt=fmt,
            progress=progress,
            column_map=column_map,
            strict=strict,
        )
        self._bm25 = None
        self._warn_language_mismatch(report, before)
        if cards and not report.rolled_back:
            # Every ingest finishes the cards of earlier runs too: a killed ingest left quick first
            # cards (FIRST_CARD_VERSION) behind, and its papers are "already present" now (case 24).
            started = time.perf_counter()
            built = self.build_cards(progress=progress)
            if built or report.new:
                report.phases["cards"] = {"count": built, "elapsed_s": time.perf_counter() - started}
        other = self.vectors_of_other_embedder() if embed and not report.rolled_back else None
        if other is not None:
            # A library embedded on a GPU (``--device cuda``) opened here: embedding its new papers
            # with this machine's model would start a second set of vectors; say what to run.
            report.warnings.append(f"new papers were not embedded: {self._other_vectors_message(other)}")
            self.build_search_indexes(progress=progress)
        elif (
            embed
            and not report.rolled_back
            and (report.new or vectors.count_missing_vectors(self.store.conn, self._model_id()))
        ):
            # (Nothing new and nothing missing, as when every file failed or was already in:
            # the model is not loaded for nothing.)
            started = time.perf_counter()
            embedded = self.embed(progress=progress)
            elapsed_s = time.perf_counter() - started
            # Preparing the model (about a minute, once per machine) is not embedding: kept apart.
            prepare_s = min(self.last_prepare_s, elapsed_s)
            report.phases["embed"] = {
                "count": embedded,
                "elapsed_s": elapsed_s - prepare_s,
                "prepare_s": prepare_s,
            }
        elif report.new:
            self.build_search_indexes(progress=progress)
        return report

    def build_cards(self, rebuild: bool = False, workers: int | None = None, progress: bool = False) -> int:
        """Build the full card of every paper whose card is missing, a first card, or outdated.

        Args:
            rebuild: rebuild every card, whatever its version.
            workers: processes (default: 2 when more than 2,000 cards are due, else 1; about
                4 ms of CPU per card, see ``bench/cards.py``).
            progress: show a progress bar on stderr.

        Returns:
            The number of cards written. Cards are saved 500 at a time, each batch in one
            transaction; stars, tags and notes are never touched.
        """
        from .extract import build_cards
        from .progress import track

        conn = self.store.conn
        due = list(papers.papers_needing_cards(conn, EXTRACTOR_VERSION, rebuild=rebuild))
        if not due:
            return 0
        if workers is None:
            workers = 2 if len(due) > 2000 else 1
        stored, model_id = self._area_vectors({p.paper_id for p in due})
        built = track(
            build_cards(due, workers=workers, vectors=stored, embedding_model=model_id),
            total=len(due),
            desc="cards",
            enabled=progress,
        )
        batch: list[tuple[str, Card]] = []
        for item in built:
            batch.append(item)
            if len(batch) == 500:
                with self.store.transaction() as tx:
                    papers.save_cards(tx, batch)
                batch = []
        if batch:
            with self.store.transaction() as tx:
                papers.save_cards(tx, batch)
        return len(due)

    def _area_vectors(self, paper_ids: set[str]) -> tuple[dict[str, np.ndarray] | None, str | None]:
        """Return the stored vectors of ``paper_ids`` the area model can use, and their model id.

        ``(None, None)`` when the active embedder is not the one the area model was trained on
        or none of the papers has a vector yet (the usual case at ingest: cards come first).
        """
        import numpy as np

        from .extract.area import load_area_model
        from .store import card_areas

        block = load_area_model().embedding
        model_id = self._model_id()
        if block is None or not block.accepts(model_id, np.zeros(block.coef.shape[1])):
            return None, None
        found = card_areas.vectors_of(self.store.conn, model_id, paper_ids)
        return (found, model_id) if found else (None, None)

    def refine_areas(self) -> int:
        """Re-predict the area of each full card whose paper has a vector; return how many changed.

        Cards are built before the vectors exist (ingest: cards, then :meth:`embed`), so their
        area comes from the text model alone; this step fuses in the paper's stored vector
        (:mod:`paperscope.extract.area_embedding`) and updates the card's ``area`` field only
        (label, other fields and extractor version unchanged). It embeds nothing, runs after
        :meth:`embed` (:meth:`build_cards` fuses the vectors that exist itself), and does nothing
        when the active embedder is not the one the area model was trained with (the fake
        embedder of the tests: text-only areas) or the library is read-only. About 1.5 ms a
        paper (the text features are recomputed; ~35 s for 23.5k papers after minutes of
        embedding); each card is refined once per model.
        """
        import numpy as np

        from .extract.area import load_area_model, predict_area
        from .store import card_areas

        block = load_area_model().embedding
        model_id = self._model_id()
        if (
            self.store.read_only
            or block is None
            or not block.accepts(model_id, np.zeros(block.coef.shape[1]))
        ):
            return 0
        batches = card_areas.areas_to_refine(self.store.conn, EXTRACTOR_VERSION, model_id)
        done = 0
        for batch in batches:
            areas = [
                (
                    pid,
                    predict_area(
                        text, title, ", ".join(kw), src, embedding=vec, embedding_model=model_id
                    ).to_dict(),
                )
                for pid, title, text, kw, src, vec in batch
            ]
            with self.store.transaction() as tx:
                done += card_areas.set_card_areas(tx, areas)
        return done

    def doctor(self, repair: bool = False, progress: bool = False) -> DoctorReport:
        """Check the library (see :mod:`paperscope.store.doctor`); with ``repair``, fix what can be fixed.

        Repairs, in order: indexes and the lexical index rebuilt and orphan rows deleted (one
        transaction), then missing or outdated cards built (:meth:`build_cards`) and missing
        vectors embedded (:meth:`embed`; skipped with its reason when the model is not
        installed). The returned report holds the findings of a second check after the
        repairs, and one line per repair done in ``repaired``. Marks are never deleted.

        Raises:
            StoreError: ``repair`` on a read-only library (open it with ``read_only=False``
                to repair one that failed the quick check).
        """
        from .errors import ModelUnavailable
        from .store import doctor

        command = self._command("").rstrip()
        model_id = self._model_id()
        findings = doctor.check(self.store.conn, model_id, EXTRACTOR_VERSION, command)
        if not repair:
            return doctor.DoctorReport(findings)
        done: list[str] = []
        import sqlite3

        try:
            if any(f.problem and f.check in ("integrity", "fts", "search_fts", "orphans") for f in findings):
                with self.store.transaction() as conn:
                    done.extend(doctor.repair_store(conn, findings))
                self._bm25 = None
            problems = {f.check for f in findings if f.problem}
            if "cards" in problems:
                done.append(f"built {self.build_cards(progress=progress):,} cards")
            if "vectors" in problems:
                try:
                    done.append(f"embedded {self.embed(progress=progress):,} papers")
                except ModelUnavailable as exc:
                    done.append(f"could not embed: {exc}")
        except sqlite3.DatabaseError as exc:  # damage REINDEX cannot mend: the check says what to do
            done.append(f"could not repair in place: {exc}")
        report = doctor.DoctorReport(doctor.check(self.store.conn, model_id, EXTRACTOR_VERSION, command))
        report.repaired = done
        return report

    def salvage(self, target: str | Path, progress: bool = False) -> tuple[SalvageReport, DoctorReport]:
        """Copy every readable row of this (damaged) library into a new library ``target`` and repair it.

        See :mod:`paperscope.store.salvage`: papers, sources, cards, vectors, stars, tags, notes
        and triage states are copied with their rowids; then :meth:`doctor` with ``repair`` runs
        on the new file (lexical index, keys, missing cards and vectors). This file is only read.

        Returns:
            ``(SalvageReport, DoctorReport)``: rows copied and lost per table, and the new
            library's report after its repair.

        Raises:
            InputError: ``target`` exists already or is this library's own file.
        """
        from .store.salvage import salvage_rows

        target = Path(target)
        if target.exists():
            raise InputError(f"{target}: already exists; give --salvage a new file name")
        with Library(target, embedder=self._embedder_choice) as new:
            salvaged = salvage_rows(Path(self.store.path), new.store.conn)
            report = new.doctor(repair=True, progress=progress)
        return salvaged, report

    def _warn_language_mismatch(self, report: IngestReport, after_rowid: int) -> None:
        """Warn when new abstracts are mostly non-Latin script and the embedder is English-only (case 17)."""
        from .index.embed import embedder_languages, is_mostly_non_latin

        choice = self._embedder_choice
        name = choice if isinstance(choice, str) else None
        languages = embedder_languages(name) if name else choice.languages  # type: ignore[union-attr]
        if languages != "en" or not report.new:
            return
        rows = self.store.conn.execute(
            "SELECT paper_id, clean_text FROM papers WHERE rowid > ?", (after_rowid,)
        )
        found = [pid for pid, text in rows if is_mostly_non_latin(text)]
        if found:
            model = name or choice.model_id  # type: ignore[union-attr]
            shown = ", ".join(found[:_NAMED_PAPERS]) + (
                f" and {len(found) - _NAMED_PAPERS} more" if len(found) > _NAMED_PAPERS else ""
            )
            report.warnings.append(
                f"{len(found)} abstract(s) are mostly in a non-Latin script ({shown}), but the embedding"
                f" model {model!r} is English-only: dense search and related papers will be weak for them"
                " (keyword search works; `paperscope show PAPER_ID` shows one)"
            )

    # -- read -----------------------------------------------------------------------------
    def get(self, paper_id: str) -> Paper:
        """Return a paper by ``paper_id`` or a unique prefix of it (4+ hex characters).

        Raises:
            NotFound: no paper matches.
            InputError: the id is malformed or the prefix is ambiguous.

        """
        return papers.get_paper(self.store.conn, papers.resolve_paper_id(self.store.conn, paper_id))

    def papers(self, decision: str | None = None) -> Iterator[Paper]:
        """Yield every paper in the order it was added; with ``decision``, only papers with it (any case)."""
        return papers.iter_papers(self.store.conn, decision=decision)

    def __len__(self) -> int:
        return self.store.count("papers")

    def stats(self) -> dict[str, Any]:
        """Return counts: papers, sources, cards, stars, tags, notes, vectors, topics, papers per venue/year.

        ``cards`` counts stored card rows (first cards included); ``vectors`` the active
        embedder's current vectors; ``topics`` the stored broad topics (0 before a fit). What
        each later stage still lacks (``missing_cards``, ``first_cards``, ``missing_vectors``,
        ``missing_topics``, ``topics_fitted``, ``unfinished``) comes from :meth:`stage_counts`.
        No model is loaded.
        """
        conn = self.store.conn
        model_id = self._model_id()
        progress = self.stage_counts()
        missing = progress["missing_vectors"]
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
            "vectors": self.store.count("papers") - missing,
            "missing_vectors": missing,
            "embedder": model_id,
            "topics": sum(not t.is_unassigned for t in self.topics(level=0)),
            **progress,
            "by_venue": by_venue,
        }

    def stage_counts(self) -> dict[str, Any]:
        """Return how many papers lack a current result of each stage after storing them.

        ``missing_cards``: papers without a full card of the current extractor version (no
        card, a quick first card, or an older version; ``paperscope cards`` or any ingest builds
        them), of which ``first_cards`` hold only the quick card an ingest writes first.
        ``missing_vectors``: papers without a vector of the active embedder for their current
        text (``paperscope embed`` or any ingest). ``missing_topics``: papers with no
        assignment in the stored topic fit (added since it; ``paperscope topics`` assigns them);
        0 while ``topics_fitted`` is False (no fit yet: topics are fitted on request only).
        ``unfinished`` sums the three. Count queries only; no model is loaded.
        """
        conn = self.store.conn
        missing_cards, first_cards = conn.execute(
            "SELECT count(*), coalesce(sum(c.extractor_version = ?), 0) FROM papers p"
            " LEFT JOIN cards c USING (paper_id)"
            " WHERE c.extractor_version IS NULL OR c.extractor_version != ?",
            (FIRST_CARD_VERSION, EXTRACTOR_VERSION),
        ).fetchone()
        fitted = topic_store.has_topics(conn)
        missing_topics = (
            conn.execute(
                "SELECT count(*) FROM papers p WHERE NOT EXISTS"
                " (SELECT 1 FROM paper_topics t WHERE t.paper_id = p.paper_id)"
            ).fetchone()[0]
            if fitted
            else 0
        )
        missing_vectors = vectors.count_missing_vectors(conn, self._model_id())
        return {
            "missing_cards": int(missing_cards),
            "first_cards": int(first_cards),
            "missing_vectors": missing_vectors,
            "missing_topics": int(missing_topics),
            "topics_fitted": fitted,
            "unfinished": int(missing_cards) + missing_vectors + int(missing_topics),
        }

    def _active_model_id(self) -> str:
        """Return the active embedder's model_id (the one that embeds queries) without loading it."""
        from .index.embed import embedder_model_id

        choice = self._embedder_choice
        return embedder_model_id(choice) if isinstance(choice, str) else choice.model_id

    def _model_id(self) -> str:
        """Return the model_id of the vectors papers are searched by (no model is loaded).

        The active embedder's, unless the library holds none of its vectors but those of a
        compatible one (the same model and pooling: a library embedded with ``--device
        cuda`` opened on a CPU): then those, with queries embedded by the active embedder
        (:func:`paperscope.store.vectors.document_model_id`).
        """
        return vectors.document_model_id(self.store.conn, self._active_model_id())

    def vectors_of_other_embedder(self) -> str | None:
        """Return the model_id of the library's vectors when they are not the active embedder's, else None."""
        documents = self._model_id()
        return documents if documents != self._active_model_id() else None

    def embed_command(self) -> str:
        """Return the shell command that embeds this library's papers missing a vector, with its own model.

        ``paperscope embed`` when the library's vectors are the active embedder's; else the
        command that runs the model of its vectors (``embed --device cuda`` for vectors made on
        a GPU, ``embed --device cpu`` for the CPU int8 model's, or the embedder by name).
        """
        from .index.embed import embedder_model_id

        documents = self._model_id()
        if documents == self._active_model_id():
            return self._command("embed")
        for name, command in (("minilm-cuda", "embed --device cuda"), ("minilm", "embed --device cpu")):
            if embedder_model_id(name) == documents:
                return self._command(command)
        for name in ("minilm-torch", "minilm-fp32"):
            if embedder_model_id(name) == documents:
                return f"PAPERSCOPE_EMBEDDER={name} {self._command('embed')}"
        return self._command("embed")

    def _other_vectors_message(self, other: str) -> str:
        """Say that this library's vectors are of ``other``, and the two ways on (one embeds, one moves)."""
        return (
            f"this library's vectors are of {other}, not of {self._active_model_id()} that this command"
            f" runs: run `{self.embed_command()}` to embed with the library's model, or"
            f" `{self._command('embed')}` with this command's --device to embed all"
            f" {len(self):,} papers with {self._active_model_id()} (the library then uses those)"
        )

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
        fusion: Fusion | None = None,
        topic: int | None = None,
        dataset: str | None = None,
        contribution: str | None = None,
        area: str | None = None,
        starred: bool | None = None,
        tag: str | None = None,
        detail: int | None = None,
        session: str | None = None,
        day: str | None = None,
        exclude: set[str] | None = None,
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
            fusion: how hybrid mode combines its legs (None: ``paperscope.index.fusion.DEFAULT_FUSION``,
                tuned on training queries).
            topic: keep papers of this broad topic id (see :meth:`topics`).
            dataset: only papers whose card names this dataset (case-insensitive, whole name).
            contribution: only papers whose card has this contribution type (one of
                :data:`paperscope.extract.contributions.CONTRIBUTION_TYPES`).
            area: only papers whose card area (the source's own, else predicted) contains this text.
            starred: only starred (True) or unstarred (False) papers.
            tag: only papers with this tag (ignoring case).
            session: only papers presented in this program session (its name, ignoring case;
                see :meth:`schedule`).
            day: only papers with a session on this local day (``YYYY-MM-DD``).
            exclude: paper_ids left out before ranking, as a filter leaves them out (a search
                by example leaves out the example paper, see :meth:`search_like`).
            detail: only the first ``detail`` hits carry their label, metadata, links, snippet
                and matched terms; the others carry ``paper_id``, ``rank``, ``score``, ``legs``
                and ``missing_vector`` only (None: every hit is complete). A page that fetches
                200 hits to count facets but shows 20 skips the other 180 rows, links and
                sentence scans (half of its search time at 21k papers).

        A long query (a pasted abstract or page) is bounded by its cost, not cut at a position
        (:func:`paperscope.index.bounds.bound_query`): the BM25 leg keeps its MAX_QUERY_TERMS
        rarest terms in this library, the dense leg embeds it in windows up to
        MAX_DENSE_QUERY_CHARS characters, and nothing past MAX_QUERY_CHARS is read;
        :attr:`search_notice` says how many terms were dropped. A query word no paper holds is
        named there too ("no paper mentions 'oversmoothing'; showing the closest").

        Returns:
            Hits best first; ``Hit.legs`` gives each leg's rank and raw score (BM25 score,
            cosine), so a reader can see why a paper matched.

        ``topic`` keeps only papers of that broad topic or subtopic (see :meth:`topics`).

        A search never waits long for embeddings (they belong to :meth:`ingest` and
        :meth:`embed`): up to ``SEARCH_EMBED_MAX_PAPERS`` papers without a vector are embedded
        within ``SEARCH_EMBED_BUDGET_S``; when more lack one, or the embedding model is not
        prepared on this machine yet, a dense or hybrid search ranks by BM25 alone, sets
        :attr:`search_notice` to one line saying how many papers the dense leg is missing and
        the command that fills them, and flags those hits with ``Hit.missing_vector``.

        Raises:
            InputError: ``query`` is empty or whitespace, ``limit`` is not in 1..MAX_LIMIT,
                ``year`` is not in 1..9999, or ``mode`` is unknown.
            ModelUnavailable: dense or hybrid mode, and the embedding model is not installed.
        """
        from .index.bm25 import query_terms
        from .index.search import MODES, search_papers
        from .index.snippets import explain_hit, highlight_terms

        if fusion is None:
            from .index.fusion import DEFAULT_FUSION

            fusion = DEFAULT_FUSION
        _check_limit(limit)
        if not query or not query.strip():
            raise InputError("empty query: type some words to search for")
        if mode not in MODES:
            raise InputError(f"unknown search mode {mode!r}; choose one of: {', '.join(MODES)}")
        if year is not None and not (isinstance(year, int) and 1 <= year <= 9999):
            raise InputError(f"year must be a whole number from 1 to 9999, got {year!r}")
        allowed = self._allowed(
            venue,
            year,
            decision,
            source_area,
            has_code,
            dataset,
            contribution,
            area,
            topic,
            starred,
            tag,
            session,
            day,
        )
        if exclude:
            if allowed is None:
                allowed = {r[0] for r in self.store.conn.execute("SELECT paper_id FROM papers")}
            allowed = allowed - exclude
        self.search_notice = None
        index = None
        embedder: Embedder | None = None
        if mode != "bm25":
            embedder = _LoadingEmbedder(self)  # loads while the lexical leg runs
            index = self._query_dense_index()
            if index is None:
                mode, embedder = "bm25", None
        bounded = self.bound_query(query)
        ranked = search_papers(
            self.store,
            bounded.lexical,
            limit,
            mode=mode,
            allowed=allowed,
            embedder=embedder,
            dense_index=None if index is None else (lambda: index),
            fusion=fusion,
            memory_bm25=lambda: self.memory_bm25(build=False),
            dense_text=bounded.dense,
            excluded=frozenset(exclude or ()),
        )
        complete = ranked if detail is None else ranked[: max(detail, 0)]
        shown = papers.hit_rows(self.store.conn, [item.paper_id for item in complete])
        notes = [
            bounded.notice,
            _unmatched_notice(bounded, bool(ranked)),
            _floor_notice(ranked, limit),
            self.search_notice,
        ]
        self.search_notice = "\n".join(n for n in notes if n) or None
        hits = []
        query = bounded.lexical
        wanted = query_terms(query)
        if has_cjk(query):  # a Chinese query matches English abstracts through its glosses
            from .index.crosslingual import gloss_query

            wanted += [t for t in query_terms(" ".join(gloss_query(query).english)) if t not in wanted]
        wanted = highlight_terms(wanted)
        for item in ranked:
            missing = self._dense_missing > 0 and item.paper_id not in self._with_vectors()
            row = shown.get(item.paper_id)
            if row is None:  # past `detail`: counted, not shown
                hits.append(
                    Hit(item.paper_id, item.score, item.rank, "", legs=item.legs, missing_vector=missing)
                )
                continue
            terms, snippet = explain_hit(wanted, row.title, row.clean_text)
            hits.append(
                _hit(
                    row,
                    item.paper_id,
                    item.rank,
                    item.score,
                    legs=item.legs,
                    snippet=snippet,
                    terms=terms,
                    missing_vector=missing,
                )
            )
        return hits

    def bound_query(self, query: str) -> BoundedQuery:
        """Return what each leg of a search gets from ``query`` (see :func:`bound_query`).

        Document frequencies come from the in-memory BM25 index when it is loaded, else from
        the FTS5 vocabulary (one indexed lookup per distinct term).
        """
        from .index.bounds import bound_query

        memory = self.memory_bm25(build=False)
        if memory is not None:
            return bound_query(query, memory.document_frequencies, len(memory))
        return bound_query(query, lambda terms: document_frequencies(self.store.conn, terms), len(self))

    def example(self, like: str, files: bool = False) -> Example:
        """Return the example of a search by example (:meth:`search_like`).

        Args:
            like: a paper_id (or a unique prefix of 4+ characters); with ``files``, else the
                path of a UTF-8 text file.
            files: read ``like`` as a file path when it names no paper (the CLI; never the web).

        Raises:
            NotFound: no paper matches ``like`` (without ``files``).
            InputError: ``like`` is malformed or ambiguous as a paper_id (without ``files``), or
                the file is missing, unreadable or not UTF-8 (the message names it).
        """
        from .example import file_example, paper_example

        try:
            return paper_example(self.get(like))
        except NotFound:
            if not files:
                raise
        except InputError:  # not a paper_id, or a prefix of several papers (say so, unless it is a file)
            looks_like_id = len(like.strip()) >= 4 and all(
                c in "0123456789abcdef" for c in like.strip().lower()
            )
            if not files or (looks_like_id and not Path(like).exists()):
                raise
        return file_example(like)

    def search_like(self, example: Example, **options: Any) -> list[Hit]:
        """Return the papers most like ``example``: :meth:`search` by its text, without the example paper.

        ``options`` are those of :meth:`search` (limit, mode, every filter, detail). The
        notice (:attr:`search_notice`) says first what the papers are like.

        Raises:
            InputError: the example's text is empty, or an option is wrong (as :meth:`search`).
        """
        hits = self.search(example.text, exclude=example.exclude, **options)
        self.search_notice = "\n".join(n for n in (example.notice, self.search_notice) if n)
        return hits

    def filtered_ids(self, **filters: Any) -> set[str] | None:
        """Return the paper_ids the filters of :meth:`search` allow; None when no filter is given.

        Raises:
            InputError: an unknown filter name.
            NotFound: ``topic`` is not a stored topic id.
        """
        known = {"venue", "year", "decision", "source_area", "has_code", "dataset", "contribution", "area"}
        unknown = sorted(set(filters) - known - {"topic", "starred", "tag", "session", "day"})
        if unknown:
            raise InputError(f"unknown filter {unknown[0]!r}")
        return self._allowed(**filters)

    def _allowed(
        self,
        venue: str | None = None,
        year: int | None = None,
        decision: str | None = None,
        source_area: str | None = None,
        has_code: bool | None = None,
        dataset: str | None = None,
        contribution: str | None = None,
        area: str | None = None,
        topic: int | None = None,
        starred: bool | None = None,
        tag: str | None = None,
        session: str | None = None,
        day: str | None = None,
    ) -> set[str] | None:
        """Return the paper_ids every given filter allows (None: no filter given)."""
        if contribution is not None:
            from .extract.contributions import CONTRIBUTION_TYPES
        if contribution is not None and contribution.strip().lower() not in CONTRIBUTION_TYPES:
            raise InputError(
                f"unknown contribution type {contribution!r}; choose one of: {', '.join(CONTRIBUTION_TYPES)}"
            )
        allowed = filtered_paper_ids(
            self.store.conn, venue, year, decision, source_area, has_code, dataset, contribution, area
        )
        if topic is not None:
            members = self.topic_members(topic)
            allowed = members if allowed is None else allowed & members
        if starred is not None:
            stars = marks.marked_ids(self.store.conn, starred=True)
            if not starred:
                stars = {r[0] for r in self.store.conn.execute("SELECT paper_id FROM papers")} - stars
            allowed = stars if allowed is None else allowed & stars
        if tag is not None:
            tagged = marks.marked_ids(self.store.conn, tag=tag.strip())
            allowed = tagged if allowed is None else allowed & tagged
        if session is not None or day is not None:
            from .schedule import parse_day
            from .store.sessions import session_paper_ids

            day = parse_day(day) if day is not None else None
            presented = session_paper_ids(self.store.conn, session, day)
            allowed = presented if allowed is None else allowed & presented
        return allowed

    def browse(
        self, sort: str = "added", descending: bool = False, offset: int = 0, limit: int = 20, **filters: Any
    ) -> tuple[int, list[Hit]]:
        """Return ``(total, hits)``: one page of the library (or of the papers the filters allow).

        Args:
            sort: one of :data:`BROWSE_SORTS`: ``"added"`` (ingest order), ``"title"`` (by
                label, ignoring case), ``"year"`` or ``"venue"`` (then by label).
            descending: reverse the order.
            offset: papers to skip (0-based).
            limit: 1..MAX_LIMIT papers.
            **filters: the filters of :meth:`search` (venue, year, decision, source_area,
                has_code, dataset, contribution, area, topic, starred, tag, session, day).

        Returns:
            The number of papers that pass the filters, and the page as Hits with ``rank``
            counted from 1 over the whole ordering, ``score`` 0 and the abstract's first
            sentence as ``snippet``.

        Raises:
            InputError: an unknown sort or filter, a negative offset, or ``limit`` out of range.
        """
        from .index.snippets import explain_hit

        _check_limit(limit)
        if sort not in BROWSE_SORTS:
            raise InputError(f"unknown sort {sort!r}; choose one of: {', '.join(BROWSE_SORTS)}")
        if not isinstance(offset, int) or offset < 0:
            raise InputError(f"offset must be a whole number from 0, got {offset!r}")
        year = filters.get("year")
        if year is not None and not (isinstance(year, int) and 1 <= year <= 9999):
            raise InputError(f"year must be a whole number from 1 to 9999, got {year!r}")
        allowed = self.filtered_ids(**filters)
        label = "lower(coalesce(p.title, c.label, p.clean_text))"
        keys = {
            "added": ["p.rowid"],
            "title": [label],
            "year": ["coalesce(p.year, 0)", label],
            "venue": ["lower(coalesce(p.venue, ''))", "coalesce(p.year, 0)", label],
        }[sort]
        order = ", ".join(f"{key} DESC" if descending else key for key in [*keys, "p.rowid"])
        where, params = "", []
        if allowed is not None:
            where, params = (
                " WHERE p.paper_id IN (SELECT value FROM json_each(?))",
                [json.dumps(sorted(allowed))],
            )
        conn = self.store.conn
        total = conn.execute(f"SELECT count(*) FROM papers p{where}", params).fetchone()[0]
        ids = [
            r[0]
            for r in conn.execute(
                f"SELECT p.paper_id FROM papers p LEFT JOIN cards c USING (paper_id){where}"
                f" ORDER BY {order} LIMIT ? OFFSET ?",
                [*params, limit, offset],
            )
        ]
        rows = papers.hit_rows(conn, ids)
        return int(total), [
            _hit(
                rows[pid],
                pid,
                offset + i,
                0.0,
                snippet=explain_hit([], rows[pid].title, rows[pid].clean_text)[1],
            )
            for i, pid in enumerate(ids, start=1)
        ]

    def facet_counts(self, paper_ids: list[str] | None) -> dict[str, list[dict[str, Any]]]:
        """Count ``paper_ids`` (None: the whole library) per facet value.

        See :func:`paperscope.store.facets.facet_counts`; the topic facet counts the stored
        broad topics (empty before a fit).
        """
        from .store.facets import facet_counts

        return facet_counts(self.store.conn, paper_ids)

    def related(self, paper_id: str, limit: int = 10) -> list[Hit]:
        """Return the ``limit`` papers most related to ``paper_id`` (see ``index.related``).

        Embedding neighbours fused with a BM25 "more like this" query of the paper's rarest
        words; ``Hit.legs`` gives each neighbour's rank and score in both. The paper itself and
        its duplicates (one paper by the ingest identity rules, :func:`paperscope.ingest.dedup.is_same_paper`,
        or cosine >= 0.98: the same abstract lightly edited) are never returned; a different
        paper that only shares the title is. When vectors are missing (see :meth:`search`), the
        neighbours come from BM25 alone and :attr:`search_notice` says so. ``Hit.terms`` lists the rarest words the two papers share,
        to explain each neighbour.

        Raises:
            NotFound: no paper matches ``paper_id``.
            InputError: the id is malformed or ambiguous, or ``limit`` is not in 1..MAX_LIMIT.
        """
        from .index.related import related_papers

        _check_limit(limit)
        paper = self.get(paper_id)
        self.search_notice = None
        from .ingest.dedup import SamePaper

        neighbours = related_papers(
            self.store,
            self._query_dense_index(),
            paper,
            limit,
            self.memory_bm25(build=False),
            same_paper=SamePaper(paper),
        )
        rows = papers.hit_rows(self.store.conn, [other.paper_id for other, *_ in neighbours])
        return [
            _hit(rows[other.paper_id], other.paper_id, rank, score, legs=legs, terms=terms)
            for rank, (other, score, legs, terms) in enumerate(neighbours, start=1)
        ]

    # -- embeddings -----------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        """The active embedder (loaded on first use).

        Raises:
            InputError: the configured embedder name is unknown.
            ModelUnavailable: its model or runtime is not installed.
        """
        from .index.embed import get_embedder

        with self._embedder_lock:
            if isinstance(self._embedder_choice, str):
                self._embedder_choice = get_embedder(self._embedder_choice)
            return self._embedder_choice

    @property
    def query_embedder(self) -> Embedder:
        """The embedder of queries for the active embedder's vectors (loaded on first use).

        For the default model, its shipped int8 IR run by numpy (same model id; see
        :func:`paperscope.index.embed.get_query_embedder`); else the active embedder itself.

        Raises:
            InputError: the configured embedder name is unknown.
            ModelUnavailable: its model or runtime is not installed.
        """
        if self._embedder_name is None:
            return self.embedder
        from .index.embed import get_query_embedder

        return get_query_embedder(self._embedder_name)

    def embed(self, rebuild: bool = False, progress: bool = False) -> int:
        """Give every paper a vector from the active embedder; return how many were embedded.

        On a new machine the int8 model is prepared first (about a minute, once; shown as its
        own lines when ``progress``). Vectors are stored by (content hash, model), so papers
        already embedded are skipped and an interrupted run resumes where it stopped.

        Args:
            rebuild: drop this model's stored vectors first and embed every paper again.
            progress: show the preparation and a progress bar of papers (papers/s, ETA).

        Raises:
            ModelUnavailable: the embedding model or its runtime is not installed.
        """
        from .index.dense import ensure_vectors
        from .index.embed import prepare_embedder

        started = time.perf_counter()
        with doing("loading the embedding model"):
            if isinstance(self._embedder_choice, str):
                prepare_embedder(self._embedder_choice, progress=progress)
            self._prepare_dictionaries(progress)
            embedder = self.embedder
        self.last_prepare_s = time.perf_counter() - started  # the model and dictionaries, once per machine
        if rebuild:
            with self.store.transaction() as conn:
                vectors.delete_vectors(conn, embedder.model_id)
        count = ensure_vectors(self.store, embedder, progress=progress)
        self.refine_areas()
        self._dense = None
        self.build_search_indexes(progress=progress)
        return count

    def build_search_indexes(self, progress: bool = False) -> None:
        """Build the on-disk search indexes a large library needs now, not at its first search.

        At ``MEMORY_BM25_THRESHOLD`` papers or more the in-memory BM25 statistics, and at
        ``paperscope.index.dense.ANN_THRESHOLD`` the HNSW graph (about 40 s at 100k papers);
        both are cached by what they depend on, so this is a no-op when they are current.
        """
        from .index.dense import ANN_INSTALL

        if self.store.path == ":memory:":
            return
        started = time.perf_counter()
        built = []
        if len(self) >= MEMORY_BM25_THRESHOLD and self._bm25 is None:
            self.memory_bm25()
            built.append("BM25")
        index = self._loaded_dense_index()
        if progress and index.wants_ann and not index.uses_ann:
            print(
                f"note: {len(index):,} papers are searched exactly; the HNSW index that makes dense"
                f" search faster above {index.ann_threshold:,} needs usearch: {ANN_INSTALL}",
                file=sys.stderr,
                flush=True,
            )
        if index.uses_ann and not index.ann_is_cached():
            if progress:
                print(f"building the HNSW index of {len(index):,} vectors…", file=sys.stderr, flush=True)
            index.build_ann()
            built.append("HNSW")
        elapsed = time.perf_counter() - started
        if progress and built and elapsed > 1.0:
            print(
                f"search indexes ({', '.join(built)}) built in {elapsed:.1f} s", file=sys.stderr, flush=True
            )

    @staticmethod
    def _prepare_dictionaries(progress: bool) -> None:
        """Build the on-disk CC-CEDICT table and load rjieba for Chinese queries (under a second, once per machine)."""
        from .index.crosslingual import prepare_dictionaries

        started = time.perf_counter()
        prepare_dictionaries()
        elapsed = time.perf_counter() - started
        if progress and elapsed > 1.0:
            print(f"prepared the Chinese query dictionaries in {elapsed:.1f} s", file=sys.stderr, flush=True)

    def missing_vectors(self) -> int:
        """Return how many papers have no current vector from the active embedder (a count query)."""
        return vectors.count_missing_vectors(self.store.conn, self._model_id())

    def dense_index(self, progress: bool | None = None) -> DenseIndex:
        """Return the dense index of the active embedder, embedding papers that lack a vector first.

        For commands that asked for long work (topics, recommend, related, eval): embedding
        shows its progress (default: when stderr is a terminal). Searches use the bounded
        :meth:`_query_dense_index` instead. The index is kept in memory and reloaded only when
        papers or vectors changed since.
        """
        if progress is None:
            progress = sys.stderr.isatty()
        index = self._loaded_dense_index()
        if len(index) < len(self) and not self.store.read_only and self.missing_vectors():
            other = self.vectors_of_other_embedder()
            if other is not None:  # embedding here would re-embed every paper with another model
                raise InputError(
                    f"{self.missing_vectors():,} papers have no vector: {self._other_vectors_message(other)}"
                )
            self.embed(progress=progress)
            index = self._loaded_dense_index()
        return index

    def _loaded_dense_index(self) -> DenseIndex:
        """Return the stored vectors as an index (from the in-memory copy or the cache files)."""
        from .index.dense import DenseIndex

        model_id = self._model_id()  # known without loading the model: `related` never embeds
        fingerprint = vectors.vectors_fingerprint(self.store.conn, model_id)
        if self._dense is None or self._dense.fingerprint != fingerprint:
            self._dense = DenseIndex.load(self.store, model_id, cache_dir=self._cache_dir())
            self._dense_missing = -1
        return self._dense

    def _query_dense_index(self) -> DenseIndex | None:
        """Return the dense index for a search, or None when the search must use BM25 alone.

        None when the embedding model would first need its one-off preparation, or when more
        papers lack a vector than can be embedded within the search budget; either way
        :attr:`search_notice` says what to run.
        """
        from .index.dense import ensure_vectors
        from .index.embed import embedder_is_ready

        name = self._embedder_choice if isinstance(self._embedder_choice, str) else None
        if name is not None and not embedder_is_ready(name):
            self.search_notice = (
                "the embedding model is not prepared on this machine yet, so these results are BM25 only;"
                f" run `{self._command('embed')}` once (under a minute) for hybrid search"
            )
            self._dense_missing = len(self)
            self._with_vector_ids = set()
            return None
        index = self._loaded_dense_index()
        if self._dense_missing < 0:
            missing = len(self) - len(index)
            if missing > 0 and self.search_embed_max_papers > 0 and self.vectors_of_other_embedder() is None:
                ensure_vectors(
                    self.store,
                    self.embedder,
                    max_papers=self.search_embed_max_papers,
                    budget_s=self.search_embed_budget_s,
                )
                index = self._loaded_dense_index()
                missing = len(self) - len(index)
            self._dense_missing = max(missing, 0)
            self._with_vector_ids = None
        if self._dense_missing:
            self.search_notice = (
                f"{self._dense_missing:,} papers have no embedding yet, so these results are BM25 only;"
                f" run `{self.embed_command()}` to fill them"
            )
            return None
        return index

    def _command(self, name: str) -> str:
        """Return the shell command that runs ``paperscope NAME`` on this library (``--db`` when not the default)."""
        if Path(self.store.path) == default_db_path():
            return f"paperscope {name}"
        return f"paperscope --db {shlex.quote(str(self.store.path))} {name}"

    def _with_vectors(self) -> set[str]:
        """Return the paper_ids that have a current vector (for ``Hit.missing_vector``)."""
        if self._with_vector_ids is None:
            self._with_vector_ids = set(self._dense.paper_ids) if self._dense is not None else set()
        return self._with_vector_ids

    def _cache_dir(self) -> Path | None:
        """Return where derived indexes of this library are kept (None for an in-memory library).

        One folder per library file, named by its random ``library_id``: a new library written
        at the same path, and a copy of this file, never read this one's caches
        (:mod:`paperscope.store.identity`).
        """
        if self.store.path == ":memory:":
            return None
        return cache_dir() / "indexes" / self.store.library_id

    def memory_bm25(self, build: bool = True) -> MemoryBM25 | None:
        """Return the in-memory BM25 index for a library of ``MEMORY_BM25_THRESHOLD`` papers or more.

        Smaller libraries return None and are searched through SQLite FTS5. The index is built
        once (about 1 s per 5k papers), saved under the cache folder (postings memory-mapped on
        load), and rebuilt only when papers were added, edited or deleted. With ``build`` False
        (searches), a missing index is not built and None is returned: FTS5 answers instead, and
        :meth:`build_search_indexes` (run by ``ingest`` and ``embed``) builds it.
        """
        from .analyzer import LEXICAL_ANALYZER
        from .index.bm25 import MemoryBM25

        conn = self.store.conn
        # Read in constant time: max(rowid) moves whenever a paper is added, and the generation
        # whenever one's title or text is edited in place or one is deleted (migration 4).
        (top,) = conn.execute("SELECT coalesce(max(rowid), 0) FROM papers").fetchone()
        if top < MEMORY_BM25_THRESHOLD:
            return None
        key = (top, vectors.library_generation(conn))
        if self._bm25 is not None and self._bm25[0] == key:
            return self._bm25[1]
        cache = self._cache_dir()
        # Keyed by the analyzer too: statistics of another analysis (before issue 24: unstemmed)
        # are never read, and are deleted once this one is saved.
        path = cache / f"bm25-{LEXICAL_ANALYZER}-{top}-g{key[1]}" if cache is not None else None
        index = None
        if path is not None and (path / "idf.npy").is_file():
            with contextlib.suppress(OSError, ValueError):
                index = MemoryBM25.load(path)
        if index is not None and index.titleless is None:
            # Saved before issue 23: mark title-less rows (no letter or digit: no token) once.
            titles = dict(conn.execute("SELECT paper_id, title FROM papers"))
            bare = [not any(ch.isalnum() for ch in titles.get(pid) or "") for pid in index.paper_ids]
            with contextlib.suppress(OSError):
                index.save_titleless(path, bare)
        if index is None and not build:
            return None  # searches use FTS5 until `ingest`/`embed` build it (seconds, not hidden)
        if index is None:
            index = self._build_memory_bm25(conn)
            if path is not None:
                with contextlib.suppress(OSError):
                    index.save(path)
                    for old in path.parent.glob("bm25-*"):
                        if old.name != path.name:
                            shutil.rmtree(old, ignore_errors=True)
        self._bm25 = (key, index)
        return index

    @staticmethod
    def _build_memory_bm25(conn: sqlite3.Connection) -> MemoryBM25:
        """Build the in-memory BM25 index from the stored lexical index rows (no stemming again).

        ``papers_fts`` holds each paper's analysed title, body and exact forms under the paper's
        rowid (migration 15): when it holds exactly the papers' rowids, its rows are read in rowid
        order, so the index equals one analysed from ``papers`` in a fraction of the time (the
        Snowball stemming was most of the build). Otherwise (a damaged index ``doctor`` would
        report), the papers' texts are analysed here.
        """
        from .index.bm25 import MemoryBM25
        from .store.lexical import EXACT_WEIGHT, TITLE_WEIGHT

        (mismatched,) = conn.execute(
            "SELECT (SELECT count(*) FROM papers_fts) <> (SELECT count(*) FROM papers)"
            " OR EXISTS (SELECT 1 FROM papers_fts f LEFT JOIN papers p ON p.rowid = f.rowid"
            " WHERE p.paper_id IS NOT f.paper_id)"
        ).fetchone()
        if mismatched:
            rows = conn.execute("SELECT paper_id, title, clean_text FROM papers ORDER BY rowid")
            return MemoryBM25.build(rows, title_weight=TITLE_WEIGHT, exact_weight=EXACT_WEIGHT)
        rows = conn.execute("SELECT paper_id, title, body, exact FROM papers_fts ORDER BY rowid")
        return MemoryBM25.build(rows, title_weight=TITLE_WEIGHT, exact_weight=EXACT_WEIGHT, analysed=True)

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
        """Add a tag to a paper (stored without control characters and surrounding spaces).

        Raises:
            InputError: the tag is empty, or holds only spaces and control characters.

        """
        tag = marks.storable_text(tag).strip()
        if not tag:
            raise InputError("empty tag")
        pid = papers.resolve_paper_id(self.store.conn, paper_id)
        with self.store.transaction() as conn:
            marks.add_tag(conn, pid, tag)

    def untag(self, paper_id: str, tag: str) -> None:
        """Remove a tag from a paper (no error when it is not there)."""
        pid = papers.resolve_paper_id(self.store.conn, paper_id)
        with self.store.transaction() as conn:
            marks.remove_tag(conn, pid, tag.strip())

    def set_note(self, paper_id: str, body: str) -> None:
        """Set the note of a paper (stored without control characters; an empty body removes it)."""
        pid = papers.resolve_paper_id(self.store.conn, paper_id)
        with self.store.transaction() as conn:
            marks.set_note(conn, pid, body)

    def set_triage(self, paper_id: str, state: str | None) -> None:
        """Set a paper's triage state (``"skimmed"``, ``"maybe"``, ``"keep"`` or ``"reject"``).

        ``"unseen"`` (the state of a paper never triaged) or None clears it; :meth:`marks` then
        gives ``"triage": None``.

        Raises:
            InputError: ``state`` is not one of those, or the id is malformed or ambiguous.
            NotFound: no paper matches ``paper_id``.
        """
        pid = papers.resolve_paper_id(self.store.conn, paper_id)
        if state is not None and state not in marks.ALL_TRIAGE_STATES:
            raise InputError(
                f"unknown triage state {state!r}; choose one of: {', '.join(marks.ALL_TRIAGE_STATES)}"
            )
        with self.store.transaction() as conn:
            marks.set_triage(conn, pid, state)

    def reading_list(
        self,
        kind: str = "all",
        tag: str | None = None,
        *,
        starred: bool = False,
        state: str | None = None,
        noted: bool = False,
    ) -> list[dict[str, Any]]:
        """Return the marked papers, most recently marked first; the filters combine.

        Args:
            kind: ``"starred"``, ``"tagged"``, ``"noted"``, ``"triaged"`` or ``"all"`` (any mark).
            tag: only papers with this tag (ignoring case).
            starred: only starred papers.
            state: only papers in this triage state (``"unseen"``: marked papers without one).
            noted: only papers with a note.

        Returns:
            ``[{"paper": Paper, "marks": marks(pid), "topic": {topic_id, topic, subtopic_id,
            subtopic} | None}]``; marks of papers not in the library are left out.

        Raises:
            InputError: ``kind`` or ``state`` is unknown.
        """
        try:
            ids = marks.marked_in_order(
                self.store.conn,
                kind,
                tag.strip() if tag else None,
                starred=starred,
                state=state,
                noted=noted,
            )
        except ValueError as exc:
            raise InputError(str(exc)) from None
        # Marks of papers no longer in the library (kept by ``doctor`` and ``doctor --salvage``, so
        # a re-ingest finds them again) are left out of the list, not an error that lists nothing.
        present = papers.existing_ids(self.store.conn, ids)
        ids = [pid for pid in ids if pid in present]
        assigned = self.paper_topics() if ids else {}
        keys = ("topic_id", "topic", "subtopic_id", "subtopic")
        return [
            {
                "paper": papers.get_paper(self.store.conn, pid),
                "marks": self.marks(pid),
                "topic": {k: assigned[pid][k] for k in keys} if pid in assigned else None,
            }
            for pid in ids
        ]

    def mark_counts(self) -> dict[str, int]:
        """Return ``{"starred": n, "skimmed": n, "maybe": n, "keep": n, "reject": n}`` (two queries)."""
        conn = self.store.conn
        counts = dict.fromkeys(marks.TRIAGE_STATES, 0)
        for state in marks.triage_states(conn).values():
            counts[state] = counts.get(state, 0) + 1
        return {"starred": len(marks.marked_ids(conn, starred=True)), **counts}

    def tags(self) -> list[tuple[str, int]]:
        """Return every tag with the number of papers carrying it, most used first."""
        return marks.tag_counts(self.store.conn)

    def export(
        self,
        fmt: str = "jsonl",
        starred: bool = False,
        tag: str | None = None,
        state: str | None = None,
        topic_id: int | None = None,
        paper_ids: Iterable[str] | None = None,
    ) -> Iterator[str]:
        """Yield the library, or a selection of it, as ``fmt`` text, chunk by chunk.

        Formats: jsonl, csv, bibtex, ris, csl-json, markdown, html, ics (the sessions of each
        paper from ``enrich``; see :mod:`paperscope.triage.export`).
        The selection is every paper that is starred (``starred``), has ``tag``, has triage
        ``state``, is in topic ``topic_id`` and is among ``paper_ids`` (ids or prefixes, e.g. a
        search's hits), each when given; none given means the whole library. Citation keys are
        handed out over the whole library in the order papers were added
        (:mod:`paperscope.triage.citekeys`), so a paper's key does not depend on the selection.

        Raises:
            InputError: ``fmt`` or ``state`` is unknown, or an id is malformed or ambiguous.
            NotFound: an id in ``paper_ids`` matches no paper.

        """
        from .schedule import plan_for
        from .triage import EXPORT_FORMATS, export_papers
        from .triage.citekeys import CitationKeys

        if fmt not in EXPORT_FORMATS:
            raise InputError(f"unknown export format {fmt!r}; choose one of: {', '.join(EXPORT_FORMATS)}")
        if state is not None and state not in marks.TRIAGE_STATES:
            raise InputError(
                f"unknown triage state {state!r}; choose one of: {', '.join(marks.TRIAGE_STATES)}"
            )
        conn = self.store.conn
        keep: set[str] | None = marks.marked_ids(conn, starred=starred, tag=tag) if starred or tag else None
        for chosen in (
            {p for p, s in marks.triage_states(conn).items() if s == state} if state is not None else None,
            self.topic_members(topic_id) if topic_id is not None else None,
            {papers.resolve_paper_id(conn, p) for p in paper_ids} if paper_ids is not None else None,
        ):
            if chosen is not None:
                keep = chosen if keep is None else keep & chosen
        assigned = self.paper_topics()
        topic_keys = ("topic_id", "topic", "subtopic_id", "subtopic", "is_outlier")
        keys = CitationKeys()
        sessions: dict[str, list[dict[str, Any]]] = {}
        self.last_export_events = self.last_export_event_papers = 0
        if fmt == "ics":  # the calendar's events: each selected paper's sessions (schedule.Slot)
            for slot in plan_for(conn, paper_ids=keep).slots:
                sessions.setdefault(slot.paper_id, []).append(slot.to_dict())
            timed = [s for found in sessions.values() for s in found if s["starts_at"]]
            self.last_export_events = len(timed)  # an event needs a start (RFC 5545)
            self.last_export_event_papers = len({s["paper_id"] for s in timed})

        self.last_export_count = 0

        def selected() -> Iterator[tuple[Paper, dict[str, Any]]]:
            for paper in self.papers():  # every paper, in rowid order: the keys depend on it
                key = keys.add(paper)
                if keep is not None and paper.paper_id not in keep:
                    continue
                self.last_export_count += 1
                topic = assigned.get(paper.paper_id)
                yield (
                    paper,
                    {
                        "marks": self.marks(paper.paper_id),
                        "topic": {k: topic[k] for k in topic_keys} if topic else None,
                        "key": key,
                        **({"sessions": sessions.get(paper.paper_id, [])} if fmt == "ics" else {}),
                    },
                )

        return export_papers(selected(), fmt)

    def backup(self, path: str | Path) -> int:
        """Write the marks (stars, tags, notes, triage states) to a JSON file; return papers written.

        See :mod:`paperscope.triage.backup` for the file and how :meth:`restore` matches papers.

        Raises:
            InputError: the folder of ``path`` does not exist.
        """
        from .triage.backup import write_backup

        return write_backup(self.store.conn, Path(path))

    def restore(self, path: str | Path) -> RestoreReport:
        """Apply a marks backup to this library, matching papers by paper_id, else by content.

        Returns:
            a :class:`paperscope.triage.backup.RestoreReport` (matched by id, by content, and
            the entries not matched, with titles).

        Raises:
            InputError: the file is missing or not a marks backup.
            ReadOnlyLibrary: the library is read-only.
        """
        from .triage.backup import read_backup, restore_marks

        entries = read_backup(Path(path))
        with self.store.transaction() as conn:
            return restore_marks(conn, entries, str(path))

    def citation_keys(self) -> dict[str, str]:
        """Return ``{paper_id: citation key}`` for the whole library (see :mod:`paperscope.triage.citekeys`)."""
        from .triage.citekeys import CitationKeys

        keys = CitationKeys()
        return {paper.paper_id: keys.add(paper) for paper in self.papers()}

    def recommend(self, limit: int = 10, tag: str | None = None) -> list[Hit]:
        """Recommend untriaged papers like the kept and starred ones (or the ones tagged ``tag``).

        Ranks by a linear SVM over TF-IDF and embedding features that learns from rejects too
        (:mod:`paperscope.triage.learn`): positives are the starred and kept papers (or the papers
        tagged ``tag``), rejected papers are negatives, every other paper a weak negative; the
        scores are then propagated one hop on the library's embedding neighbour graph. Papers
        with any triage state are not recommended again. ``Hit.terms`` holds the terms that
        contributed most, ``Hit.like`` the labels of the positives the hit is closest to.

        Raises:
            NothingMarked: no paper is starred, kept (or tagged ``tag``): an InputError.
            InputError: papers lack a vector (it
                never embeds: run ``embed``), or ``limit`` is out of range.
        """
        _check_limit(limit)
        conn = self.store.conn
        triaged = marks.triage_states(conn)
        if tag is None:
            marked = marks.marked_ids(conn, starred=True) | {p for p, s in triaged.items() if s == "keep"}
        else:
            marked = marks.marked_ids(conn, tag=tag)
        if not marked:
            if tag:
                raise NothingMarked(
                    f"no paper is tagged {tag!r}: tag a few first (paperscope tags add PAPER_ID {tag})"
                )
            raise NothingMarked(
                "no paper is starred or kept: mark a few first (paperscope mark PAPER_ID keep)"
            )
        self._require_vectors()
        rejects = sum(1 for s in triaged.values() if s == "reject")
        what = "starred or kept" if tag is None else f"tagged {tag!r}"
        with doing(f"learning from {len(marked):,} {what} and {rejects:,} rejected papers"):
            paper_ids, features = self._recommend_features()
            row_of = {pid: i for i, pid in enumerate(paper_ids)}
            rejected = [row_of[p] for p, s in triaged.items() if s == "reject" and p in row_of]
            seen = [row_of[p] for p in triaged if p in row_of]
            try:
                from .triage.learn import rank_with_feedback

                ranked = rank_with_feedback(
                    features, [row_of[p] for p in marked if p in row_of], rejected, limit, exclude_rows=seen
                )
            except ValueError as exc:
                raise InputError(str(exc)) from None
        liked = {paper_ids[r] for rec in ranked for r in rec.like}
        rows = papers.hit_rows(conn, [paper_ids[rec.row] for rec in ranked] + sorted(liked))
        likes = [
            [rows[paper_ids[r]].display_label for r in rec.like if paper_ids[r] in rows] for rec in ranked
        ]
        return _ranked_hits(rows, paper_ids, ranked, "svm", likes)

    def recommend_like(self, path: str | Path, limit: int = 10) -> list[Hit]:
        """Rank the library by similarity to the papers in ``path``, without ingesting them.

        ``path`` is any paper list the ingest reads (BibTeX, text list, CSV, JSON, CSL-JSON …).
        Its papers are embedded with the library's embedder and put in the library's TF-IDF space;
        each library paper scores its mean cosine to them, plus its neighbours' mean score
        (reviewer-affinity style, see :func:`paperscope.triage.learn.rank_like`). ``Hit.like``
        names the closest of the file's papers, ``Hit.terms`` the terms shared with it.

        ``recommend_notice`` says which of the file's entries were left out (no abstract …), else None.

        Raises:
            InputError: the file cannot be read or holds no paper with an abstract, papers of the
                library lack a vector, or ``limit`` is out of range.
        """
        from .index.dense import embedding_text
        from .ingest.formats import detect_format, get_reader
        from .ingest.pipeline import record_to_paper
        from .models import Skip
        from .triage.learn import rank_like

        _check_limit(limit)
        path = Path(path)
        reader = get_reader(detect_format(path))
        mine, skipped = [], []
        for record in reader(path, None):
            paper = None if isinstance(record, Skip) else record_to_paper(record)
            if paper is None:
                skipped.append(record)
            else:
                mine.append(paper)
        if not mine:
            raise InputError("no paper with an abstract in this file, so nothing to compare with", str(path))
        self.recommend_notice = None
        if skipped:
            where = ", ".join(
                f"{getattr(s, 'unit', 'line')} {s.line}: {s.reason}"
                for s in skipped[:5]
                if isinstance(s, Skip)
            )
            self.recommend_notice = (
                f"compared with {len(mine)} of {len(mine) + len(skipped)} papers of {path.name}; "
                f"{len(skipped)} left out ({where}{', …' if len(skipped) > 5 else ''})"
            )
        self._require_vectors()
        paper_ids, features = self._recommend_features()
        embedder = self.embedder
        dense = embedder.embed([embedding_text(p.title, p.clean_text, embedder.languages) for p in mine])
        ranked = rank_like(
            features, features.transform([_rec_text(p.title, p.clean_text) for p in mine], dense), limit
        )
        rows = papers.hit_rows(self.store.conn, [paper_ids[rec.row] for rec in ranked])
        return _ranked_hits(
            rows, paper_ids, ranked, "like", [[mine[j].display_label for j in rec.like] for rec in ranked]
        )

    def _require_vectors(self) -> None:
        """Raise InputError when papers lack a vector: recommendations never embed on their own.

        ``paperscope recommend`` embeds them first, with its progress shown; the web app answers 503.
        """
        missing = self.missing_vectors()
        if missing:
            raise InputError(
                f"{missing:,} papers have no embedding yet, and recommendations compare embeddings;"
                f" run `{self._command('embed')}` first"
            )

    def _recommend_features(self) -> tuple[list[str], Any]:
        """Return ``(paper_ids, Features)`` for recommendations, cached until the papers change.

        The cache is the process's, shared by every Library open on the same file (the web
        server's pool): keyed by the library's id, the model and the vectors' fingerprint (which
        moves when a paper is added, deleted or retitled), and built once at a time.
        """
        from .triage.learn import build_features

        paper_ids, matrix = self.embeddings()
        conn = self.store.conn
        model_id = self.embedder.model_id
        key = (
            self.store.library_id,
            model_id,
            vectors.vectors_fingerprint(conn, model_id),
            len(paper_ids),
        )
        with _REC_FEATURES_LOCK:
            cached = _REC_FEATURES.get(key)
            if cached is not None and cached[0] == paper_ids:
                return paper_ids, cached[1]
            texts = dict.fromkeys(paper_ids, "")
            for pid, title, clean in conn.execute("SELECT paper_id, title, clean_text FROM papers"):
                if pid in texts:
                    texts[pid] = _rec_text(title, clean)
            features = build_features(
                [texts[p] for p in paper_ids], matrix, self._cached_graph(model_id, matrix)
            )
            _REC_FEATURES.clear()  # one library's features at a time (~100 MB at 21k papers)
            _REC_FEATURES[key] = (paper_ids, features)
        return paper_ids, features

    def warm_recommendations(self) -> bool:
        """Build the recommendation features now when the queue or ``recommend`` will need them.

        For a server's start (:meth:`paperscope.web.pool.LibraryPool.warm`): with a paper kept or
        starred and every vector stored, the first queue page would otherwise build them (8 s at
        21,490 papers). Nothing is embedded. Returns True when they were built (or cached).
        """
        conn = self.store.conn
        kept = marks.marked_in_order(conn, "triaged", state="keep")
        if not (kept or marks.marked_ids(conn, starred=True)) or self.missing_vectors():
            return False
        self._recommend_features()
        return True

    def _cached_graph(self, model_id: str, matrix: np.ndarray) -> Any:
        """Return the recommendations' neighbour graph of ``matrix``, read from or written to the cache.

        The file (``rec-graph-<hash of model and vectors' fingerprint>.npz``, a few MB) spares a
        fresh process the all-pairs cosines (24 s at 21,490 papers on 2 loaded cores).
        """
        import hashlib

        from scipy import sparse

        from .triage.learn import neighbour_graph

        folder = self._cache_dir()
        if folder is None:
            return neighbour_graph(matrix)
        fingerprint = vectors.vectors_fingerprint(self.store.conn, model_id)
        key = hashlib.sha1(f"{model_id}|{fingerprint}|{len(matrix)}".encode()).hexdigest()[:16]
        path = folder / f"rec-graph-{key}.npz"
        with contextlib.suppress(OSError, ValueError):
            graph = sparse.load_npz(path)
            if graph.shape == (len(matrix), len(matrix)):
                return graph.tocsr()
        graph = neighbour_graph(matrix)
        with contextlib.suppress(OSError):
            folder.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp.npz")
            sparse.save_npz(tmp, graph)
            os.replace(tmp, path)
            for old in folder.glob("rec-graph-*.npz"):
                if old.name != path.name:
                    with contextlib.suppress(OSError):
                        old.unlink()
        return graph

    def marks(self, paper_id: str) -> dict[str, Any]:
        """Return ``{"starred": bool, "tags": [...], "note": str | None, "triage": str | None}``."""
        conn = self.store.conn
        pid = papers.resolve_paper_id(conn, paper_id)
        return {
            "starred": marks.is_starred(conn, pid),
            "tags": marks.tags_of(conn, pid),
            "note": marks.note_of(conn, pid),
            "triage": marks.triage_of(conn, pid),
        }

    def queue(
        self,
        order: str = "recommended",
        limit: int = 1,
        topic_id: int | None = None,
        tag: str | None = None,
        skip: Iterable[str] = (),
        first: str | None = None,
    ) -> Any:
        """Return the triage queue: the next unseen papers and how many of the scope are seen.

        See :mod:`paperscope.triage.queue` for the orders. Nothing is stored: the queue follows
        the marks, so it resumes where the reader stopped. It never embeds: while papers lack a
        vector the recommended order falls back to topic order and ``notice`` says so.

        Args:
            order: ``"recommended"`` (learns from keeps, stars and rejects) or ``"topic"``.
            limit: papers to return (1..MAX_LIMIT), first the one to look at now.
            topic_id: only papers of this broad topic or subtopic.
            tag: recommend from the papers with this tag instead of the kept and starred ones.
            skip: ids (or prefixes) to leave out this time, unmarked (at most ``MAX_SKIP``).
            first: an id (or prefix) to put first whatever its state (to undo a mark, or open
                the queue at one paper).

        Returns:
            a :class:`paperscope.triage.queue.Queue`.

        Raises:
            InputError: unknown order, ``limit`` out of range, too many or malformed ids.
            NotFound: ``topic_id``, an id of ``skip`` or ``first`` matches nothing.
        """
        from .triage.queue import MAX_SKIP, ORDERS, Queue, QueueItem, topic_sequence

        if order not in ORDERS:
            raise InputError(f"unknown queue order {order!r}; choose one of: {', '.join(ORDERS)}")
        _check_limit(limit)
        skip = list(skip)
        if len(skip) > MAX_SKIP:
            raise InputError(f"at most {MAX_SKIP} papers can be skipped at once, got {len(skip)}")
        conn = self.store.conn
        skipped = {papers.resolve_paper_id(conn, p) for p in skip}
        head = papers.resolve_paper_id(conn, first) if first else None
        scope = self.topic_members(topic_id) if topic_id is not None else None
        ids = [r[0] for r in conn.execute("SELECT paper_id FROM papers ORDER BY rowid")]
        if scope is not None:
            ids = [p for p in ids if p in scope]
        states = marks.triage_states(conn)
        counts: dict[str, int] = {}
        for pid in ids:
            if pid in states:
                counts[states[pid]] = counts.get(states[pid], 0) + 1
        unseen = [p for p in ids if p not in states and p not in skipped and p != head]
        notice: str | None = None
        ranked: list[Hit] = []
        ordered_by = order
        if order == "recommended":
            ordered_by, notice, ranked = self._queue_ranking(
                set(unseen), limit + len(skipped) + 1 if scope is None else MAX_LIMIT, tag
            )
        ranked_ids = {h.paper_id for h in ranked}
        rest = [p for p in unseen if p not in ranked_ids]
        if len(ranked) < limit and rest:
            rest = topic_sequence(rest, topic_store.load_assignments(conn, rest), self.topics())
        chosen: list[tuple[str, Hit | None]] = [(head, None)] if head else []
        chosen += [(h.paper_id, h) for h in ranked] + [(p, None) for p in rest]
        chosen = chosen[:limit]
        rows = papers.hit_rows(conn, [pid for pid, _ in chosen])
        assigned = self.paper_topics([pid for pid, _ in chosen])
        keys = ("topic_id", "topic", "subtopic_id", "subtopic")
        items = []
        for rank, (pid, hit) in enumerate(chosen, start=1):
            if hit is None:
                hit = _hit(rows[pid], pid, rank, 0.0)
            hit.rank = rank
            topic = {k: assigned[pid][k] for k in keys} if pid in assigned else None
            items.append(QueueItem(hit=hit, topic=topic, marks=self.marks(pid)))
        seen = sum(counts.values())
        return Queue(len(ids), seen, counts, order, ordered_by, notice, items)

    def _queue_ranking(
        self, unseen: set[str], limit: int, tag: str | None
    ) -> tuple[str, str | None, list[Hit]]:
        """Return ``(ordered_by, notice, hits)``: the recommended unseen papers, or why there are none."""
        missing = self.missing_vectors()
        if missing:
            return (
                "topic",
                f"{missing:,} papers have no embedding yet, so the queue goes topic by topic; run"
                " `paperscope embed` (or wait for the ingest) to order it by recommendation",
                [],
            )
        try:
            hits = self.recommend(limit=min(limit, MAX_LIMIT), tag=tag)
        except InputError:
            what = f"tagged {tag!r}" if tag else "kept or starred"
            return (
                "topic",
                f"no paper is {what} yet, so the queue goes topic by topic; keep or star a paper"
                " and it orders itself by what you keep",
                [],
            )
        return "recommended", None, [h for h in hits if h.paper_id in unseen]

    # -- topics and the map -----------------------------------------------------------------
    def fit_topics(self, embeddings: tuple[list[str], Any] | None = None, **settings: Any) -> TopicModel:
        """Fit broad topics, subtopics and map coordinates, and store them (replacing earlier ones).

        A refit keeps the ids (and names) of the stored topics it matches on shared members
        (:func:`paperscope.topic_fits.fit_and_store`); :meth:`update_topics` refits only when needed.

        Args:
            embeddings: ``(paper_ids, matrix)`` with matrix float32 (n_papers, dim); None means
                ``self.embeddings()`` (the active embedder's stored vectors).
            **settings: passed to :func:`paperscope.topics.fit_topics` (``n_topics``, ``seed``, …).

        Returns:
            The :class:`paperscope.topics.TopicModel`, with the carried-over ids.

        Raises:
            ModelUnavailable: no embeddings were given and the embedding model is not installed.
            InputError: an embedded paper_id is not in the library, or the embeddings are bad.
            StoreError: the library is read-only.
        """
        from .topic_fits import fit_and_store

        return fit_and_store(self, embeddings, **settings)[0]

    def update_topics(
        self, refit: bool = False, embeddings: tuple[list[str], Any] | None = None, **settings: Any
    ) -> TopicUpdate:
        """Give papers added since the last fit a topic, refitting only when asked or needed.

        New papers join the stored topics by nearest centroid, so no id or name changes; a refit
        (the first fit, ``refit=True``, or more than 25% of the library assigned since the last
        fit) carries ids over. See :func:`paperscope.topic_fits.update_topics`.

        Args:
            refit: fit again even when the new papers could be assigned.
            embeddings: ``(paper_ids, matrix)`` as :meth:`fit_topics` takes them; None means
                ``self.embeddings()``.
            **settings: passed to :func:`paperscope.topics.fit_topics` when it refits.

        Returns:
            A :class:`paperscope.topic_fits.TopicUpdate`; its ``notice()`` says what happened.

        Raises:
            ModelUnavailable: no embeddings were given and the embedding model is not installed.
            InputError: an embedded paper_id is not in the library, or the embeddings are bad.
            StoreError: the library is read-only.
        """
        from .topic_fits import update_topics

        return update_topics(self, refit, embeddings, **settings)

    def topics(self, level: int | None = None) -> list[Topic]:
        """Return the stored topics (broad, then subtopics, then Unassigned); [] before a fit.

        Args:
            level: 0 for broad topics and the Unassigned group, 1 for subtopics, None for all.
        """
        found = topic_store.load_topics(self.store.conn)
        return [t for t in found if level is None or t.level == level]

    def topic_run(self) -> dict[str, Any]:
        """Return settings and figures of the last topic fit (empty before the first)."""
        return topic_store.load_run(self.store.conn)

    def paper_topics(self, paper_ids: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
        """Return ``paper_id → {topic_id, topic, subtopic_id, subtopic, is_outlier, x, y}``.

        Args:
            paper_ids: only these papers (None: every assigned paper).
        """
        assigned = topic_store.load_assignments(self.store.conn, paper_ids)
        names = topic_store.topic_names(
            self.store.conn,
            {a[key] for a in assigned.values() for key in ("topic_id", "subtopic_id") if a[key] is not None},
        )
        return {
            pid: {
                "topic_id": a["topic_id"],
                "topic": names.get(a["topic_id"]),
                "subtopic_id": a["subtopic_id"],
                "subtopic": names.get(a["subtopic_id"]) if a["subtopic_id"] is not None else None,
                "is_outlier": a["is_outlier"],
                "x": a["x"],
                "y": a["y"],
            }
            for pid, a in assigned.items()
        }

    def topic_members(self, topic_id: int) -> set[str]:
        """Return the paper_ids of a broad topic or subtopic.

        Raises:
            NotFound: no stored topic has this id.
        """
        known = {t.topic_id for t in self.topics()}
        if topic_id not in known:
            raise NotFound(f"no topic {topic_id}; `paperscope topics` lists them")
        return {
            pid
            for pid, a in topic_store.load_assignments(self.store.conn).items()
            if topic_id in (a["topic_id"], a["subtopic_id"])
        }

    def topic_facets(self, hits: list[Hit]) -> list[dict[str, Any]]:
        """Count ``hits`` per broad topic: ``[{topic_id, topic, count}]``, largest count first."""
        assigned = self.paper_topics()
        counts: dict[int, int] = {}
        for hit in hits:
            if hit.paper_id in assigned:
                tid = assigned[hit.paper_id]["topic_id"]
                counts[tid] = counts.get(tid, 0) + 1
        names = {t.topic_id: t.name for t in self.topics(level=0)}
        return [
            {"topic_id": tid, "topic": names.get(tid), "count": n}
            for tid, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        ]

    def topics_are_stale(self) -> bool:
        """Return True when no topics are stored or a paper has no topic yet (added since)."""
        conn = self.store.conn
        return not topic_store.has_topics(conn) or (
            conn.execute(
                "SELECT 1 FROM papers p WHERE NOT EXISTS"
                " (SELECT 1 FROM paper_topics t WHERE t.paper_id = p.paper_id) LIMIT 1"
            ).fetchone()
            is not None
        )

    def write_map(
        self,
        path: str | Path,
        png: str | Path | None = None,
        color_by: str = "topic",
        title: str | None = None,
    ) -> Path:
        """Write the topic map as one self-contained offline HTML file (and a PNG if asked).

        Args:
            path: the HTML file; written to a temp file and renamed into place.
            png: also write a static PNG here (needs matplotlib, the ``png`` extra).
            color_by: initial colouring: ``"topic"``, ``"area"`` or ``"venue"``.
            title: page title; default "paperscope map: N papers".

        Returns:
            The HTML path.

        Raises:
            NotFound: topics have not been fitted yet.
            InputError: ``color_by`` is not one of the choices.
            ModelUnavailable: a PNG was asked for and matplotlib is not installed (nothing is written).
        """
        from .map import map_payload, require_matplotlib, write_map_html, write_map_png

        if png is not None:
            require_matplotlib()
        assigned = self.paper_topics()
        if not assigned:
            raise NotFound("no topics yet: run `paperscope topics` (or Library.fit_topics) first")
        payload = map_payload(list(self.papers()), assigned, self.topics(), color_by=color_by, title=title)
        out = write_map_html(path, payload)
        if png is not None:
            write_map_png(png, payload)
        return out

    # -- titles from the program (issue 15) -------------------------------------------------
    def enrich(
        self,
        program: str | Path,
        column_map: Mapping[str, str] | None = None,
        dense: bool = True,
        timezone: str | None = None,
        matcher: str = "assignment",
    ) -> Any:
        """Match the title-less papers to a conference program and attach the matched entries.

        See :mod:`paperscope.enrich` (a learned pair score and a one-to-one assignment, or with
        ``matcher="margins"`` issue 15's two agreeing rankings; the rest are stored as
        suggestions for :meth:`review_enrich`). ``dense`` uses the stored vectors when every
        paper has one, and then embeds the attached papers again (their vector covers title and
        text). ``timezone`` (IANA, e.g. ``Asia/Seoul``) is the program's time
        zone: times without an offset are read in it. Each attached entry's sessions are stored
        (see :meth:`schedule`). Returns an :class:`~paperscope.enrich.EnrichReport`.

        Raises:
            InputError: the program file cannot be read (the message names the file and line).
            StoreError: the library is read-only.
        """
        from .enrich.run import enrich_library

        had_vectors = dense and len(self) > 0 and not self.missing_vectors()
        report = enrich_library(
            self, program, dict(column_map or {}), dense=dense, timezone=timezone, matcher=matcher
        )
        self._bm25 = None
        if had_vectors and report.attached:
            self.embed()  # the attached titles changed those papers' content hash (title + text)
        return report

    def enrich_suggestions(self, program: str | Path | None = None) -> list[dict[str, Any]]:
        """Return the open suggestions of ``enrich`` (of one program file, or all), surest first."""
        from .enrich import attach

        key = str(Path(program).resolve()) if program is not None else None
        return attach.open_suggestions(self.store.conn, key)

    def review_enrich(self, suggestion_id: int, accept: bool) -> bool:
        """Accept (attach, method ``review``) or reject one suggestion; return False when it is gone.

        An accepted paper is embedded again when every paper had a vector (as ``enrich`` does).

        Raises:
            StoreError: the library is read-only.
        """
        from .enrich import attach

        found = [s for s in attach.open_suggestions(self.store.conn) if s["suggestion_id"] == suggestion_id]
        if not found:
            return False
        had_vectors = accept and not self.missing_vectors()
        with self.store.transaction() as conn:
            if not accept:
                attach.reject_suggestion(conn, suggestion_id)
                return True
            s = found[0]
            done = attach.attach(conn, s["paper_id"], s["entry"], s["program"], s["score"], "review")
        self._bm25 = None
        if done and had_vectors:
            self.embed()  # as enrich does: the title changed the paper's content hash
        return done

    def undo_enrich(self, program: str | Path | None = None) -> UndoReport:
        """Undo the attachments of ``enrich`` (of one program file, or all); see :func:`enrich.attach.undo`.

        The restored papers get back the vectors of their content before (saved by ``attach``);
        a library whose every paper had a vector before the undo has one after it too.

        Returns an :class:`~paperscope.enrich.attach.UndoReport`: the restored paper_ids, those
        with a field changed since (left as it is), and how many open suggestions and stored
        sessions went; it unpacks as ``(restored, kept)``.
        """
        from .enrich import attach

        key = str(Path(program).resolve()) if program is not None else None
        had_vectors = len(self) > 0 and not self.missing_vectors()
        with self.store.transaction() as conn:
            done = attach.undo(conn, key)
        self._bm25 = None
        if had_vectors and self.missing_vectors():
            self.embed()  # attachments saved before their vectors were: never leave it worse
        return done

    def schedule(
        self,
        state: str | None = None,
        starred: bool = False,
        tag: str | None = None,
        day: str | None = None,
        paper_ids: Iterable[str] | None = None,
    ) -> Any:
        """Return the attendee's plan: the chosen papers' sessions by day and session, with clashes.

        The papers are those with triage ``state``, starred, with ``tag`` and among ``paper_ids``
        (ids or prefixes), each when given; none given means every paper with a session. ``day``
        (``YYYY-MM-DD``, the program's local date) keeps one day. Sessions come from
        :meth:`enrich`. Returns a :class:`paperscope.schedule.Plan` (see there for the clash rule).

        Raises:
            InputError: ``state`` is unknown, ``day`` is not a date, or an id is malformed.
            NotFound: an id in ``paper_ids`` matches no paper.
        """
        from .schedule import plan_for

        conn = self.store.conn
        ids = None if paper_ids is None else [papers.resolve_paper_id(conn, p) for p in paper_ids]
        return plan_for(conn, state=state, starred=starred, tag=tag, day=day, paper_ids=ids)

    def enrichments(
        self, program: str | Path | None = None, paper_id: str | None = None
    ) -> list[dict[str, Any]]:
        """Return the provenance of every attached field set (program, entry line, score, method, time).

        ``paper_id`` (a full id) keeps one paper's attachments: each row gives the program file,
        the entry's line, the ``session`` it names (or None) and the fields attached.
        """
        from .store.enrichments import enrichments

        key = str(Path(program).resolve()) if program is not None else None
        return enrichments(self.store.conn, key, paper_id)
