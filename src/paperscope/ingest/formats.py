"""Registry of readers: format name → function yielding Records, and format detection."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from ..errors import InputError
from ..models import Record
from . import text_list

__all__ = ["READERS", "Reader", "detect_format", "get_reader"]

Reader = Callable[[Path], Iterator[Record]]

#: Every format ``paperscope ingest --format`` accepts.
READERS: dict[str, Reader] = {
    text_list.FORMAT: text_list.read_text_list,
}


def detect_format(path: Path) -> str:
    """Return the format name for ``path`` (by extension, then by its first bytes)."""
    return text_list.FORMAT


def get_reader(name: str) -> Reader:
    """Return the reader registered under ``name``.

    Raises:
        InputError: ``name`` is not a registered format (the message lists the valid ones).

    """
    try:
        return READERS[name]
    except KeyError:
        raise InputError(f"unknown format {name!r}; choose one of: {', '.join(sorted(READERS))}") from None
