"""GET /api/search: ranked hits for a query."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from .deps import library_of, ok

router = APIRouter()


@router.get("/search")
def search(
    request: Request,
    q: str = "",
    limit: int = 10,
    mode: str = "hybrid",
    venue: str | None = None,
    year: int | None = None,
    decision: str | None = None,
    source_area: str | None = None,
    area: str | None = None,
    has_code: bool | None = None,
    dataset: str | None = None,
    contribution: str | None = None,
    topic: int | None = None,
) -> dict[str, Any]:
    """Return ``{"ok": true, "data": [hit, ...]}``, filtered as :meth:`Library.search` documents.

    An empty ``q``, a bad ``limit``, ``mode`` or ``contribution`` is a 400.
    """
    with library_of(request) as lib:
        hits = lib.search(
            q,
            limit=limit,
            mode=mode,
            venue=venue,
            year=year,
            decision=decision,
            source_area=source_area,
            has_code=has_code,
            topic=topic,
            dataset=dataset,
            contribution=contribution,
            area=area,
        )
        return ok([hit.to_dict() for hit in hits])


@router.get("/related/{paper_id}")
def related(request: Request, paper_id: str, limit: int = 10) -> dict[str, Any]:
    """Return the papers nearest to ``paper_id`` (never itself or its duplicates)."""
    with library_of(request) as lib:
        return ok([hit.to_dict() for hit in lib.related(paper_id, limit=limit)])


@router.get("/recommend")
def recommend(request: Request, limit: int = 10, tag: str | None = None) -> dict[str, Any]:
    """Return papers like the starred (or ``tag``-ged) ones; a 400 when none is marked."""
    with library_of(request) as lib:
        return ok([hit.to_dict() for hit in lib.recommend(limit=limit, tag=tag)])
