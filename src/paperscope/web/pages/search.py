"""The search page ``/``: a query with filters and facets, or the library browsed in a chosen order.

``/?like=PAPER_ID`` searches by example: the papers most like that paper (its title and
abstract are the query, the paper itself left out), with the same facets, filters and paging.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ...errors import ModelUnavailable, NotFound
from ...library import cut_query
from ...store import facets as store_facets
from ..api.deps import library_of, search_slot
from .common import BadParam, html_errors, param_bool, param_choice, param_int, param_str, render, topics_of

__all__ = ["router", "FACET_POOL", "PAGE_SIZE", "SORTS", "read_filters"]

router = APIRouter(include_in_schema=False)

#: Hits counted for the facets of a query (the facets describe the best FACET_POOL hits).
FACET_POOL = 200
#: Values a facet lists at most (8 shown, the rest behind "show more"): the whole library names
#: 2,610 datasets, and every value is a link to render.
FACET_VALUES = 30
#: Results per page.
PAGE_SIZE = 20
#: Most results per page a ``limit`` may ask for.
MAX_PAGE_SIZE = 100
#: The browse orders: value of ``sort`` -> (Library.browse sort, descending).
SORTS = {
    "added": ("added", True),
    "title": ("title", False),
    "year": ("year", True),
    "venue": ("venue", False),
}
MODES = ("hybrid", "bm25", "dense")
#: Facet sections in page order; "marks" joins the starred and tag counts.
FACETS = (*(f for f in store_facets.FACETS if f not in ("starred", "tag")), "marks")
_TEXT_FILTERS = (
    "venue",
    "decision",
    "source_area",
    "dataset",
    "contribution",
    "area",
    "tag",
    "session",
    "day",
)
#: Query-string keys the page keeps in its links (filters, the query or example, mode and sort).
KEPT = ("q", "like", "mode", "sort", "limit", "year", "topic", "has_code", "starred", *_TEXT_FILTERS)


def read_filters(request: Request) -> dict[str, Any]:
    """Return the search filters of the query string (absent ones left out).

    Raises:
        BadParam: a value of the wrong type or out of range (``year=abc``).
    """
    filters: dict[str, Any] = {name: param_str(request, name) for name in _TEXT_FILTERS}
    filters["year"] = param_int(request, "year", 1, 9999)
    filters["topic"] = param_int(request, "topic", -1, 10**6)
    filters["has_code"] = param_bool(request, "has_code")
    filters["starred"] = param_bool(request, "starred")
    return {k: v for k, v in filters.items() if v is not None}


def _hit_view(hit: Any, marks: dict[str, Any], topic: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "paper_id": hit.paper_id,
        "label": hit.label,
        "title_source": hit.title_source,
        "venue": getattr(hit, "venue", None),
        "year": getattr(hit, "year", None),
        "authors": list(getattr(hit, "authors", None) or []),
        "decision": getattr(hit, "decision", None),
        "area": getattr(hit, "area", None),
        "links": getattr(hit, "links", None) or {},
        "snippet": hit.snippet,
        "terms": list(hit.terms),
        "topic": topic,
        "starred": bool(marks.get("starred")),
        "tags": list(marks.get("tags") or []),
    }


def _facet_sections(counts: dict[str, list[dict[str, Any]]], filters: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the facet sections: each value with the filter it sets, active filters first."""
    sections = []
    for name in FACETS:
        if name == "marks":
            values = [{**v, "key": "starred", "value": "1"} for v in counts.get("starred", []) if _truthy(v)]
            values += [{**v, "key": "tag"} for v in counts.get("tag", [])]
            active = [("starred", "1", "starred")] if filters.get("starred") else []
            if filters.get("tag"):
                active.append(("tag", str(filters["tag"]), str(filters["tag"])))
        else:
            values = [{**v, "key": name} for v in counts.get(name, [])]
            active = []
            if name in filters:
                shown = str(filters[name]).lower() if name == "has_code" else str(filters[name])
                label = next((v["label"] for v in values if str(v["value"]) == shown), shown)
                active.append((name, shown, label))
        active_keys = {(k, v.lower()) for k, v, _ in active}
        values = [v for v in values if (v["key"], str(v["value"]).lower()) not in active_keys][:FACET_VALUES]
        if values or active:
            sections.append({"name": name, "values": values, "active": active})
    return sections


def _truthy(value: dict[str, Any]) -> bool:
    return str(value.get("value")).lower() in ("1", "true", "yes")


@router.get("/", response_class=HTMLResponse)
@html_errors
def search_page(request: Request) -> HTMLResponse:
    """Render the results of ``q`` (or the browsed library) with facets, paging and marks."""
    q = (request.query_params.get("q") or "").strip()
    if any(0xD800 <= ord(c) <= 0xDFFF for c in q):
        raise BadParam("q holds an invalid character")
    mode = param_choice(request, "mode", MODES, "hybrid")
    sort = param_choice(request, "sort", tuple(SORTS), "added")
    offset = param_int(request, "offset", 0, 100_000, 0) or 0
    page_size = param_int(request, "limit", 1, MAX_PAGE_SIZE, PAGE_SIZE) or PAGE_SIZE
    filters = read_filters(request)
    like = param_str(request, "like")
    if like and q:
        raise BadParam("give a query or like, not both: like ranks by a paper's text")
    notices: list[str] = []
    q, cut = cut_query(q)  # before anything, so the links of the page carry the query as searched
    if cut:
        notices.append(cut)
    params = [
        (k, q if k == "q" else v) for k, v in request.query_params.multi_items() if k in KEPT and v.strip()
    ]
    with library_of(request) as lib:
        example = lib.example(like) if like else None  # a paper_id only: never a file; unknown: 404
        like_paper = lib.get(example.paper_id) if example and example.paper_id else None
        try:
            if q or example:
                pool = max(FACET_POOL, offset + page_size)
                shown = offset + page_size  # only the hits up to this page are shown in full

                def ranked(mode: str) -> list[Any]:
                    options = {"limit": min(pool, 1000), "mode": mode, "detail": shown, **filters}
                    with search_slot(request):
                        return lib.search_like(example, **options) if example else lib.search(q, **options)

                try:
                    hits = ranked(mode)
                except ModelUnavailable as exc:
                    notices.append(str(exc))
                    hits = ranked("bm25")
                if getattr(lib, "search_notice", None):
                    # The page heads a search by example with its paper: no notice repeats it.
                    lines = str(lib.search_notice).splitlines()
                    notices.extend(n for n in lines if not (example and n == example.notice))
                total = len(hits)
                page = hits[offset : offset + page_size]
                counted = [h.paper_id for h in hits]
            else:
                by, descending = SORTS[sort]
                total, page = lib.browse(
                    sort=by, descending=descending, offset=offset, limit=page_size, **filters
                )
                counted = None
        except NotFound as exc:  # an unknown topic id is a bad filter, not a missing page
            raise BadParam(str(exc)) from None
        counts = lib.facet_counts(counted if counted is not None else _browse_ids(lib, filters))
        assigned = topics_of(lib, [h.paper_id for h in page])
        results = [_hit_view(h, lib.marks(h.paper_id), assigned.get(h.paper_id)) for h in page]
        library_size = len(lib)
    more = offset + page_size < total
    # A page past the end (an old link, a hand-made offset) says so and links back: "no papers
    # match" would be wrong there. Its "previous" link is the last page that has results; a
    # search nothing matches has no "previous" page.
    past_end = not results and 0 < total <= offset
    last_page = (total - 1) // page_size * page_size if past_end else 0
    return render(
        request,
        "search.html",
        nav="search",
        q=q,
        like=like_paper,
        searching=bool(q or example),
        mode=mode,
        sort=sort,
        sorts=list(SORTS),
        offset=offset,
        total=total,
        capped=bool(q or example) and total >= FACET_POOL,
        library_size=library_size,
        results=results,
        facets=_facet_sections(counts, filters),
        params=params,
        filters=filters,
        notices=notices,
        next_offset=offset + page_size if more else None,
        prev_offset=last_page if past_end else max(0, offset - page_size) if offset and total else None,
        past_end=past_end,
    )


def _browse_ids(lib: Any, filters: dict[str, Any]) -> list[str] | None:
    """Return the paper_ids of the browsed library for its facet counts (None: every paper)."""
    allowed = lib.filtered_ids(**filters)
    return None if allowed is None else sorted(allowed)
