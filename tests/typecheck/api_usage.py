"""A script using paperscope's public API as a user would; tests/typecheck/test_public_api.py type-checks it.

Never run: mypy reads it. Each ``reveal_type`` line's type is asserted
in the test, so the API must stay typed (a method returning ``Any`` would type-check silently).
"""

from __future__ import annotations

from pathlib import Path
from typing import reveal_type

import paperscope
from paperscope import Card, Hit, IngestReport, Library, NotFound, Paper, PaperscopeError


def first_hit_label(db: Path, query: str) -> str:
    """Open a library, ingest a list, search it and read the fields a notebook reads."""
    with Library(db) as lib:
        report = lib.ingest([Path("papers.csv")])
        reveal_type(report)
        new: int = report.new
        hits = lib.search(query, limit=5, mode="bm25", has_code=True)
        reveal_type(hits)
        for hit in hits:
            reveal_type(hit.score)
            reveal_type(hit.legs)
            print(hit.rank, hit.paper_id, hit.label, hit.snippet, hit.terms, hit.venue, hit.year, new)
            source = hit.sources[0]
            print(source.path, source.line)
        related = lib.related(hits[0].paper_id, limit=3)
        paper = lib.get(hits[0].paper_id)
        reveal_type(paper)
        reveal_type(paper.card)
        card = paper.card
        if card is not None:
            reveal_type(card.method_names)
            print(card.label, card.code_urls, card.extractor_version)
        reveal_type(lib.papers())
        reveal_type(lib.stats())
        reveal_type(lib.topics())
        reveal_type(lib.restore(Path("marks.json")).unmatched)
        reveal_type(lib.fit_topics().paper_ids)
        lib.star(paper.paper_id)
        lib.tag(paper.paper_id, "read")
        lib.set_triage(paper.paper_id, "keep")
        return related[0].label if related else paper.title or paper.clean_text


def label_or_reason(db: Path, paper_id: str) -> str:
    """Catch the library's errors by class, as the docs say."""
    try:
        with Library(db) as lib:
            found: Paper = lib.get(paper_id)
            return found.label
    except NotFound as exc:
        reveal_type(exc)
        return str(exc)
    except PaperscopeError as exc:
        return f"{paperscope.__version__}: {exc}"


def kinds(hit: Hit, card: Card, report: IngestReport) -> tuple[float, list[str], int]:
    """The exported data classes are usable as annotations."""
    return hit.score, card.method_names, len(report.files)
