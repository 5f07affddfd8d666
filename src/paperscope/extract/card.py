"""Assemble a Card from the per-field extractors.

Every extractor reads the clean text (``Paper.clean_text``) and returns values with their
character spans in it, so the UI can highlight them. Fields in ``Card.extra``:
``methods``, ``contribution_types``, ``tasks``, ``datasets``, ``claims``, ``project_urls``,
``area`` (``{label, confidence, source}``), ``venue`` and ``year``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ..models import EXTRACTOR_VERSION, FIRST_CARD_VERSION, Card, Paper
from ..worker_guard import die_with_parent
from .area import predict_area
from .claims import extract_claims
from .contributions import extract_contribution_types
from .datasets import extract_datasets
from .keyphrases import TASK_HEADS, extract_keyphrases
from .label import build_label, title_label
from .methods import extract_methods
from .tasks import MAX_TASKS, extract_tasks
from .urls import code_urls_of_record, extract_urls, merge_code_urls

__all__ = ["EXTRACTOR_VERSION", "FIRST_CARD_VERSION", "build_card", "build_first_card", "build_cards"]


def _urls(paper: Paper) -> tuple[list[str], list[str]]:
    """Return ``(code_urls, project_urls)``: the abstract's, then the record's own code links.

    A record's URL fields (a CSV ``url``/``code``/``github`` column, JSON ``code_url``, BibTeX
    ``url``) count as code when they are on a code host (``urls.CODE_HOSTS``); one entry per
    repository across both.
    """
    code_urls, project_urls = extract_urls(paper.clean_text)
    own = code_urls_of_record(paper.urls)
    return (merge_code_urls(code_urls + own) if own else code_urls), project_urls


def build_first_card(paper: Paper) -> Card:
    """Return the quick card written at ingest: code/project URLs, venue, year, a provisional label.

    Ingest stores papers and extraction reads stored papers (the data flow of STYLE.md), so this
    card does no extraction beyond URLs (the abstract's and the record's own code links, about
    0.02 ms per abstract); ``Library.build_cards`` replaces it with the full card, label and
    method names included, right after ingest.
    """
    code_urls, project_urls = _urls(paper)
    label = title_label(paper.title) if paper.title and paper.title.strip() else ""
    return Card(
        label=label or " ".join(paper.clean_text.split()[:12]),
        method_names=[],
        code_urls=code_urls,
        extractor_version=FIRST_CARD_VERSION,
        extra={"project_urls": project_urls, "venue": paper.venue, "year": paper.year},
    )


def build_card(paper: Paper, embedding: Any = None, embedding_model: str | None = None) -> Card:
    """Return the card of ``paper`` (read from ``paper.clean_text``, its original abstract and metadata).

    ``embedding`` (the paper's stored vector, float shape (dim,)) of embedder ``embedding_model``
    is fused into the area when the area model was trained on that embedder (:func:`predict_area`);
    at ingest there is none yet and ``Library.refine_areas`` adds it after embedding.
    """
    clean = paper.clean_text
    code_urls, project_urls = _urls(paper)
    methods = extract_methods(clean, paper.abstract)
    datasets = extract_datasets(clean, methods)
    task_phrases = extract_keyphrases(clean, MAX_TASKS, last_words=TASK_HEADS)
    return Card(
        label=title_label(paper.title)
        if paper.title and paper.title.strip()
        else build_label(clean, methods),
        method_names=[m.name for m in methods],
        code_urls=code_urls,
        extractor_version=EXTRACTOR_VERSION,
        extra={
            "methods": [m.to_dict() for m in methods],
            "contribution_types": [c.to_dict() for c in extract_contribution_types(clean, methods)],
            "tasks": [t.to_dict() for t in extract_tasks(clean, methods, task_phrases)],
            "datasets": [d.to_dict() for d in datasets],
            "claims": [c.to_dict() for c in extract_claims(clean, [d.name for d in datasets])],
            "area": predict_area(
                clean,
                paper.title or "",
                ", ".join(paper.keywords),
                paper.source_area,
                embedding=embedding,
                embedding_model=embedding_model,
            ).to_dict(),
            "project_urls": project_urls,
            "venue": paper.venue,
            "year": paper.year,
        },
    )


def _build_chunk(
    papers: list[Paper], vectors: Mapping[str, Any] | None = None, embedding_model: str | None = None
) -> list[tuple[str, Card]]:
    vectors = vectors or {}
    return [(p.paper_id, build_card(p, vectors.get(p.paper_id), embedding_model)) for p in papers]


def build_cards(
    papers: Iterable[Paper],
    workers: int = 1,
    chunk_size: int = 500,
    vectors: Mapping[str, Any] | None = None,
    embedding_model: str | None = None,
) -> Iterator[tuple[str, Card]]:
    """Yield ``(paper_id, card)`` for each paper, in input order, on ``workers`` processes.

    Card building is CPU-bound pure Python (about 4 ms of CPU per abstract, see ``bench/cards.py``),
    so ``workers=2`` uses both cores of a small machine; ``workers=1`` stays in this process.
    Workers end with this process, even when it is killed with SIGKILL
    (:func:`paperscope.worker_guard.die_with_parent`).

    Args:
        papers: the papers (with ``clean_text``) to build cards for.
        workers: processes to use; 1 builds in the calling process.
        chunk_size: papers sent to a worker at a time.
        vectors: stored vectors by paper id (of embedder ``embedding_model``) for the area; papers
            without one get the text-only area.
        embedding_model: the ``model_id`` of ``vectors``.

    """
    if workers <= 1:
        for paper in papers:
            yield paper.paper_id, build_card(paper, (vectors or {}).get(paper.paper_id), embedding_model)
        return
    chunks: list[list[Paper]] = []
    chunk: list[Paper] = []
    for paper in papers:
        chunk.append(paper)
        if len(chunk) == chunk_size:
            chunks.append(chunk)
            chunk = []
    if chunk:
        chunks.append(chunk)
    with ProcessPoolExecutor(workers, initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
        mine = [
            {p.paper_id: vectors[p.paper_id] for p in c if p.paper_id in vectors} if vectors else None
            for c in chunks
        ]
        for built in pool.map(_build_chunk, chunks, mine, [embedding_model] * len(chunks)):
            yield from built
