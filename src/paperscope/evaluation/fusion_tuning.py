"""Choosing the hybrid fusion on training queries of every query family (issue 24).

Usage: ``python -m paperscope.evaluation.fusion_tuning [--cache legs.pkl]``

The legs (BM25 and dense candidate lists) of every TRAINING query of each family are collected
once through the product's search code (:func:`paperscope.evaluation.retrieval.query_legs`),
then each candidate fusion is scored on them. A family's objective is its metric from
:data:`FAMILIES`; a fusion's score is the mean over families, and a fusion that puts any family
below that family's best single leg is reported but never chosen. Test queries are never read.
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..index.fusion import DEFAULT_FUSION, Fusion
from ..index.search import Legs, fuse_legs
from .metrics import evaluate_run, mrr_at_k, ndcg_at_k, parse_metric, recall_at_k
from .retrieval import EvalTask, load_tasks, query_legs

__all__ = [
    "FAMILIES",
    "collect_legs_of",
    "score_fusion",
    "grid",
    "tune",
    "tune_glossed",
    "OBJECTIVE",
    "agreement_features",
    "agreement_grid",
    "oracle",
]

#: Family → (task, objective metric). The ICML dev queries are hand-labelled dev queries: all of
#: them tune (they have no test split; they are reported apart in ``paperscope eval``).
FAMILIES: dict[str, tuple[str, str]] = {
    "titles": ("iclr-title", "mrr@10"),
    "keywords": ("iclr-keywords", "ndcg@10"),
    "statements": ("scifact", "ndcg@10"),
    "chinese": ("iclr-zh", "mrr@10"),
    "abstracts": ("iclr-abstract", "recall@1"),
    "method sentences": ("iclr-method", "ndcg@10"),
    "icml dev (en)": ("icml-dev-en", "ndcg@10"),
    "icml dev (zh)": ("icml-dev-zh", "ndcg@10"),
}
_DEPTH = 101
#: The families whose mean is the objective, and which must each stay at or above their best leg.
#: Chinese queries use the glossed weights alone (tuned apart, :func:`tune_glossed`); the ICML dev
#: sets (6 and 4 queries) are too small to tune on and are printed for reference.
OBJECTIVE = ("titles", "keywords", "statements", "abstracts", "method sentences")


def _training(task: EvalTask) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    if task.name.startswith("icml-dev"):
        return task.queries, task.qrels
    return task.train_queries, task.train_qrels


def collect_legs_of(
    families: Sequence[str] = tuple(FAMILIES), progress: bool = False
) -> dict[str, tuple[dict[str, Legs], dict[str, dict[str, int]], dict[str, str]]]:
    """Return family → (query id → legs, qrels, excluded paper per query) for its training queries."""
    tasks = {FAMILIES[f][0]: f for f in families}
    out = {}
    for lib, task in load_tasks(list(tasks), progress=progress):
        queries, qrels = _training(task)
        legs = query_legs(lib, queries, _DEPTH, progress, f"legs {task.name}")
        out[tasks[task.name]] = (legs, qrels, task.exclude)
    return out


def score_fusion(
    fusion: Fusion | None,
    collected: dict[str, tuple[dict[str, Legs], dict[str, dict[str, int]], dict[str, str]]],
    mode: str = "hybrid",
) -> dict[str, float]:
    """Return family → objective of ``fusion`` (or of one leg, ``mode`` "bm25"/"dense") on the collected legs."""
    out = {}
    for family, (legs, qrels, exclude) in collected.items():
        metric = FAMILIES[family][1]
        run = {}
        for qid, leg in legs.items():
            ranked = [r.paper_id for r in fuse_legs(leg, _DEPTH, mode, fusion or DEFAULT_FUSION)]
            run[qid] = [pid for pid in ranked if pid != exclude.get(qid)][:100]
        out[family] = evaluate_run(run, qrels, [metric])[metric]
    return out


#: Dense weights a query may get, in steps of 0.01: each query's objective is computed once per
#: (normaliser, weight), so a fusion's score is a table lookup (the grid has 1,800 fusions).
_WEIGHT_STEPS = 101


def _query_table(
    leg: Legs, grades: dict[str, int], exclude: str | None, metric: str, normaliser: str
) -> np.ndarray:
    """Return float64 (_WEIGHT_STEPS,): the query's objective at dense weight 0.00, 0.01, ..., 1.00."""
    base, k = parse_metric(metric)
    scorer = {"ndcg": ndcg_at_k, "mrr": mrr_at_k, "recall": recall_at_k}[base]
    out = np.zeros(_WEIGHT_STEPS)
    for step in range(_WEIGHT_STEPS):
        w = step / (_WEIGHT_STEPS - 1)
        fusion = Fusion(normaliser=normaliser, weights={"bm25": 1 - w, "dense": w})
        ranked = [r.paper_id for r in fuse_legs(leg, k + 1, "hybrid", fusion)]
        out[step] = scorer([pid for pid in ranked if pid != exclude][:k], grades, k)
    return out


def prepare(collected, normalisers: Sequence[str] = ("tm2c2", "zscore")):  # type: ignore[no-untyped-def]
    """Return family → (n_terms int array (q,), glossed bool array (q,), normaliser → float64 (q, 101)).

    Row i, column s of a table is query i's objective at dense weight s / 100.
    """
    out = {}
    for family, (legs, qrels, exclude) in collected.items():
        metric = FAMILIES[family][1]
        qids = [q for q in legs if any(g > 0 for g in qrels.get(q, {}).values())]
        tables = {
            n: np.array([_query_table(legs[q], qrels[q], exclude.get(q), metric, n) for q in qids])
            for n in normalisers
        }
        n_terms = np.array([legs[q].n_terms for q in qids])
        glossed = np.array([legs[q].glossed for q in qids], dtype=bool)
        out[family] = (n_terms, glossed, tables)
    return out


def fast_score(fusion: Fusion, prepared) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Return family → mean objective of ``fusion`` (dense weight rounded to 0.01) from :func:`prepare`."""
    out = {}
    for family, (n_terms, glossed, tables) in prepared.items():
        table = tables[fusion.normaliser]
        steps = np.array(
            [
                round(fusion.weights_for(int(n), bool(g)).get("dense", 0.0) * 100)
                for n, g in zip(n_terms, glossed, strict=True)
            ]
        )
        out[family] = float(table[np.arange(len(steps)), steps].mean()) if len(steps) else 0.0
    return out


def grid() -> list[Fusion]:
    """Return the candidate fusions: normaliser x short/long dense weight x length knots."""
    weights = [round(0.05 * i, 2) for i in range(4, 21)]
    out = []
    for normaliser, short, long_, (lo, hi) in itertools.product(
        ("tm2c2", "zscore"), weights, weights, ((4, 16), (4, 32), (8, 32), (8, 64), (16, 64))
    ):
        out.append(
            Fusion(
                method="convex",
                normaliser=normaliser,
                weights={"bm25": round(1 - short, 2), "dense": short},
                weights_long={"bm25": round(1 - long_, 2), "dense": long_},
                length_knots=(lo, hi),
                glossed_weights=DEFAULT_FUSION.glossed_weights,
            )
        )
    return out


def tune(prepared, candidates: Sequence[Fusion]) -> list[tuple[float, bool, Fusion, dict[str, float]]]:  # type: ignore[no-untyped-def]
    """Return ``(mean objective, keeps every family at or above its best leg, fusion, per family)`` best first."""
    alone = {
        m: fast_score(Fusion(normaliser="tm2c2", weights=w), prepared)
        for m, w in (("bm25", {"bm25": 1.0, "dense": 0.0}), ("dense", {"bm25": 0.0, "dense": 1.0}))
    }
    best_leg = {f: max(alone["bm25"][f], alone["dense"][f]) for f in prepared}
    rows = []
    for fusion in candidates:
        values = fast_score(fusion, prepared)
        family = [f for f in OBJECTIVE if f in values]
        safe = all(values[f] >= best_leg[f] - 1e-9 for f in family)
        rows.append((sum(values[f] for f in family) / max(len(family), 1), safe, fusion, values))
    rows.sort(key=lambda row: (not row[1], -row[0]))
    return rows


def tune_glossed(prepared) -> list[tuple[float, str, float]]:  # type: ignore[no-untyped-def]
    """Return ``(Chinese training MRR@10, normaliser, glossed dense weight)`` best first."""
    rows = []
    for normaliser, dense in itertools.product(
        ("tm2c2", "zscore"), [round(0.05 * i, 2) for i in range(4, 21)]
    ):
        fusion = Fusion(normaliser=normaliser, glossed_weights={"bm25": round(1 - dense, 2), "dense": dense})
        rows.append((fast_score(fusion, {"chinese": prepared["chinese"]})["chinese"], normaliser, dense))
    return sorted(rows, reverse=True)


def agreement_features(collected) -> dict[str, np.ndarray]:  # type: ignore[no-untyped-def]
    """Return family → float64 (q, 3): per query, the legs' confidence and agreement.

    Columns: the BM25 leg's relative gap ``(s1 - s2) / s1``, the dense leg's cosine gap
    ``c1 - c2``, and the overlap of the two legs' top 10 (0..1). Rows follow :func:`prepare`.
    """
    out = {}
    for family, (legs, qrels, _) in collected.items():
        rows = []
        for qid in (q for q in legs if any(g > 0 for g in qrels.get(q, {}).values())):
            bm25, dense = legs[qid].lists.get("bm25", []), legs[qid].lists.get("dense", [])
            gap_b = (bm25[0][1] - bm25[1][1]) / bm25[0][1] if len(bm25) > 1 and bm25[0][1] > 0 else 0.0
            gap_d = dense[0][1] - dense[1][1] if len(dense) > 1 else 0.0
            overlap = len({p for p, _ in bm25[:10]} & {p for p, _ in dense[:10]}) / 10
            rows.append((gap_b, gap_d, overlap))
        out[family] = np.array(rows, dtype=np.float64).reshape(-1, 3)
    return out


def _score_weights(prepared, weights: dict[str, np.ndarray]) -> dict[str, float]:  # type: ignore[no-untyped-def]
    out = {}
    for family, (_, _, tables) in prepared.items():
        steps = np.clip(np.round(weights[family] * 100).astype(int), 0, 100)
        out[family] = float(tables["tm2c2"][np.arange(len(steps)), steps].mean()) if len(steps) else 0.0
    return out


def agreement_grid(prepared, features) -> list[tuple[float, tuple[float, float, float], dict[str, float]]]:  # type: ignore[no-untyped-def]
    """Return ``(mean objective, (a, b, c), per family)`` best first for agreement-adjusted weights.

    A query's dense weight is the default length rule's plus ``a (gap_b - 0.1) + b (gap_d -
    0.02) + c (overlap - 0.5)`` (glossed queries keep theirs): the "weight by how well the
    legs agree" of issue 24, tried on the same training tables as :func:`tune`.
    """
    base = {
        family: np.array(
            [
                DEFAULT_FUSION.weights_for(int(n), bool(g)).get("dense", 0.0)
                for n, g in zip(terms, glossed, strict=True)
            ]
        )
        for family, (terms, glossed, _) in prepared.items()
    }
    rows = []
    for a, b, c in itertools.product(
        (-1.0, -0.5, -0.25, 0.0, 0.25), (0.0, 2.0, 4.0, 8.0), (-0.3, -0.15, 0.0, 0.15, 0.3)
    ):
        weights = {}
        for family, (_, glossed, _) in prepared.items():
            f = features[family]
            adjust = a * (f[:, 0] - 0.1) + b * (f[:, 1] - 0.02) + c * (f[:, 2] - 0.5)
            weights[family] = np.where(glossed, base[family], base[family] + adjust)
        values = _score_weights(prepared, weights)
        mean = sum(values[f] for f in OBJECTIVE if f in values) / len([f for f in OBJECTIVE if f in values])
        rows.append((mean, (a, b, c), values))
    rows.sort(key=lambda row: -row[0])
    return rows


def oracle(prepared) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Return family → mean objective when every query gets its own best dense weight (an upper bound)."""
    return {family: float(tables["tm2c2"].max(axis=1).mean()) for family, (_, _, tables) in prepared.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, help="pickle of the collected training legs (read or written)")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument(
        "--agreement",
        action="store_true",
        help="also try weights adjusted by the legs' agreement, and the oracle",
    )
    args = parser.parse_args(argv)
    if args.cache and args.cache.is_file():
        collected = pickle.loads(args.cache.read_bytes())
    else:
        collected = collect_legs_of(progress=True)
        if args.cache:
            args.cache.write_bytes(pickle.dumps(collected))
    for mode in ("bm25", "dense"):
        print(mode, {f: round(v, 3) for f, v in score_fusion(None, collected, mode).items()})
    print("default", {f: round(v, 3) for f, v in score_fusion(DEFAULT_FUSION, collected).items()})
    prepared = prepare(collected)
    print("default (fast)", {f: round(v, 3) for f, v in fast_score(DEFAULT_FUSION, prepared).items()})
    for value, normaliser, dense in tune_glossed(prepared)[:5]:
        print(f"glossed {normaliser} dense {dense}: chinese {value:.3f}")
    for mean, safe, fusion, values in tune(prepared, grid())[: args.top]:
        print(
            f"{mean:.4f} {'safe' if safe else 'LOSES'} {fusion.normaliser} {dict(fusion.weights)}"
            f" long {dict(fusion.weights_long or {})} knots {fusion.length_knots}",
            {f: round(v, 3) for f, v in values.items()},
        )
    if args.agreement:
        print("oracle (each query its best weight)", {f: round(v, 3) for f, v in oracle(prepared).items()})
        for mean, (a, b, c), values in agreement_grid(prepared, agreement_features(collected))[:5]:
            print(f"{mean:.4f} agreement a={a} b={b} c={c}", {f: round(v, 3) for f, v in values.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
