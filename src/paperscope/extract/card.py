"""Assemble a Card from the per-field extractors."""

from __future__ import annotations

from ..models import Card, Paper
from .label import build_label
from .methods import extract_methods
from .urls import extract_urls

__all__ = ["EXTRACTOR_VERSION", "build_card"]

#: Bumped whenever an extractor changes its output; cards of another version are rebuilt.
EXTRACTOR_VERSION = "0.2"


def build_card(paper: Paper) -> Card:
    """Return the card of ``paper`` (read from ``paper.clean_text``, its original abstract and metadata).

    ``extra["methods"]`` holds each method name with its long form and the character span of
    its first mention in ``paper.clean_text``.
    """
    clean = paper.clean_text
    code_urls, project_urls = extract_urls(clean)
    methods = extract_methods(clean, paper.abstract)
    label = build_label(clean, methods) if clean.strip() else (paper.title or "")
    return Card(
        label=label,
        method_names=[m.name for m in methods],
        code_urls=code_urls,
        extractor_version=EXTRACTOR_VERSION,
        extra={
            "methods": [m.to_dict() for m in methods],
            "project_urls": project_urls,
            "venue": paper.venue,
            "year": paper.year,
        },
    )
