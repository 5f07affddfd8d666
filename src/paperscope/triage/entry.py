"""What every reference-manager export says about one paper, worked out once (``ExportEntry``).

The BibTeX, RIS, CSL-JSON, CSV and Markdown writers take the same fields from here, so they agree
on the title, the paper's own page, the code link and the note.

A paper without a title (``Paper.title_source`` ``generated``) is exported under its label marked
with :data:`~paperscope.models.LABEL_MARKER` ("[Label] NAME — what it does"), and its note says
so (:data:`LABEL_NOTE`); BibTeX and CSL-JSON also carry the note in the field citation styles
print (BibTeX ``type``, CSL ``genre``), because citeproc (pandoc's, Zotero's) prints no ``note``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..confidence import shown_card
from ..links import paper_links
from ..models import LABEL_MARKER, Paper, claim_text
from .venues import Venue, venue_info

__all__ = ["ExportEntry", "entry_of", "card_summary", "LABEL_NOTE", "LABEL_MARKER", "SUMMARY_CLAIMS"]

#: The note an entry carries when its title is paperscope's label (the list gave no title).
LABEL_NOTE = "Title given by paperscope (the source list has no title)."
#: Which link is the paper's own page, best first: the forum, the arXiv abstract, the
#: proceedings page (any other web page the record names), the DOI resolver.
_OWN_PAGE = ("openreview", "arxiv", "url", "doi")
#: Decisions that mean the venue did not publish the paper: it is exported as a submission.
_NOT_PUBLISHED = re.compile(r"reject|withdraw|desk", re.I)


@dataclass
class ExportEntry:
    """One paper as the exports write it; text fields are plain Unicode (each writer escapes)."""

    paper_id: str
    key: str
    #: The title, or the label marked with LABEL_MARKER when the paper has none.
    title: str
    title_is_label: bool
    authors: list[str]
    venue: Venue | None
    year: int | None
    abstract: str
    url: str | None = None
    code_url: str | None = None
    pdf_url: str | None = None
    doi: str | None = None
    arxiv: str | None = None
    tags: list[str] = field(default_factory=list)
    note: str | None = None
    state: str | None = None
    starred: bool = False
    submitted_to: str | None = None

    @property
    def kind(self) -> str:
        """``"conference"``, ``"journal"`` or ``"other"`` (no venue, or a preprint server)."""
        return self.venue.kind if self.venue else "other"

    @property
    def full_note(self) -> str | None:
        """The user's note, then :data:`LABEL_NOTE` when the title is paperscope's label."""
        parts = [(self.note or "").strip(), LABEL_NOTE if self.title_is_label else ""]
        parts = [p for p in [*parts, self.submitted_to or ""] if p]
        return "\n\n".join(parts) or None


def entry_of(paper: Paper, info: dict[str, Any]) -> ExportEntry:
    """Return the export fields of ``paper`` with its ``info`` (``marks``, and ``key`` when known)."""
    card = paper.card.to_dict() if paper.card else {}
    links = paper_links(
        paper.urls or [],
        paper.external_ids or {},
        card.get("code_urls") or [],
        card.get("project_urls") or [],
    )
    marks = info.get("marks") or {}
    ids = paper.external_ids or {}
    venue = venue_info(paper.venue)
    submitted_to = None
    if venue and paper.decision and _NOT_PUBLISHED.search(paper.decision):
        # A rejected or withdrawn submission is not in the proceedings: no booktitle, an @misc.
        submitted_to = f"Submitted to {venue.name}" + (f" {paper.year}" if paper.year else "")
        submitted_to += f" (decision: {paper.decision})."
        venue = None
    return ExportEntry(
        paper_id=paper.paper_id,
        key=info.get("key") or f"paperscope{paper.paper_id}",
        title=paper.display_label,
        title_is_label=paper.title_source == "generated",
        authors=list(paper.authors),
        venue=venue,
        year=paper.year,
        abstract=paper.clean_text,
        url=next((links[k] for k in _OWN_PAGE if k in links), None),
        code_url=links.get("code"),
        pdf_url=links.get("pdf"),
        doi=ids.get("doi"),
        arxiv=ids.get("arxiv"),
        tags=list(marks.get("tags") or []),
        note=marks.get("note"),
        state=marks.get("triage"),
        starred=bool(marks.get("starred")),
        submitted_to=submitted_to,
    )


#: Claims a card summary shows (the reading lists: HTML and Markdown).
SUMMARY_CLAIMS = 2


def card_summary(paper: Paper) -> list[tuple[str, str]]:
    """Return the ``(field, text)`` rows of a card summary: methods, tasks, datasets, first claims.

    Empty fields are left out; ``[]`` for a paper without a card.
    """
    if paper.card is None:
        return []
    card = shown_card(paper.card.to_dict())  # confident items only (issue 27)
    rows = [
        ("Methods", ", ".join(card.get("method_names") or [])),
        ("Tasks", ", ".join(t.get("text", "") for t in card.get("tasks") or [])),
        ("Datasets", ", ".join(d.get("name", "") for d in card.get("datasets") or [])),
        ("Claims", "; ".join(claim_text(c) for c in (card.get("claims") or [])[:SUMMARY_CLAIMS])),
    ]
    return [(name, text) for name, text in rows if text.strip(" ,;")]
