"""Reader for paper-list text files: an optional header line, then abstracts separated by blank lines."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..models import Record, Skip, Source
from .files import MAX_RECORD_CHARS, TooLong, iter_lines, too_long_reason

__all__ = ["FORMAT", "HEADING_REASON", "is_heading", "parse_header", "read_text_list", "looks_like_text_list"]

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


def read_text_list(path: Path) -> Iterator[Record | Skip]:
    """Yield one Record per abstract of a text list, with the venue and year of its header.

    A paragraph is a run of non-blank lines; a line of only spaces (regular, non-breaking or
    ideographic) is blank. ``Record.source.line`` is the 1-based line where the paragraph starts.
    The file is read line by line, so memory holds one paragraph however large the file; a
    paragraph longer than ``MAX_RECORD_CHARS`` is skipped with its size, without being built.

    Raises:
        InputError: the file is missing, unreadable, empty, binary or not UTF-8.

    """
    venue: str | None = None
    year: int | None = None
    seen_text = False
    paragraph: list[str] = []
    chars = 0
    oversized = False
    first_line = 0

    first = True  # the file's first paragraph: one that reads as a heading is no abstract

    def done() -> Record | Skip:
        if oversized:
            return Skip(str(path), first_line, too_long_reason("paragraph", chars))
        if first and venue is None and len(paragraph) == 1 and is_heading(paragraph[0]):
            return Skip(str(path), first_line, HEADING_REASON)
        return Record("\n".join(paragraph), Source(str(path), first_line, FORMAT), venue=venue, year=year)

    for number, line in iter_lines(path):
        stripped = line.strip(_WS) if isinstance(line, str) else line
        if not stripped:
            if chars:
                yield done()
                first, paragraph, chars, oversized = False, [], 0, False
            continue
        if not seen_text:
            seen_text = True
            header = parse_header(stripped) if isinstance(stripped, str) else None
            if header:
                venue, year = header
                continue
        if not chars:
            first_line = number
        if isinstance(stripped, TooLong):
            chars += stripped.chars + 1
            oversized, paragraph = True, []
            continue
        chars += len(stripped) + 1
        if chars > MAX_RECORD_CHARS:
            oversized, paragraph = True, []
        if not oversized:
            paragraph.append(stripped)
    if chars:
        yield done()


#: Why a first paragraph of one short line without a sentence is not stored (``read_text_list``).
HEADING_REASON = "a heading, not an abstract (one short line that ends no sentence): not stored"
_SENTENCE_END = re.compile(r"[.!?。！？](?:\s|$)")


def is_heading(line: str) -> bool:
    """Return True when ``line`` reads as a list's heading ("Lab Paper List", "实验室论文"), not an abstract.

    A heading is at most 80 characters and 12 words, has a letter, and ends no sentence (no
    ``.``, ``!`` or ``?`` before a space or the end). An abstract, even a one-line one, is a
    sentence; ``read_text_list`` asks this only of a file's first paragraph when it is one line
    and no venue header came before it (a title alone is no abstract either).
    """
    text = line.strip(_WS)
    return (
        0 < len(text) <= 80
        and len(text.split()) <= 12
        and any(ch.isalpha() for ch in text)
        and not _SENTENCE_END.search(text)
    )


def looks_like_text_list(head: str) -> bool:
    """Return True when the start of a text file reads as a paper list, not as notes or a word list.

    Used for files met while walking a folder: a list starts with a venue header
    (``ICML 2026 Papers``), or its first paragraph is prose (at least 25 words with lines of
    60 characters or more on average, as abstracts are). A list of labels, one per line
    (``iclr2026_primary_areas.txt``), or comment lines are not.
    """
    lines = [line.strip(_WS) for line in head.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    paragraph: list[str] = []
    for line in lines:
        if not line:
            if paragraph:
                break
            continue
        if not paragraph and parse_header(line):
            return True
        paragraph.append(line)
    words = sum(len(line.split()) for line in paragraph)
    mean_length = sum(len(line) for line in paragraph) / max(1, len(paragraph))
    return words >= 25 and mean_length >= 60
