"""Reader for paper-list text files: an optional header line, then abstracts separated by blank lines."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..models import Record, Source
from .files import read_text_file

__all__ = ["FORMAT", "parse_header", "read_text_list"]

FORMAT = "text-list"

# "ICML 2026 Papers", "ICML 2026 论文列表", "NeurIPS 2025 Accepted Papers", "ICLR 2024 (oral)".
_HEADER_RE = re.compile(
    r"^\s*(?P<venue>[A-Za-z][A-Za-z&\-]{1,19})[\s\-']*(?P<year>(?:19|20)\d\d)\b(?P<rest>[^.!?]{0,60})$"
)
_WS = " \t\u00a0\u2007\u202f\u3000\ufeff"


def parse_header(line: str) -> tuple[str, int] | None:
    """Return ``(venue, year)`` when ``line`` is a list header, else None.

    A header is short, starts with a venue name and a year, and is not a sentence
    (``"ICML 2026 Papers"`` → ``("ICML", 2026)``; an abstract's first line is never one).
    """
    m = _HEADER_RE.match(line.strip(_WS))
    if not m:
        return None
    return m.group("venue"), int(m.group("year"))


def read_text_list(path: Path) -> Iterator[Record]:
    """Yield one Record per abstract of a text list, with the venue and year of its header.

    A paragraph is a run of non-blank lines; a line of only spaces (regular, non-breaking or
    ideographic) is blank. ``Record.source.line`` is the 1-based line where the paragraph starts.

    Raises:
        InputError: the file is missing, unreadable, empty, binary or not UTF-8.

    """
    lines = read_text_file(path).split("\n")
    venue: str | None = None
    year: int | None = None
    start = 0
    while start < len(lines) and not lines[start].strip(_WS):
        start += 1
    if start < len(lines):
        header = parse_header(lines[start])
        if header:
            venue, year = header
            start += 1
    paragraph: list[str] = []
    first_line = 0
    for number in range(start, len(lines) + 1):
        line = lines[number].rstrip(_WS) if number < len(lines) else ""
        if line.strip(_WS):
            if not paragraph:
                first_line = number + 1
            paragraph.append(line.strip(_WS))
            continue
        if paragraph:
            yield Record(
                abstract="\n".join(paragraph),
                source=Source(str(path), first_line, FORMAT),
                venue=venue,
                year=year,
            )
            paragraph = []
