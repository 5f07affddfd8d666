"""RIS export (the tagged format EndNote, Zotero and Mendeley import), written with rispy.

One record per paper: ``TY`` (``CONF`` for a conference paper: bibutils and Zotero both know it, bibutils not ``CPAPER``, ``JOUR`` for a journal article,
``GEN`` without a venue), ``ID`` the citation key, ``TI``, ``AU`` per author ("Family, Given"),
``T2`` the proceedings or journal name (``BT`` too for a conference paper), ``PB``, ``PY``, ``UR`` the paper's own page, then the code
link and the PDF (``UR``, ``L1``), ``DO``, ``AB``, ``KW`` per tag and ``N1`` for the note. RIS is
line-based, so line breaks inside a field become spaces (a reader would take the next line for a
new tag or drop it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from rispy import TAG_KEY_MAPPING, RisWriter

from ..models import Paper
from .entry import LABEL_NOTE, ExportEntry, entry_of
from .names import split_name

__all__ = ["write_ris", "ris_record"]


class _Writer(RisWriter):
    """rispy's writer without its ``1.``, ``2.`` … line before each record (not part of RIS)."""

    def set_header(self, count: int) -> str:
        return ""


#: rispy's tags plus ``BT``: bibutils reads a ``CONF`` record's venue from ``BT`` as the
#: ``booktitle`` (from ``T2`` as a ``series``); Zotero and rispy read it from ``T2``: both are written.
_WRITER = _Writer(mapping={**TAG_KEY_MAPPING, "BT": "book_title"})
_TYPES = {"conference": "CONF", "journal": "JOUR", "other": "GEN"}


def _line(text: str) -> str:
    return " ".join(text.split())


def _ris_name(name: str) -> str:
    parts = split_name(name)
    if "literal" in parts:
        return parts["literal"]
    family = parts["family"] + (f", {parts['suffix']}" if parts.get("suffix") else "")
    return f"{family}, {parts['given']}"


def ris_record(entry: ExportEntry) -> dict[str, Any]:
    """Return the rispy dict (rispy's field names) of one entry."""
    record: dict[str, Any] = {
        "type_of_reference": _TYPES[entry.kind],
        "id": entry.key,
        "title": _line(entry.title),
    }
    if entry.authors:
        record["authors"] = [_ris_name(a) for a in entry.authors]
    if entry.venue:
        record["secondary_title"] = entry.venue.name
        if entry.kind == "conference":
            record["book_title"] = entry.venue.name
        if entry.kind == "journal":
            record["journal_name"] = entry.venue.name
        if entry.venue.publisher:
            record["publisher"] = entry.venue.publisher
    if entry.year:
        record["year"] = str(entry.year)
    urls = [u for u in (entry.url, entry.code_url) if u]
    if urls:
        record["urls"] = urls
    if entry.pdf_url:
        record["file_attachments1"] = entry.pdf_url
    if entry.doi:
        record["doi"] = entry.doi
    record["abstract"] = _line(entry.abstract)
    if entry.tags:
        record["keywords"] = [_line(t) for t in entry.tags]
    notes = [_line(entry.note)] if entry.note and entry.note.strip() else []
    if entry.title_is_label:
        notes.append(LABEL_NOTE)
    if entry.submitted_to:
        notes.append(entry.submitted_to)
    if notes:
        record["notes"] = notes
    return record


def write_ris(papers: Iterable[tuple[Paper, dict[str, Any]]]) -> Iterator[str]:
    """Yield one RIS record per paper, each ending with ``ER  -`` and a blank line."""
    for paper, info in papers:
        yield _WRITER.formats([ris_record(entry_of(paper, info))]) + "\n"
