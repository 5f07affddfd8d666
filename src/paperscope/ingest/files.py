"""Opening input files safely: existence, permissions, binary content and encoding checks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..models import Skip

__all__ = ["read_text_file", "check_text_file", "iter_lines", "read_head", "first_bad_utf8"]

_SNIFF_BYTES = 8192


def check_text_file(path: Path) -> None:
    """Check that ``path`` is a readable, non-empty file that is not binary.

    Raises:
        InputError: the file is missing, a folder, unreadable, empty, or holds NUL bytes.

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


def iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for each line of a UTF-8 file, reading it lazily.

    Memory stays constant however large the file: one line is held at a time. The BOM is
    removed; LF, CRLF and a lone CR each end a line (as editors count lines); the line
    terminator is not part of ``text``. Line numbers are 1-based.

    Raises:
        InputError: as ``check_text_file``, or a line is not UTF-8 (the message gives its line
            and the byte offset of the bad byte).

    """
    check_text_file(path)
    offset = 0
    number = 0
    with path.open("rb") as handle:
        for raw in handle:
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _not_utf8(path, number + 1, offset + exc.start, raw[exc.start]) from exc
            if offset == 0:
                text = text.removeprefix("\ufeff")
            offset += len(raw)
            if text.endswith("\n"):
                text = text[:-1]
            if text.endswith("\r"):
                text = text[:-1]
            if "\r" in text:
                for part in text.split("\r"):
                    number += 1
                    yield number, part
            else:
                number += 1
                yield number, text


def first_bad_utf8(path: Path) -> InputError | None:
    """Return the error for the first line of ``path`` that is not UTF-8, or None when all are."""
    try:
        for _ in iter_lines(path):
            pass
    except InputError as exc:
        return exc
    return None


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


def iter_json_lines(path: Path) -> Iterator[tuple[int, Any] | Skip]:
    """Yield ``(line_number, value)`` for each JSON line of a file, or a Skip for a malformed one.

    Blank lines are passed over; a line that is not JSON becomes ``Skip(path, line, reason)``
    instead of aborting the file. Reads lazily, as :func:`iter_lines`.

    Raises:
        InputError: as :func:`iter_lines`.
    """
    for number, line in iter_lines(path):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            yield Skip(str(path), number, f"invalid JSON: {exc.msg} (column {exc.colno})")
