"""GET /api/papers/{paper_id} (one paper, its card and marks) and GET /api/stats (library counts)."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from fastapi import APIRouter, Depends, Request

from .. import present
from ..schemas import ERROR_RESPONSES, Envelope, PaperWithMarks, StatsModel
from .deps import PaperId, library_of, ok, reject_unknown_query

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
