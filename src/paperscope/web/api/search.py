"""Search, browse, facets, related and recommended papers: the read routes that rank papers.

- ``GET /api/search?q=…`` ranked hits (``data`` is the list of hits, ``offset`` pages it);
  ``?like=PAPER_ID`` ranks by that paper's text instead (search by example, the paper left out);
- ``GET /api/browse`` the library (or the filtered part of it) in a chosen order;
- ``GET /api/facets?q=…`` facet counts of a result set (the best ``FACET_POOL`` hits of ``q``,
  or every paper that passes the filters when ``q`` is empty), kept apart from the search so
  the hits stay a plain list and a client that shows no facets pays nothing for them;
- ``GET /api/related/{paper_id}`` and ``GET /api/recommend``.

Every filter is the same query parameter on search, browse and facets (see :class:`Filters`);
an unknown parameter is a 400 that names it. A search never embeds papers: while some lack a
vector (an ingest job is embedding them), it answers from BM25 and ``notice`` says so. A long
query (a pasted abstract) is bounded by its cost (:mod:`paperscope.index.bounds`): BM25 keeps its
``MAX_QUERY_TERMS`` rarest terms, nothing past ``MAX_QUERY_CHARS`` characters is read, and
``notice`` says how many terms were dropped.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from ...errors import InputError
from ...extract.contributions import CONTRIBUTION_TYPES
from ...index.search import MODES
from ...library import BROWSE_SORTS, MAX_LIMIT, Library
from ..schemas import ERROR_RESPONSES, BrowseModel, Envelope, ErrorResponse, FacetValue, HitModel
from .deps import (
    DATE_OR_EMPTY,
    PAPER_ID_PATTERN,
    PaperId,
    ServerBusy,
    library_of,
    ok,
    one_of,
    optional,
    reject_unknown_query,
    search_slot,
)

router = APIRouter(dependencies=[Depends(reject_unknown_query)], responses=ERROR_RESPONSES, tags=["search"])

#: Hits a query's facets are counted over (the search page counts the same pool).
FACET_POOL = 200
#: ``offset + limit`` of one search answer at most (the library ranks at most MAX_LIMIT hits).
MAX_OFFSET = 100_000


class Filters:
    """The filters of search, browse and facets, read from the query string.

    Text filters match case-insensitively (venue exactly; decision, source_area and area as
    substrings; dataset as a whole dataset name; tag and session exactly; day is YYYY-MM-DD); ``topic`` is a topic id of
    ``/api/topics``; ``starred`` and ``has_code`` take true/false (or 1/0).
    """

    def __init__(
        self,
        venue: Annotated[str | None, Query(max_length=200)] = None,
        year: Annotated[
            int | None,
            Query(
                description="1..9999",
                json_schema_extra=optional({"type": "integer", "minimum": 1, "maximum": 9999}),
            ),
        ] = None,
        decision: Annotated[str | None, Query(max_length=200)] = None,
        source_area: Annotated[str | None, Query(max_length=200)] = None,
        area: Annotated[str | None, Query(max_length=200)] = None,
        has_code: bool | None = None,
        dataset: Annotated[str | None, Query(max_length=200)] = None,
        contribution: Annotated[
            str | None,
            Query(max_length=100, json_schema_extra=optional(one_of(CONTRIBUTION_TYPES, empty=True))),
        ] = None,
        topic: Annotated[int | None, Query(ge=-1, le=10**6)] = None,
        starred: bool | None = None,
        tag: Annotated[str | None, Query(max_length=200)] = None,
        session: Annotated[
            str | None, Query(max_length=200, description="a program session's name (enrich --program)")
        ] = None,
        day: Annotated[
            str | None,
            Query(
                max_length=10,
                description="a local day of the program, YYYY-MM-DD",
                json_schema_extra=DATE_OR_EMPTY,
            ),
        ] = None,
    ):
        given = {
            "venue": venue,
            "year": year,
            "decision": decision,
            "source_area": source_area,
            "area": area,
            "has_code": has_code,
            "dataset": dataset,
            "contribution": contribution,
            "topic": topic,
            "starred": starred,
            "tag": tag,
            "session": session,
            "day": day,
        }
        if year is not None and not 1 <= year <= 9999:
            raise InputError(f"year must be a whole number from 1 to 9999, got {year}")
        #: The filters given, as keyword arguments of Library.search / browse.
        self.kwargs = {k: v for k, v in given.items() if v is not None and v != ""}


FilterParams = Annotated[Filters, Depends()]
Limit = Annotated[
    int, Query(description=f"1..{MAX_LIMIT} hits", json_schema_extra={"minimum": 1, "maximum": MAX_LIMIT})
]
Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET, description="hits to skip")]


Like = Annotated[
    str,
    Query(
        max_length=64,
        description="a paper_id (or a prefix of 4+ characters): rank by its text, without it;"
        " a pasted paragraph goes in q. Give q or like, not both (a 400: a rule between two"
        " parameters, which OpenAPI cannot state); an id no paper has is a 404.",
        json_schema_extra={"pattern": f"^\\s*$|{PAPER_ID_PATTERN}"},
    ),
]
Mode = Annotated[str, Query(description="hybrid, bm25 or dense", json_schema_extra=one_of(MODES))]
#: The 409 of a recommendation with nothing marked to learn from.
NOTHING_MARKED: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorResponse, "description": "No paper is starred or kept (or tagged)."}
}


def _search(lib: Library, q: str, limit: int, mode: str, filters: Filters, like: str = "") -> list[Any]:
    """Return the hits of ``q``, or of the paper ``like``.

    Raises:
        NotFound: no paper has ``like``'s id, or ``topic`` is not a stored topic (a 404, as in
            /api/queue: the filter names a thing that does not exist).
        InputError: both ``q`` and ``like``, or a bad filter.
    """
    if like.strip():
        example = lib.example(like.strip())  # a paper_id only: the web never reads files
        if q.strip():
            raise InputError("give q or like, not both: like ranks by a paper's text, q by your words")
        return lib.search_like(example, limit=limit, mode=mode, **filters.kwargs)
    return lib.search(q, limit=limit, mode=mode, **filters.kwargs)


@router.get("/search", response_model=Envelope[list[HitModel]])
def search(
    request: Request,
    filters: FilterParams,
    q: Annotated[
        str, Query(description="words, a phrase, or Chinese; cut to the library's MAX_QUERY_*")
    ] = "",
    limit: Limit = 10,
    offset: Offset = 0,
    mode: Mode = "hybrid",
    like: Like = "",
) -> dict[str, Any]:
    """Return the hits of ``q``, best first: ``{"ok": true, "data": [hit, ...], "notice": ...}``.

    ``offset`` skips the best hits; ranks count over the whole ordering, which every limit and
    offset reads alike (pages never skip or repeat a paper). A search ranks its best MAX_LIMIT
    (1,000) hits, so a page past them is cut (or empty) and ``notice`` says so.
    ``notice`` also says when the query was cut or the answer is BM25 only. With
    ``like=PAPER_ID`` instead of ``q``, the hits are the papers most like that paper (ranked by
    its title and abstract, itself left out), with every filter; ``notice`` then starts with
    "papers like <its label>". An empty (or blank) ``q`` without ``like`` finds nothing: ``[]``
    and a notice.

    Errors: 400 for both ``q`` and ``like``, a malformed ``like``, ``limit`` not in
    1..MAX_LIMIT, an unknown ``mode`` or ``contribution``, ``year`` not in 1..9999, an unknown
    query parameter; 404 when no paper has ``like``'s id or no topic has ``topic``'s.
    """
    if not 1 <= limit <= MAX_LIMIT:  # checked here: the page's ranks are capped below
        raise InputError(f"limit must be an integer from 1 to {MAX_LIMIT}, got {limit}")
    with library_of(request) as lib:
        if not q.strip() and not like.strip():
            _check_search_input(lib, mode, filters)
            return ok([], "empty query: type some words to search for (or like=PAPER_ID)")
        ranked = min(offset + limit, MAX_LIMIT)
        with search_slot(request):  # past the last rank too: it checks the input
            hits = _search(lib, q, ranked, mode, filters, like)
        notices = [lib.search_notice] if lib.search_notice else []
        if offset + limit > MAX_LIMIT:
            notices.append(f"a search ranks its best {MAX_LIMIT:,} hits: this page stops there")
        return ok([hit.to_dict() for hit in hits[offset:]], "\n".join(notices) or None)


def _check_search_input(lib: Library, mode: str, filters: Filters) -> None:
    """Raise the error a search with these parameters would raise (an empty query checks them too)."""
    if mode not in MODES:
        raise InputError(f"unknown search mode {mode!r}; choose one of: {', '.join(MODES)}")
    lib.filtered_ids(**filters.kwargs)


@router.get("/browse", response_model=Envelope[BrowseModel])
def browse(
    request: Request,
    filters: FilterParams,
    sort: Annotated[
        str, Query(description="added, title, year or venue", json_schema_extra=one_of(BROWSE_SORTS))
    ] = "added",
    descending: bool = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Return one page of the library in ``sort`` order: ``{"total", "offset", "hits"}``.

    ``total`` counts every paper that passes the filters; hits have ``score`` 0 and ranks
    counted over the whole ordering. Errors: 400 an unknown sort, a bad number or filter; 404
    an unknown topic.
    """
    with library_of(request) as lib:
        total, hits = lib.browse(
            sort=sort, descending=descending, offset=offset, limit=limit, **filters.kwargs
        )
        return ok({"total": total, "offset": offset, "hits": [h.to_dict() for h in hits]})


def _filtered_ids(lib: Library, filters: Filters) -> list[str] | None:
    """Return the paper_ids that pass the filters (None, meaning every paper, when none is given)."""
    allowed = lib.filtered_ids(**filters.kwargs)
    return None if allowed is None else sorted(allowed)


@router.get("/facets", response_model=Envelope[dict[str, list[FacetValue]]])
def facets(
    request: Request,
    filters: FilterParams,
    q: Annotated[str, Query(description="empty: facets of the browsed (filtered) library")] = "",
    mode: Mode = "hybrid",
    like: Like = "",
) -> dict[str, Any]:
    """Return facet counts: ``{facet: [{"value", "label", "count"}, ...]}``, most common first.

    Facets: venue, year, area, topic, contribution, dataset, has_code, decision, session, day,
    starred, tag; each ``value`` is what the filter of the same name takes (session and day:
    the program's sessions, in time order). With ``q`` the counts are over
    its best FACET_POOL (200) hits, as the search page shows them (likewise with ``like``); without,
    over every paper that passes the filters. Errors as for /api/search.
    """
    if mode not in MODES:  # checked when q is empty too: the schema's enum says so
        raise InputError(f"unknown search mode {mode!r}; choose one of: {', '.join(MODES)}")
    with library_of(request) as lib:
        notice = None
        if q.strip() or like.strip():
            with search_slot(request):
                ids = [h.paper_id for h in _search(lib, q, FACET_POOL, mode, filters, like)]
            notice = lib.search_notice
        else:
            ids = _filtered_ids(lib, filters)
        return ok(lib.facet_counts(ids), notice)


@router.get("/related/{paper_id}", response_model=Envelope[list[HitModel]])
def related(request: Request, paper_id: PaperId, limit: Limit = 10) -> dict[str, Any]:
    """Return the papers nearest to ``paper_id`` (never itself or its duplicates).

    ``terms`` of each hit lists the rarest words the two papers share. BM25 alone (with a
    ``notice``) while vectors are missing. Errors: 404 unknown paper, 400 bad ``limit``.
    """
    with library_of(request) as lib, search_slot(request):
        hits = lib.related(paper_id, limit=limit)
        return ok([hit.to_dict() for hit in hits], lib.search_notice)


@router.get("/recommend", response_model=Envelope[list[HitModel]], responses=NOTHING_MARKED)
def recommend(
    request: Request, limit: Limit = 10, tag: Annotated[str | None, Query(max_length=200)] = None
) -> dict[str, Any]:
    """Return untriaged papers like the starred and kept (or ``tag``-ged) ones, learning from rejects.

    Each hit's ``terms`` are the terms that weighed most (see ``Library.recommend``).

    Errors: 409 when no paper is starred or kept (or tagged ``tag``): nothing to learn from
    yet; 503 while papers lack a vector (an ingest job is embedding them: a GET never embeds).
    """
    with library_of(request) as lib:
        missing = lib.missing_vectors()
        if missing:
            raise ServerBusy(
                f"{missing:,} papers have no embedding yet, so there is nothing to recommend from;"
                " wait for the ingest job (or run `paperscope embed`)"
            )
        return ok([hit.to_dict() for hit in lib.recommend(limit=limit, tag=tag)])
