"""GET /api/search: ranked hits for a query."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from .deps import library_of, ok

router = APIRouter()


@router.get("/search")
def search(request: Request, q: str = "", limit: int = 10) -> dict[str, Any]:
    """Return ``{"ok": true, "data": [hit, ...]}``; an empty ``q`` or a bad ``limit`` is a 400."""
    with library_of(request) as lib:
        return ok([hit.to_dict() for hit in lib.search(q, limit=limit)])
