"""Shared helpers for route modules: the library under its lock, and the success envelope."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from fastapi import Request

from ...library import Library

__all__ = ["library_of", "ok"]


@contextlib.contextmanager
def library_of(request: Request) -> Iterator[Library]:
    """Yield the app's Library while holding its lock."""
    with request.app.state.lock:
        yield request.app.state.library


def ok(data: Any) -> dict[str, Any]:
    """Return the success envelope ``{"ok": true, "data": ...}``."""
    return {"ok": True, "data": data}
