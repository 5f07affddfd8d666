"""Opening input files safely: existence, binary content and encoding checks, bounded line reading, JSON values.

Every reader reads through here, so every reader holds at most ``MAX_RECORD_CHARS`` of one
record in memory however large or oddly shaped the file: a longer line is passed over in
pieces and reported with its size (:class:`TooLong`) instead of being built.
"""

from __future__ import annotations

import codecs
import io
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..models import Skip

__all__ = [
    "MAX_RECORD_CHARS",
    "TooLong",
    "brace_balance",
    "check_text_file",
    "count_lines",
    "first_bad_utf8",
    "iter_json_lines",
    "iter_lines",
    "json_decoder",
    "json_error_reason",
    "open_text",
    "read_head",
    "read_text_file",
    "too_long_reason",
]

_SNIFF_BYTES = 8192
_LOCATE_CHUNK_BYTES = 2**20
#: Bytes read at a time when counting a file's lines (a progress total).
_COUNT_CHUNK_BYTES = 2**20

#: The most characters of one record (a line, a JSON array element, a BibTeX entry, a CSV row,
#: a text-list paragraph) a reader holds (16 Mi). Real records are under 100 k characters (an
#: abstract is kept only up to ``pipeline.MAX_ABSTRACT_CHARS``, 20,000); a larger one is a full
#: text, a database dump or a broken file, and is skipped with its size without being built.
MAX_RECORD_CHARS = 16 * 2**20


@dataclass(frozen=True)
class TooLong:
    """A line longer than the reader's limit, passed over unread: only its size is kept.

    Attributes:
        chars: the line's length in characters (line terminator excluded).
        quotes: how many ``"`` it holds (the CSV reader needs the parity to stay in step).
        braces: ``{`` less ``}`` in it, unescaped (the BibTeX reader follows the nesting).
        head: its first 256 characters (enough to tell an entry's or a header's start).
    """

    chars: int
    quotes: int = 0
    braces: int = 0
    head: str = ""


def too_long_reason(what: str, chars: int) -> str:
    """Return the Skip reason for a record of ``chars`` characters over ``MAX_RECORD_CHARS``."""
    return (
        f"{what} is {chars:,} characters, more than the {MAX_RECORD_CHARS:,} a record may take: "
        "a full text or a broken file, not a paper record"
    )


def _looks_utf16(head: bytes) -> bool:
    """True when every other byte of ``head`` is NUL and the rest printable: UTF-16 without a BOM."""
    if len(head) < 8:
        return False
    for start in (0, 1):
        zeros = head[1 - start :: 2]
        text = head[start::2]
        if zeros.count(0) >= 0.95 * len(zeros) and all(32 <= b < 127 or b in (9, 10, 13) for b in text[:256]):
            return True
    return False


def brace_balance(text: str) -> int:
    r"""Return how many more ``{`` than ``}`` ``text`` holds, escaped ones (``\{``) not counted."""
    return text.count("{") - text.count("\\{") - text.count("}") + text.count("\\}")


def check_text_file(path: Path) -> None:
    """Check that ``path`` is a readable, non-empty file that is not binary.

    Raises:
        InputError: the file is missing, a folder, unreadable, empty, UTF-16 (Excel's "Unicode
            text"; the message says to re-save it as UTF-8), or holds NUL bytes.

    """
    if not path.exists():
        raise InputError("no such file", str(path))
    if path.is_dir():
        raise InputError("is a folder, not a file", str(path))
    try:
        with path.open("rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", str(path)) from exc
    if not head.strip(b" \t\r\n\xef\xbb\xbf"):
        raise InputError("empty file", str(path))
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError("UTF-16 text; re-save the file as UTF-8", str(path))
    if b"\x00" in head:
        if _looks_utf16(head):
            raise InputError("UTF-16 text (no byte-order mark); re-save the file as UTF-8", str(path))
        raise InputError("binary file (NUL bytes); expected UTF-8 text", str(path))


def read_head(path: Path, size_bytes: int = 65536) -> str:
    """Return up to ``size_bytes`` from the start of a checked file, decoded leniently, BOM removed.

    Used for format sniffing only: a bad byte here is reported later, by the reader, with its line.

    Raises:
        InputError: as ``check_text_file``.

    """
    check_text_file(path)
    with path.open("rb") as handle:
        head = handle.read(size_bytes)
    return head.decode("utf-8", errors="replace").removeprefix("\ufeff")


def _not_utf8(path: Path, line: int, offset: int, byte: int) -> InputError:
    return InputError(
        f"not UTF-8 (byte 0x{byte:02x} at offset {offset}); re-save the file as UTF-8", str(path), line
    )


def _line_breaks(data: bytes) -> int:
    return data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")


def first_bad_utf8(path: Path) -> InputError | None:
    """Return the error for the first byte of ``path`` that is not UTF-8, or None when all are.

    The error gives the line (LF, CRLF and a lone CR each end one, as :func:`iter_lines` counts)
    and the byte offset. Reads the file once in 1 MiB chunks, in bounded memory.
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0
    lines = 1
    last_cr = False
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(_LOCATE_CHUNK_BYTES):
                try:
                    decoder.decode(chunk)
                except UnicodeDecodeError as exc:
                    # exc.start counts from the bytes the decoder held back plus this chunk.
                    held = len(exc.object) - len(chunk)
                    start = max(0, exc.start - held)
                    before = chunk[:start]
                    lines += _line_breaks(before) - (1 if last_cr and before.startswith(b"\n") else 0)
                    bad = exc.object[exc.start]
                    return _not_utf8(path, lines, offset + exc.start - held, bad)
                lines += _line_breaks(chunk) - (1 if last_cr and chunk.startswith(b"\n") else 0)
                last_cr = chunk.endswith(b"\r")
                offset += len(chunk)
            decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:  # the file ends inside a multi-byte sequence
        return _not_utf8(path, lines, offset - (len(exc.object) - exc.start), exc.object[exc.start])
    except OSError:
        return None
    return None


def open_text(path: Path) -> io.TextIOWrapper:
    """Open ``path`` as UTF-8 text (BOM removed, bad bytes an error) with line ends untranslated."""
    return io.TextIOWrapper(path.open("rb"), encoding="utf-8-sig", errors="strict", newline="")


def iter_lines(path: Path, max_chars: int = MAX_RECORD_CHARS) -> Iterator[tuple[int, str | TooLong]]:
    """Yield ``(line_number, text)`` for each line of a UTF-8 file, reading it lazily.

    Memory stays bounded however large the file: one line of at most ``max_chars`` characters
    is held at a time; a longer line is read past in pieces and yielded as :class:`TooLong` (its
    size only). The BOM is removed; LF, CRLF and a lone CR each end a line (as editors count
    lines); the line terminator is not part of ``text``. Line numbers are 1-based.

    Raises:
        InputError: as ``check_text_file``, or the file is not UTF-8 (the message gives the line
            and the byte offset of the first bad byte).

    """
    check_text_file(path)
    number = 0
    try:
        with open_text(path) as handle:
            while line := handle.readline(max_chars + 1):
                number += 1
                if line.endswith("\n"):
                    yield number, line[:-2] if line.endswith("\r\n") else line[:-1]
                elif line.endswith("\r"):
                    yield number, line[:-1]
                elif len(line) <= max_chars:
                    yield number, line  # the last line, without an end
                else:
                    head = line[:256]
                    chars, quotes, braces = len(line), line.count('"'), brace_balance(line)
                    while not line.endswith(("\n", "\r")):
                        line = handle.readline(max_chars)
                        if not line:
                            break
                        chars += len(line)
                        quotes += line.count('"')
                        braces += brace_balance(line)
                    chars -= len(line) - len(line.rstrip("\r\n"))
                    yield number, TooLong(chars, quotes, braces, head)
    except UnicodeDecodeError as exc:
        raise (first_bad_utf8(path) or InputError("not UTF-8", str(path), number + 1)) from exc


def read_text_file(path: Path) -> str:
    """Return the text of a UTF-8 file (BOM removed, CRLF and CR turned into LF).

    Reads the whole file: for small files only (readers of large inputs use ``iter_lines``).

    Raises:
        InputError: as ``check_text_file``, or the bytes are not UTF-8 (the message gives the
            line of the first bad byte).

    """
    check_text_file(path)
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise _not_utf8(path, line, exc.start, data[exc.start]) from exc
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Build a JSON object; a key given twice keeps its first non-empty value (case 20)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key not in out or (_is_empty(out[key]) and not _is_empty(value)):
            out[key] = value
    return out


def _constant(name: str) -> None:
    """``NaN``, ``Infinity`` and ``-Infinity`` (as pandas and ``json.dump`` write them) are missing values."""
    return None


def _finite(text: str) -> float | None:
    value = float(text)
    return value if math.isfinite(value) else None  # 1e400 overflows to inf: missing too


def json_decoder() -> json.JSONDecoder:
    """Return the decoder every JSON reader uses, so arrays and JSON Lines read values alike.

    ``NaN``/``Infinity``/``-Infinity`` (and numbers too large for a float) become ``None``; a key
    repeated in one object keeps its first non-empty value; control characters inside strings
    are accepted (the pipeline removes them and reports the repair).
    """
    return json.JSONDecoder(
        object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_finite, strict=False
    )


_DECODER = json_decoder()


def json_error_reason(exc: Exception) -> str:
    """Return why a JSON value could not be decoded, in words (the line is reported beside it)."""
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON: {exc.msg} (column {exc.colno})"
    if isinstance(exc, RecursionError):
        return "invalid JSON: nested too deeply"
    return f"invalid JSON: {str(exc).split(';')[0]}"  # int too large to convert, etc.


def iter_json_lines(path: Path) -> Iterator[tuple[int, Any] | Skip]:
    """Yield ``(line_number, value)`` for each JSON line of a file, or a Skip for a malformed one.

    Blank lines are passed over; a line that is not JSON, or longer than ``MAX_RECORD_CHARS``,
    becomes ``Skip(path, line, reason)`` instead of aborting the file. Values are decoded by
    :func:`json_decoder`. Reads lazily, as :func:`iter_lines`.

    Raises:
        InputError: as :func:`iter_lines`.
    """
    for number, line in iter_lines(path):
        if isinstance(line, TooLong):
            yield Skip(str(path), number, too_long_reason("line", line.chars))
            continue
        if not line.strip():
            continue
        try:
            yield number, _DECODER.decode(line)
        except (ValueError, RecursionError) as exc:
            yield Skip(str(path), number, json_error_reason(exc))


def count_lines(path: Path) -> int:
    """Return how many lines :func:`iter_lines` numbers in ``path`` (0 if it cannot be read).

    LF, CRLF and a lone CR each end a line, and a last line without an end still counts.
    Reads the file once in 1 MiB chunks (about 1 s for a 4 GB arXiv snapshot in the page cache).
    """
    lines = 0
    last = b""
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(_COUNT_CHUNK_BYTES):
                lines += chunk.count(b"\n")
                if b"\r" in chunk:
                    lines += chunk.count(b"\r") - chunk.count(b"\r\n")
                if last == b"\r" and chunk.startswith(b"\n"):
                    lines -= 1  # a CRLF split across two chunks was counted twice
                last = chunk[-1:]
    except OSError:
        return 0
    return lines + (1 if last and last not in (b"\n", b"\r") else 0)
