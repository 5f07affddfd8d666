"""The reading list ``/library``: starred, tagged, noted and triaged papers, grouped, with exports."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ...triage.export import EXPORT_FORMATS
from ..api.deps import library_of
from .common import html_errors, param_choice, param_str, render

__all__ = ["router", "KINDS", "GROUPINGS"]

router = APIRouter(include_in_schema=False)

#: The lists a reader can pick (``kind`` of :meth:`Library.reading_list`).
KINDS = ("all", "starred", "tagged", "noted", "triaged")
GROUPINGS = ("tag", "topic")


def _export_links(starred: bool, tag: str | None) -> list[tuple[str, str]]:
    params: dict[str, str] = {}
    if tag:
        params["tag"] = tag
    elif starred:
        params["starred"] = "1"
    return [(fmt, "/api/export?" + urlencode({"format": fmt, **params})) for fmt in EXPORT_FORMATS]


def _groups(items: list[dict[str, Any]], by: str, untagged: str, no_topic: str) -> list[dict[str, Any]]:
    groups: dict[str, dict[str, Any]] = {}
    for item in items:
        if by == "tag":
            keys = [(t.lower(), t) for t in item["marks"]["tags"]] or [("", untagged)]
        else:
            topic = item["topic"]
            keys = [(str(topic["topic_id"]), topic["topic"] or no_topic)] if topic else [("", no_topic)]
        for key, name in keys:
            groups.setdefault(key, {"key": key, "name": name, "items": []})["items"].append(item)
    # Named groups by size then name; the catch-all group ("untagged", "no topic") last.
    return sorted(groups.values(), key=lambda g: (g["key"] == "", -len(g["items"]), g["name"].lower()))


@router.get("/library", response_class=HTMLResponse)
@html_errors
def reading_page(request: Request) -> HTMLResponse:
    """Render the reading list of ``kind`` (default: every marked paper), grouped by tag or topic."""
    from .. import i18n

    kind = param_choice(request, "kind", KINDS, "all")
    by = param_choice(request, "group", GROUPINGS, "tag")
    tag = param_str(request, "tag")
    t = i18n.translator(i18n.lang_of(request))
    with library_of(request) as lib:
        items = lib.reading_list(kind=kind, tag=tag)
        tags = lib.tags()
        views = [
            {
                "paper_id": it["paper"].paper_id,
                "label": it["paper"].label,
                "venue": it["paper"].venue,
                "year": it["paper"].year,
                "marks": it["marks"],
                "topic": it["topic"],
            }
            for it in items
        ]
    return render(
        request,
        "library.html",
        nav="library",
        kind=kind,
        kinds=KINDS,
        group_by=by,
        tag=tag,
        tags=tags,
        total=len(views),
        groups=_groups(views, by, t("untagged"), t("no_topic")),
        exports=_export_links(kind == "starred" or not tag, tag),
        library_exports=_export_links(False, None),
        export_scope="tag" if tag else "starred",
    )
