"""Reading-list exports: the registry of formats, and the JSON Lines and Markdown writers.

The reference-manager formats live in their own modules: BibTeX (:mod:`.bibtex_out`), RIS
(:mod:`.ris_out`), CSL-JSON (:mod:`.csl_out`), CSV (:mod:`.csv_out`) and a self-contained
HTML reading list grouped by topic (:mod:`.html_out`); they share
:func:`.entry.entry_of` (title, own page, code link, note) and the library-wide citation keys of
:mod:`.citekeys`, which :meth:`paperscope.Library.export` puts in each paper's ``info["key"]``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .. import strict_json
from ..models import Paper
from .bibtex_out import write_bibtex
from .csl_out import write_csl_json
from .csv_out import write_csv
from .entry import entry_of
from .html_out import write_html
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


#: What Markdown reads as markup inside a line: emphasis, code, links, strikethrough, raw HTML
#: (``<``) and entity references (``&name;``). Each is backslash-escaped in paper text (CommonMark
#: 0.31 §2.4: any ASCII punctuation may be); a lone ``&`` or ``>`` mid-line is already literal.
_MD_SPECIAL = re.compile(r"[\\`*_\[\]<~]|&(?=#?[A-Za-z0-9]+;)")


def _md(text: object) -> str:
    """Return text from a paper or a mark as literal Markdown: no HTML, links or emphasis pass through."""
    return _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), str(text))


def _markdown(papers: Iterable[tuple[Paper, Info]]) -> Iterator[str]:
    yield "# Reading list\n\n"
    for paper, info in papers:
        marks = info["marks"]
        venue = " ".join(str(v) for v in (paper.venue, paper.year) if v)
        line = f"- [ ] {'★ ' if marks['starred'] else ''}**{_md(paper.label)}**"
        if venue:
            line += f" ({_md(venue)})"
        line += f" `{paper.paper_id}`"
        entry = entry_of(paper, info)
        if entry.url:
            line += f" — <{entry.url}>"
        if entry.code_url:
            line += f" — code: <{entry.code_url}>"
        if marks["tags"]:
            line += " — " + " ".join(f"#{_md(t)}" for t in marks["tags"])
        yield line + "\n"
        if marks["note"]:
            # Continuation lines are indented under the note item (CommonMark list items), so a
            # multi-line note stays inside the list.
            lines = marks["note"].strip().splitlines() or [""]
            yield f"  - note: {_md(lines[0])}\n" + "".join(f"    {_md(rest)}\n" for rest in lines[1:])


#: Every ``paperscope export --format`` choice and the writer behind it.
EXPORT_FORMATS: dict[str, Callable[[Iterable[tuple[Paper, Info]]], Iterator[str]]] = {
    "jsonl": _jsonl,
    "csv": write_csv,
    "bibtex": write_bibtex,
    "markdown": _markdown,
    "ris": write_ris,
    "csl-json": write_csl_json,
    "html": write_html,
}


def export_papers(papers: Iterable[tuple[Paper, Info]], fmt: str) -> Iterator[str]:
    """Yield the text of ``papers`` (each with its :data:`Info`) in format ``fmt``, chunk by chunk.

    Raises:
        ValueError: ``fmt`` is not one of ``EXPORT_FORMATS``.

    """
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of: {', '.join(EXPORT_FORMATS)}")
    return EXPORT_FORMATS[fmt](papers)
