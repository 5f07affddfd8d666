"""Registry of readers (format name → function yielding Records) and format detection by sniffing.

Detection looks at the extension and the first 64 KiB (JSON Lines: the first 20 lines, read whole
however long): ``@`` starts BibTeX; ``[`` a JSON
array; ``{`` JSON Lines (arXiv-snapshot shaped, or paper objects); ``.csv``/``.tsv`` a CSV/TSV;
anything else a text list, unless its first line is a CSV header (see :func:`looks_like_csv`).
A structured file whose records carry no abstract field (queries, qrels, labels) is not a paper
list: ``NotAPaperList`` says so. Detection never raises anything but ``InputError``: any bytes
are either a format or a reason.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from ..errors import InputError
from ..models import Record, Skip
from . import arxiv_jsonl, bibtex, csv_table, paperlist_json, text_list
from .fields import normalise_key, resolve_columns
from .files import read_head

__all__ = [
    "READERS",
    "Reader",
    "NotAPaperList",
    "detect_format",
    "get_reader",
    "is_paper_list_text",
    "looks_like_csv",
    "RAW_ABSTRACT_MAX_CHARS",
]

Reader = Callable[..., Iterator[Record | Skip]]


def _read_text_list(path: Path, column_map: dict[str, str] | None = None) -> Iterator[Record | Skip]:
    yield from text_list.read_text_list(path)


#: A record whose raw abstract is longer than this many characters is skipped as it is read,
#: before cleaning: five times ``pipeline.MAX_ABSTRACT_CHARS``, more than cleaning (LaTeX, HTML,
#: entities) ever removes, so no abstract the pipeline would keep is lost, and no full text or
#: broken file costs the cleaning of megabytes (clean_text is about 0.15 s per MB).
RAW_ABSTRACT_MAX_CHARS = 100_000


def _bounded(reader: Reader, unit: str) -> Reader:
    """Wrap ``reader`` so a Record with a raw abstract over ``RAW_ABSTRACT_MAX_CHARS`` becomes a Skip."""

    def read(path: Path, column_map: dict[str, str] | None = None) -> Iterator[Record | Skip]:
        from .pipeline import MAX_ABSTRACT_CHARS

        for item in reader(path, column_map):
            if isinstance(item, Record) and len(item.abstract) > RAW_ABSTRACT_MAX_CHARS:
                reason = (
                    f"abstract is {len(item.abstract):,} characters, more than {MAX_ABSTRACT_CHARS:,}: "
                    "a full text or a broken file, not an abstract"
                )
                yield Skip(item.source.path, item.source.line, reason, unit)
            else:
                yield item

    read.__doc__ = reader.__doc__
    return read


#: Every format ``paperscope ingest --format`` accepts. Each reader takes ``(path, column_map)``
#: and yields Records, or Skips for records it cannot turn into one (too large ones included).
READERS: dict[str, Reader] = {
    text_list.FORMAT: _bounded(_read_text_list, "line"),
    paperlist_json.FORMAT_ARRAY: _bounded(paperlist_json.read_json_array, "record"),
    paperlist_json.FORMAT_LINES: _bounded(paperlist_json.read_json_lines, "line"),
    arxiv_jsonl.FORMAT: _bounded(arxiv_jsonl.read_arxiv_jsonl, "line"),
    csv_table.FORMAT: _bounded(csv_table.read_csv, "line"),
    bibtex.FORMAT: _bounded(bibtex.read_bibtex, "line"),
}

_JSON_SUFFIXES = {".json", ".jsonl", ".ndjson"}
_LINES_SUFFIXES = {".jsonl", ".ndjson"}
_CSV_SUFFIXES = {".csv", ".tsv"}


class NotAPaperList(InputError):
    """The file is readable data but not a list of papers (no abstract field or column).

    Folder ingest reports such files as ignored; a file named on the command line is an error.
    """


def _check_has_abstract(path: Path, names: list[str], column_map: dict[str, str] | None, what: str) -> None:
    try:
        columns = resolve_columns(names, column_map, str(path))
    except InputError as exc:
        raise NotAPaperList(exc.reason, str(path)) from None
    if "abstract" not in columns:
        shown = ", ".join(names[:12]) + (", …" if len(names) > 12 else "")
        raise NotAPaperList(
            f"not a paper list: no abstract {what} ({shown}); name one with --map abstract=NAME", str(path)
        )


# A header cell: a column name, not a clause of prose (no sentence punctuation, a few words).
_NAME_RE = re.compile(r"^[^.!?;:\"]{1,48}$")
_STRICT_NAME_RE = re.compile(r"^[\w\-./()#]+(?: [\w\-./()#]+){0,2}$")


def looks_like_csv(path: Path, head: str, column_map: dict[str, str] | None = None) -> bool:
    """Return True when a file without a ``.csv``/``.tsv`` name starts with a CSV header row.

    A prose paragraph often starts with commas too (``Recently, large models, ...``), so a
    first line is a header only when (1) it is Excel's ``sep=X`` line; or (2) it has at least
    two cells, every cell is a short name (at most 6 words and 48 characters, no sentence
    punctuation) and one of them names the abstract (``fields.FIELD_ALIASES`` or ``--map``); or
    (3) it has 2 to 40 cells of one to three plain words each and the second line splits into
    as many cells (a header whose abstract column is missing, reported as not a paper list).
    """
    lines = head.replace("\r\n", "\n").replace("\r", "\n").split("\n", 3)[:3]
    delimiter, cells, number = csv_table.split_header(path, lines)
    if number == 2:
        return True
    names = [c.strip() for c in cells]
    if len(names) < 2 or not all(names):
        return False
    if all(_NAME_RE.match(n) and len(n.split()) <= 6 for n in names):
        try:
            if "abstract" in resolve_columns(names, column_map):
                return True
        except InputError:
            pass
    if len(names) > 40 or not all(_STRICT_NAME_RE.match(n) for n in names):
        return False
    if len({normalise_key(n) for n in names}) < len(names) // 2 + 1:
        return False
    second = lines[1] if len(lines) > 1 else ""
    return len(next(csv.reader([second], delimiter=delimiter), [])) == len(cells)


def detect_format(path: Path, column_map: dict[str, str] | None = None) -> str:
    """Return the format name for ``path``, from its extension and its first 64 KiB.

    JSON Lines are judged on their first 20 lines read whole, so a first line of any length up to
    the reader's ``MAX_RECORD_CHARS`` reads as JSON Lines.

    Raises:
        InputError: the file is missing, unreadable, empty or binary, or a ``.json`` file does
            not start with ``[`` or ``{``.
        NotAPaperList: a JSON or JSON Lines file whose first 20 records have no abstract
            field, or a CSV file with no abstract column.

    """
    head = read_head(path)
    stripped = head.lstrip()
    suffix = path.suffix.lower()
    if suffix == ".bib" or (stripped.startswith("@") and suffix not in _JSON_SUFFIXES | _CSV_SUFFIXES):
        return bibtex.FORMAT
    if suffix in _JSON_SUFFIXES and stripped[:1] not in ("[", "{"):
        line = head[: len(head) - len(stripped)].count("\n") + 1
        raise InputError(f"malformed JSON: expected '[' or '{{', found {stripped[:1]!r}", str(path), line)
    if suffix in _JSON_SUFFIXES or stripped[:1] in ("[", "{"):
        items = paperlist_json.first_json_objects(path, head)
        if not items:
            if (
                stripped.startswith("{")
                and suffix not in _LINES_SUFFIXES
                and not paperlist_json.first_line_closes(path)
                and paperlist_json.whole_file_object(path)
            ):
                raise NotAPaperList(
                    "not a paper list: one JSON object, expected an array of papers or one paper per line",
                    str(path),
                )
            # An empty array, or a syntax error the reader will report with its line.
            return paperlist_json.FORMAT_ARRAY if stripped.startswith("[") else paperlist_json.FORMAT_LINES
        if stripped.startswith("{") and arxiv_jsonl.is_arxiv_record(items[0]):
            return arxiv_jsonl.FORMAT
        names = list(dict.fromkeys(key for item in items for key in item))
        _check_has_abstract(path, names, column_map, "field")
        return paperlist_json.FORMAT_ARRAY if stripped.startswith("[") else paperlist_json.FORMAT_LINES
    if suffix in _CSV_SUFFIXES or looks_like_csv(path, head, column_map):
        _check_has_abstract(path, csv_table.header_columns(path, head), column_map, "column")
        return csv_table.FORMAT
    return text_list.FORMAT


def is_paper_list_text(path: Path) -> bool:
    """Return True when a text file met in a folder reads as a paper list (see ``looks_like_text_list``)."""
    return text_list.looks_like_text_list(read_head(path, 16384))


def get_reader(name: str) -> Reader:
    """Return the reader registered under ``name``.

    Raises:
        InputError: ``name`` is not a registered format (the message lists the valid ones).

    """
    try:
        return READERS[name]
    except KeyError:
        raise InputError(f"unknown format {name!r}; choose one of: {', '.join(sorted(READERS))}") from None
