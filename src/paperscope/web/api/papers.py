"""GET /api/papers/{paper_id} and GET /api/stats."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from .deps import library_of, ok

router = APIRouter()


@router.get("/papers/{paper_id}")
def get_paper(request: Request, paper_id: str) -> dict[str, Any]:
    """Return one paper with its card, provenance and the user's marks."""
    with library_of(request) as lib:
        paper = lib.get(paper_id)
        return ok({**paper.to_dict(), "marks": lib.marks(paper.paper_id)})


@router.get("/stats")
def stats(request: Request) -> dict[str, Any]:
    """Return the library counts (papers, sources, cards, stars, tags, notes, venues)."""
    with library_of(request) as lib:
        return ok(lib.stats())
