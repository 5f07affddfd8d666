"""Safe by default: security headers on every response, same-origin writes, a token off loopback.

- Every response carries ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``
  and a Content-Security-Policy that allows only this server's own scripts, styles and fetches
  (no remote loads, no inline script, no style attributes), the map page included (its script
  and style are files under ``/map/assets``).
- A state-changing request (POST, PUT, PATCH, DELETE) is refused with a 403 in the JSON error
  shape when its ``Origin`` is not this server (cross-site request forgery) or, when the app
  knows which hosts it serves, when its ``Host`` is not one of them (DNS rebinding).
- With a token (required by ``paperscope serve`` for a non-loopback ``--host``), every request
  must carry it: ``Authorization: Bearer TOKEN``, or the cookie that opening ``/?token=TOKEN``
  once sets (HttpOnly, SameSite=Strict), so a browser can use the pages. A host is loopback
  when every address it resolves to is (:func:`is_loopback`: 127.0.0.0/8 or ::1, never a name's
  spelling), and a token has at least ``MIN_TOKEN_CHARS`` characters (:func:`check_token`).
- A request body larger than its route's limit (``MAX_BODY_BYTES``, 1 MiB, for JSON bodies; the
  upload limit for ``POST /api/ingest``) is refused with a 413 in the JSON error shape, from its
  ``Content-Length`` before it is read, or while it streams when it has none.
- A request target (path and query) longer than ``MAX_URL_BYTES`` (256 KiB) is refused with a
  414 in the JSON error shape. A 14,000-word query URL-encoded is about 110 kB and is answered
  (the search cuts it to its first terms and says so); ``paperscope serve`` lets request lines
  up to ``MAX_REQUEST_LINE_BYTES`` (4 MiB) reach the app, so anything between gets the 414.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse, RedirectResponse
from starlette.datastructures import MutableHeaders

from ..errors import InputError

__all__ = [
    "HttpMiddleware",
    "install_security",
    "install_body_limit",
    "BodyTooLarge",
    "CSP",
    "LOOPBACK_HOSTS",
    "TOKEN_COOKIE",
    "MAX_BODY_BYTES",
    "MAX_URL_BYTES",
    "MAX_REQUEST_LINE_BYTES",
    "MIN_TOKEN_CHARS",
    "Resolver",
    "is_loopback",
    "resolve_host",
    "check_token",
    "new_token",
]

#: The policy of every page and API response (OWASP's "strict" baseline, self-hosted assets only).
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
#: Host names that only this machine can reach: the ``Host`` header values a loopback server answers.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
TOKEN_COOKIE = "paperscope_token"
_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: Bytes a request body may have on routes without a limit of their own (a note is text).
MAX_BODY_BYTES = 1024 * 1024
#: Longest request target (path plus query string, bytes) the app answers; longer ones get a 414.
MAX_URL_BYTES = 256 * 1024
#: What ``paperscope serve`` tells uvicorn's h11 parser to accept (bytes of request line and
#: headers): beyond it uvicorn answers a plain-text 400 before the app sees the request.
MAX_REQUEST_LINE_BYTES = 4 * 1024 * 1024
#: Shortest token ``paperscope serve`` accepts: 32 characters, as ``secrets.token_urlsafe(24)``
#: gives for 192 random bits (``new_token`` gives 43 characters, 256 bits; Python's ``secrets``
#: docs recommend at least 32 random bytes).
MIN_TOKEN_CHARS = 32
#: What resolves a host name: :func:`socket.getaddrinfo`'s shape, ``(host, port)`` in, tuples out
#: whose fifth item is the socket address (its first item the address text).
Resolver = Callable[[str, None], Sequence[tuple[Any, ...]]]
_LOOPBACK_V4 = ipaddress.IPv4Network("127.0.0.0/8")
_LOOPBACK_V6 = ipaddress.IPv6Address("::1")


class BodyTooLarge(Exception):
    """A request body went past its route's limit while it was read (the app answers 413)."""

    def __init__(self, limit_bytes: int):
        super().__init__(f"the request body is larger than the limit of {_size(limit_bytes)}")
        self.limit_bytes = limit_bytes


def _size(size_bytes: int) -> str:
    if size_bytes >= 1024 * 1024 and size_bytes % (1024 * 1024) == 0:
        return f"{size_bytes // (1024 * 1024)} MiB"
    return f"{size_bytes:,} bytes"


def resolve_host(
    host: str, resolve: Resolver | None = None
) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """Return every address ``host`` resolves to, in the resolver's order, without repeats.

    Args:
        host: a host name, an IPv4 address or an IPv6 address (brackets allowed: ``[::1]``).
        resolve: the resolver; None means :func:`socket.getaddrinfo` (looked up at call time,
            so tests can replace it). Tests pass a fake that maps names to addresses.

    Raises:
        InputError: ``host`` is empty, or does not resolve (the resolver's reason is given).
    """
    name = host.strip().strip("[]")
    if not name:
        raise InputError("an empty host names no address; give 127.0.0.1, 0.0.0.0 or a host name")
    try:
        infos = (resolve or socket.getaddrinfo)(name, None)
    except (OSError, UnicodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise InputError(
            f"{host}: the name does not resolve ({reason}); give an IP address or a name this"
            " machine resolves"
        ) from None
    found: dict[ipaddress.IPv4Address | ipaddress.IPv6Address, None] = {}
    for info in infos:
        found.setdefault(ipaddress.ip_address(str(info[4][0]).split("%")[0]), None)
    if not found:
        raise InputError(f"{host}: the name resolves to no address; give an IP address")
    return list(found)


def is_loopback(host: str, resolve: Resolver | None = None) -> bool:
    """Return True when every address ``host`` resolves to is this machine's loopback.

    Loopback means 127.0.0.0/8 or ::1 (RFC 1122 §3.2.1.3, RFC 4291 §2.5.3). The name's spelling
    counts for nothing: ``127.evil.test`` resolving to 10.9.9.9 is not loopback, and a name
    with one loopback and one other address is not either (a server may bind the other one).
    An empty host (every interface, to a socket) is not loopback.

    Args:
        host: as given to ``paperscope serve --host``.
        resolve: the resolver (see :func:`resolve_host`); None means :func:`socket.getaddrinfo`.

    Raises:
        InputError: a non-empty ``host`` does not resolve.
    """
    if not host.strip().strip("[]"):
        return False
    return all(
        (a in _LOOPBACK_V4) if isinstance(a, ipaddress.IPv4Address) else a == _LOOPBACK_V6
        for a in resolve_host(host, resolve)
    )


def check_token(token: str) -> None:
    """Refuse a token too short to guess: at least ``MIN_TOKEN_CHARS`` (32) characters.

    Raises:
        InputError: ``token`` has fewer than ``MIN_TOKEN_CHARS`` characters; the message names
            ``paperscope serve --new-token``, which prints a good one.
    """
    if len(token) < MIN_TOKEN_CHARS:
        raise InputError(
            f"the token has {len(token)} characters, fewer than the {MIN_TOKEN_CHARS} it needs;"
            " make one with `paperscope serve --new-token`"
        )


def new_token() -> str:
    """Return a fresh random token: 43 URL-safe characters holding 256 bits (``secrets.token_urlsafe(32)``)."""
    return secrets.token_urlsafe(32)


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"ok": False, "error": message, "status": status}, status_code=status)


def _host_name(value: str) -> str:
    return urlsplit(f"//{value}").hostname or ""


class HttpMiddleware:
    """A plain ASGI middleware of HTTP requests: other scopes (lifespan) pass straight through.

    Subclasses implement :meth:`http`. Not ``@app.middleware("http")``: Starlette's
    BaseHTTPMiddleware runs each request through a task group and a memory stream, about 1 ms
    of a warm search's CPU.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.inner(scope, receive, send)
            return
        await self.http(scope, receive, send)

    async def http(self, scope: Any, receive: Any, send: Any) -> None:
        """Answer one HTTP request (``self.inner`` is the app inside)."""
        await self.inner(scope, receive, send)


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

    class _Secure(HttpMiddleware):
        async def http(self, scope: Any, receive: Any, send: Any) -> None:
            async def send_secured(message: Any) -> None:
                if message["type"] == "http.response.start":
                    headers = MutableHeaders(scope=message)
                    headers["Content-Security-Policy"] = CSP
                    headers["X-Content-Type-Options"] = "nosniff"
                    headers["Referrer-Policy"] = "no-referrer"
                await send(message)

            refusal = _refusal(Request(scope), hosts, token)
            if refusal is not None:
                await refusal(scope, receive, send_secured)
            else:
                await self.inner(scope, receive, send_secured)

    app.add_middleware(_Secure)


def _refusal(request: Request, hosts: set[str] | None, token: str | None) -> Response | None:
    """Return the answer that refuses ``request`` (403, 401, or the token's redirect), else None."""
    host = request.headers.get("host", "")
    if hosts is not None and _host_name(host).lower() not in hosts:
        return _error(f"host {host!r} is not served here", 403)
    if request.method in _WRITES and _foreign_origin(request, host):
        return _error("cross-site request refused: its Origin is not this server", 403)
    if token is not None and not _has_token(request, token):
        if request.url.path == "/" and hmac.compare_digest(request.query_params.get("token", ""), token):
            response = RedirectResponse("/", status_code=303)
            response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
            return response
        return _error("a token is required: open /?token=TOKEN or send Authorization: Bearer", 401)
    return None


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


def install_body_limit(
    app: FastAPI, limits: dict[str, int] | None = None, default_bytes: int = MAX_BODY_BYTES
) -> None:
    """Refuse request bodies over a limit with a 413 in the JSON error shape.

    Args:
        app: the app to protect; an ``exception_handler`` for :class:`BodyTooLarge` turns a body
            that grows past its limit while a route reads it into the 413.
        limits: path → bytes for routes with a limit of their own (uploads).
        default_bytes: the limit of every other route.
    """
    route_limits = dict(limits or {})

    class _BodyLimit(HttpMiddleware):
        async def http(self, scope: Any, receive: Any, send: Any) -> None:
            target = len(scope.get("raw_path") or scope["path"].encode()) + len(
                scope.get("query_string") or b""
            )
            if target > MAX_URL_BYTES:
                message = (
                    f"the request URL is {target:,} bytes, more than the {MAX_URL_BYTES:,} this server"
                    " accepts; send a shorter query (a search keeps its first terms anyway)"
                )
                await _error(message, 414)(scope, receive, send)
                return
            limit = route_limits.get(scope["path"], default_bytes)
            declared = dict(scope.get("headers") or ()).get(b"content-length")
            if declared is not None and (not declared.isdigit() or int(declared) > limit):
                message = str(BodyTooLarge(limit)) if declared.isdigit() else "a bad Content-Length header"
                status = 413 if declared.isdigit() else 400
                await _error(message, status)(scope, receive, send)
                return
            received = 0
            answered = False  # the 413 went out: what the app sends after it is dropped
            started = False

            async def limited_receive() -> Any:
                nonlocal received, answered
                message = await receive()
                if message["type"] == "http.request":
                    received += len(message.get("body", b""))
                    if received > limit:
                        # Answered here: FastAPI turns any error raised while it parses a body
                        # into a 400 "error parsing the body"; the raise then stops the route.
                        if not started and not answered:
                            answered = True
                            await _error(str(BodyTooLarge(limit)), 413)(scope, receive, send)
                        raise BodyTooLarge(limit)
                return message

            async def guarded_send(message: Any) -> None:
                nonlocal started
                if answered:
                    return
                if message["type"] == "http.response.start":
                    started = True
                await send(message)

            await self.inner(scope, limited_receive, guarded_send)

    app.add_middleware(_BodyLimit)
