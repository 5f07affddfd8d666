"""The user's marks: stars, tags, notes and triage, and the reading list they make.

Writes (each returns the paper's marks ``{"starred", "tags", "note", "triage"}``):
PUT/DELETE ``/api/papers/{paper_id}/star``, PUT/DELETE ``/api/papers/{paper_id}/tags/{tag}``,
PUT ``/api/papers/{paper_id}/note`` ``{"body": str}`` (empty deletes it), PUT
``/api/papers/{paper_id}/triage`` ``{"state": "skimmed" | "maybe" | "keep" | "reject" | "unseen" | null}``
(unseen and null clear it).
Reads: GET ``/api/marks?kind=…&tag=…&starred=…&state=…&noted=…`` (the reading list, filters
combined), GET ``/api/tags`` and GET ``/api/queue?order=…&topic=…&tag=…&limit=…&skip=…&paper=…``
(the triage queue: progress and the next unseen papers; mark them with PUT …/triage).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import BaseModel, Field, field_validator

from ..schemas import ERROR_RESPONSES, Envelope, MarksModel, QueueModel, ReadingListItem, TagCount
from .deps import PAPER_ID_PATTERN, PaperId, library_of, ok, optional, reject_unknown_query

router = APIRouter(dependencies=[Depends(reject_unknown_query)], responses=ERROR_RESPONSES, tags=["marks"])

#: Characters a note may have (a note is a paragraph or a page, not a file).
MAX_NOTE_CHARS = 100_000
#: Comma-separated paper ids (empty items are ignored), as ``skip`` of /api/queue takes them.
_ID_LIST_PATTERN = r"^\s*([0-9a-fA-F]{4,}\s*)?(,\s*([0-9a-fA-F]{4,}\s*)?)*$"
#: A tag: anything with a character that is not a space (spaces around it are dropped).
NewTag = Annotated[
    str, Path(description="the tag; spaces around it are dropped", json_schema_extra={"pattern": r"\S"})
]


def _encodable(value: str) -> str:
    """Refuse text that cannot be stored as UTF-8 (a lone surrogate, sent as a JSON escape)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(
            "holds a lone surrogate (an invalid \\ud800-\\udfff escape), which is not text"
        ) from None
    return value


class NoteBody(BaseModel):
    """Request body of PUT /note: the whole note (an empty body deletes it)."""

    body: str = Field(max_length=MAX_NOTE_CHARS)

    _check = field_validator("body")(_encodable)


class TriageBody(BaseModel):
    """Request body of PUT /triage: a state; ``"unseen"`` or null clears it."""

    state: Literal["unseen", "skimmed", "maybe", "keep", "reject"] | None


@router.put("/papers/{paper_id}/star", response_model=Envelope[MarksModel])
def star(request: Request, paper_id: PaperId) -> dict[str, Any]:
    """Star a paper; returns its marks. Errors: 404 no such paper."""
    with library_of(request) as lib:
        lib.star(paper_id, True)
        return ok(lib.marks(paper_id))


@router.delete("/papers/{paper_id}/star", response_model=Envelope[MarksModel])
def unstar(request: Request, paper_id: PaperId) -> dict[str, Any]:
    """Unstar a paper; returns its marks. Errors: 404 no such paper."""
    with library_of(request) as lib:
        lib.star(paper_id, False)
        return ok(lib.marks(paper_id))


@router.put("/papers/{paper_id}/tags/{tag}", response_model=Envelope[MarksModel])
def add_tag(request: Request, paper_id: PaperId, tag: NewTag) -> dict[str, Any]:
    """Add a tag (spaces around it are dropped); returns the paper's marks. Errors: 400 empty tag."""
    with library_of(request) as lib:
        lib.tag(paper_id, tag)
        return ok(lib.marks(paper_id))


@router.delete("/papers/{paper_id}/tags/{tag}", response_model=Envelope[MarksModel])
def remove_tag(request: Request, paper_id: PaperId, tag: str) -> dict[str, Any]:
    """Remove a tag (no error when it is not there); returns the paper's marks."""
    with library_of(request) as lib:
        lib.untag(paper_id, tag)
        return ok(lib.marks(paper_id))


@router.put("/papers/{paper_id}/note", response_model=Envelope[MarksModel])
def set_note(request: Request, paper_id: PaperId, note: NoteBody) -> dict[str, Any]:
    """Set the note (an empty body deletes it); returns the paper's marks.

    Errors: 400 a body that is not ``{"body": str}``, over MAX_NOTE_CHARS, or not text (a lone
    surrogate); 413 a request body over 1 MiB.
    """
    with library_of(request) as lib:
        lib.set_note(paper_id, note.body)
        return ok(lib.marks(paper_id))


@router.put("/papers/{paper_id}/triage", response_model=Envelope[MarksModel])
def set_triage(request: Request, paper_id: PaperId, triage: TriageBody) -> dict[str, Any]:
    """Set the triage state (skimmed, maybe, keep, reject; unseen or null clears it); returns the marks."""
    with library_of(request) as lib:
        lib.set_triage(paper_id, triage.state)
        return ok(lib.marks(paper_id))


@router.get("/marks", response_model=Envelope[list[ReadingListItem]])
def reading_list(
    request: Request,
    kind: Annotated[
        Literal["all", "starred", "tagged", "noted", "triaged"], Query(description="which marks count")
    ] = "all",
    tag: Annotated[str | None, Query(max_length=200, description="only papers with this tag")] = None,
    starred: Annotated[bool, Query(description="only starred papers")] = False,
    state: Annotated[
        Literal["unseen", "skimmed", "maybe", "keep", "reject"] | None,
        Query(description="only papers in this triage state (unseen: marked papers without one)"),
    ] = None,
    noted: Annotated[bool, Query(description="only papers with a note")] = False,
) -> dict[str, Any]:
    """Return the marked papers, most recently marked first: ``[{"paper", "marks", "topic"}]``.

    ``kind=all`` lists papers with any mark; ``tag`` keeps papers with that tag (ignoring case);
    ``starred``, ``state`` and ``noted`` narrow further, all combined (the JSON side of
    ``paperscope list``: this endpoint was already the reading list, so it grew the filters
    rather than a second ``/api/list`` beside it).
    """
    with library_of(request) as lib:
        items = lib.reading_list(kind=kind, tag=tag or None, starred=starred, state=state, noted=noted)
        return ok([{**item, "paper": item["paper"].to_dict()} for item in items])


@router.get("/tags", response_model=Envelope[list[TagCount]])
def tags(request: Request) -> dict[str, Any]:
    """Return every tag with the number of papers carrying it, most used first."""
    with library_of(request) as lib:
        return ok([{"tag": tag, "count": count} for tag, count in lib.tags()])


@router.get("/queue", response_model=Envelope[QueueModel])
def queue(
    request: Request,
    order: Annotated[
        Literal["recommended", "topic"], Query(description="by recommendation, or topic by topic")
    ] = "recommended",
    topic: Annotated[
        int | None, Query(ge=-1, le=1_000_000, description="only this topic or subtopic")
    ] = None,
    tag: Annotated[str | None, Query(max_length=200, description="recommend from this tag's papers")] = None,
    limit: Annotated[int, Query(ge=1, le=100, description="papers to return")] = 1,
    skip: Annotated[
        str | None,
        Query(
            max_length=20_000,
            description="comma-separated ids to leave out this time (at most 500)",
            json_schema_extra=optional({"type": "string", "maxLength": 20_000, "pattern": _ID_LIST_PATTERN}),
        ),
    ] = None,
    paper: Annotated[
        str | None,
        Query(
            max_length=64,
            description="an id to put first (undo)",
            json_schema_extra=optional(
                {"type": "string", "maxLength": 64, "pattern": f"^\\s*$|{PAPER_ID_PATTERN}"}
            ),
        ),
    ] = None,
) -> dict[str, Any]:
    """Return the triage queue: ``"412 of 3,300 seen"`` and the next unseen papers.

    Nothing is stored: the queue follows the marks, so it resumes where the reader stopped. A GET
    never embeds: while papers lack a vector, the recommended order falls back to topic order and
    ``ordered_by`` and ``notice`` say so. Errors: 400 bad parameters or more than 500 skips; 404
    unknown topic or paper.
    """
    skipped = [s for s in (skip or "").split(",") if s.strip()]
    with library_of(request) as lib:
        first = (paper or "").strip() or None
        found = lib.queue(order=order, limit=limit, topic_id=topic, tag=tag, skip=skipped, first=first)
        return ok(found.to_dict(), found.notice)
