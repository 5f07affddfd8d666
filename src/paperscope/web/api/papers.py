"""GET /api/papers/{paper_id} (one paper, its card and marks), GET /api/stats (library counts), GET /api/ready."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from fastapi import APIRouter, Depends, Request

from .. import present
from ..schemas import ERROR_RESPONSES, Envelope, PaperWithMarks, ReadyModel, StatsModel
from .deps import PaperId, ServerBusy, library_of, ok, reject_unknown_query

router = APIRouter(dependencies=[Depends(reject_unknown_query)], responses=ERROR_RESPONSES, tags=["papers"])


@router.get("/papers/{paper_id}", response_model=Envelope[PaperWithMarks])
def get_paper(request: Request, paper_id: PaperId) -> dict[str, Any]:
    """Return one paper with its card, provenance (file names) and the user's marks.

    ``paper_id`` may be a unique prefix (4+ hex digits). Errors: 404 no such paper, 400 a
    malformed or ambiguous id.
    """
    with library_of(request) as lib:
        paper = lib.get(paper_id)
        attached = [present.attached_view(row) for row in lib.enrichments(paper_id=paper.paper_id)]
        return ok({**paper.to_dict(), "marks": lib.marks(paper.paper_id), "attached": attached})


@router.get("/stats", response_model=Envelope[StatsModel])
def stats(request: Request) -> dict[str, Any]:
    """Return the library counts (papers, sources, cards, marks, vectors, topics, per venue and year).

    ``db`` is the database file's name only: no local folder leaves the server.
    """
    with library_of(request) as lib:
        data = lib.stats()
        return ok({**data, "db": PurePath(str(data["db"])).name})


@router.get("/ready", response_model=Envelope[ReadyModel])
def ready(request: Request) -> dict[str, Any]:
    """Return 200 once this worker process has warmed up, else 503 (a readiness probe).

    ``serve`` warms each worker on a thread as it starts: it loads the search indexes, builds
    and gzips the map payload and compiles the page templates (seconds at 20k papers). The
    worker answers every route meanwhile, only more slowly. A load balancer, a script or a
    benchmark asks here (a new connection reaches any worker; ``X-Paperscope-Worker`` names
    the one that answered) before it sends traffic. ``warm_s`` is how long the warm-up took.
    """
    if not request.app.state.ready.is_set():
        raise ServerBusy(
            "this worker is still warming up (search indexes, map, pages); try again in a moment"
        )
    warm_s = request.app.state.warm_s
    return ok({"ready": True, "warm_s": None if warm_s is None else round(warm_s, 3)})
