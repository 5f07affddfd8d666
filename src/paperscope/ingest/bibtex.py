r"""Reader for BibTeX files as reference managers export them (Zotero, JabRef, Mendeley, Google Scholar, DBLP).

bibtexparser 2 splits each entry into its fields; what BibTeX itself does with their values,
bibtexparser 2 leaves undone, so this module does it (``_value``):

* ``@string`` macros, predefined month macros (``month = jan``) and concatenation with ``#``
  (``booktitle = icml # " 2026"``), resolved in file order as BibTeX does;
* ``crossref`` (BibTeX) and ``xdata`` (biblatex) inheritance: an entry takes the fields it lacks
  (booktitle, year, publisher, …) from the entry it names, wherever that entry is in the file (DBLP
  puts the ``@proceedings`` after the papers). A parent ``@proceedings``/``@book``'s title becomes
  the child's booktitle, a ``@periodical``'s its journal (biblatex's rules). Identity and content
  (title, authors, abstract, DOI, URL, eprint, keywords) are never inherited: a proceedings
  volume's DOI is not its papers' DOI. A parent without an abstract is a container, not a paper,
  and is not reported;
* ``%`` starts a comment outside entries and on a line of its own between fields; inside a field
  value it is text (``50\%``, or a bare ``%``);
* ``@comment`` (braced, in parentheses or brace-less, as JabRef and BibDesk write it) and
  ``@preamble`` blocks are passed over.

The file is cut into entries at lines that start with ``@`` outside braces (or with an entry head
such as ``@article{key,`` at column 0 inside an unclosed brace: an entry that never closes is
reported alone, not allowed to swallow the next), and each entry is parsed on its own, so memory
holds one entry however large the file; an entry over ``files.MAX_RECORD_CHARS`` is skipped with
its size, unread. A file with ``crossref`` or ``xdata`` is read twice (first for the parents).
Titles and author names go through the shared LaTeX converter (``Jos{\'e}`` → ``José``,
``{\"U}ber`` → ``Über``: case 10); the abstract keeps its LaTeX as the original text and is
cleaned like every other abstract.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import bibtexparser
from bibtexparser.middlewares.names import parse_single_name_into_parts, split_multiple_persons_names

from ..models import Record, Skip, Source
from ..text import latex_to_text
from .fields import arxiv_id, external_ids_from, split_venue
from .files import MAX_RECORD_CHARS, TooLong, brace_balance, iter_lines, too_long_reason

__all__ = ["FORMAT", "read_bibtex"]

FORMAT = "bibtex"

_SKIP_TYPES = {"comment", "preamble", "string"}
_ENTRY_HEAD_RE = re.compile(r"@[A-Za-z]+\s*[{(]\s*[^\s,{}()]+\s*,")
_PAREN_HEAD_RE = re.compile(r"\s*@\s*[A-Za-z]+\s*\(")
_HEAD_RE = re.compile(r"\s*@\s*([A-Za-z]+)\s*[{(]\s*([^\s,{}()]*)")
# "@comment" in any form: braced or in parentheses (JabRef's "@Comment{jabref-meta: ...}", BibDesk's
# "@comment{BibDesk Static Groups{...}}") or brace-less ("@comment any text"), which BibTeX reads as
# a comment up to the next "@" line (btxdoc, "The Entries": @COMMENT needs no delimiters).
_COMMENT_HEAD_RE = re.compile(r"\s*@\s*comment(?![A-Za-z0-9_-])", re.IGNORECASE)
_REF_RE = re.compile(r"\b(crossref|xdata)\s*=\s*[{\"]([^{}\"]*)[}\"]", re.IGNORECASE)
_MONTHS = {
    m[:3].lower(): m
    for m in ("January February March April May June July August September October November December").split()
}
#: Entry types that hold a volume's data for the entries that ``crossref`` them.
_CONTAINERS = {
    "proceedings",
    "mvproceedings",
    "book",
    "mvbook",
    "collection",
    "mvcollection",
    "periodical",
    "reference",
    "mvreference",
    "xdata",
}
#: Fields a child never takes from its parent: the paper's own identity and content.
_NOT_INHERITED = {
    "title",
    "subtitle",
    "author",
    "abstract",
    "doi",
    "eprint",
    "url",
    "keywords",
    "crossref",
    "xdata",
    "ids",
    "pages",
    "file",
    "note",
    "isbn",
    "issn",
}
_YEAR_RE = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
# ``\'{e}`` → ``{\'e}``: the shared converter takes an accent's letter only when it follows directly.
_ACCENT_GROUP_RE = re.compile(r"\\([`'^\"~=.uvHckdbrt])\s*\{(\\?[A-Za-z])\}")


class _Oversized(int):
    """The length in characters of an entry passed over unread."""


def _scan(line: str, depth: int, quoted: bool) -> tuple[str, int, bool]:
    """Follow braces and quotes through one line of an entry; cut a ``%`` comment between fields.

    Returns the line (without its comment), the brace depth after it, and whether a quoted
    value is open at depth 1 (``title = "..."`` over several lines).
    """
    i = 0
    while i < len(line):
        char = line[i]
        if char == "\\":
            i += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == '"' and depth == 1:
            quoted = not quoted
        elif char == "%" and depth == 1 and not quoted:
            return line[:i], depth, quoted
        i += 1
    return line, depth, quoted


def _entry_chunks(path: Path) -> Iterator[tuple[int, str | _Oversized]]:
    """Yield ``(first_line, text)`` for each top-level ``@`` block; ``_Oversized`` for one too large to hold."""
    lines: list[str] = []
    start = 0
    depth = 0
    opened = False  # the block's braces opened (and may have closed again)
    chars = 0
    active = False
    paren = False
    quoted = False
    for number, line in iter_lines(path):
        text = line if isinstance(line, str) else line.head
        head = text.lstrip().startswith("@")
        if (depth <= 0 and head) or (depth > 0 and _ENTRY_HEAD_RE.match(text)):
            if active:
                yield start, _Oversized(chars) if chars > MAX_RECORD_CHARS else "\n".join(lines)
            lines, start, depth, opened, chars, active, quoted = [], number, 0, False, 0, True, False
            # "@article(key, ...)" is closed by its ")": it runs to the next "@" line instead.
            paren = _PAREN_HEAD_RE.match(text) is not None
        if not active or (opened and depth <= 0):
            continue  # text outside entries is a comment in BibTeX
        if isinstance(line, TooLong):
            chars += line.chars + 1
            depth += line.braces
        else:
            if '"' in text or "%" in text:
                text, depth, quoted = _scan(text, depth, quoted)
            else:
                depth += brace_balance(text)
            chars += len(text) + 1
            if chars <= MAX_RECORD_CHARS:
                lines.append(text)
        # "{" on a balanced line: opened and closed on it.
        opened = not paren and (opened or depth > 0 or "{" in text)
        if chars > MAX_RECORD_CHARS:
            lines = []
    if active:
        yield start, _Oversized(chars) if chars > MAX_RECORD_CHARS else "\n".join(lines)


def _split_concatenation(raw: str) -> list[str]:
    """Split a raw field value on ``#`` outside braces and quotes."""
    parts: list[str] = []
    depth = 0
    quoted = False
    begin = 0
    for i, char in enumerate(raw):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == '"' and depth == 0 and (i == 0 or raw[i - 1] != "\\"):
            quoted = not quoted
        elif char == "#" and depth == 0 and not quoted:
            parts.append(raw[begin:i])
            begin = i + 1
    parts.append(raw[begin:])
    return parts


def _value(raw: object, macros: Mapping[str, str]) -> str:
    """Return a field's value as BibTeX reads it: enclosing removed, macros and ``#`` resolved."""
    text = str(raw).strip()
    pieces = _split_concatenation(text) if "#" in text else [text]
    out: list[str] = []
    for piece in pieces:
        piece = piece.strip()
        if len(piece) >= 2 and piece[0] == "{" and piece[-1] == "}":
            out.append(piece[1:-1])
        elif len(piece) >= 2 and piece[0] == '"' and piece[-1] == '"':
            out.append(piece[1:-1])
        elif piece.isdigit() or not piece:
            out.append(piece)
        else:
            name = piece.lower()
            out.append(macros.get(name, _MONTHS.get(name, piece)))
    return "".join(out)


def _plain(value: str) -> str:
    value = _ACCENT_GROUP_RE.sub(r"{\\\1\2}", value)
    text = latex_to_text(value) if ("\\" in value or "{" in value or "$" in value) else value
    return " ".join(text.replace("{", "").replace("}", "").split())


@contextlib.contextmanager
def _quiet_parser() -> Iterator[None]:
    """Silence bibtexparser's own log lines while parsing: the Skip carries the reason and line."""
    logger = logging.getLogger("bibtexparser")
    previous = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(previous)


def _failure_reason(error: object) -> str:
    """Return a failed block's reason: the exception text, else its ``abort_reason``, else its type."""
    text = str(error).strip() or str(getattr(error, "abort_reason", "") or "").strip()
    return text or type(error).__name__


class _Entry:
    def __init__(self, kind: str, key: str, fields: dict[str, str]):
        self.kind = kind
        self.key = key
        self.fields = fields


def _parse(chunk: str, macros: dict[str, str]) -> _Entry | str | None:
    """Parse one block: an ``_Entry``; a failure reason; None for a block that holds no entry.

    ``@string`` blocks define their macros into ``macros`` (and give None).
    """
    with _quiet_parser():
        library = bibtexparser.parse_string(chunk, parse_stack=[])
    for string in library.strings:
        macros[string.key.lower()] = _value(string.value, macros)
    if library.failed_blocks:
        return _failure_reason(library.failed_blocks[0].error)
    if not library.entries:
        return None
    entry = library.entries[-1]
    fields: dict[str, str] = {}
    for field in entry.fields:
        fields.setdefault(field.key.strip().lower(), _value(field.value, macros))
    return _Entry(entry.entry_type.lower(), entry.key, fields)


def _kind_key(chunk: str) -> tuple[str, str]:
    m = _HEAD_RE.match(chunk)
    return (m.group(1).lower(), m.group(2).lower()) if m else ("", "")


def _references(fields: Mapping[str, str]) -> list[str]:
    keys = [fields.get("crossref", "")] + fields.get("xdata", "").split(",")
    return [k.strip().lower() for k in keys if k.strip()]


def _parents(path: Path) -> dict[str, _Entry]:
    """Return the entries some entry of the file names in ``crossref`` or ``xdata``, by lowercase key.

    One pass over the file; a parent that is not a container type and comes before its first
    child costs a second. Macros are those of the whole file (BibTeX defines them before use).
    """
    refs: set[str] = set()
    held: dict[str, str] = {}
    strings: list[str] = []
    for _start, chunk in _entry_chunks(path):
        if isinstance(chunk, _Oversized):
            continue
        kind, key = _kind_key(chunk)
        if kind == "string":
            strings.append(chunk)
            continue
        for m in _REF_RE.finditer(chunk):
            refs.update(k.strip().lower() for k in m.group(2).split(",") if k.strip())
        if kind in _CONTAINERS or key in refs:
            held[key] = chunk
    if not refs:
        return {}
    if refs - held.keys():
        for _start, chunk in _entry_chunks(path):
            if not isinstance(chunk, _Oversized) and _kind_key(chunk)[1] in refs - held.keys():
                held[_kind_key(chunk)[1]] = chunk
    macros: dict[str, str] = {}
    for chunk in strings:
        _parse(chunk, macros)
    parents: dict[str, _Entry] = {}
    for key in refs & held.keys():
        parsed = _parse(held[key], dict(macros))
        if isinstance(parsed, _Entry):
            parents[key] = parsed
    return parents


def _inherit(entry: _Entry, parents: Mapping[str, _Entry], depth: int = 0) -> dict[str, str]:
    """Return ``entry``'s fields with those it lacks taken from the entries it names (4 levels at most)."""
    fields = dict(entry.fields)
    if depth > 4:
        return fields
    for ref in _references(entry.fields):
        parent = parents.get(ref)
        if parent is None or parent is entry:
            continue
        inherited = _inherit(parent, parents, depth + 1)
        title = inherited.get("booktitle") or inherited.get("title")
        if parent.kind in ("periodical",) and title:
            fields.setdefault("journal", inherited.get("journal") or inherited.get("title", ""))
        elif parent.kind != "xdata" and title and entry.kind != "article":
            fields.setdefault("booktitle", title)
        for name, value in inherited.items():
            if name not in _NOT_INHERITED and value:
                fields.setdefault(name, value)
    return fields


def _record(path: Path, start: int, fields: Mapping[str, str]) -> Record | Skip:
    abstract = fields.get("abstract")
    if not abstract or not abstract.strip():
        return Skip(str(path), start, "no abstract")
    venue, venue_year, decision = split_venue(
        _plain(fields.get("booktitle") or fields.get("journal") or fields.get("journaltitle") or "")
    )
    m = _YEAR_RE.search(fields.get("year") or fields.get("date") or "")
    year = int(m.group(1)) if m else venue_year
    urls = [u for u in (fields.get("url") or "").split() if u.lower().startswith(("http://", "https://"))]
    eprint = fields.get("eprint") or ""
    authors = []
    for name in split_multiple_persons_names(fields.get("author") or ""):
        parts = parse_single_name_into_parts(name, strict=False)
        plain = _plain(parts.merge_first_name_first)
        if plain and plain not in authors:
            authors.append(plain)
    return Record(
        abstract=abstract,
        source=Source(str(path), start, FORMAT),
        title=_plain(fields.get("title") or "") or None,
        authors=authors,
        venue=venue,
        year=year,
        decision=decision,
        keywords=[
            k.strip() for k in _plain(fields.get("keywords") or "").replace(";", ",").split(",") if k.strip()
        ],
        urls=urls,
        external_ids=external_ids_from(
            urls, doi=fields.get("doi") or None, arxiv=arxiv_id(eprint) and eprint
        ),
    )


def read_bibtex(path: Path, column_map: dict[str, str] | None = None) -> Iterator[Record | Skip]:
    """Yield one Record (or Skip) per ``@article``/``@inproceedings``/… entry of a BibTeX file.

    ``Source.line`` is the line of the entry's ``@``. Venue comes from ``booktitle`` or
    ``journal`` (own or inherited; ``ICML 2026`` → venue ``ICML``, year 2026), year from ``year``
    or ``date``, URLs from ``url``, external ids from ``doi`` and ``eprint``. An entry bibtexparser
    cannot parse is skipped with its line and reason. ``column_map`` is accepted for a uniform
    reader signature and ignored.

    Raises:
        InputError: the file is missing, binary, empty or not UTF-8.

    """
    parents = _parents(path)
    macros: dict[str, str] = {}
    for start, chunk in _entry_chunks(path):
        if isinstance(chunk, _Oversized):
            yield Skip(str(path), start, too_long_reason("entry", int(chunk)))
            continue
        kind, key = _kind_key(chunk)
        if kind in _SKIP_TYPES - {"string"} or _COMMENT_HEAD_RE.match(chunk):
            continue
        parsed = _parse(chunk, macros)
        if kind == "string" or parsed is None and kind in _SKIP_TYPES:
            continue
        if parsed is None:
            yield Skip(str(path), start, "BibTeX entry not parsed: no entry found")
            continue
        if isinstance(parsed, str):
            yield Skip(str(path), start, f"BibTeX entry not parsed: {parsed}")
            continue
        if parsed.kind == "xdata" or (key in parents and not parsed.fields.get("abstract", "").strip()):
            continue  # a parent holding data for other entries, not a paper
        yield _record(path, start, _inherit(parsed, parents) if parents else parsed.fields)
