"""The FastAPI application factory: the JSON API, the pages, one envelope and one error shape.

Requests run concurrently: each checks a Library out of a pool opened on the same SQLite file
(:mod:`paperscope.web.pool`), and ingest runs as a background job (:mod:`paperscope.web.jobs`),
so a slow request (a topic fit, an upload being embedded) never holds up searches, page views
or marks. Every JSON answer is ``{"ok": true, "data": ..., "notice": ...}`` or
``{"ok": false, "error": str, "status": int}`` (:mod:`paperscope.web.schemas`); the OpenAPI
schema is at ``/openapi.json`` and a readable list of the routes at ``/api/docs``.

The JSON routes (module: what it holds):

- search: ``GET /api/search?q=&mode=&limit=&offset=&FILTERS`` hits; ``GET /api/browse?sort=&descending=
  &limit=&offset=&FILTERS`` a page of the library; ``GET /api/facets?q=&mode=&FILTERS`` facet counts;
  ``GET /api/related/{paper_id}``; ``GET /api/recommend?tag=``. FILTERS: venue, year, decision,
  source_area, area, has_code, dataset, contribution, topic, starred, tag.
- papers: ``GET /api/papers/{paper_id}`` (paper, card, marks), ``GET /api/stats``.
- marks: ``PUT|DELETE /api/papers/{paper_id}/star``, ``PUT|DELETE /api/papers/{paper_id}/tags/{tag}``,
  ``PUT /api/papers/{paper_id}/note`` {"body"}, ``PUT /api/papers/{paper_id}/triage`` {"state"},
  ``GET /api/marks?kind=all|starred|tagged|noted|triaged&tag=&starred=&state=&noted=``, ``GET /api/tags``.
- export: ``GET /api/export?format=&starred=&tag=&state=`` (an attachment).
- ingest: ``POST /api/ingest?name=FILE`` (raw bytes; 202 with a job id), ``GET /api/ingest/{job_id}``.
- topics (the map's): ``GET /api/topics``, ``POST /api/topics/fit``, ``GET /api/map``.

Statuses: 400 bad input (unknown query parameters included), 401 no token, 403 foreign Origin or
Host, 404, 405 (with an ``Allow`` header listing the path's methods), 409 ingest queue full or
nothing marked to recommend from, 413 body over its limit, 414 URL over 256 KiB, 503 busy (pool,
locked database, vectors still being embedded, no model installed), 500 a bug. Each operation of
``/openapi.json`` declares every status it can answer, with the error shape's model.

Malformed requests: whatever reaches the app (a query string or path with bad percent-encoding,
a body that is not JSON, a bad ``Content-Length``) is answered in the error shape with the
security headers. A request that uvicorn's HTTP parser (h11) cannot parse at all (a broken
request line, a header without a colon, a line past ``MAX_REQUEST_LINE_BYTES``) never reaches the
app: uvicorn answers it itself with a plain-text 400 and no security headers, and no ASGI app
can change that.
"""

from __future__ import annotations

import contextlib
import html
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from .. import __version__
from ..errors import InputError, ModelUnavailable, NotFound, PaperscopeError
from ..library import Library
from .api import enrich, export, ingest, marks, papers, schedule, search, topics
from .jobs import MAX_UPLOAD_BYTES, IngestJobs, uploads_dir_for
from .pages import router as pages_router
from .pages.common import warm_templates
from .pool import DEFAULT_POOL_SIZE, LibraryPool
from .security import BodyTooLarge, install_body_limit, install_security

__all__ = ["create_app", "error_body"]

STATIC_DIR = Path(__file__).parent / "static"
#: The methods a route of the app may take, in the order an ``Allow`` header lists them.
_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def error_body(message: str, status: int) -> dict[str, Any]:
    """Return the one error shape every endpoint uses: ``{"ok": false, "error", "status"}``."""
    return {"ok": False, "error": message, "status": status}


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse(error_body(message, status), status_code=status)


def _status_for(exc: PaperscopeError) -> int:
    status = getattr(exc, "http_status", None)
    if isinstance(status, int):
        return status
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, InputError):
        return 400
    if isinstance(exc, ModelUnavailable):
        return 503  # the model is not installed here: mode=bm25 still answers
    return 500


def create_app(
    library: Library,
    token: str | None = None,
    allowed_hosts: Iterable[str] | None = None,
    *,
    pool_size: int = DEFAULT_POOL_SIZE,
    max_upload_bytes: int = MAX_UPLOAD_BYTES,
    uploads_dir: str | Path | None = None,
    warm_map: bool = False,
    shared_jobs: bool = False,
) -> FastAPI:
    """Return the web app serving ``library``: ``/api/...`` JSON routes and the pages.

    Args:
        library: the library to serve; the caller keeps owning (and closes) it. More
            instances on the same file are opened as requests need them, up to ``pool_size``
            (a ``:memory:`` library or one given an Embedder object is served alone).
        token: when set, every request must carry it (see :mod:`paperscope.web.security`).
        allowed_hosts: host names the server answers to (DNS rebinding); None skips that check.
        pool_size: Library instances open at most (``PAPERSCOPE_WEB_POOL``, default 4).
        max_upload_bytes: the largest ``POST /api/ingest`` body (default 50 MiB,
            ``PAPERSCOPE_MAX_UPLOAD_MB``); every other body may have 1 MiB.
        uploads_dir: where uploads are stored; default ``NAME.uploads`` beside ``NAME.db``.
        warm_map: on a thread as the server starts (``paperscope serve`` does), open the pool's
            instances with their search indexes (:meth:`LibraryPool.warm`) and build the map's
            payload (4.4 s at 21,490 papers), gzip it and compile the page templates: all would
            otherwise land on the first requests and stall the ones around them. ``GET
            /api/ready`` answers 503 until this is done (at once without ``warm_map``).
        shared_jobs: this app is one of several worker processes on the library
            (``serve --workers N``): ingest jobs go through the uploads folder's job board, so
            every worker sees them and they run one at a time across the workers.
    """
    pool = LibraryPool(library, size=pool_size)
    jobs = IngestJobs(
        pool, Path(uploads_dir) if uploads_dir else uploads_dir_for(pool.db_path), shared=shared_jobs
    )

    ready = threading.Event()  # GET /api/ready: 200 once set

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        warming = None
        if warm_map:

            def warm() -> None:
                began = time.perf_counter()
                try:
                    with contextlib.suppress(Exception):  # a failed warm-up leaves the first request to it
                        pool.warm()
                    with contextlib.suppress(Exception):
                        topics.warm_map_cache(app)
                    with contextlib.suppress(Exception):
                        warm_templates()
                finally:
                    app.state.warm_s = time.perf_counter() - began
                    ready.set()

            warming = threading.Thread(target=warm, name="paperscope-warm-map", daemon=True)
            warming.start()
        else:
            ready.set()
        try:
            yield
        finally:
            if warming is not None:
                warming.join(timeout=30)
            jobs.close()
            pool.close()

    app = FastAPI(
        title="paperscope",
        version=__version__,
        summary="Search, read and triage a library of papers: the JSON API beside the pages.",
        docs_url=None,  # Swagger UI loads its script from a CDN and inlines more: /api/docs lists the routes
        redoc_url=None,
        openapi_url="/openapi.json",
        lifespan=lifespan,
    )
    app.state.library = library
    app.state.ready = ready
    app.state.warm_s = None
    app.state.pool = pool
    app.state.jobs = jobs
    app.state.max_upload_bytes = max_upload_bytes

    @app.exception_handler(PaperscopeError)
    async def _paperscope_error(request: Request, exc: PaperscopeError) -> JSONResponse:
        return _error(str(exc), _status_for(exc))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            loc = list(err.get("loc", ()))
            if err.get("type") == "json_invalid":  # loc holds the character offset, not a field
                why = (err.get("ctx") or {}).get("error", "")
                parts.append(f"the body is not valid JSON ({why} at character {loc[-1]})")
                continue
            if len(loc) > 1 and loc[0] in ("query", "body", "path", "header", "cookie"):
                loc = loc[1:]  # where the value was sent; the rest names it
            where = ".".join(str(p) for p in loc)
            parts.append(f"{where}: {err.get('msg', 'invalid')}" if where else str(err.get("msg", "invalid")))
        return _error("; ".join(parts) or "invalid request", 400)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        # A person who opens an unknown page gets the site's error page; API clients, the JSON shape.
        wants_page = "text/html" in request.headers.get("accept", "")
        if exc.status_code == 404 and wants_page and not request.url.path.startswith("/api/"):
            from .pages.common import error_page

            return error_page(request, 404, f"no page at {request.url.path}")
        if exc.status_code != 405:
            return JSONResponse(error_body(str(exc.detail), exc.status_code), exc.status_code, exc.headers)
        # Starlette's Allow names the methods of the path's first route only (PUT and DELETE
        # .../star are two routes), so it is listed again from every route of the path.
        allowed = ", ".join(_allowed_methods(request))
        message = f"{request.method} is not allowed at {request.url.path}; it takes {allowed}"
        return JSONResponse(error_body(message, 405), 405, {"Allow": allowed})

    @app.exception_handler(BodyTooLarge)
    async def _too_large(request: Request, exc: BodyTooLarge) -> JSONResponse:
        return _error(str(exc), 413)

    @app.exception_handler(UnicodeError)
    async def _not_text(request: Request, exc: UnicodeError) -> JSONResponse:
        return _error("the request holds text that is not valid Unicode (a lone surrogate?)", 400)

    @app.exception_handler(sqlite3.OperationalError)
    async def _locked(request: Request, exc: sqlite3.OperationalError) -> JSONResponse:
        if "locked" in str(exc) or "busy" in str(exc):
            return _error("the library is busy with a long write (an ingest); try again in a moment", 503)
        return _error(f"internal error: {type(exc).__name__}", 500)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        return _error(f"internal error: {type(exc).__name__}", 500)

    # The security middleware is added last, so it runs first and its headers reach every answer.
    install_body_limit(app, limits={"/api/ingest": max_upload_bytes})
    install_security(app, token=token, allowed_hosts=allowed_hosts)

    for module in (search, papers, marks, export, ingest, topics, enrich, schedule):
        app.include_router(module.router, prefix="/api")
    app.include_router(topics.page_router)

    base_openapi = app.openapi

    def openapi() -> dict[str, Any]:
        """Return FastAPI's schema without its 422 answers: a validation error is a 400 here."""
        if app.openapi_schema is None:
            schema = base_openapi()
            for methods in schema.get("paths", {}).values():
                for op in methods.values():
                    op.get("responses", {}).pop("422", None)
            for name in ("HTTPValidationError", "ValidationError"):
                schema.get("components", {}).get("schemas", {}).pop(name, None)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    @app.get("/api/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        """List the routes of /openapi.json as a plain page (no script: the CSP forbids remote ones)."""
        return HTMLResponse(_docs_page(app.openapi()))

    app.include_router(pages_router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


def _allowed_methods(request: Request) -> list[str]:
    """Return the methods some route of the app takes at the request's path (RFC 9110's Allow)."""
    routes = request.app.router.routes
    return [
        method
        for method in _METHODS
        if any(route.matches({**request.scope, "method": method})[0] is Match.FULL for route in routes)
    ]


def _docs_page(schema: dict[str, Any]) -> str:
    """Return an HTML page listing every route of ``schema``: method, path, summary, parameters."""
    esc = html.escape
    rows = []
    for path, methods in schema.get("paths", {}).items():
        for method, op in methods.items():
            params = ", ".join(
                f"{p['name']}{'' if p.get('required') else '?'}" for p in op.get("parameters", [])
            )
            doc = (op.get("description") or op.get("summary") or "").strip()
            rows.append(
                f"<tr><td><code>{esc(method.upper())}</code></td><td><code>{esc(path)}</code></td>"
                f"<td><code>{esc(params)}</code></td><td><pre>{esc(doc)}</pre></td></tr>"
            )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>paperscope API</title>'
        '<link rel="stylesheet" href="/static/style.css"></head><body><main>'
        f"<h1>paperscope API {esc(str(schema.get('info', {}).get('version', '')))}</h1>"
        '<p>Every answer is <code>{"ok": true, "data": …, "notice": …}</code> or '
        '<code>{"ok": false, "error": "…", "status": 400}</code>. The machine-readable schema is '
        '<a href="/openapi.json">/openapi.json</a>.</p>'
        "<table><thead><tr><th>method</th><th>path</th><th>query</th><th>what</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></main></body></html>"
    )
