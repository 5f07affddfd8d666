"""Stars, tags and notes: PUT/DELETE /api/papers/{paper_id}/star, /tags/{tag}, PUT /note."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from .deps import library_of, ok

router = APIRouter()


class NoteBody(BaseModel):
    """Request body of PUT /note."""

    body: str


@router.put("/papers/{paper_id}/star")
def star(request: Request, paper_id: str) -> dict[str, Any]:
    """Star a paper; returns its marks."""
    with library_of(request) as lib:
        lib.star(paper_id, True)
        return ok(lib.marks(paper_id))


@router.delete("/papers/{paper_id}/star")
def unstar(request: Request, paper_id: str) -> dict[str, Any]:
    """Unstar a paper; returns its marks."""
    with library_of(request) as lib:
        lib.star(paper_id, False)
        return ok(lib.marks(paper_id))


@router.put("/papers/{paper_id}/tags/{tag}")
def add_tag(request: Request, paper_id: str, tag: str) -> dict[str, Any]:
    """Add a tag; returns the paper's marks."""
    with library_of(request) as lib:
        lib.tag(paper_id, tag)
        return ok(lib.marks(paper_id))


@router.delete("/papers/{paper_id}/tags/{tag}")
def remove_tag(request: Request, paper_id: str, tag: str) -> dict[str, Any]:
    """Remove a tag; returns the paper's marks."""
    with library_of(request) as lib:
        lib.untag(paper_id, tag)
        return ok(lib.marks(paper_id))


@router.put("/papers/{paper_id}/note")
def set_note(request: Request, paper_id: str, note: NoteBody) -> dict[str, Any]:
    """Set the note (an empty body deletes it); returns the paper's marks."""
    with library_of(request) as lib:
        lib.set_note(paper_id, note.body)
        return ok(lib.marks(paper_id))
