"""Library: the one facade that the CLI, the web app and notebooks call."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .config import default_db_path
from .errors import InputError
from .extract import build_card
from .index.bm25 import match_expression
from .ingest import ingest_paths
from .models import Hit, IngestReport, Paper
from .store import Store, marks, papers
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
    def ingest(
        self, paths: Iterable[str | Path], fmt: str | None = None, progress: bool = False
    ) -> IngestReport:
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
    def search(self, query: str, limit: int = 10) -> list[Hit]:
        """Return the best ``limit`` papers for ``query``, ranked by BM25.

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
        ranked = search_fts(self.store.conn, expression, limit)
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
        return {
            "starred": marks.is_starred(conn, pid),
            "tags": marks.tags_of(conn, pid),
            "note": marks.note_of(conn, pid),
        }
