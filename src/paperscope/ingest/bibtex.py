r"""Reader for BibTeX files via bibtexparser 2, entry by entry, with LaTeX accents turned into Unicode.

The file is cut into entries at lines that start with ``@`` outside braces (or with an entry head
such as ``@article{key,`` at column 0 inside an unclosed brace), and each entry is parsed on its own, so memory holds one entry however large the file (``@string`` macros are
carried forward to later entries). Titles and author names go through the shared LaTeX
converter (``Jos{\'e}`` → ``José``, ``{\"U}ber`` → ``Über``, ``{\~{a}}`` → ``ã``: case 10); the
abstract keeps its LaTeX as the original text and is cleaned like every other abstract.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import bibtexparser
from bibtexparser import middlewares

from ..models import Record, Skip, Source
from ..text import latex_to_text
from .fields import arxiv_id, external_ids_from, split_venue
from .files import iter_lines

__all__ = ["FORMAT", "read_bibtex"]

FORMAT = "bibtex"

_SKIP_TYPES = {"comment", "preamble", "string"}
_ENTRY_HEAD_RE = re.compile(r"@[A-Za-z]+\s*[{(]\s*[^\s,{}()]+\s*,")


def _entry_chunks(path: Path) -> Iterator[tuple[int, str]]:
    """Yield ``(first_line, text)`` for each top-level ``@`` block of the file."""
    lines: list[str] = []
    start = 0
    depth = 0
    for number, line in iter_lines(path):
        # An entry head at column 0 ("@article{key,") starts a new block even inside an unclosed
        # brace: an entry that never closes is reported alone, not allowed to swallow the next.
        if (depth <= 0 and line.lstrip().startswith("@")) or (depth > 0 and _ENTRY_HEAD_RE.match(line)):
            if lines:
                yield start, "\n".join(lines)
            lines, start, depth = [], number, 0
        if not lines and not line.lstrip().startswith("@"):
            continue  # text between entries is a comment in BibTeX
        lines.append(line)
        depth += line.count("{") - line.count("\\{") - line.count("}") + line.count("\\}")
    if lines:
        yield start, "\n".join(lines)


def _plain(value: str) -> str:
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


def read_bibtex(path: Path, column_map: dict[str, str] | None = None) -> Iterator[Record | Skip]:
    """Yield one Record (or Skip) per ``@article``/``@inproceedings``/… entry of a BibTeX file.

    ``Source.line`` is the line of the entry's ``@``. Venue comes from ``booktitle`` or
    ``journal`` (``ICML 2026`` → venue ``ICML``, year 2026), URLs from ``url``, external ids from
    ``doi`` and ``eprint``. An entry bibtexparser cannot parse is skipped with its line.
    ``column_map`` is accepted for a uniform reader signature and ignored.

    Raises:
        InputError: the file is missing, binary, empty or not UTF-8.

    """
    strings: list[str] = []
    stack = [
        middlewares.SeparateCoAuthors(),
        middlewares.SplitNameParts(),
        middlewares.MergeNameParts("first"),
    ]
    for start, chunk in _entry_chunks(path):
        kind = chunk.lstrip()[1:].split("{", 1)[0].split("(", 1)[0].strip().lower()
        if kind == "string":
            strings.append(chunk)
            continue
        if kind in _SKIP_TYPES:
            continue
        with _quiet_parser():
            library = bibtexparser.parse_string("\n".join([*strings, chunk]), append_middleware=stack)
        if library.failed_blocks or not library.entries:
            reason = (
                _failure_reason(library.failed_blocks[0].error) if library.failed_blocks else "no entry found"
            )
            yield Skip(str(path), start, f"BibTeX entry not parsed: {reason}")
            continue
        fields = {f.key.lower(): f.value for f in library.entries[-1].fields}
        source = Source(str(path), start, FORMAT)
        abstract = fields.get("abstract")
        if not isinstance(abstract, str):
            yield Skip(str(path), start, "no abstract")
            continue
        venue, venue_year, decision = split_venue(
            _plain(str(fields.get("booktitle") or fields.get("journal") or ""))
        )
        year_text = str(fields.get("year") or "")
        year = int(year_text) if year_text.strip().isdigit() else venue_year
        authors = fields.get("author") or []
        urls = [
            u for u in str(fields.get("url") or "").split() if u.lower().startswith(("http://", "https://"))
        ]
        eprint = str(fields.get("eprint") or "")
        yield Record(
            abstract=abstract,
            source=source,
            title=_plain(str(fields.get("title") or "")) or None,
            authors=[
                _plain(a) for a in (authors if isinstance(authors, list) else [authors]) if str(a).strip()
            ],
            venue=venue,
            year=year,
            decision=decision,
            keywords=[
                k.strip()
                for k in _plain(str(fields.get("keywords") or "")).replace(";", ",").split(",")
                if k.strip()
            ],
            urls=urls,
            external_ids=external_ids_from(
                urls, doi=str(fields.get("doi") or "") or None, arxiv=arxiv_id(eprint) and eprint
            ),
        )
