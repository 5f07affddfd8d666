"""Shared helpers for route modules: a pooled Library per request, the envelope, strict queries.

The parameter types below carry the rule the library applies as a JSON-schema keyword in
``/openapi.json`` only (``json_schema_extra``): the value is still checked by the library, whose
message says what to do, so the schema states exactly what is accepted and the answer keeps
the library's words. ``tests/web/test_api_contract.py`` fuzzes the app against these schemas.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import Path, Request

from ...errors import InputError, PaperscopeError
from ...library import Library

__all__ = [
    "library_of",
    "ok",
    "reject_unknown_query",
    "ServerBusy",
    "PAPER_ID_PATTERN",
    "PaperId",
    "one_of",
    "optional",
    "DATE_OR_EMPTY",
]

#: A paper_id or a prefix of 4 or more of its hex digits, any case, spaces around ignored
#: (:func:`paperscope.store.papers.resolve_paper_id`).
PAPER_ID_PATTERN = r"^\s*[0-9a-fA-F]{4,}\s*$"

PaperId = Annotated[
    str,
    Path(
        description="a paper_id, or a unique prefix of 4 or more of its hex digits",
        json_schema_extra={"pattern": PAPER_ID_PATTERN},
    ),
]


def optional(schema: dict[str, Any]) -> dict[str, Any]:
    """Return the ``json_schema_extra`` of an optional query parameter whose value fits ``schema``."""
    return {"anyOf": [schema, {"type": "null"}]}


def one_of(values: Any, *, empty: bool = False) -> dict[str, Any]:
    """Return a string schema taking ``values`` (and ``""``, which means "not given", when ``empty``)."""
    return {"type": "string", "enum": [*([""] if empty else []), *values]}


#: ``YYYY-MM-DD`` (a real date), or empty for "any day" (:func:`paperscope.schedule.plan_for`).
DATE_OR_EMPTY = optional(
    {"anyOf": [{"type": "string", "format": "date"}, {"type": "string", "maxLength": 0}]}
)


class ServerBusy(PaperscopeError):
    """A request the server cannot answer now (it would first need long work a job does): 503."""

    http_status = 503


@contextlib.contextmanager
def library_of(request: Request) -> Iterator[Library]:
    """Yield a Library checked out of the app's pool for this request only.

    Other requests run meanwhile on other instances of the same file (see
    :class:`paperscope.web.pool.LibraryPool`). Never keep the Library, or an iterator reading
    from it, beyond the ``with`` block: another request gets it next.

    Raises:
        PoolBusy: every instance stayed busy for the pool's timeout (a 503).
    """
    with request.app.state.pool.checkout() as library:
        yield library


@contextlib.contextmanager
def search_slot(request: Request) -> Iterator[None]:
    """Run a search inside one of the server's search slots (:meth:`LibraryPool.searching`).

    Raises:
        PoolBusy: every slot stayed busy for the pool's timeout (a 503).
    """
    with request.app.state.pool.searching():
        yield


def ok(data: Any, notice: str | None = None) -> dict[str, Any]:
    """Return the success envelope ``{"ok": true, "data": ...}``, with ``"notice"`` when given."""
    body: dict[str, Any] = {"ok": True, "data": data}
    if notice:
        body["notice"] = notice
    return body


def reject_unknown_query(request: Request) -> None:
    """Refuse query parameters the matched route does not take (a 400 naming them).

    A misspelt filter (``?yaer=2026``) would otherwise be ignored silently and the client
    would read unfiltered results as filtered ones. Use as a router dependency.

    Raises:
        InputError: a parameter is unknown; the message lists them and the accepted ones.
    """
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return
    known = {p.alias for p in _query_params(dependant)}
    unknown = sorted({k for k in request.query_params if k not in known})
    if unknown:
        raise InputError(
            f"unknown query parameter{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)};"
            f" this route takes: {', '.join(sorted(known)) or 'none'}"
        )


def _query_params(dependant: Any) -> Iterator[Any]:
    yield from dependant.query_params
    for sub in dependant.dependencies:
        yield from _query_params(sub)
