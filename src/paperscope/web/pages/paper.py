"""The paper page ``/paper/{paper_id}``: abstract with card spans, readable card, related papers, marks."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ...errors import PaperscopeError
from ...links import paper_links as _paper_links
from .. import present
from ..api.deps import library_of, search_slot
from ..i18n import lang_of, translator
from .common import html_errors, render, topics_of
from .schedule import session_text

__all__ = ["router", "RELATED_LIMIT", "paper_links"]

router = APIRouter(include_in_schema=False)
log = logging.getLogger(__name__)

#: Related papers shown on a paper page.
RELATED_LIMIT = 10


def paper_links(paper: Any) -> list[tuple[str, str]]:
    """Return ``[(kind, url)]`` for a paper, as its search hit has them (:func:`paperscope.links.paper_links`)."""
    card = paper.card.to_dict() if paper.card else {}
    links = _paper_links(
        paper.urls or [],
        paper.external_ids or {},
        card.get("code_urls") or [],
        card.get("project_urls") or [],
    )
    return present.link_items(links)


@router.get("/paper/{paper_id}", response_class=HTMLResponse)
@html_errors
def paper_page(request: Request, paper_id: str) -> HTMLResponse:
    """Render one paper; an unknown id is a 404 page, a malformed one a 400 page."""
    with library_of(request) as lib:
        paper = lib.get(paper_id)
        marks = lib.marks(paper.paper_id)
        topic = topics_of(lib, [paper.paper_id]).get(paper.paper_id)
        related: list[dict[str, Any]] | None
        related_error = None
        try:
            with search_slot(request):
                hits = lib.related(paper.paper_id, limit=RELATED_LIMIT)
            related = [_related_view(lib, h) for h in hits]
        except PaperscopeError as exc:  # e.g. no embedding model: the page still shows the paper
            log.warning("related papers of %s unavailable: %s", paper.paper_id, exc)
            related, related_error = None, str(exc).splitlines()[0][:200]
        attached = [present.attached_view(row) for row in lib.enrichments(paper_id=paper.paper_id)]
        slots = lib.schedule(paper_ids=[paper.paper_id]).slots
    lang = lang_of(request)
    sessions = [{"uid": s.uid, "day": s.day, "text": session_text(s, lang, translator(lang))} for s in slots]
    fields, segments = present.paper_view(paper)
    card = paper.card.to_dict() if paper.card else {}
    return render(
        request,
        "paper.html",
        paper=paper,
        marks=marks,
        topic=topic if topic and topic.get("topic") is not None else None,
        area=(card.get("area") or {}).get("label") or paper.source_area,
        fields=fields,
        segments=segments,
        paper_links=paper_links(paper),
        related=related,
        related_error=related_error,
        attached=attached,
        session=next((a["session"] for a in reversed(attached) if a["session"]), None),
        sessions=sessions,
    )


def _related_view(lib: Any, hit: Any) -> dict[str, Any]:
    venue, year = getattr(hit, "venue", None), getattr(hit, "year", None)
    return {
        "paper_id": hit.paper_id,
        "label": hit.label,
        "title_source": hit.title_source,
        "meta": " ".join(str(v) for v in (venue, year) if v),
        "terms": list(hit.terms)[:8],
    }
