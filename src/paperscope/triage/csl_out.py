"""CSL-JSON export: the citation items Zotero, Pandoc (``--citeproc``) and citeproc-js read.

Strict JSON (``strict_json.dumps``), one array of items (CSL-JSON schema 1.0): ``id`` the citation
key, ``type`` ``paper-conference`` / ``article-journal`` / ``article`` (no venue), ``title``,
``author`` as ``{family, given}`` (``{literal}`` for a one-word or CJK name, see
``names.split_name``), ``container-title``, ``publisher``, ``issued`` ``{"date-parts": [[year]]}``,
``URL`` the paper's own page, ``DOI``, ``abstract``, ``keyword`` (the tags, comma-separated as
CSL has it) and ``note`` (the user's note, then the code link and the arXiv id, one per line).

A generated label (``title`` starts with :data:`~paperscope.models.LABEL_MARKER`) has its note,
:data:`.entry.LABEL_NOTE`, in ``note`` and in ``genre``: citeproc styles print no ``note``, while
pandoc's default (Chicago author-date) prints ``genre`` after the title for every item type.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .. import strict_json
from ..models import Paper
from .entry import LABEL_NOTE, ExportEntry, entry_of
from .names import split_name

__all__ = ["write_csl_json", "csl_item"]

_TYPES = {"conference": "paper-conference", "journal": "article-journal", "other": "article"}


def csl_item(entry: ExportEntry) -> dict[str, Any]:
    """Return the CSL-JSON item of one entry."""
    item: dict[str, Any] = {"id": entry.key, "type": _TYPES[entry.kind], "title": entry.title}
    if entry.authors:
        item["author"] = [split_name(a) for a in entry.authors]
    if entry.venue:
        item["container-title"] = entry.venue.name
        if entry.venue.publisher:
            item["publisher"] = entry.venue.publisher
    if entry.year:
        item["issued"] = {"date-parts": [[entry.year]]}
    if entry.url:
        item["URL"] = entry.url
    if entry.doi:
        item["DOI"] = entry.doi
    if entry.title_is_label:
        item["genre"] = LABEL_NOTE
    item["abstract"] = entry.abstract
    if entry.tags:
        item["keyword"] = ", ".join(entry.tags)
    lines = [entry.full_note] if entry.full_note else []
    lines += [f"Code: {entry.code_url}"] if entry.code_url else []
    lines += [f"arXiv: {entry.arxiv}"] if entry.arxiv else []
    if lines:
        item["note"] = "\n".join(lines)
    return item


def write_csl_json(papers: Iterable[tuple[Paper, dict[str, Any]]]) -> Iterator[str]:
    """Yield a CSL-JSON array, one item per line (``[]`` for no papers)."""
    first = True
    for paper, info in papers:
        yield ("[\n" if first else ",\n") + strict_json.dumps(
            csl_item(entry_of(paper, info)), ensure_ascii=False
        )
        first = False
    yield "[]\n" if first else "\n]\n"
