"""The FastAPI application factory: one success envelope, one error shape, static UI."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import InputError, NotFound, PaperscopeError
from ..library import Library
from .api import marks, papers, search, topics
from .pages import router as pages_router
from .security import install_security

__all__ = ["create_app", "error_body"]

STATIC_DIR = Path(__file__).parent / "static"


def error_body(message: str, status: int) -> dict[str, Any]:
    """Return the one error shape every endpoint uses: ``{"ok": false, "error", "status"}``."""
    return {"ok": False, "error": message, "status": status}


def _status_for(exc: PaperscopeError) -> int:
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, InputError):
        return 400
    return 500


def create_app(
    library: Library, token: str | None = None, allowed_hosts: Iterable[str] | None = None
) -> FastAPI:
    """Return the web app serving ``library``: ``/api/...`` JSON routes and the UI at ``/``.

    Library calls are serialised with a lock: the SQLite connection is shared by the
    worker threads that FastAPI runs synchronous routes on. ``token`` and ``allowed_hosts``
    are the checks of :func:`paperscope.web.security.install_security` (security headers and
    same-origin writes always apply).
    """
    app = FastAPI(title="paperscope", docs_url="/api/docs", openapi_url="/api/openapi.json")
    app.state.library = library
    app.state.lock = threading.Lock()

    @app.exception_handler(PaperscopeError)
    async def _paperscope_error(request: Request, exc: PaperscopeError) -> JSONResponse:
        status = _status_for(exc)
        return JSONResponse(error_body(str(exc), status), status_code=status)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err.get("loc", ()) if p not in ("query", "body", "path"))
            parts.append(f"{where}: {err.get('msg', 'invalid')}")
        return JSONResponse(error_body("; ".join(parts) or "invalid request", 400), status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse(error_body(str(exc.detail), exc.status_code), status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(error_body(f"internal error: {type(exc).__name__}", 500), status_code=500)

    install_security(app, token=token, allowed_hosts=allowed_hosts)

    for module in (search, papers, marks, topics):
        app.include_router(module.router, prefix="/api")
    app.include_router(topics.page_router)

    app.include_router(pages_router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:  # replaced by the search page of .pages
        return FileResponse(STATIC_DIR / "index.html")

    return app
