"""Reading-list exports: JSON Lines, CSV, BibTeX and a markdown checklist."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import bibtexparser
from bibtexparser.model import Entry, Field

from .. import strict_json
from ..models import Paper

__all__ = ["EXPORT_FORMATS", "export_papers"]

#: What export knows of a paper beside the Paper: ``{"marks": {starred, tags, note},
#: "topic": {topic_id, topic, subtopic_id, subtopic, is_outlier} or None}``.
Info = dict[str, Any]
_CSV_COLUMNS = [
    "paper_id",
    "label",
    "title",
    "venue",
    "year",
    "decision",
    "method_names",
    "code_urls",
    "sources",
    "topic",
    "starred",
    "tags",
    "note",
]
_BIBTEX_SPECIAL = re.compile(r"([&%$#_{}])")


def _row(paper: Paper, info: Info) -> dict[str, Any]:
    return {**paper.to_dict(), **info}


def _jsonl(papers: Iterable[tuple[Paper, Info]]) -> Iterator[str]:
    for paper, info in papers:
        yield strict_json.dumps(_row(paper, info), ensure_ascii=False) + "\n"


def _csv(papers: Iterable[tuple[Paper, Info]]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(_CSV_COLUMNS)
    for paper, info in papers:
        card, marks, topic = paper.card, info["marks"], info.get("topic")
        writer.writerow(
            [
                paper.paper_id,
                paper.label,
                paper.title or "",
                paper.venue or "",
                paper.year or "",
                paper.decision or "",
                "; ".join(card.method_names) if card else "",
                " ".join(card.code_urls) if card else "",
                "; ".join(f"{s.file_name}:{s.line}" for s in paper.sources),
                topic["topic"] if topic else "",
                "yes" if marks["starred"] else "",
                "; ".join(marks["tags"]),
                marks["note"] or "",
            ]
        )
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    rest = buffer.getvalue()
    if rest:
        yield rest


def _bib_escape(value: str) -> str:
    return _BIBTEX_SPECIAL.sub(r"\\\1", value)


def _bibtex(papers: Iterable[tuple[Paper, Info]]) -> Iterator[str]:
    for paper, info in papers:
        marks = info["marks"]
        fields = [Field("title", "{" + _bib_escape(paper.title or paper.label) + "}")]
        if paper.authors:
            fields.append(Field("author", _bib_escape(" and ".join(paper.authors))))
        if paper.venue:
            fields.append(Field("howpublished", _bib_escape(paper.venue)))
        if paper.year:
            fields.append(Field("year", str(paper.year)))
        urls = (paper.card.code_urls if paper.card else []) or paper.urls
        if urls:
            fields.append(Field("url", urls[0]))
        if marks["tags"]:
            fields.append(Field("keywords", _bib_escape(", ".join(marks["tags"]))))
        if marks["note"]:
            fields.append(Field("note", _bib_escape(marks["note"])))
        fields.append(Field("abstract", _bib_escape(paper.clean_text)))
        library = bibtexparser.Library([Entry("misc", f"paperscope:{paper.paper_id}", fields)])
        yield bibtexparser.write_string(library).strip() + "\n\n"


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
        if paper.card and paper.card.code_urls:
            line += f" — code: <{paper.card.code_urls[0].replace('>', '%3E')}>"
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
    "csv": _csv,
    "bibtex": _bibtex,
    "markdown": _markdown,
}


def export_papers(papers: Iterable[tuple[Paper, Info]], fmt: str) -> Iterator[str]:
    """Yield the text of ``papers`` (each with its :data:`Info`) in format ``fmt``, chunk by chunk.

    Raises:
        ValueError: ``fmt`` is not one of ``EXPORT_FORMATS``.

    """
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of: {', '.join(EXPORT_FORMATS)}")
    return EXPORT_FORMATS[fmt](papers)
