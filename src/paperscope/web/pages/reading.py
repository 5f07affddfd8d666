"""The reading list ``/library``: starred, tagged, noted and triaged papers, grouped, with exports."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ...triage.export import EXPORT_FORMATS
from ..api.deps import library_of
from .common import BadParam, html_errors, param_choice, param_str, render

__all__ = ["router", "KINDS", "GROUPINGS", "STATES"]

router = APIRouter(include_in_schema=False)

#: The lists a reader can pick (``kind`` of :meth:`Library.reading_list`).
KINDS = ("all", "starred", "tagged", "noted", "triaged")
GROUPINGS = ("tag", "topic")


#: The triage states a reading list can be narrowed to (and exported by).
STATES = ("keep", "maybe", "skimmed", "reject")


def _export_links(starred: bool, tag: str | None, state: str | None = None) -> list[tuple[str, str]]:
    params: dict[str, str] = {}
    if tag:
        params["tag"] = tag
    elif starred:
        params["starred"] = "1"
    if state:
        params["state"] = state
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
    state = param_str(request, "state")
    if state is not None and state not in STATES:
        raise BadParam(f"state must be one of {', '.join(STATES)}, got {state[:40]!r}")
    t = i18n.translator(i18n.lang_of(request))
    with library_of(request) as lib:
        items = lib.reading_list(kind=kind, tag=tag, state=state)
        tags = lib.tags()
        counts = lib.mark_counts()  # counted in SQL: no paper is loaded for a count
        starred = counts["starred"]
        by_state = {s: counts[s] for s in STATES}
        views = [
            {
                "paper_id": it["paper"].paper_id,
                "label": it["paper"].label,
                "title_source": it["paper"].title_source,
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
        state=state,
        states=STATES,
        state_counts=by_state,
        exports=_export_links(not tag and not state, tag, state),
        library_exports=_export_links(False, None),
        kept_exports=_export_links(False, None, "keep"),
        export_scope="tag" if tag else "state" if state else "starred",
        # What the scoped buttons would export: none means a note instead of empty files.
        export_count=len(items) if (tag or state) else starred,
    )
