"""Topics and the map: GET /api/topics, POST /api/topics/fit, GET /api/map, and the /map page.

A GET never changes the library: a cross-site ``GET /api/topics`` once refitted the topics of a
library for 83 s. Fitting is the POST, or ``paperscope topics`` on the command line; both assign
new papers to the stored topics and refit only when asked or needed (``Library.update_topics``).

``/map`` is a live page under the app's strict CSP: an HTML shell whose script and style are
files (``/map/assets/map.js``, ``/map/assets/map.css``, a fixed list) and whose data is
``GET /api/map``. That payload is built once per topic fit and library state and kept in
memory with an ``ETag``: a reload sends ``If-None-Match`` and gets a 304, another client gets
the cached bytes (gzipped when it accepts gzip).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import threading
from dataclasses import asdict, dataclass
from types import SimpleNamespace
from typing import Any, Literal

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from ... import strict_json
from ...errors import NotFound
from ...library import Library
from ...map import live_map_html, live_map_parts, map_asset, map_payload
from ...store import vectors
from ..present import area_text, claim_text
from ..schemas import ERROR_RESPONSES, Envelope
from .deps import library_of, ok, reject_unknown_query

#: The live payload keeps this much of each abstract: the tooltip's snippet (the card links to
#: the full paper page). With the compact cards, 21,490 papers are 14.2 MB, 3.7 MB gzipped.
LIVE_ABSTRACT_CHARS = 200

router = APIRouter(dependencies=[Depends(reject_unknown_query)], responses=ERROR_RESPONSES, tags=["topics"])
page_router = APIRouter()


class TopicModel(BaseModel):
    """A stored topic: broad (level 0), subtopic (level 1) or the Unassigned group (topic_id -1)."""

    topic_id: int
    name: str
    level: int
    size: int
    key_phrases: list[str]
    parent_id: int | None
    is_unassigned: bool
    representative_ids: list[str] = Field(description="The papers nearest the topic's centre, nearest first.")
    x: float = Field(description="Where the name sits on the map, in [-1, 1].")
    y: float


class TopicsAnswer(BaseModel):
    """The success envelope with the topics, and whether papers were added since they were fitted."""

    ok: Literal[True] = True
    data: list[TopicModel]
    stale: bool = Field(description="True before the first fit or when papers were added since.")


class FitAnswer(TopicsAnswer):
    """The topics after ``POST /api/topics/fit``, with what it did and the notice to show."""

    action: Literal["fitted", "refit", "assigned", "current"] = Field(
        description="fitted: first fit; refit: fitted again, ids carried over; assigned: new papers"
        " joined the stored topics; current: every paper already had a topic."
    )
    notice: str = Field(description="What happened, in a line or a few; empty when current.")


class MapPayload(BaseModel):
    """What the map page draws: the papers column by column (one entry per paper in each column)."""

    model_config = ConfigDict(extra="allow")

    title: str
    color_by: str = Field(description="The first colouring: topic, area or venue.")
    palette: list[str]
    unassigned_color: str
    papers: dict[str, list[Any]] = Field(
        description="Columns: paper_id, x, y, topic_id, subtopic_id, is_outlier, label, title (empty when"
        " it equals the label), authors, venue, area, decision, keywords, abstract (a snippet of about"
        f" {LIVE_ABSTRACT_CHARS} characters), urls, card (its fields as readable text)."
    )
    categories: dict[str, dict[str, Any]] = Field(
        description="Per colouring: names (by size), index (one per paper), grey_last."
    )
    topics: list[TopicModel]


_HOW_TO_FIT = "run `paperscope topics` (or POST /api/topics/fit) to fit them"
_CACHE_LOCK = threading.Lock()


@dataclass
class _MapCache:
    etag: str
    body: bytes
    gzipped: bytes | None = None


@router.get("/topics", response_model=TopicsAnswer)
def topics(request: Request) -> dict[str, Any]:
    """Return the stored topics (broad, subtopics, Unassigned); ``[]`` before the first fit.

    ``stale`` says whether papers were added since the last fit.
    """
    with library_of(request) as lib:
        return {**ok([asdict(t) for t in lib.topics()]), "stale": lib.topics_are_stale()}


@router.post("/topics/fit", response_model=FitAnswer)
def fit_topics(request: Request, refit: bool = False) -> dict[str, Any]:
    """Give papers added since the last fit a topic, or fit (seconds to a minute), and return the topics.

    New papers join the stored topics by nearest centroid, so ids and names stay; it fits on the
    first call, with ``?refit=true``, or when more than 25% of the library was assigned since the
    last fit, and a refit keeps the ids of topics that keep their papers (``notice`` says why and
    what changed).
    """
    with library_of(request) as lib:
        if not len(lib):
            raise NotFound("the library has no papers to fit topics on")
        update = lib.update_topics(refit=refit)
        return {
            **ok([asdict(t) for t in lib.topics()]),
            "stale": False,
            "action": update.action,
            "notice": update.notice(),
        }


def _card_texts(card: dict[str, Any]) -> dict[str, Any]:
    """Return a compact card with each entry as the text the paper page shows (one formatter).

    ``methods`` become "APM (analytic parameter matching)", ``claims`` "65× storage reduction",
    ``area`` "label (model, 49%)", the other lists their names; map.js shows strings as given.
    """
    out: dict[str, Any] = {}
    for key, value in card.items():
        if key == "area" and isinstance(value, dict):
            out[key] = area_text(value)
        elif key == "claims":
            out[key] = [(c.get("text") or claim_text(c)) if isinstance(c, dict) else str(c) for c in value]
        elif key == "methods":
            out[key] = [
                (f"{m['name']} ({m['long_form']})" if m.get("long_form") else str(m.get("name", "")))
                if isinstance(m, dict)
                else str(m)
                for m in value
            ]
        elif isinstance(value, list):
            out[key] = [next(iter(e.values()), "") if isinstance(e, dict) else e for e in value]
        else:
            out[key] = value
    return out


def _map_key(lib: Library) -> str | None:
    """Return what the map payload depends on, hashed (None before the first fit).

    The topic run (every fit stores new settings, figures and a fingerprint), the library file's
    id, its change generation (titles, texts and deletions) and the top rowids of papers, cards
    and sources (inserted papers, re-extracted cards, merged records) — a few indexed reads.
    """
    run = lib.topic_run()
    if not run:
        return None
    conn = lib.store.conn
    tops = [
        conn.execute(f"SELECT coalesce(max(rowid), 0) FROM {table}").fetchone()[0]
        for table in ("papers", "cards", "sources")
    ]
    state = [lib.store.library_id, vectors.library_generation(conn), tops, run]
    digest = hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()
    return f'"map-{digest[:32]}"'


def _map_cache(request: Request) -> _MapCache:
    """Return the cached payload of the current fit, building it first when the key moved.

    Raises:
        NotFound: topics have not been fitted yet.
    """
    state = request.app.state
    with library_of(request) as lib:
        key = _map_key(lib)
        if key is None or not lib.topics():
            raise NotFound(f"no topics yet: {_HOW_TO_FIT}")
        with _CACHE_LOCK:
            cached: _MapCache | None = getattr(state, "map_cache", None)
            if cached is not None and cached.etag == key:
                return cached
            payload = map_payload(
                list(lib.papers()),
                lib.paper_topics(),
                lib.topics(),
                abstract_chars=LIVE_ABSTRACT_CHARS,
                compact=True,
            )
            payload["papers"]["card"] = [_card_texts(card) for card in payload["papers"]["card"]]
            body = strict_json.dumps(ok(payload), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            state.map_cache = cached = _MapCache(key, body)
            return cached


def warm_map_cache(app: Any) -> bool:
    """Build the map payload of ``app``'s library now; return False when there are no topics.

    For a server's start-up, in a thread: the first build takes seconds at 20k papers (4.4 s
    for 21,490), mostly Python holding the GIL, which would otherwise stall the requests
    around the first map open.
    """
    try:
        cached = _map_cache(SimpleNamespace(app=app))  # type: ignore[arg-type]  # library_of needs .app only
    except NotFound:
        return False
    _gzipped(cached)  # ~300 ms for 21k papers: a browser asks for gzip
    return True


def _gzipped(cached: _MapCache) -> bytes:
    """Return the cached payload gzipped, compressing it once (level 5: 15 MB → 3.7 MB in ~0.3 s)."""
    with _CACHE_LOCK:
        if cached.gzipped is None:
            cached.gzipped = gzip.compress(cached.body, compresslevel=5, mtime=0)
        return cached.gzipped


@router.get(
    "/map",
    responses={
        200: {"model": Envelope[MapPayload], "description": "The map payload (gzipped when accepted)."},
        304: {"description": "Not modified: the ETag given in If-None-Match is current."},
    },
)
def map_data(request: Request) -> Response:
    """Return ``{"ok": true, "data": payload}``: the map's papers column by column, topics, colours.

    A 404 before the first fit. The response has an ``ETag`` that changes with each fit and
    with new or changed papers; send it back in ``If-None-Match`` for a 304.
    """
    cached = _map_cache(request)
    headers = {"ETag": cached.etag, "Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
    if cached.etag in [t.strip() for t in request.headers.get("if-none-match", "").split(",")]:
        return Response(status_code=304, headers=headers)
    if "gzip" in request.headers.get("accept-encoding", ""):
        return Response(
            _gzipped(cached), media_type="application/json", headers={**headers, "Content-Encoding": "gzip"}
        )
    return Response(cached.body, media_type="application/json", headers=headers)


def _lang(request: Request) -> str:
    return "zh" if request.cookies.get("paperscope_lang", "") in ("zh", "zh-Hans") else "en"


def _page(
    request: Request, status: int, query: str = "", mode: str | None = None, message: str | None = None
) -> Response:
    """Render the map page in the site's template (``templates/map.html``), else the plain shell.

    Both have the site nav; the template adds the pages' language strings and keys dialog.
    """
    mode = mode if mode in ("hybrid", "bm25", "dense") else None
    try:
        from jinja2 import TemplateNotFound
        from markupsafe import Markup

        from ..pages.common import render

        parts = live_map_parts()
        return render(
            request,
            "map.html",
            status=status,
            nav="map",
            mode=mode or "hybrid",
            map_query=query,
            map_mode=mode,
            map_message=message,
            map_body=Markup(parts["map_body"]),  # our package's own fragment, no data in it
            map_css_version=parts["map_css_version"],
            map_js_version=parts["map_js_version"],
        )
    except (ImportError, TemplateNotFound):
        return HTMLResponse(live_map_html(query, mode, _lang(request), message), status_code=status)


@page_router.get("/map", include_in_schema=False)
def map_page(request: Request, q: str = "", mode: str | None = None) -> Response:
    """Return the live map page (a 404 before the first fit: HTML for a browser, else JSON).

    ``q`` highlights the hits of the library's search (``mode`` as /api/search takes it).
    """
    with library_of(request) as lib:
        fitted = bool(lib.topic_run()) and bool(lib.topics())
    if not fitted:
        message = f"No topics yet: {_HOW_TO_FIT}, then reload this page."
        if "text/html" in request.headers.get("accept", ""):
            return _page(request, 404, message=message)
        return JSONResponse({"ok": False, "error": message, "status": 404}, status_code=404)
    return _page(request, 200, q, mode)


@page_router.get("/map/assets/{name}", include_in_schema=False)
def map_assets(name: str) -> Response:
    """Return the live map's script or style (``map.js``, ``map.css``; any other name is a 404)."""
    body, media = map_asset(name)
    return Response(body, media_type=media, headers={"Cache-Control": "public, max-age=3600"})
