"""Server-rendered pages (Jinja2): search, paper, topics, reading list, queue, the plan, ingest, enrich review, the language switch.

``router`` is included by :func:`paperscope.web.app.create_app` before its other page routes;
the map page lives with the map (``web/api/topics.py``). Each page module holds one page.
"""

from __future__ import annotations

from fastapi import APIRouter

from . import enrich, ingest, lang, paper, queue, reading, schedule, search, topics

__all__ = ["router"]

router = APIRouter(include_in_schema=False)
for _module in (search, paper, topics, reading, queue, schedule, ingest, enrich, lang):
    router.include_router(_module.router)
