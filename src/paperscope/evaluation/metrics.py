"""Ranking metrics: nDCG@k, MRR@k, Recall@k, one query at a time and averaged over a run.

Conventions follow trec_eval as BEIR (Thakur et al., 2021) reports it: gains are the graded
relevance values themselves, a relevant document is one with grade > 0, and a query with no
relevant document is left out of the averages.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

__all__ = ["ndcg_at_k", "mrr_at_k", "recall_at_k", "evaluate_run", "METRICS", "parse_metric"]

Qrels = Mapping[str, int]


def ndcg_at_k(ranking: Sequence[str], qrels: Qrels, k: int) -> float:
    """Return nDCG@k (Järvelin & Kekäläinen, ACM TOIS 2002) with graded gains.

    ``DCG@k = sum_{i=1..k} grade(d_i) / log2(i + 1)``; the ideal DCG sorts every judged
    grade > 0 in decreasing order. Returns 0.0 when no document is relevant.
    """
    dcg = sum(
        qrels.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranking[:k]) if qrels.get(doc, 0) > 0
    )
    ideal_grades = sorted((g for g in qrels.values() if g > 0), reverse=True)[:k]
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(ideal_grades))
    return dcg / ideal if ideal > 0 else 0.0


def mrr_at_k(ranking: Sequence[str], qrels: Qrels, k: int) -> float:
    """Return the reciprocal rank of the first relevant document in the top ``k`` (0.0 if none)."""
    for i, doc in enumerate(ranking[:k]):
        if qrels.get(doc, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def recall_at_k(ranking: Sequence[str], qrels: Qrels, k: int) -> float:
    """Return the share of relevant documents (grade > 0) found in the top ``k``."""
    relevant = {doc for doc, g in qrels.items() if g > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranking[:k])) / len(relevant)


_FUNCTIONS = {"ndcg": ndcg_at_k, "mrr": mrr_at_k, "recall": recall_at_k}
#: The metrics `paperscope eval` reports, in table order.
METRICS = ("ndcg@10", "mrr@10", "recall@1", "recall@5", "recall@10", "recall@100")


def parse_metric(name: str) -> tuple[str, int]:
    """Split ``"ndcg@10"`` into ``("ndcg", 10)``.

    Raises:
        ValueError: the name is not ``<ndcg|mrr|recall>@<k>`` with k >= 1.
    """
    base, _, cut = name.lower().partition("@")
    if base not in _FUNCTIONS or not cut.isdigit() or int(cut) < 1:
        raise ValueError(f"unknown metric {name!r}; use ndcg@K, mrr@K or recall@K")
    return base, int(cut)


def evaluate_run(
    run: Mapping[str, Sequence[str]], qrels: Mapping[str, Qrels], metrics: Sequence[str] = METRICS
) -> dict[str, float]:
    """Return metric → mean over the judged queries of ``qrels`` (a query missing from ``run`` scores 0).

    Args:
        run: query id → ranked document ids, best first.
        qrels: query id → {document id: grade}; queries with no grade > 0 are skipped.
        metrics: names like ``"ndcg@10"`` (see :func:`parse_metric`).
    """
    parsed = [(name, *parse_metric(name)) for name in metrics]
    judged = [q for q, grades in qrels.items() if any(g > 0 for g in grades.values())]
    if not judged:
        return {name: 0.0 for name in metrics}
    out = {}
    for name, base, k in parsed:
        fn = _FUNCTIONS[base]
        out[name] = sum(fn(run.get(q, []), qrels[q], k) for q in judged) / len(judged)
    return out
