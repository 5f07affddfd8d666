"""GET /api/topics (the stored topics), POST /api/topics/fit (fit them) and GET /map (the map page).

A GET never changes the library: a cross-site ``GET /api/topics`` once refitted the topics of a
library for 83 s. Fitting is the POST, or ``paperscope topics`` on the command line.
"""

from __future__ import annotations

import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ...errors import NotFound
from .deps import library_of, ok

router = APIRouter()
page_router = APIRouter()

_HOW_TO_FIT = "run `paperscope topics` (or POST /api/topics/fit) to fit them"


@router.get("/topics")
def topics(request: Request) -> dict[str, Any]:
    """Return the stored topics (broad, subtopics, Unassigned); ``[]`` before the first fit.

    ``stale`` says whether papers were added since the last fit.
    """
    with library_of(request) as lib:
        return {**ok([asdict(t) for t in lib.topics()]), "stale": lib.topics_are_stale()}


@router.post("/topics/fit")
def fit_topics(request: Request) -> dict[str, Any]:
    """Fit topics again (seconds to a minute: UMAP, clustering, labels) and return them."""
    with library_of(request) as lib:
        if not len(lib):
            raise NotFound("the library has no papers to fit topics on")
        lib.fit_topics()
        return {**ok([asdict(t) for t in lib.topics()]), "stale": False}


@page_router.get("/map", include_in_schema=False)
def map_page(request: Request) -> HTMLResponse:
    """Return the self-contained topic map of the stored topics (a 404 before the first fit)."""
    with library_of(request) as lib, tempfile.TemporaryDirectory() as folder:
        if not lib.topics():
            raise NotFound(f"no topics yet: {_HOW_TO_FIT}")
        path = lib.write_map(Path(folder) / "map.html")
        return HTMLResponse(path.read_text(encoding="utf-8"))
