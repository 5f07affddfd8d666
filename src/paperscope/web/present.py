"""View models for the pages: readable card fields with span references, the abstract as segments, snippets.

Everything here returns plain values (strings, ints, lists, dataclasses); the templates escape
them (Jinja2 autoescape). :func:`highlight` is the one function that builds markup itself, and
it escapes every piece of text it puts in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any
from urllib.parse import urlencode

from markupsafe import Markup, escape

from ..confidence import shown_card
from ..links import LINK_KINDS, is_web_url
from ..models import claim_text
from ..text import fold, readable

__all__ = [
    "Piece",
    "CardField",
    "Segment",
    "card_fields",
    "abstract_segments",
    "paper_view",
    "highlight",
    "safe_url",
    "source_text",
    "attached_view",
    "area_text",
    "claim_text",
    "is_echo",
    "paper_subtitle",
    "link_items",
    "url_with",
    "url_without",
]

_WORD = re.compile(r"\w+")
_NOT_WORD = re.compile(r"[\W_]+")


def _comparable(text: str) -> str:
    """Return ``text`` as words only: TeX as text, NFKC, casefolded, punctuation as spaces."""
    return " ".join(_NOT_WORD.sub(" ", fold(readable(text))).split())


def is_echo(label: str, title: str) -> bool:
    r"""Return True when ``label`` says nothing the title does not: equal or contained, either way.

    Compared as words (:func:`_comparable`), so case, punctuation, TeX and white space do not
    count: ``"PAGE — A Simple Method"`` echoes ``"PAGE: a simple method"``, ``"$k$-means at
    Scale…"`` (a title cut short) echoes ``"\(k\)-Means at Scale for Everyone"``.
    """
    lab, tit = _comparable(label), _comparable(title)
    return not lab or f" {lab} " in f" {tit} " or f" {tit} " in f" {lab} "


def paper_subtitle(paper: Any) -> str:
    """Return the grey line under a paper's title: its card label, or "" when that echoes the title.

    A paper without a title shows its label as the heading, so it has no subtitle either.
    """
    label = paper.card.label if paper.card else ""
    if not paper.title or not label or is_echo(label, paper.title):
        return ""
    return readable(label)


@dataclass
class Piece:
    """One value of a card field: its text, the abstract span it comes from, and a link.

    ``span`` is the ``data-span`` number of its highlighted text in the abstract, or None
    when the value has no (usable) span; ``href`` is an http(s) URL or None.
    """

    text: str
    span: int | None = None
    href: str | None = None


@dataclass
class CardField:
    """A named card field (``name`` is the catalogue key of its label) and its readable values."""

    name: str
    pieces: list[Piece] = field(default_factory=list)


@dataclass
class Segment:
    """A run of abstract text: plain (``span`` None) or a card span with its field name."""

    text: str
    span: int | None = None
    field: str | None = None


def safe_url(url: object) -> str | None:
    """Return ``url`` when it is an http(s) URL without spaces or quotes, else None."""
    return url.strip() if isinstance(url, str) and is_web_url(url.strip()) else None


def source_text(source: Any) -> str:
    """Return "FILE_NAME:LINE" for a Source (never a folder path)."""
    return f"{PurePath(str(source.path)).name}:{source.line}"


def attached_view(row: Mapping[str, Any]) -> dict[str, Any]:
    """Return an ``enrich`` provenance row (``Library.enrichments``) as shown: the program's file name only."""
    return {
        "program": PurePath(str(row["program"])).name,
        "entry_line": int(row["entry_line"]),
        "session": row.get("session") or None,
        "method": str(row["method"]),
        "fields": [str(f) for f in row.get("fields") or []],
    }


def area_text(area: Mapping[str, Any] | None) -> str:
    """Return "label (source, 49%)" for a card area, or "" when there is none."""
    if not area or not area.get("label"):
        return ""
    label = str(area["label"])
    parts = [str(area["source"])] if area.get("source") else []
    confidence = area.get("confidence")
    if isinstance(confidence, int | float) and area.get("source") != "source":
        parts.append(f"{round(float(confidence) * 100)}%")
    return f"{label} ({', '.join(parts)})" if parts else label


def _span_of(entry: Mapping[str, Any], length: int) -> tuple[int, int] | None:
    start, end = entry.get("start"), entry.get("end")
    if isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= length:
        return start, end
    return None


def _fields_and_spans(paper: Any) -> tuple[list[CardField], list[tuple[int, int, int, str]]]:
    """Return the card fields and the spans ``(start, end, K, field)`` their pieces point at."""
    text: str = paper.clean_text or ""
    # Only confident methods, datasets and claims are shown; the card JSON keeps them all (issue 27).
    card = shown_card(paper.card.to_dict()) if getattr(paper, "card", None) else {}
    spans: list[tuple[int, int, int, str]] = []
    fields_: list[CardField] = []

    def piece(label: str, entry: Mapping[str, Any] | None, kind: str, href: str | None = None) -> Piece:
        where = _span_of(entry, len(text)) if entry is not None else None
        if where is None:
            return Piece(label, None, href)
        number = len(spans)
        spans.append((where[0], where[1], number, kind))
        return Piece(label, number, href)

    def add(name: str, pieces: list[Piece]) -> None:
        seen: set[str] = set()
        unique = [p for p in pieces if p.text and not (p.text in seen or seen.add(p.text))]
        if unique:
            fields_.append(CardField(name, unique))

    methods = card.get("methods") or []
    if methods:
        add(
            "methods",
            [
                piece(
                    f"{m['name']} ({m['long_form']})" if m.get("long_form") else str(m.get("name", "")),
                    m,
                    "method",
                )
                for m in methods
                if isinstance(m, Mapping)
            ],
        )
    else:
        add("methods", [Piece(str(n)) for n in card.get("method_names") or [] if isinstance(n, str)])
    add(
        "contribution",
        [piece(str(c.get("type", "")), c, "contribution") for c in card.get("contribution_types") or []],
    )
    add("tasks", [piece(str(t.get("text", "")), t, "task") for t in card.get("tasks") or []])
    add("datasets", [piece(str(d.get("name", "")), d, "dataset") for d in card.get("datasets") or []])
    add("claims", [piece(claim_text(c), c, "claim") for c in card.get("claims") or []])
    area = area_text(card.get("area"))
    if area:
        add("area", [Piece(area)])
    # Author keywords are stored as the source wrote them ("$k$-median"): shown as clean text.
    add("keywords", [Piece(readable(str(k))) for k in getattr(paper, "keywords", None) or []])
    code = []
    for url in list(card.get("code_urls") or []) + list(card.get("project_urls") or []):
        href = safe_url(url)
        if href is None:
            continue
        at = text.find(href)
        entry = {"start": at, "end": at + len(href)} if at >= 0 else None
        code.append(piece(href, entry, "code", href))
    add("code", code)
    return fields_, spans


def card_fields(paper: Any) -> list[CardField]:
    """Return the card of ``paper`` as readable fields; only pieces whose span is shown keep it.

    Field names (catalogue keys): methods, contribution, tasks, datasets, claims, area,
    keywords, code. A field with no value is left out.
    """
    return paper_view(paper)[0]


def abstract_segments(paper: Any) -> list[Segment]:
    """Return ``paper.clean_text`` cut into plain runs and card spans (overlaps skipped)."""
    return paper_view(paper)[1]


def paper_view(paper: Any) -> tuple[list[CardField], list[Segment]]:
    """Return ``(card fields, abstract segments)`` that agree on their span numbers.

    Spans are laid out by start offset (the longer first on a tie); a span that overlaps one
    already laid out is skipped, and the pieces pointing at it lose their ``span`` so that no
    value refers to a highlight the abstract does not have.
    """
    fields_, spans = _fields_and_spans(paper)
    text: str = paper.clean_text or ""
    segments: list[Segment] = []
    shown: set[int] = set()
    at = 0
    for start, end, number, kind in sorted(spans, key=lambda s: (s[0], -(s[1] - s[0]), s[2])):
        if start < at:
            continue
        if start > at:
            segments.append(Segment(text[at:start]))
        segments.append(Segment(text[start:end], number, kind))
        shown.add(number)
        at = end
    if at < len(text):
        segments.append(Segment(text[at:]))
    for card_field in fields_:
        for p in card_field.pieces:
            if p.span is not None and p.span not in shown:
                p.span = None
    return fields_, segments


def highlight(text: str, terms: Iterable[str]) -> Markup:
    """Return ``text`` escaped, with each word whose folded form is in ``terms`` in ``<mark>``."""
    wanted = {fold(t) for t in terms if t}
    if not wanted:
        return Markup(escape(text))
    out: list[str] = []
    at = 0
    for match in _WORD.finditer(text):
        if fold(match.group()) in wanted:
            out.append(str(escape(text[at : match.start()])))
            out.append(f"<mark>{escape(match.group())}</mark>")
            at = match.end()
    out.append(str(escape(text[at:])))
    return Markup("".join(out))


def link_items(links: Mapping[str, str] | None) -> list[tuple[str, str]]:
    """Return ``[(kind, url)]`` in :data:`LINK_KINDS` order, http(s) URLs only."""
    if not links:
        return []
    items = [(k, safe_url(links.get(k))) for k in LINK_KINDS if k in links]
    return [(k, u) for k, u in items if u]


def _encode(params: Iterable[tuple[str, str]]) -> str:
    query = urlencode([(k, v) for k, v in params if v != ""])
    return f"/?{query}" if query else "/"


def url_with(params: list[tuple[str, str]], key: str, value: str, path: str = "/") -> str:
    """Return ``path`` with ``params`` plus ``key=value`` (replacing ``key``), paging reset."""
    kept = [(k, v) for k, v in params if k not in (key, "offset")]
    return _with_path(_encode([*kept, (key, value)]), path)


def url_without(params: list[tuple[str, str]], key: str, path: str = "/") -> str:
    """Return ``path`` with ``params`` minus ``key`` (and paging reset)."""
    return _with_path(_encode([(k, v) for k, v in params if k not in (key, "offset")]), path)


def _with_path(url: str, path: str) -> str:
    return path + url[1:] if path != "/" else url
