"""GET /api/topics (the topic list) and GET /map (the interactive map page)."""

from __future__ import annotations

import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from .deps import library_of, ok

router = APIRouter()
page_router = APIRouter()


def _ensure_topics(request: Request) -> None:
    with library_of(request) as lib:
        if lib.topics_are_stale() and len(lib):
            lib.fit_topics()


@router.get("/topics")
def topics(request: Request) -> dict[str, Any]:
    """Return every topic (broad, subtopics, Unassigned), fitting them first if stale."""
    _ensure_topics(request)
    with library_of(request) as lib:
        return ok([asdict(t) for t in lib.topics()])


@page_router.get("/map", include_in_schema=False)
def map_page(request: Request) -> HTMLResponse:
    """Return the self-contained topic map of the library (fitted on first use)."""
    _ensure_topics(request)
    with library_of(request) as lib, tempfile.TemporaryDirectory() as folder:
        path = lib.write_map(Path(folder) / "map.html")
        return HTMLResponse(path.read_text(encoding="utf-8"))
