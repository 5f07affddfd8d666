"""Search quality per query family (issue 24): each leg, the ranking before issue 24 and today's, in one run.

Used by ``python bench/search.py --families``. For every family of
:data:`paperscope.evaluation.fusion_tuning.FAMILIES` the TEST queries (the ICML dev queries:
all of them) are run through the product's search code twice:

- ``before``: the query handling and fusion before issue 24: the query cut to its first 64
  terms and 600 characters (both legs), then the fixed TM2C2 fusion (BM25 0.25, dense 0.75;
  glossed Chinese 0.15 / 0.85);
- ``bm25``, ``dense``, ``hybrid``: today's legs and fusion (:data:`DEFAULT_FUSION`), the query
  bounded by :func:`paperscope.index.bounds.bound_query`.

The BM25 index is today's in both (stemmed from issue 24 on): ``before`` isolates the query
cut and the fusion, not the stemming.
"""

from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass

from paperscope.evaluation.fusion_tuning import FAMILIES
from paperscope.evaluation.metrics import evaluate_run
from paperscope.evaluation.retrieval import load_tasks
from paperscope.index.fusion import DEFAULT_FUSION, Fusion
from paperscope.index.search import collect_legs, fuse_legs
from paperscope.progress import track

#: The fusion before issue 24 (``paperscope.index.fusion`` at commit 4b706a7).
BEFORE_FUSION = Fusion(
    method="convex",
    normaliser="tm2c2",
    weights={"bm25": 0.25, "dense": 0.75},
    glossed_weights={"bm25": 0.15, "dense": 0.85},
)
_DEPTH = 101


def cut_before(query: str) -> str:
    """Return ``query`` cut as before issue 24: its first 64 whitespace terms, then 600 characters."""
    terms = query.split()
    if len(terms) <= 64 and len(query) <= 600:
        return query
    return " ".join(terms[:64])[:600]


@dataclass
class FamilyRow:
    family: str
    metric: str
    queries: int
    values: dict[str, float]

    @property
    def best_leg(self) -> float:
        return max(self.values["bm25"], self.values["dense"])


def _rank(legs, mode: str, fusion: Fusion, exclude: str | None) -> list[str]:  # type: ignore[no-untyped-def]
    ranked = [r.paper_id for r in fuse_legs(legs, _DEPTH, mode, fusion)]
    return [pid for pid in ranked if pid != exclude][:100]


def family_table(progress: bool = True) -> list[FamilyRow]:
    """Return one row per family: metric values of bm25, dense, before and hybrid on its test queries."""
    tasks = {task: family for family, (task, _) in FAMILIES.items()}
    rows = []
    for lib, task in load_tasks(list(tasks), progress=progress):
        family = tasks[task.name]
        metric = FAMILIES[family][1]
        runs: dict[str, dict[str, list[str]]] = {m: {} for m in ("bm25", "dense", "before", "hybrid")}
        memory = functools.partial(lib.memory_bm25, build=False)
        for qid, text in track(task.queries.items(), desc=family, unit="queries", enabled=progress):
            skip = task.exclude.get(qid)
            bounded = lib.bound_query(text)
            legs = collect_legs(
                lib.store,
                bounded.lexical,
                _DEPTH,
                "hybrid",
                None,
                lib.embedder,
                lib.dense_index,
                memory,
                dense_text=bounded.dense,
            )
            alone = collect_legs(
                lib.store,
                bounded.lexical,
                _DEPTH,
                "dense",
                None,
                lib.embedder,
                lib.dense_index,
                memory,
                dense_text=bounded.dense,
            )
            old = cut_before(text)
            old_legs = (
                legs
                if old == text
                else collect_legs(
                    lib.store, old, _DEPTH, "hybrid", None, lib.embedder, lib.dense_index, memory
                )
            )
            runs["bm25"][qid] = _rank(legs, "bm25", DEFAULT_FUSION, skip)
            runs["dense"][qid] = _rank(alone, "dense", DEFAULT_FUSION, skip)
            runs["before"][qid] = _rank(old_legs, "hybrid", BEFORE_FUSION, skip)
            runs["hybrid"][qid] = _rank(legs, "hybrid", DEFAULT_FUSION, skip)
        values = {m: evaluate_run(run, task.qrels, [metric])[metric] for m, run in runs.items()}
        rows.append(FamilyRow(family, metric, len(task.queries), values))
    order = list(FAMILIES)
    return sorted(rows, key=lambda row: order.index(row.family))


def print_family_table(progress: bool = True) -> None:
    """Print the family table with the load average, and whether each family's fusion holds its best leg."""
    started = time.perf_counter()
    print(f"\nsearch quality per query family (test queries; load average {os.getloadavg()[0]:.1f} at start)")
    header = f"{'family':<18}{'metric':<10}{'queries':>8}{'bm25':>8}{'dense':>8}{'before':>8}{'hybrid':>8}  vs best leg"
    print(header)
    for row in family_table(progress):
        v = row.values
        gap = v["hybrid"] - row.best_leg
        verdict = "holds" if gap >= 0 else "BELOW"
        print(
            f"{row.family:<18}{row.metric:<10}{row.queries:>8}{v['bm25']:>8.3f}{v['dense']:>8.3f}"
            f"{v['before']:>8.3f}{v['hybrid']:>8.3f}  {gap:+.3f} {verdict}"
        )
    print(f"({time.perf_counter() - started:.0f} s; load average {os.getloadavg()[0]:.1f} at the end)")
