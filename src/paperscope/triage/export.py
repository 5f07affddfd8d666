"""Reading-list exports: the registry of formats, and the JSON Lines and Markdown writers.

The reference-manager formats live in their own modules: BibTeX (:mod:`.bibtex_out`), RIS
(:mod:`.ris_out`), CSL-JSON (:mod:`.csl_out`), CSV (:mod:`.csv_out`) and a self-contained
HTML reading list grouped by topic (:mod:`.html_out`), and the attendee's calendar of sessions
(iCalendar, :mod:`.ics_out`); they share
:func:`.entry.entry_of` (title, own page, code link, note) and the library-wide citation keys of
:mod:`.citekeys`, which :meth:`paperscope.Library.export` puts in each paper's ``info["key"]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .. import strict_json
from ..models import Paper
from .bibtex_out import write_bibtex
from .csl_out import write_csl_json
from .csv_out import write_csv
from .html_out import write_html
from .ics_out import write_ics
from .markdown_out import write_markdown
from .ris_out import write_ris

__all__ = ["EXPORT_FORMATS", "export_papers"]

#: What export knows of a paper beside the Paper: ``{"marks": {starred, tags, note, triage},
#: "topic": {topic_id, topic, subtopic_id, subtopic, is_outlier} or None, "key": citation key}``
#: (``key`` optional: without it an entry's key is ``paperscope`` + its paper_id).
Info = dict[str, Any]


def _row(paper: Paper, info: Info) -> dict[str, Any]:
    return {**paper.to_dict(), **info}


def _jsonl(papers: Iterable[tuple[Paper, Info]]) -> Iterator[str]:
    for paper, info in papers:
        yield strict_json.dumps(_row(paper, info), ensure_ascii=False) + "\n"


#: Every ``paperscope export --format`` choice and the writer behind it.
EXPORT_FORMATS: dict[str, Callable[[Iterable[tuple[Paper, Info]]], Iterator[str]]] = {
    "jsonl": _jsonl,
    "csv": write_csv,
    "bibtex": write_bibtex,
    "markdown": write_markdown,
    "ris": write_ris,
    "csl-json": write_csl_json,
    "html": write_html,
    "ics": write_ics,
}


def export_papers(papers: Iterable[tuple[Paper, Info]], fmt: str) -> Iterator[str]:
    """Yield the text of ``papers`` (each with its :data:`Info`) in format ``fmt``, chunk by chunk.

    Raises:
        ValueError: ``fmt`` is not one of ``EXPORT_FORMATS``.

    """
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of: {', '.join(EXPORT_FORMATS)}")
    return EXPORT_FORMATS[fmt](papers)
