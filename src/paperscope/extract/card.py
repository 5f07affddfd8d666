"""Assemble a Card from the per-field extractors.

Every extractor reads the clean text (``Paper.clean_text``) and returns values with their
character spans in it, so the UI can highlight them. Fields in ``Card.extra``:
``methods``, ``contribution_types``, ``tasks``, ``datasets``, ``claims``, ``project_urls``,
``area`` (``{label, confidence, source}``), ``venue`` and ``year``.
"""

from __future__ import annotations

from ..models import Card, Paper
from .area import predict_area
from .claims import extract_claims
from .contributions import extract_contribution_types
from .datasets import extract_datasets
from .label import build_label
from .methods import extract_methods
from .tasks import extract_tasks
from .urls import extract_urls

__all__ = ["EXTRACTOR_VERSION", "build_card"]

#: Bumped whenever an extractor changes its output; cards of another version are rebuilt.
EXTRACTOR_VERSION = "0.3"


def build_card(paper: Paper) -> Card:
    """Return the card of ``paper`` (read from ``paper.clean_text``, its original abstract and metadata)."""
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
            "contribution_types": [c.to_dict() for c in extract_contribution_types(clean, methods)],
            "tasks": [t.to_dict() for t in extract_tasks(clean, methods)],
            "datasets": [d.to_dict() for d in extract_datasets(clean, methods)],
            "claims": [c.to_dict() for c in extract_claims(clean)],
            "area": predict_area(
                clean, paper.title or "", ", ".join(paper.keywords), paper.source_area
            ).to_dict(),
            "project_urls": project_urls,
            "venue": paper.venue,
            "year": paper.year,
        },
    )
