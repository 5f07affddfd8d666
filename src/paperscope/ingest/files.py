"""Opening input files safely: existence, permissions, binary content and encoding checks."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError

__all__ = ["read_text_file", "check_text_file"]

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
    if b"\x00" in head:
        raise InputError("binary file (NUL bytes); expected UTF-8 text", str(path))


def read_text_file(path: Path) -> str:
    """Return the text of a UTF-8 file (BOM removed, CRLF and CR turned into LF).

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
        raise InputError(
            f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); re-save the file as UTF-8",
            str(path),
            line,
        ) from exc
    return text.replace("\r\n", "\n").replace("\r", "\n")
