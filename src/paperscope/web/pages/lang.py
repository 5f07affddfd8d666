"""``/lang/{code}``: remember the reader's interface language in a cookie and go back."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from .. import i18n
from .common import error_page

__all__ = ["router", "safe_next"]

router = APIRouter(include_in_schema=False)
#: How long the language choice is kept, in seconds (one year).
LANG_COOKIE_MAX_AGE_S = 365 * 24 * 3600


def safe_next(value: str | None) -> str:
    """Return ``value`` when it is a path on this server ("/..."), else "/" (no open redirect)."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    if any(ord(c) < 32 for c in value):
        return "/"
    return value


@router.get("/lang/{code}")
def set_language(request: Request, code: str) -> Response:
    """Store ``code`` (en or zh) in the ``paperscope_lang`` cookie and redirect to ``next``."""
    if code not in i18n.LANGS:
        return error_page(
            request, 400, f"unknown language {code[:20]!r}; choose one of: {', '.join(i18n.LANGS)}"
        )
    response = RedirectResponse(safe_next(request.query_params.get("next")), status_code=303)
    response.set_cookie(i18n.COOKIE, code, max_age=LANG_COOKIE_MAX_AGE_S, samesite="lax")
    return response
