"""The ingest page ``/ingest``: upload list files, watch the job's progress, read its report."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from .common import render

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


@router.get("/ingest", response_class=HTMLResponse)
def ingest_page(request: Request) -> HTMLResponse:
    """Render the upload form; ``static/ingest.js`` posts each file and polls its job."""
    return render(request, "ingest.html", nav="ingest")
