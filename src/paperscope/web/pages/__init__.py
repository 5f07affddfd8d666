"""Server-rendered pages (Jinja2): search, paper, topics, map, reading list, ingest.

``router`` is included by :func:`paperscope.web.app.create_app` after the JSON API.
"""

from __future__ import annotations

from fastapi import APIRouter

__all__ = ["router"]

router = APIRouter(include_in_schema=False)
