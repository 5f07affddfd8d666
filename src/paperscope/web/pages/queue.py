"""The triage queue ``/queue``: one unseen paper at a time, one key to mark it and see the next.

The page is rendered on the server from :meth:`paperscope.Library.queue`; ``static/queue.js``
saves a key's mark through the JSON API (PUT ``/api/papers/{id}/triage``) and loads the next page.
Query string: ``order`` (recommended | topic), ``topic`` (a topic id), ``skip`` (comma-separated
ids skipped this time), ``paper`` (an id to show first: undo) and ``prev``/``was`` (the paper just
marked and its state before, which the undo key restores).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ...triage.queue import MAX_SKIP, ORDERS
from .. import present
from ..api.deps import library_of
from .common import BadParam, html_errors, param_choice, param_int, param_str, render
from .paper import paper_links

__all__ = ["router", "UP_NEXT"]

router = APIRouter(include_in_schema=False)

#: Papers listed under "up next" below the current one.
UP_NEXT = 5
_STATES = ("unseen", "skimmed", "maybe", "keep", "reject")


def _ids(request: Request, name: str) -> list[str]:
    value = request.query_params.get(name) or ""
    ids = [p.strip() for p in value.split(",") if p.strip()]
    if len(ids) > MAX_SKIP:
        raise BadParam(f"{name} lists {len(ids)} papers; at most {MAX_SKIP}")
    return ids


@router.get("/queue", response_class=HTMLResponse)
@html_errors
def queue_page(request: Request) -> HTMLResponse:
    """Render the next unseen paper with its card, why it is next, the keys, and what follows."""
    order = param_choice(request, "order", ORDERS, "recommended")
    topic_id = param_int(request, "topic", -1, 1_000_000)
    skip = _ids(request, "skip")
    first = param_str(request, "paper")
    prev = param_str(request, "prev")
    was = param_choice(request, "was", _STATES, "unseen") if prev else None
    with library_of(request) as lib:
        found = lib.queue(order=order, limit=1 + UP_NEXT, topic_id=topic_id, skip=skip, first=first)
        current = found.items[0] if found.items else None
        paper = lib.get(current.hit.paper_id) if current else None
        topic_name = None
        if topic_id is not None:
            topic_name = next((t.name for t in lib.topics() if t.topic_id == topic_id), None)
    base = {"order": order, **({"topic": str(topic_id)} if topic_id is not None else {})}
    view: dict[str, Any] = {"item": None}
    if current and paper:
        fields, segments = present.paper_view(paper)
        view = {
            "item": current,
            "paper": paper,
            "fields": fields,
            "segments": segments,
            "paper_links": paper_links(paper),
            # A skip keeps the last mark's undo (reject, skip, oops: u still undoes the reject).
            "skip_url": "/queue?"
            + urlencode(
                {
                    **base,
                    "skip": ",".join([*skip, paper.paper_id][-MAX_SKIP:]),
                    **({"prev": prev, "was": was or "unseen"} if prev else {}),
                }
            ),
        }
    return render(
        request,
        "queue.html",
        nav="queue",
        queue=found,
        order=order,
        topic_id=topic_id,
        topic_name=topic_name,
        base_url="/queue?" + urlencode(base),
        order_urls={o: "/queue?" + urlencode({**base, "order": o}) for o in ORDERS},
        skip=",".join(skip),
        prev=prev,
        was=was,
        up_next=found.items[1:],
        states=_STATES,
        **view,
    )
