"""The review page ``/enrich``: program titles ``enrich`` suggested but could not attach on its own.

Each suggestion shows the paper (its label and the start of its abstract) beside the program
entry (title, authors, session, decision, score); ``static/enrich.js`` accepts or rejects it
through ``PUT /api/enrich/suggestions/{id}`` and takes it off the page.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ..api.deps import library_of
from ..api.enrich import suggestion_views
from .common import html_errors, render

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


@router.get("/enrich", response_class=HTMLResponse)
@html_errors
def enrich_page(request: Request) -> HTMLResponse:
    """Render the open suggestions, surest first, and how many titles were attached."""
    with library_of(request) as lib:
        items = suggestion_views(lib)
        attached = len(lib.enrichments())
    return render(request, "enrich.html", nav="", items=items, attached=attached)
