"""Readers for paper-list JSON: an array of paper objects (streamed element by element) or one object per line.

The objects follow the OpenReview / community-tracker shape (papercopilot's paperlists,
airas-papers-db, OpenReview API notes with a ``content`` object); ``fields.py`` maps their
field names. An array is cut into its elements as it is read (``json_stream``), so memory holds
one element however large the file. Both shapes decode values with ``files.json_decoder``:
``NaN`` and ``Infinity`` (as ``json.dump`` and pandas write them) are missing values and a key
repeated in one object keeps its non-empty value, so an array and the same records as JSON Lines
read alike (case 21). ijson, the streaming parser used before, refuses ``NaN`` outright.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..models import Record, Skip, Source
from .fields import flatten_openreview, mapping_to_record, resolve_columns, venue_year_from_name
from .files import (
    MAX_RECORD_CHARS,
    TooLong,
    check_text_file,
    first_bad_utf8,
    iter_json_lines,
    iter_lines,
    json_decoder,
    open_text,
    too_long_reason,
)
from .json_stream import Oversized, Undecodable, array_elements

__all__ = [
    "FORMAT_ARRAY",
    "FORMAT_LINES",
    "read_json_array",
    "read_json_lines",
    "first_json_objects",
    "first_line_closes",
    "whole_file_object",
]

FORMAT_ARRAY = "json"
FORMAT_LINES = "jsonl"

#: Characters of an array that format detection reads at most (its first records are in them).
_DETECT_CHARS = 4 * 2**20
#: Column mappings kept for the key sets met so far (records of one file share a few).
_COLUMN_CACHE = 64


class _Columns:
    """The field → key mapping of each record, from its own keys (cached per key set).

    Each record is mapped from the keys it has, so a file whose records each bring new keys
    costs the same per record as one whose records agree.
    """

    def __init__(self, path: Path, column_map: dict[str, str] | None):
        self.path = str(path)
        self.column_map = column_map or {}
        self.cache: dict[frozenset[str], dict[str, list[str]]] = {}
        self.defaults = venue_year_from_name(path)

    def to_record(self, item: Any, source: Source) -> Record | Skip:
        unit = "record" if source.format == FORMAT_ARRAY else "line"
        if not isinstance(item, Mapping):
            return Skip(source.path, source.line, f"not a JSON object ({type(item).__name__})", unit)
        flat = flatten_openreview(item)
        keys = frozenset(k for k in flat if isinstance(k, str))
        columns = self.cache.get(keys)
        if columns is None:
            # Mapped columns a record lacks are simply empty in it (detection checked the file has them).
            names = sorted(keys | set(self.column_map.values()))
            columns = resolve_columns(names, self.column_map, self.path)
            if len(self.cache) >= _COLUMN_CACHE:
                self.cache.clear()
            self.cache[keys] = columns
        return mapping_to_record(flat, source, columns, self.defaults)


def read_json_array(path: Path, column_map: dict[str, str] | None = None) -> Iterator[Record | Skip]:
    """Yield one Record (or Skip) per element of a JSON array of paper objects.

    ``Source.line`` is the 1-based record number in the array (``Skip.unit`` is ``"record"``);
    a syntax error is reported with its line. Venue and year missing from a record come from the
    file name when it states them (``iclr2017.json``). An element over ``MAX_RECORD_CHARS``
    characters is skipped with its size, unread.

    Raises:
        InputError: the file is missing, binary, empty, not UTF-8, or not one valid JSON array
            (the message gives the line and column of the syntax error).

    """
    check_text_file(path)
    columns = _Columns(path, column_map)
    number = 0
    try:
        with open_text(path) as handle:
            for _line, value in array_elements(str(path), handle):
                number += 1
                if isinstance(value, Oversized):
                    reason = too_long_reason("record", value.chars)
                    yield Skip(str(path), number, reason, "record")
                elif isinstance(value, Undecodable):
                    yield Skip(str(path), number, value.reason, "record")
                else:
                    yield columns.to_record(value, Source(str(path), number, FORMAT_ARRAY))
    except UnicodeDecodeError as exc:
        raise (first_bad_utf8(path) or InputError("not UTF-8", str(path))) from exc
    except InputError as exc:
        raise (first_bad_utf8(path) or exc) from None


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


class _Prefix:
    """The first ``chars`` characters of a text stream, then its end."""

    def __init__(self, handle: Any, chars: int):
        self.handle = handle
        self.left = chars

    def read(self, size: int = -1) -> str:
        size = self.left if size < 0 else min(size, self.left)
        data = self.handle.read(size) if size > 0 else ""
        self.left -= len(data)
        return data


def first_json_objects(path: Path, head: str, limit: int = 20) -> list[dict[str, Any]]:
    """Return up to ``limit`` leading objects of a JSON array or JSON Lines file (non-objects left out).

    Reads only the start: an array's elements within its first ``_DETECT_CHARS``, lines from ``head``. An
    empty list when the start is not valid JSON or its first element is larger than that.
    """
    out: list[dict[str, Any]] = []
    stripped = head.lstrip()
    if stripped.startswith("["):
        try:
            with open_text(path) as handle:
                start = _Prefix(handle, _DETECT_CHARS)
                for number, (_line, value) in enumerate(array_elements(str(path), start, _DETECT_CHARS)):
                    if number >= limit or isinstance(value, Oversized):
                        break
                    if isinstance(value, Mapping):
                        out.append(flatten_openreview(value))
        except (InputError, UnicodeDecodeError):
            pass
        return out
    decoder = json_decoder()
    for line in _first_lines(path, limit):
        try:
            item = decoder.decode(line)
        except (ValueError, RecursionError):
            if line.lstrip().startswith("{"):
                continue  # a broken record line: the reader skips it with its line number
            break  # not JSON Lines (a pretty-printed object's inner lines)
        if isinstance(item, Mapping):
            out.append(flatten_openreview(item))
    return out


def whole_file_object(path: Path) -> bool:
    """Return True when ``path`` holds one JSON object (a pretty-printed ``{...}``), not lines.

    A file over ``MAX_RECORD_CHARS`` is not read: it counts as one object, as before.

    Raises:
        InputError: the file is not valid JSON (the message gives the decoder's reason and the
            line: a truncated export is named as such, not as "one JSON object").
    """
    size = path.stat().st_size
    if size > MAX_RECORD_CHARS:
        return True  # too large to read as one value: as before, one object
    with open_text(path) as handle:
        text = handle.read()
    try:
        value = json_decoder().decode(text.lstrip("\ufeff"))
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON: {exc.msg} (column {exc.colno})", str(path), exc.lineno) from None
    except (ValueError, RecursionError) as exc:
        raise InputError(f"malformed JSON: {exc}", str(path)) from None
    return isinstance(value, Mapping)


def first_line_closes(path: Path) -> bool:
    """Return True when the first non-blank line of ``path``, read whole, ends with ``}``.

    JSON Lines do; a pretty-printed single object (``{`` alone on its line) does not. A line too
    long to hold counts as closed: the reader reports it with its size.
    """
    try:
        for _number, line in iter_lines(path):
            if isinstance(line, TooLong):
                return True
            if line.strip():
                return line.rstrip().endswith("}")
    except InputError:
        return True
    return False


def _first_lines(path: Path, limit: int) -> Iterator[str]:
    """Yield up to ``limit`` whole non-blank lines from the start of ``path``, however long each is.

    A line longer than ``MAX_RECORD_CHARS`` (the reader skips it with its size) is passed over; the
    walk stops once ``_DETECT_CHARS`` characters are read and one line was yielded, so detection reads
    a few MiB at most unless the first lines are that long. A file that is not UTF-8 ends the walk:
    the reader reports it with its line.
    """
    given = 0
    chars = 0
    try:
        for _number, line in iter_lines(path):
            if isinstance(line, TooLong):
                chars += line.chars
                continue
            if not line.strip():
                continue
            yield line
            given += 1
            chars += len(line)
            if given >= limit or chars >= _DETECT_CHARS:
                return
    except InputError:
        return
