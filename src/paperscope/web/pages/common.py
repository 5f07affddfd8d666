"""What every page shares: the Jinja2 environment, the language, query-string parsing, error pages.

Routes read their query string with the ``param_*`` helpers, which raise :class:`BadParam`;
:func:`html_errors` turns it (and the library's ``InputError`` / ``NotFound``) into a 400 or
404 HTML page in the reader's language, never a JSON body or a 500.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, PackageLoader, StrictUndefined

from ...errors import InputError, NotFound, PaperscopeError
from .. import i18n, present

__all__ = [
    "BadParam",
    "render",
    "error_page",
    "html_errors",
    "warm_templates",
    "param_int",
    "param_bool",
    "param_str",
    "param_choice",
]

_env = Environment(
    loader=PackageLoader("paperscope.web", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_env.globals.update(
    url_with=present.url_with,
    url_without=present.url_without,
    highlight=present.highlight,
    source_text=present.source_text,
    link_items=present.link_items,
    paper_subtitle=present.paper_subtitle,
)


def warm_templates() -> int:
    """Compile every page template now; return how many.

    For a server's start-up: Jinja compiles a template on its first render, which made the
    first search page of each worker take 140-220 ms instead of 20-35 ms.
    """
    names = _env.list_templates(extensions=["html"])
    for name in names:
        _env.get_template(name)
    return len(names)


#: Longest free-text filter value (venue, tag, …) a page accepts, in characters.
MAX_PARAM_CHARS = 200


class BadParam(Exception):
    """A query-string value a page cannot use; the message names the parameter and the rule."""


def render(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """Render ``template`` in the reader's language with the values every page uses.

    Every template gets ``t`` (the catalogue lookup), ``lang``, ``html_lang``, ``nav`` (the
    active nav entry, default none), ``q`` and ``mode`` (the search box), ``here`` (this
    page's path and query, for the language switch) and ``js_strings`` (JSON for the scripts).
    """
    lang = i18n.lang_of(request)
    query = request.url.query
    values = {
        "t": i18n.translator(lang),
        "lang": lang,
        "html_lang": i18n.HTML_LANG[lang],
        "nav": "",
        "q": "",
        "mode": "hybrid",
        "here": request.url.path + (f"?{query}" if query else ""),
        "js_strings": json.dumps(i18n.js_strings(lang), ensure_ascii=False),
        **context,
    }
    return HTMLResponse(_env.get_template(template).render(values), status_code=status)


def error_page(request: Request, status: int, message: str) -> HTMLResponse:
    """Return the HTML error page: what went wrong and a way back to search."""
    return render(request, "error.html", status=status, status_code=status, message=message)


def html_errors(route: Callable[..., HTMLResponse]) -> Callable[..., HTMLResponse]:
    """Wrap a page route: a bad parameter or ``InputError`` is a 400 page, ``NotFound`` a 404.

    Any other :class:`PaperscopeError` is a page with its ``http_status`` (default 500).
    """

    @functools.wraps(route)
    def wrapper(request: Request, *args: Any, **kwargs: Any) -> HTMLResponse:
        try:
            return route(request, *args, **kwargs)
        except (BadParam, InputError) as exc:
            return error_page(request, 400, str(exc))
        except NotFound as exc:
            return error_page(request, 404, str(exc))
        except PaperscopeError as exc:  # e.g. the pool is busy (503): still a page, not JSON
            return error_page(request, int(getattr(exc, "http_status", 500)), str(exc))

    return wrapper


def param_str(request: Request, name: str, default: str | None = None) -> str | None:
    """Return the stripped value of ``name``; an empty value counts as absent."""
    value = request.query_params.get(name)
    if value is None or not value.strip():
        return default
    value = value.strip()
    if len(value) > MAX_PARAM_CHARS:
        raise BadParam(f"{name} is too long ({len(value)} characters; at most {MAX_PARAM_CHARS})")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        raise BadParam(f"{name} holds an invalid character")
    return value


def param_int(request: Request, name: str, low: int, high: int, default: int | None = None) -> int | None:
    """Return ``name`` as a whole number in ``low..high``.

    Raises:
        BadParam: the value is not a whole number or is out of range.
    """
    value = request.query_params.get(name)
    if value is None or not value.strip():
        return default
    text = value.strip()
    if not (text.lstrip("-").isdigit() and text.isascii()) or len(text) > 12:
        raise BadParam(f"{name} must be a whole number from {low} to {high}, got {value[:40]!r}")
    number = int(text)
    if not low <= number <= high:
        raise BadParam(f"{name} must be a whole number from {low} to {high}, got {number}")
    return number


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def param_bool(request: Request, name: str) -> bool | None:
    """Return ``name`` as a boolean (1/true/yes or 0/false/no), None when absent.

    Raises:
        BadParam: any other value.
    """
    value = request.query_params.get(name)
    if value is None or not value.strip():
        return None
    text = value.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise BadParam(f"{name} must be 1 or 0 (true or false), got {value[:40]!r}")


def param_choice(request: Request, name: str, choices: tuple[str, ...] | list[str], default: str) -> str:
    """Return ``name`` when it is one of ``choices`` (``default`` when absent).

    Raises:
        BadParam: any other value.
    """
    value = request.query_params.get(name) or default
    if value not in choices:
        raise BadParam(f"{name} must be one of {', '.join(choices)}, got {value[:40]!r}")
    return value


def topics_of(lib: Any, paper_ids: list[str]) -> dict[str, dict[str, Any]]:
    """Return ``paper_id -> topic assignment`` for ``paper_ids`` only (see ``Library.paper_topics``)."""
    return lib.paper_topics(paper_ids) if paper_ids else {}
