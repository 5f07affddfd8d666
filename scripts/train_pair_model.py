"""Train the enrich pair model (issue 23) and choose its floor, and write ``enrich/data/pair_model.json``.

Usage: PYTHONPATH=src python scripts/train_pair_model.py [--iclr DIR] [--mode bm25|hybrid] [--keep DIR]
(default DIR: ../shared/data/iclr2026-primary-area). ``hybrid`` embeds every abstract and title
with the library's embedder (``PAPERSCOPE_EMBEDDER``, the int8 MiniLM by default; minutes, or
read back from ``--keep DIR``). Only the mode trained is replaced in the file.

1. **Set and split** (:mod:`paperscope.evaluation.enrich`): the 4,302 ICLR 2026 abstracts as a
   title-less library against the title-only program; seed 15 splits the papers into train (a
   quarter), dev (a quarter) and test (half, never read here).
2. **Rows**: the candidate pairs (:mod:`paperscope.enrich.pair_features`) of the train papers in
   the worlds of :func:`make_worlds` drawn with seed ``TRAIN_SEED`` (closed, open with a third and
   two thirds of the library in no program, and 300-paper libraries of train papers, closed and
   open); a pair is positive when the entry is the paper's own; an orphan's pairs are all
   negative and weigh ``ORPHAN_WEIGHT``.
3. **Model**: a scikit-learn LogisticRegression (lbfgs, ``C``) on standardised features.
4. **Floor**: the assignment (:func:`paperscope.enrich.assign.assign`) is run on the eval's worlds
   (seed 15; the small ones drawn from dev papers) at each floor of ``FLOORS``; chosen: the lowest
   floor (the most coverage) at which the dev papers' precision is at least ``DEV_PRECISION`` in
   every closed and open setting and ``DEV_PRECISION_SMALL_OPEN`` in the small open one.

Deterministic (lbfgs from zeros, sorted JSON, floats rounded to 8 digits): the same data gives the
same file.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from paperscope.enrich.pair_features import features_of
from paperscope.enrich.pair_model import PAIR_MODEL_VERSION, PairModel
from paperscope.evaluation.enrich import (
    SEED,
    assignment_figures,
    build_enrich_set,
    make_worlds,
    score_worlds,
    split_ids,
    world_pairs,
)

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "src/paperscope/enrich/data/pair_model.json"
#: Seed of the training worlds (the eval's are ``SEED``: other samples of areas and papers).
TRAIN_SEED = SEED + 100
#: Inverse regularisation strength (scikit-learn's default).
C = 1.0
#: Weight of a pair of a paper that has no entry in its world's program (an orphan of an open
#: world): with 1, orphans' best pairs kept dev precision in the open worlds near 0.97 at the
#: coverage the closed world reached 0.997 at; 5 moves the open worlds to about 0.99 (hybrid, dev).
ORPHAN_WEIGHT = 5.0
#: Floors tried (pair probability).
FLOORS = np.round(np.arange(0.05, 1.0, 0.01), 2)
#: Dev precision the floor must keep in the closed and open settings: above issue 23's 0.99, so
#: that the unseen test split keeps it.
DEV_PRECISION = 0.99
#: Dev precision in the small open setting (target 0.98).
DEV_PRECISION_SMALL_OPEN = 0.985


def _rows(s, worlds, train):  # type: ignore[no-untyped-def]
    """Return the train papers' pair rows, labels and weights over ``worlds``."""
    xs, ys, ws = [], [], []
    for w in worlds:
        pairs, pids, right = world_pairs(s, w)
        mine = np.array([p in train for p in pids], dtype=bool)
        xs.append(pairs.x[mine])
        ys.append(right[mine])
        ws.append(np.array([1.0 if p in w.in_program else ORPHAN_WEIGHT for p in pids[mine]]))
    return np.vstack(xs), np.concatenate(ys), np.concatenate(ws)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iclr", type=Path, default=REPO.parent / "shared/data/iclr2026-primary-area")
    parser.add_argument("--mode", choices=("bm25", "hybrid"), default="bm25")
    parser.add_argument("--keep", type=Path, default=None, help="keep/reuse the ingested library here")
    args = parser.parse_args()
    started = time.perf_counter()
    s = build_enrich_set(args.iclr, dense=args.mode == "hybrid", keep=args.keep)
    train, dev, _ = split_ids(s.ids, SEED)
    x, y, weight = _rows(s, make_worlds(s, train, TRAIN_SEED), train)
    scaler = StandardScaler().fit(x)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    fit = LogisticRegression(C=C, max_iter=2000).fit((x - scaler.mean_) / scale, y, sample_weight=weight)
    model = PairModel(
        args.mode, features_of(args.mode), scaler.mean_, scale, fit.coef_[0], float(fit.intercept_[0]), 0.5
    )
    print(f"{args.mode}: {len(y):,} training pairs, {int(y.sum()):,} right", file=sys.stderr)
    for name, w in sorted(zip(model.features, model.coef, strict=True), key=lambda t: -abs(t[1])):
        print(f"  {name:<16} {w:+.3f}", file=sys.stderr)
    scored = score_worlds(s, make_worlds(s, dev, SEED), model)
    chosen, figures = None, {}
    for floor in FLOORS.tolist():
        tallies = {k: t.figures() for k, t in assignment_figures(s, scored, dev, floor).items()}
        ok = all(
            f["precision"] >= (DEV_PRECISION_SMALL_OPEN if k.startswith("small open") else DEV_PRECISION)
            for k, f in tallies.items()
        )
        if ok:
            chosen, figures = floor, tallies
            break
    if chosen is None:
        print("no floor keeps the dev precision; the highest tried is written", file=sys.stderr)
        chosen = float(FLOORS[-1])
        figures = {k: t.figures() for k, t in assignment_figures(s, scored, dev, chosen).items()}
    model = PairModel(
        model.mode, model.features, model.mean, model.scale, model.coef, model.intercept, chosen
    )
    for k, f in figures.items():
        print(
            f"  dev floor {chosen:.2f} {k:<16} precision {f['precision']:.4f} coverage {f['coverage']:.4f}",
            file=sys.stderr,
        )
    body = json.loads(OUT.read_text(encoding="utf-8")) if OUT.exists() else {}
    if body.get("version") != PAIR_MODEL_VERSION:
        body = {"version": PAIR_MODEL_VERSION, "models": {}, "trained": {}}
    body["models"][args.mode] = model.to_dict()
    body["trained"][args.mode] = {
        "train_papers": len(train),
        "pairs": int(len(y)),
        "right_pairs": int(y.sum()),
        "seed": SEED,
        "train_seed": TRAIN_SEED,
        "dev": {k: {m: round(float(v), 4) for m, v in f.items()} for k, f in figures.items()},
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(body, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
