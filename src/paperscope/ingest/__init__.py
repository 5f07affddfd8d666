"""Readers for each input format, format detection, and the ingest pipeline.

The names below load on first use (PEP 562), so a command that only needs one light reader
module (an export reads ``ingest.csv_table`` and ``ingest.fields``) does not import the pipeline
and its dedup arrays (numpy) with the package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .formats import READERS, detect_format, get_reader
    from .pipeline import ingest_paths, paper_id_for

__all__ = ["READERS", "detect_format", "get_reader", "ingest_paths", "paper_id_for"]

_HOME = {
    "READERS": "formats",
    "detect_format": "formats",
    "get_reader": "formats",
    "ingest_paths": "pipeline",
    "paper_id_for": "pipeline",
}


def __getattr__(name: str) -> Any:
    """Return one of :data:`__all__`, importing its module on first use.

    Raises:
        AttributeError: ``name`` is not one of them.
    """
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{home}", __name__), name)
