"""CSV export: one row per paper with its text, metadata, links and the user's marks.

The columns are named so that ``paperscope ingest`` reads the file back as the same papers
(``ingest.fields.FIELD_ALIASES``): ``title``, ``abstract`` (the text as the source gave it, so
the paper_id comes out the same), ``authors`` and ``keywords`` (``; ``-separated; a lone item the
reader would split at a comma or "and" ends in ``;``), ``venue``,
``year``, ``decision``, ``area``, ``link`` / ``code_url`` / ``pdf_url`` (all read as URLs), ``doi``,
``arxiv_id`` and ``openreview_id``. The marks use names ingest ignores (``user_tags``, ``state``,
``starred``, ``note``) so they never turn into paper keywords; ``paperscope restore`` is the way
to carry marks across libraries. ``topic_label`` is paperscope's topic (not ``topic``, which
ingest would read as the source's area). ``label`` is what a person reads as the paper's name (the
title, or the generated label marked :data:`~paperscope.models.LABEL_MARKER`), ``title`` only a
real title, and ``title_source`` says where it came from (``Paper.title_source``).

A cell that a spreadsheet would run as a formula (one starting with ``=``, ``+``, ``-``, ``@``, tab
or CR) is written after a ``'`` (OWASP CSV injection guidance); ``paperscope ingest`` knows its own
export by the first columns and removes that quote again, so re-ingesting gives the same papers.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..confidence import shown_card
from ..ingest.csv_table import defuse_formula
from ..ingest.fields import split_authors, split_list
from ..models import Paper
from .entry import entry_of

__all__ = ["CSV_COLUMNS", "write_csv"]

CSV_COLUMNS = [
    "paper_id",
    "citation_key",
    "label",
    "title",
    "title_source",
    "authors",
    "abstract",
    "venue",
    "year",
    "decision",
    "keywords",
    "area",
    "link",
    "code_url",
    "pdf_url",
    "doi",
    "arxiv_id",
    "openreview_id",
    "state",
    "starred",
    "user_tags",
    "note",
    "topic_label",
    "method_names",
    "sources",
]


def _list_cell(items: list[str], split: Callable[[str], list[str]]) -> str:
    """Return ``items`` ``; ``-joined so that the reader's ``split`` gives them back.

    The reader splits a cell without ``;`` at commas (keywords) or at ", " / " and " / "&"
    (authors), so a lone item holding one ("Samuel L. Smith and Quoc V. Le", a source's
    one-string author list) gets a trailing ``;``: then ``;`` is the separator and the item stays whole.
    """
    cell = "; ".join(items)
    return cell + ";" if len(items) == 1 and len(split(cell)) > 1 else cell


def _row(paper: Paper, info: dict[str, Any]) -> list[Any]:
    entry = entry_of(paper, info)
    topic, ids = info.get("topic"), paper.external_ids or {}
    return [
        paper.paper_id,
        entry.key,
        paper.display_label,
        paper.title or "",
        paper.title_source,
        _list_cell(paper.authors, split_authors),
        paper.abstract,
        paper.venue or "",
        paper.year or "",
        paper.decision or "",
        _list_cell(paper.keywords, split_list),
        paper.source_area or "",
        entry.url or "",
        entry.code_url or "",
        entry.pdf_url or "",
        ids.get("doi", ""),
        ids.get("arxiv", ""),
        ids.get("openreview", ""),
        entry.state or "",
        "yes" if entry.starred else "",
        "; ".join(entry.tags),
        entry.note or "",
        topic["topic"] if topic else "",
        "; ".join(shown_card(paper.card.to_dict())["method_names"]) if paper.card else "",
        "; ".join(f"{s.file_name}:{s.line}" for s in paper.sources),
    ]


def _cell(value: Any) -> Any:
    """Return a text cell made safe for a spreadsheet; other values unchanged.

    CR line ends become LF (the reader's own reading; Python 3.11's csv writer would leave a lone
    CR unquoted), then :func:`~paperscope.ingest.csv_table.defuse_formula` applies.
    """
    if not isinstance(value, str):
        return value
    return defuse_formula(value.replace("\r\n", "\n").replace("\r", "\n"))


def write_csv(papers: Iterable[tuple[Paper, dict[str, Any]]]) -> Iterator[str]:
    """Yield the header, then one CSV row per paper (LF line ends, cells quoted as needed)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for paper, info in papers:
        writer.writerow([_cell(c) for c in _row(paper, info)])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    if buffer.getvalue():
        yield buffer.getvalue()
