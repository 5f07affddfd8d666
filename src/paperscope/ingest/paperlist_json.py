"""Readers for paper-list JSON: an array of paper objects (streamed with ijson) or one object per line.

The objects follow the OpenReview / community-tracker shape (papercopilot's paperlists,
airas-papers-db, OpenReview API notes with a ``content`` object); ``fields.py`` maps their
field names. A JSON array is parsed incrementally, so memory holds one record at a time
however large the file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import ijson

from ..errors import InputError
from ..models import Record, Skip, Source
from .fields import flatten_openreview, mapping_to_record, resolve_columns, venue_year_from_name
from .files import check_text_file, first_bad_utf8, iter_json_lines

__all__ = ["FORMAT_ARRAY", "FORMAT_LINES", "read_json_array", "read_json_lines", "first_json_objects"]

FORMAT_ARRAY = "json"
FORMAT_LINES = "jsonl"

#: Files up to this size are re-read whole to give the exact line of a JSON syntax error;
#: for larger ones the message gives the first line of the 64 KiB chunk that failed.
_EXACT_ERROR_MAX_BYTES = 64 * 2**20
_CHUNK_BYTES = 65536


class _CountingReader:
    """A binary file wrapper that remembers how many lines came before the last chunk read."""

    def __init__(self, handle: Any):
        self.handle = handle
        self.lines_before_chunk = 0
        self.lines_read = 0

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(size)
        self.lines_before_chunk = self.lines_read
        self.lines_read += data.count(b"\n")
        return data


def _syntax_error(path: Path, exc: Exception, counter: _CountingReader) -> InputError:
    bad = first_bad_utf8(path)
    if bad is not None:
        return bad
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if path.stat().st_size <= _EXACT_ERROR_MAX_BYTES:
        try:
            json.loads(path.read_text(encoding="utf-8-sig"))
        except json.JSONDecodeError as precise:
            return InputError(
                f"malformed JSON: {precise.msg} (column {precise.colno})", str(path), precise.lineno
            )
    return InputError(f"malformed JSON: {reason}", str(path), counter.lines_before_chunk + 1)


class _Columns:
    """The field → key mapping of a stream of objects, updated when a record brings new keys."""

    def __init__(self, path: Path, column_map: dict[str, str] | None):
        self.path = str(path)
        self.column_map = column_map
        self.keys: set[str] = set()
        self.columns: dict[str, list[str]] = {}
        self.defaults = venue_year_from_name(path)

    def to_record(self, item: Any, source: Source) -> Record | Skip:
        if not isinstance(item, Mapping):
            unit = "record" if source.format == FORMAT_ARRAY else "line"
            return Skip(source.path, source.line, f"not a JSON object ({type(item).__name__})", unit)
        flat = flatten_openreview(item)
        if not self.keys.issuperset(flat):
            self.keys.update(flat)
            self.columns = resolve_columns(sorted(self.keys), self.column_map, self.path)
        return mapping_to_record(flat, source, self.columns, self.defaults)


def read_json_array(path: Path, column_map: dict[str, str] | None = None) -> Iterator[Record | Skip]:
    """Yield one Record (or Skip) per element of a JSON array of paper objects.

    ``Source.line`` is the 1-based record number in the array. Venue and year missing from a
    record come from the file name when it states them (``iclr2017.json``).

    Raises:
        InputError: the file is missing, binary, empty, not UTF-8, or not valid JSON (the
            message gives the line of the syntax error).

    """
    check_text_file(path)
    columns = _Columns(path, column_map)
    with path.open("rb") as handle:
        if handle.read(3) != b"\xef\xbb\xbf":
            handle.seek(0)
        counter = _CountingReader(handle)
        try:
            items = ijson.items(counter, "item", use_float=True, buf_size=_CHUNK_BYTES)
            for number, item in enumerate(items, start=1):
                yield columns.to_record(item, Source(str(path), number, FORMAT_ARRAY))
        except ijson.JSONError as exc:
            raise _syntax_error(path, exc, counter) from exc


def read_json_lines(path: Path, column_map: dict[str, str] | None = None) -> Iterator[Record | Skip]:
    """Yield one Record (or Skip) per line of a JSON Lines file of paper objects.

    A line that is not valid JSON is skipped and reported with its line number; the rest of
    the file still ingests. Blank lines are ignored.

    Raises:
        InputError: the file is missing, binary, empty or not UTF-8.

    """
    columns = _Columns(path, column_map)
    for entry in iter_json_lines(path):
        if isinstance(entry, Skip):
            yield entry
            continue
        number, item = entry
        yield columns.to_record(item, Source(str(path), number, FORMAT_LINES))


def first_json_objects(path: Path, head: str, limit: int = 20) -> list[dict[str, Any]]:
    """Return up to ``limit`` leading objects of a JSON array or JSON Lines file (non-objects left out).

    Reads only as far as it needs (an array is streamed with ijson, lines come from ``head``);
    an empty list when the start is not valid JSON.
    """
    out: list[dict[str, Any]] = []
    stripped = head.lstrip()
    if stripped.startswith("["):
        with path.open("rb") as handle:
            if handle.read(3) != b"\xef\xbb\xbf":
                handle.seek(0)
            try:
                for number, item in enumerate(ijson.items(handle, "item", use_float=True)):
                    if number >= limit:
                        break
                    if isinstance(item, Mapping):
                        out.append(flatten_openreview(item))
            except ijson.JSONError:
                pass
        return out
    lines = stripped.split("\n")
    for line in lines[: len(lines) - 1 if len(head) >= 65536 else len(lines)][:limit]:
        try:
            item = json.loads(line) if line.strip() else None
        except json.JSONDecodeError:
            break
        if isinstance(item, Mapping):
            out.append(flatten_openreview(item))
    return out
