"""Titles from the program, confirmed by hand: the suggestions ``enrich`` could not settle.

- ``GET /api/enrich/suggestions`` the open suggestions, surest first, each with its paper;
- ``PUT /api/enrich/suggestions/{suggestion_id}`` ``{"accept": true|false}`` attaches the entry
  (method ``review``) or rejects it (never suggested again); 404 when it is no longer open.

``paperscope enrich --program FILE`` makes them; ``enrich --review`` is the same in a terminal.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel

from ...errors import NotFound
from ..schemas import ERROR_RESPONSES, Envelope, SuggestionModel
from .deps import library_of, ok, reject_unknown_query

router = APIRouter(dependencies=[Depends(reject_unknown_query)], responses=ERROR_RESPONSES, tags=["enrich"])

#: Characters of the paper's abstract a suggestion shows.
ABSTRACT_CHARS = 400


class ReviewBody(BaseModel):
    """Request body of PUT /enrich/suggestions/{id}: accept (attach) or reject."""

    accept: bool


def suggestion_views(lib: Any) -> list[dict[str, Any]]:
    """Return the open suggestions with what a reviewer needs to decide (the paper's label and text)."""
    out = []
    for s in lib.enrich_suggestions():
        paper = lib.get(s["paper_id"])
        entry = s["entry"].to_dict()
        text = paper.clean_text
        out.append(
            {
                "suggestion_id": s["suggestion_id"],
                "paper_id": paper.paper_id,
                "label": paper.label,
                "title_source": paper.title_source,
                "abstract": text
                if len(text) <= ABSTRACT_CHARS
                else text[:ABSTRACT_CHARS].rsplit(" ", 1)[0] + " …",
                "program": PurePath(s["program"]).name,  # the file name, never a local folder
                "rank": s["rank"],
                "score": s["score"],
                "title": entry["title"],
                "authors": entry["authors"],
                "session": entry.get("session"),
                "decision": entry.get("decision"),
                "line": entry["line"],
            }
        )
    return out


@router.get("/enrich/suggestions", response_model=Envelope[list[SuggestionModel]])
def suggestions(request: Request) -> dict[str, Any]:
    """Return the open suggestions of ``enrich``, surest first."""
    with library_of(request) as lib:
        return ok(suggestion_views(lib))


@router.put("/enrich/suggestions/{suggestion_id}", response_model=Envelope[dict[str, bool]])
def review(request: Request, suggestion_id: int, body: ReviewBody) -> dict[str, Any]:
    """Accept or reject one suggestion. Errors: 404 when it is no longer open; 403 read-only library."""
    with library_of(request) as lib:
        if not lib.review_enrich(suggestion_id, body.accept):
            raise NotFound(f"suggestion {suggestion_id} is not open (settled already, or no such suggestion)")
        return ok({"accepted": body.accept})
