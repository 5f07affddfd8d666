"""Readers for each input format, format detection, and the ingest pipeline."""

from .formats import READERS, detect_format, get_reader
from .pipeline import ingest_paths, paper_id_for

__all__ = ["READERS", "detect_format", "get_reader", "ingest_paths", "paper_id_for"]
