"""Reader for CSV and TSV paper lists with a header row (stdlib csv, streamed row by row).

Handles what spreadsheet exports and reference managers write:

* the delimiter: a tab for ``.tsv``; else whichever of comma, tab, semicolon (European Excel) or
  pipe splits the header row into the most cells; Excel's ``sep=;`` first line names it outright
  (the header is then line 2);
* a UTF-8 BOM before the first header (Excel's "CSV UTF-8"), CRLF line ends, quoted cells holding
  delimiters and newlines (case 9), trailing empty columns (a blank header cell is ignored);
* repeated and case-variant column names (``abstract,abstract`` or ``abstract,Abstract``, case
  20): none is dropped; a row takes the first non-empty cell among them, left to right (an empty
  cell, or one holding an NA marker such as ``NaN`` or ``N/A``, is missing);
* a row longer than ``files.MAX_RECORD_CHARS`` (a huge cell) is skipped with its size, without
  being built; the rows after it still read.

The column for each field is inferred from the header (``fields.FIELD_ALIASES``) or given with
``--map title=Paper,abstract=Summary``. UTF-16 ("Unicode text") exports are refused by
``files.check_text_file`` with a message saying to re-save as UTF-8. (``csv.Sniffer`` is not
used: on abstracts it takes sentence punctuation for delimiters; the header row names the
columns plainly.)
"""

from __future__ import annotations

import csv
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError
from ..models import Record, Skip, Source
from .fields import is_missing, mapping_to_record, resolve_columns, venue_year_from_name
from .files import MAX_RECORD_CHARS, TooLong, iter_lines, too_long_reason

__all__ = [
    "FORMAT",
    "FORMULA_START",
    "OWN_EXPORT_COLUMNS",
    "defuse_formula",
    "read_csv",
    "restore_formula",
    "sniff_delimiter",
    "header_columns",
    "split_header",
]

FORMAT = "csv"

# A cell a spreadsheet would run as a formula starts with one of these (OWASP, "CSV Injection":
# https://owasp.org/www-community/attacks/CSV_Injection). paperscope's CSV export writes such a
# cell after a single quote, which spreadsheets show as text and hide.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# The header cells that mark a file as paperscope's own export (triage.csv_out.CSV_COLUMNS starts
# with them): only there is a leading quote before a formula character paperscope's, and removed.
OWN_EXPORT_COLUMNS = ("paper_id", "citation_key", "label", "title", "title_source")

_DELIMITERS = (",", "\t", ";", "|")
_SEP_LINE_RE = re.compile(r"^\s*sep=(.)\s*$")

# Rows are bounded by the reader itself (MAX_RECORD_CHARS); the stdlib's 128 KiB cell limit would
# refuse a long abstract (case 16 has 20k characters) before that.
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


def defuse_formula(cell: str) -> str:
    """Return ``cell`` with a ``'`` before it when it starts with a :data:`FORMULA_START` character or a ``'``.

    ``"=HYPERLINK(...)"`` becomes ``"'=HYPERLINK(...)"``; a cell that starts with a quote already
    gets one more (``"'=x"`` → ``"''=x"``), so :func:`restore_formula` can remove exactly one and
    paperscope's own CSV round trip stays lossless. Any other cell is returned unchanged.
    """
    return "'" + cell if cell.startswith((*FORMULA_START, "'")) else cell


def restore_formula(cell: str) -> str:
    """Undo :func:`defuse_formula`: drop one ``'`` that stands before a :data:`FORMULA_START` character or a ``'``."""
    return cell[1:] if cell.startswith("'") and cell[1:].startswith((*FORMULA_START, "'")) else cell


def sniff_delimiter(path: Path, header_line: str) -> str:
    """Return the delimiter: a tab for ``.tsv``, else the one of comma, tab, ``;``, ``|`` giving the header the most cells.

    Ties go to the earlier of comma, tab, semicolon, pipe; a one-column header reads as comma-separated.
    """
    if path.suffix.lower() == ".tsv":
        return "\t"
    best, cells = ",", 1
    for delimiter in _DELIMITERS:
        if delimiter not in header_line:
            continue
        count = len(next(csv.reader([header_line], delimiter=delimiter), []))
        if count > cells:
            best, cells = delimiter, count
    return best


def split_header(path: Path, first_lines: list[str]) -> tuple[str, list[str], int]:
    """Return ``(delimiter, header cells, header line number)`` from the file's first two lines.

    An Excel ``sep=X`` first line gives the delimiter, and the header is the line after it.
    """
    first = first_lines[0] if first_lines else ""
    m = _SEP_LINE_RE.match(first)
    if m and len(first_lines) > 1:
        delimiter, line, number = m.group(1), first_lines[1], 2
    else:
        line, number = first, 1
        delimiter = sniff_delimiter(path, line)
    return delimiter, next(csv.reader([line], delimiter=delimiter), []), number


def header_columns(path: Path, head: str) -> list[str]:
    """Return the header cells of a CSV/TSV whose first 64 KiB are ``head`` (blank cells left out)."""
    lines = head.replace("\r\n", "\n").replace("\r", "\n").split("\n", 2)[:2]
    return [name for name in split_header(path, lines)[1] if name.strip()]


class _Rows:
    """Feeds the csv module one line at a time and keeps the rows bounded.

    Tracks where the current row starts and how long it is. Once a row passes
    ``MAX_RECORD_CHARS``, each further line of it is replaced by a stand-in holding only what
    keeps the csv parser in step (a ``"`` when the line has an odd number of quotes, which ends
    or starts a quoted cell), so the row is never built and the rows after it read as usual.
    """

    def __init__(self, lines: Iterator[tuple[int, str | TooLong]]):
        self.lines = lines
        self.number = 0
        self.row_start = 0
        self.row_chars = 0
        self.oversized = False

    def __iter__(self) -> Iterator[str]:
        for number, line in self.lines:
            self.number = number
            if self.row_start == 0:
                self.row_start = number
            if isinstance(line, TooLong):
                chars, quotes = line.chars, line.quotes
            else:
                chars, quotes = len(line), 0
            self.row_chars += chars + 1
            if self.row_chars > MAX_RECORD_CHARS:
                if not isinstance(line, TooLong):
                    quotes = line.count('"')
                self.oversized = True
                yield '"\n' if quotes % 2 else "\n"
            else:
                yield line + "\n"  # type: ignore[operator]

    def row_done(self) -> tuple[int, int, bool]:
        """Return ``(first line, characters, oversized)`` of the row just parsed, and start the next."""
        done = (self.row_start, self.row_chars, self.oversized)
        self.row_start, self.row_chars, self.oversized = 0, 0, False
        return done


def read_csv(path: Path, column_map: dict[str, str] | None = None) -> Iterator[Record | Skip]:
    """Yield one Record (or Skip) per data row of a CSV/TSV file with a header row.

    ``Source.line`` is the line where the row starts (a quoted cell may span several lines).
    Blank rows are ignored; CRLF inside cells becomes LF.

    Raises:
        InputError: the file is missing, binary, empty, UTF-16 or not UTF-8; a ``--map`` column is
            not in the header; there is no abstract column; or the CSV is malformed (with its line).

    """
    defaults = venue_year_from_name(path)
    lines = iter_lines(path)
    first: list[str] = []
    for _number, line in lines:
        if isinstance(line, TooLong):
            raise InputError(too_long_reason("the header line", line.chars), str(path), _number)
        first.append(line)
        if not _SEP_LINE_RE.match(line) or len(first) == 2:
            break
    delimiter, header, header_line = split_header(path, first)
    names = [name for name in header if name.strip()]
    columns = resolve_columns(names, column_map, str(path))
    if "abstract" not in columns:
        raise InputError(
            f"no abstract column (columns: {', '.join(names)}); name it with --map abstract=COLUMN",
            str(path),
            header_line,
        )
    own_export = tuple(header[: len(OWN_EXPORT_COLUMNS)]) == OWN_EXPORT_COLUMNS
    feeder = _Rows(lines)
    # strict: an unclosed quote is an error, not a cell that swallows the rest of the file.
    reader = csv.reader(iter(feeder), delimiter=delimiter, strict=True)
    try:
        for row in reader:
            start, chars, oversized = feeder.row_done()
            if oversized:
                yield Skip(str(path), start, too_long_reason("row", chars))
                continue
            if not any(cell.strip() for cell in row):
                continue
            cells: dict[str, str] = {}
            for name, cell in zip(header, row, strict=False):
                if not name.strip() or (name in cells and not is_missing(cells[name])):
                    continue  # a blank column, or a repeat of one that has a value already
                if own_export:
                    cell = restore_formula(cell)
                cells[name] = cell.replace("\r\n", "\n").replace("\r", "\n")
            yield mapping_to_record(cells, Source(str(path), start, FORMAT), columns, defaults)
    except csv.Error as exc:
        raise InputError(f"malformed CSV: {exc}", str(path), feeder.row_start or feeder.number) from exc
