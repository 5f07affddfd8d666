"""Assemble a Card from the per-field extractors."""

from __future__ import annotations

from ..models import Card, Paper
from .urls import extract_urls

__all__ = ["EXTRACTOR_VERSION", "build_card"]

#: Bumped whenever an extractor changes its output; cards of another version are rebuilt.
EXTRACTOR_VERSION = "0.1"


def build_card(paper: Paper) -> Card:
    """Return the card of ``paper`` (read from ``paper.clean_text`` and its metadata)."""
    code_urls, project_urls = extract_urls(paper.clean_text)
    label = paper.title or " ".join(paper.clean_text.split()[:12])
    return Card(
        label=label,
        method_names=[],
        code_urls=code_urls,
        extractor_version=EXTRACTOR_VERSION,
        extra={"project_urls": project_urls, "venue": paper.venue, "year": paper.year},
    )
