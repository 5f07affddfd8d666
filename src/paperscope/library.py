"""Library: the one facade that the CLI, the web app and notebooks call."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .config import default_db_path
from .errors import InputError, ModelUnavailable, NotFound
from .extract import build_card
from .index.bm25 import match_expression
from .ingest import ingest_paths
from .models import Hit, IngestReport, Paper, Topic
from .store import Store, marks, papers
from .store import topics as topic_store
from .store.lexical import search_fts

__all__ = ["Library", "MAX_LIMIT"]

#: The most hits one search returns; larger limits are refused rather than silently cut.
MAX_LIMIT = 1000


class Library:
    """A paper library stored in one SQLite file.

    Args:
        path: the database file; None means ``$PAPERSCOPE_DB`` or ``$PAPERSCOPE_HOME/library.db``.

    Raises:
        StoreError: the database cannot be opened or migrated.
    """

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None and str(path) != ":memory:" else path
        self.store = Store(path if path is not None else default_db_path())

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
        return ingest_paths(self.store, paths, build_card=build_card, fmt=fmt, progress=progress)

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
    def search(self, query: str, limit: int = 10, topic: int | None = None) -> list[Hit]:
        """Return the best ``limit`` papers for ``query``, ranked by BM25.

        ``topic`` keeps only papers of that broad topic or subtopic (see :meth:`topics`).

        Raises:
            InputError: ``query`` is empty or whitespace, or ``limit`` is not in 1..MAX_LIMIT.
        """
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
            raise InputError(f"limit must be an integer from 1 to {MAX_LIMIT}, got {limit!r}")
        if not query or not query.strip():
            raise InputError("empty query: type some words to search for")
        expression = match_expression(query)
        if expression is None:
            return []
        ranked = search_fts(self.store.conn, expression, limit if topic is None else MAX_LIMIT)
        if topic is not None:
            members = self.topic_members(topic)
            ranked = [(pid, score) for pid, score in ranked if pid in members][:limit]
        hits = []
        for rank, (paper_id, score) in enumerate(ranked, start=1):
            paper = papers.get_paper(self.store.conn, paper_id)
            hits.append(
                Hit(
                    paper_id=paper_id,
                    score=score,
                    rank=rank,
                    label=paper.label,
                    sources=paper.sources,
                    legs={"bm25": {"rank": rank, "score": score}},
                )
            )
        return hits

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

    # -- topics and the map -----------------------------------------------------------------
    def fit_topics(self, embeddings: tuple[list[str], Any] | None = None, **settings: Any) -> Any:
        """Fit broad topics, subtopics and map coordinates, and store them (replacing earlier ones).

        Args:
            embeddings: ``(paper_ids, matrix)`` with matrix float32 (n_papers, dim); None means
                ``self.embeddings()`` (the dense index of the hybrid-search branch).
            **settings: passed to :func:`paperscope.topics.fit_topics` (``n_topics``, ``seed``, …).

        Returns:
            The :class:`paperscope.topics.TopicModel`.

        Raises:
            ModelUnavailable: no embeddings were given and the library has no dense index.
            InputError: an embedded paper_id is not in the library, or the embeddings are bad.
        """
        import numpy as np

        from .topics import fit_topics

        if embeddings is None:
            source = getattr(self, "embeddings", None)
            if source is None:
                raise ModelUnavailable(
                    "topics need paper embeddings and this paperscope has no dense index yet; "
                    "pass embeddings=(paper_ids, matrix) to Library.fit_topics"
                )
            embeddings = source()
        paper_ids, matrix = list(embeddings[0]), np.asarray(embeddings[1], dtype=np.float32)
        texts = {
            r["paper_id"]: f"{r['title']}. {r['clean_text']}" if r["title"] else r["clean_text"]
            for r in self.store.conn.execute("SELECT paper_id, title, clean_text FROM papers")
        }
        missing = [pid for pid in paper_ids if pid not in texts]
        if missing:
            raise InputError(f"{len(missing)} embedded papers are not in the library (first: {missing[0]})")
        model = fit_topics(paper_ids, [texts[pid] for pid in paper_ids], matrix, **settings)
        rows = [
            (pid, int(t), int(s) if s >= 0 else None, bool(o), float(x), float(y))
            for pid, t, s, o, (x, y) in zip(
                model.paper_ids,
                model.topic_ids,
                model.subtopic_ids,
                model.is_outlier,
                model.coordinates,
                strict=True,
            )
        ]
        run = {
            "settings": model.settings,
            "n_papers": len(paper_ids),
            "unassigned_fraction": round(model.unassigned_fraction, 6),
            "outlier_fraction": round(model.outlier_fraction, 6),
            "fingerprint": model.fingerprint(),
            "timings_ms": model.timings_ms,
        }
        with self.store.transaction() as conn:
            topic_store.replace_topics(conn, model.topics, rows, run)
        return model

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

    def paper_topics(self) -> dict[str, dict[str, Any]]:
        """Return ``paper_id → {topic_id, topic, subtopic_id, subtopic, is_outlier, x, y}``."""
        names = {t.topic_id: t.name for t in self.topics()}
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
            for pid, a in topic_store.load_assignments(self.store.conn).items()
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
            png: also write a static PNG here (needs matplotlib).
            color_by: initial colouring: ``"topic"``, ``"area"`` or ``"venue"``.
            title: page title; default "paperscope map: N papers".

        Returns:
            The HTML path.

        Raises:
            NotFound: topics have not been fitted yet.
            InputError: ``color_by`` is not one of the choices.
            ModelUnavailable: a PNG was asked for and matplotlib is not installed.
        """
        from .map import map_payload, write_map_html, write_map_png

        assigned = self.paper_topics()
        if not assigned:
            raise NotFound("no topics yet: run `paperscope topics` (or Library.fit_topics) first")
        payload = map_payload(list(self.papers()), assigned, self.topics(), color_by=color_by, title=title)
        out = write_map_html(path, payload)
        if png is not None:
            write_map_png(png, payload)
        return out
