"""Safe by default: security headers on every response, same-origin writes, a token off loopback.

- Every response carries ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``
  and a Content-Security-Policy that allows only this server's own scripts, styles and fetches
  (no remote loads, no inline script). The one exception is ``/map``, the self-contained map
  page whose vendored script is inline: it may run inline script, still nothing remote.
- A state-changing request (POST, PUT, PATCH, DELETE) is refused with a 403 in the JSON error
  shape when its ``Origin`` is not this server (cross-site request forgery) or, when the app
  knows which hosts it serves, when its ``Host`` is not one of them (DNS rebinding).
- With a token (required by ``paperscope serve`` for a non-loopback ``--host``), every request
  must carry it: ``Authorization: Bearer TOKEN``, or the cookie that opening ``/?token=TOKEN``
  once sets (HttpOnly, SameSite=Strict), so a browser can use the pages.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, Iterable
from urllib.parse import urlsplit

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse, RedirectResponse

__all__ = ["install_security", "CSP", "MAP_CSP", "LOOPBACK_HOSTS", "TOKEN_COOKIE", "is_loopback"]

#: The policy of every page and API response (OWASP's "strict" baseline, self-hosted assets only).
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
#: The map page inlines its vendored script and style (one offline file): inline allowed, nothing remote.
MAP_CSP = CSP.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'").replace(
    "style-src 'self'", "style-src 'self' 'unsafe-inline'"
)
#: Host names that only this machine can reach.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
TOKEN_COOKIE = "paperscope_token"
_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def is_loopback(host: str) -> bool:
    """Return True for a host name or address that only this machine can reach."""
    return host.strip("[]") in LOOPBACK_HOSTS or host.startswith("127.")


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"ok": False, "error": message, "status": status}, status_code=status)


def _host_name(value: str) -> str:
    return urlsplit(f"//{value}").hostname or ""


def install_security(
    app: FastAPI, token: str | None = None, allowed_hosts: Iterable[str] | None = None
) -> None:
    """Add the checks and headers above to ``app`` as one HTTP middleware.

    Args:
        app: the app to protect.
        token: when set, the secret every request must carry.
        allowed_hosts: host names (no port) the server answers to; None skips the ``Host``
            check (tests, ``serve --get``), keeping the ``Origin`` check.
    """
    hosts = None if allowed_hosts is None else {h.strip("[]").lower() for h in allowed_hosts}

    @app.middleware("http")
    async def _secure(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        host = request.headers.get("host", "")
        if hosts is not None and _host_name(host).lower() not in hosts:
            response: Response = _error(f"host {host!r} is not served here", 403)
        elif request.method in _WRITES and _foreign_origin(request, host):
            response = _error("cross-site request refused: its Origin is not this server", 403)
        elif token is not None and not _has_token(request, token):
            if request.url.path == "/" and hmac.compare_digest(request.query_params.get("token", ""), token):
                response = RedirectResponse("/", status_code=303)
                response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
            else:
                response = _error(
                    "a token is required: open /?token=TOKEN or send Authorization: Bearer", 401
                )
        else:
            response = await call_next(request)
        response.headers["Content-Security-Policy"] = MAP_CSP if request.url.path == "/map" else CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response


def _foreign_origin(request: Request, host: str) -> bool:
    origin = request.headers.get("origin")
    if origin is None:
        return False  # not a browser's cross-site request (curl, the CLI, a same-origin form in old browsers)
    return urlsplit(origin).netloc.lower() != host.lower()


def _has_token(request: Request, token: str) -> bool:
    header = request.headers.get("authorization", "")
    given = header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else ""
    given = given or request.cookies.get(TOKEN_COOKIE, "")
    return bool(given) and hmac.compare_digest(given, token)
