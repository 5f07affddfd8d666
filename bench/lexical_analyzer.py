"""The BM25 leg alone, per lexical analyzer: ICLR 2026 title and keyword queries, and SciFact.

Usage: PAPERSCOPE_HOME=DIR PYTHONPATH=src python bench/lexical_analyzer.py [--split train|test]
       [--exact-weight 0.25 0.5 1 ...]

Reads the eval libraries under ``$PAPERSCOPE_HOME/eval`` (``paperscope eval`` builds them; copy
them first: opening them with a new analyzer rebuilds their lexical index) and ranks each query
through the product's BM25 leg (:func:`paperscope.index.search.collect_legs`, mode ``bm25``,
FTS5), without embedding anything. ``--split train`` scores the training queries (ICLR's hashed
training quarter, SciFact's train qrels), on which ``EXACT_WEIGHT`` is chosen; ``test`` (the
default) the test queries that ``paperscope eval`` reports. Each ``--exact-weight`` sets
``paperscope.store.lexical.EXACT_WEIGHT`` for one row (an analyzer without it prints one row).
Runs on the code on ``PYTHONPATH``, so the same command measures any checkout.
"""

from __future__ import annotations

import argparse
import time

from paperscope.config import home_dir
from paperscope.evaluation import retrieval
from paperscope.evaluation.metrics import evaluate_run
from paperscope.evaluation.paths import default_data_dir
from paperscope.index.search import collect_legs
from paperscope.store import lexical

#: Each task's metric, as ``paperscope eval`` tunes fusion on them (``retrieval.tune_fusion``,
#: group "english"): the mean of the three over training queries chooses ``EXACT_WEIGHT``.
_OBJECTIVE = {"iclr-title": "mrr@10", "iclr-keywords": "ndcg@10", "scifact": "ndcg@10"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("train", "test"), default="test")
    parser.add_argument("--exact-weight", type=float, nargs="*", default=[])
    args = parser.parse_args()
    work, data = home_dir() / "eval", default_data_dir()
    tasks = []
    for loader in ("iclr", "scifact"):
        lib, loaded = retrieval._LOADERS[loader](data, work, "fake")
        tasks += [(lib, t) for t in loaded if t.name in _OBJECTIVE]
    weights = args.exact_weight if hasattr(lexical, "EXACT_WEIGHT") and args.exact_weight else [None]
    for weight in weights:
        if weight is not None:
            lexical.EXACT_WEIGHT = weight
        figures, values = [], []
        for lib, task in tasks:
            queries, qrels = (
                (task.train_queries, task.train_qrels)
                if args.split == "train"
                else (task.queries, task.qrels)
            )
            started = time.perf_counter()
            run = {}
            for qid, text in queries.items():
                legs = collect_legs(lib.store, text, 100, "bm25")
                run[qid] = [pid for pid, _ in legs.lists.get("bm25", [])]
            metric = _OBJECTIVE[task.name]
            value = evaluate_run(run, qrels, [metric])[metric]
            values.append(value)
            elapsed_ms = 1000 * (time.perf_counter() - started) / max(len(queries), 1)
            figures.append(
                f"{task.name} {metric} {value:.4f} ({len(queries)} queries, {elapsed_ms:.1f} ms/query)"
            )
        label = "" if weight is None else f"exact weight {weight:g}: "
        mean = sum(values) / len(values)
        print(f"{args.split} {label}mean {mean:.4f}; " + "; ".join(figures), flush=True)


if __name__ == "__main__":
    main()
