"""GET /api/export: the library, or its starred / tagged papers, as a file download."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from ...errors import InputError
from ...store.marks import TRIAGE_STATES
from ...triage import EXPORT_FORMATS
from ..schemas import ERROR_RESPONSES
from .deps import library_of, one_of, optional, reject_unknown_query

router = APIRouter(dependencies=[Depends(reject_unknown_query)], responses=ERROR_RESPONSES, tags=["export"])

#: format → (media type, file extension). A format missing here downloads as text/plain ``.txt``.
MEDIA_TYPES = {
    "jsonl": ("application/x-ndjson", "jsonl"),
    "csv": ("text/csv", "csv"),
    "bibtex": ("application/x-bibtex", "bib"),
    "markdown": ("text/markdown", "md"),
    "ris": ("application/x-research-info-systems", "ris"),
    "csl-json": ("application/vnd.citationstyles.csl+json", "json"),
    "html": ("text/html", "html"),  # an attachment: opened from disk, not under this site's CSP
    "ics": ("text/calendar", "ics"),  # RFC 5545 §8.1
}


def media_type_of(fmt: str) -> tuple[str, str]:
    """Return ``(media type, file extension)`` of an export format."""
    return MEDIA_TYPES.get(fmt, ("text/plain", "txt"))


@router.get(
    "/export",
    response_class=Response,
    responses={200: {"description": "The export file", "content": {m: {} for m, _ in MEDIA_TYPES.values()}}},
)
def export(
    request: Request,
    format: Annotated[  # noqa: A002
        str,
        Query(description=f"one of: {', '.join(EXPORT_FORMATS)}", json_schema_extra=one_of(EXPORT_FORMATS)),
    ] = "jsonl",
    starred: Annotated[bool, Query(description="only the starred papers")] = False,
    tag: Annotated[str | None, Query(max_length=200, description="only papers with this tag")] = None,
    state: Annotated[
        str | None,
        Query(
            max_length=20,
            description="only papers with this triage state",
            json_schema_extra=optional(one_of(TRIAGE_STATES, empty=True)),
        ),
    ] = None,
) -> Response:
    """Download the library (or its starred / ``tag``-ged / ``state`` papers) as ``format``.

    The answer is an attachment (``Content-Disposition``) named
    ``paperscope-YYYY-MM-DD[-starred][-TAG][-STATE].EXT`` with the format's media type, UTF-8; sources
    are file names only. Errors: 400 an unknown format or state (the message lists them).
    """
    if format not in EXPORT_FORMATS:
        raise InputError(f"unknown export format {format!r}; choose one of: {', '.join(EXPORT_FORMATS)}")
    with library_of(request) as lib:
        # Joined inside the checkout: the chunks are read from this Library's connection.
        body = "".join(lib.export(format, starred=starred, tag=tag or None, state=state or None))
    media, ext = media_type_of(format)
    parts = ["paperscope", date.today().isoformat()]
    parts += ["starred"] if starred else []
    parts += [_slug(tag)] if tag and _slug(tag) else []
    parts += [_slug(state)] if state and _slug(state) else []
    headers: dict[str, Any] = {"Content-Disposition": f'attachment; filename="{"-".join(parts)}.{ext}"'}
    return Response(body.encode("utf-8"), media_type=f"{media}; charset=utf-8", headers=headers)


def _slug(text: str) -> str:
    return "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "_" for c in text.strip())[:40].strip(
        "_"
    )
