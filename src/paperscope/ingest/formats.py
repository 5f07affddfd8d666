"""Registry of readers (format name → function yielding Records) and format detection by sniffing.

Detection looks at the extension and the first 64 KiB: ``@`` starts BibTeX; ``[`` a JSON
array; ``{`` JSON Lines (arXiv-snapshot shaped, or paper objects); a header row with
delimiters a CSV/TSV; anything else a text list. A structured file whose records carry no
abstract field (queries, qrels, labels) is not a paper list: ``NotAPaperList`` says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from ..errors import InputError
from ..models import Record, Skip
from . import arxiv_jsonl, bibtex, csv_table, paperlist_json, text_list
from .fields import resolve_columns
from .files import read_head

__all__ = ["READERS", "Reader", "NotAPaperList", "detect_format", "get_reader", "is_paper_list_text"]

Reader = Callable[..., Iterator[Record | Skip]]


def _read_text_list(path: Path, column_map: dict[str, str] | None = None) -> Iterator[Record | Skip]:
    yield from text_list.read_text_list(path)


#: Every format ``paperscope ingest --format`` accepts. Each reader takes ``(path, column_map)``
#: and yields Records, or Skips for records it cannot turn into one.
READERS: dict[str, Reader] = {
    text_list.FORMAT: _read_text_list,
    paperlist_json.FORMAT_ARRAY: paperlist_json.read_json_array,
    paperlist_json.FORMAT_LINES: paperlist_json.read_json_lines,
    arxiv_jsonl.FORMAT: arxiv_jsonl.read_arxiv_jsonl,
    csv_table.FORMAT: csv_table.read_csv,
    bibtex.FORMAT: bibtex.read_bibtex,
}

_JSON_SUFFIXES = {".json", ".jsonl", ".ndjson"}
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


def detect_format(path: Path, column_map: dict[str, str] | None = None) -> str:
    """Return the format name for ``path``, from its extension and its first 64 KiB.

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
            if stripped.startswith("{") and not stripped.split("\n", 1)[0].rstrip().endswith("}"):
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
    first_line = head.split("\n", 1)[0]
    if suffix in _CSV_SUFFIXES:
        _check_has_abstract(path, csv_table.header_columns(path, head), column_map, "column")
        return csv_table.FORMAT
    return (
        text_list.FORMAT
        if first_line.count(",") < 2 or " " in first_line.split(",", 1)[0]
        else csv_table.FORMAT
    )


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
