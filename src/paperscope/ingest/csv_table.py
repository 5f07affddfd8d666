"""Reader for CSV and TSV paper lists with a header row (stdlib csv, streamed row by row).

Handles what spreadsheet exports do: a UTF-8 BOM before the first header (Excel's "CSV UTF-8"),
CRLF line ends, and quoted cells holding commas and newlines (case 9 of the bug cases). The
column for each field is inferred from the header (``fields.FIELD_ALIASES``) or given with
``--map title=Paper,abstract=Summary``.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError
from ..models import Record, Skip, Source
from .fields import mapping_to_record, resolve_columns, venue_year_from_name
from .files import check_text_file, first_bad_utf8

__all__ = ["FORMAT", "read_csv", "sniff_delimiter", "header_columns"]

FORMAT = "csv"

# An abstract cell can be long (case 16 has 20k characters); the stdlib default is 128 KiB.
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


def sniff_delimiter(path: Path, header_line: str) -> str:
    """Return the delimiter: a tab for ``.tsv`` or a header with more tabs than commas, else ``,`` or ``;``."""
    if path.suffix.lower() == ".tsv":
        return "\t"
    counts = {d: header_line.count(d) for d in (",", "\t", ";")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def header_columns(path: Path, head: str) -> list[str]:
    """Return the header cells of a CSV/TSV whose first 64 KiB are ``head``."""
    first = head.split("\n", 1)[0].rstrip("\r")
    delimiter = sniff_delimiter(path, first)
    return next(csv.reader([first], delimiter=delimiter), [])


def read_csv(path: Path, column_map: dict[str, str] | None = None) -> Iterator[Record | Skip]:
    """Yield one Record (or Skip) per data row of a CSV/TSV file with a header row.

    ``Source.line`` is the line where the row starts (a quoted cell may span several lines).
    Blank rows are ignored; CRLF inside cells becomes LF.

    Raises:
        InputError: the file is missing, binary, empty or not UTF-8; a ``--map`` column is not
            in the header; or the CSV is malformed (with its line).

    """
    check_text_file(path)
    defaults = venue_year_from_name(path)
    try:
        with path.open("r", encoding="utf-8-sig", newline="") as handle:
            first = handle.readline()
            delimiter = sniff_delimiter(path, first)
            header = next(csv.reader([first], delimiter=delimiter), [])
            columns = resolve_columns(header, column_map, str(path))
            if "abstract" not in columns:
                raise InputError(
                    f"no abstract column (columns: {', '.join(header)}); name it with --map abstract=COLUMN",
                    str(path),
                    1,
                )
            # strict: an unclosed quote is an error, not a cell that swallows the rest of the file.
            reader = csv.reader(handle, delimiter=delimiter, strict=True)
            line_end = 1
            try:
                for row in reader:
                    start, line_end = line_end + 1, reader.line_num + 1
                    if not any(cell.strip() for cell in row):
                        continue
                    cells = {
                        name: row[i].replace("\r\n", "\n").replace("\r", "\n")
                        for i, name in enumerate(header)
                        if i < len(row)
                    }
                    yield mapping_to_record(cells, Source(str(path), start, FORMAT), columns, defaults)
            except csv.Error as exc:
                raise InputError(f"malformed CSV: {exc}", str(path), line_end + 1) from exc
    except UnicodeDecodeError as exc:
        raise (first_bad_utf8(path) or InputError("not UTF-8", str(path))) from exc
