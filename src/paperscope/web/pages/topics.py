"""The topics page ``/topics``: every broad topic with its size, name, subtopics and representative papers."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ...errors import NotFound
from ..api.deps import library_of
from .common import html_errors, render

__all__ = ["router", "REPRESENTATIVES"]

router = APIRouter(include_in_schema=False)

#: Representative papers listed per topic.
REPRESENTATIVES = 5


@router.get("/topics", response_class=HTMLResponse)
@html_errors
def topics_page(request: Request) -> HTMLResponse:
    """Render the stored topics (a GET never fits them; before a fit the page says how)."""
    with library_of(request) as lib:
        found = lib.topics()
        stale = lib.topics_are_stale() if found else False
        labels: dict[str, tuple[str, str]] = {}

        def label(paper_id: str) -> tuple[str, str] | None:
            """Return the paper's (label, title_source), None for a paper removed since the fit."""
            if paper_id not in labels:
                try:
                    paper = lib.get(paper_id)
                except NotFound:
                    return None
                labels[paper_id] = (paper.label, paper.title_source)
            return labels[paper_id]

        def view(topic: Any) -> dict[str, Any]:
            reps = [(pid, label(pid)) for pid in topic.representative_ids[:REPRESENTATIVES]]
            return {
                "topic_id": topic.topic_id,
                "name": topic.name,
                "size": topic.size,
                "key_phrases": list(topic.key_phrases[:8]),
                "unassigned": topic.is_unassigned,
                "representatives": [(pid, *named) for pid, named in reps if named and named[0]],
                "subtopics": [],
            }

        broad = [view(t) for t in found if t.level == 0]
        by_id = {t["topic_id"]: t for t in broad}
        for topic in found:
            if topic.level == 1 and topic.parent_id in by_id:
                by_id[topic.parent_id]["subtopics"].append(
                    {"topic_id": topic.topic_id, "name": topic.name, "size": topic.size}
                )
        n_papers = len(lib)
    broad.sort(key=lambda t: (t["unassigned"], -t["size"], t["topic_id"]))
    return render(request, "topics.html", nav="topics", topics=broad, stale=stale, n_papers=n_papers)
