"""Train the learned method-name scorer and its library-rarity table, and write both into the package.

Usage: PYTHONPATH=src python scripts/train_method_model.py [--shared DIR] [--cv]
(default DIR: ../shared/data). Writes ``src/paperscope/extract/data/method_rarity.json.gz`` and
``src/paperscope/extract/data/method_model.npz`` (see :mod:`paperscope.extract.method_model`).

1. **Rarity**: every unique abstract of ``DIR`` (ICML 2026 lists, ICLR 2026 CSVs, airas-papers-db,
   papercopilot lists; duplicates by whitespace-folded text dropped), cleaned as ingest does; the
   document frequency of each candidate-shaped token (a capital or a digit) with df >= 3, and of
   each lower-case word whose capitalised form is in that table. Unsupervised: no title is read.
2. **Rows**: the candidates of each silver TRAIN paper (``silver_method_split()[0]``) and of each
   dev-gold paper (``gold/icml2026_cards_dev.jsonl``); a silver positive is the candidate equal to
   the title's name (or whose long form is), a gold positive one of ``method_names``.
3. **Models**: two scikit-learn LogisticRegressions (lbfgs, ``C``) on standardised features. The
   *keep* model (is it a name the paper gives its own work?) trains on silver and dev-gold rows;
   silver negatives that a cue rule proposed weigh ``NOISY_NEGATIVE_WEIGHT`` (0: a second coined
   name the rules find is often the paper's too, a component or a benchmark, so it is no
   negative), dev-gold rows ``GOLD_WEIGHT``. The *rank* model (is it the paper's main name?)
   trains on the silver rows alone, every other candidate a negative. The keep threshold is
   chosen by 5-fold cross-validation by paper (``--cv`` prints the table; silver TEST is never
   read): the best CV silver recall among thresholds whose CV dev-gold F1 is >= ``MIN_DEV_F1``.
   Deterministic (fixed seed, sorted tables, gzip mtime 0): the same data gives the same files.

On ../shared/data (2026-12-01): 21,498 abstracts, 7,203 tokens in the table; 1,840 papers,
15,895 candidates; CV at the chosen threshold 0.25: silver recall 0.916, primary 0.887, dev-gold
F1 0.962; about 70 s on a loaded 2-core machine.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

from paperscope.evaluation.cards import load_gold
from paperscope.evaluation.silver import DEFAULT_SHARED, silver_method_split
from paperscope.evaluation.silver_eval import method_key
from paperscope.extract import method_model
from paperscope.extract.method_features import FEATURES
from paperscope.extract.methods import method_candidates
from paperscope.library import Library
from paperscope.text import clean_text

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "src/paperscope/extract/data"
SEED = 0
#: Tokens seen in fewer abstracts are left out of the rarity table (they read as rare: df 0).
MIN_DF = 3
#: Weight of a silver negative that a cue rule proposed (label noise: it may be an own name too).
NOISY_NEGATIVE_WEIGHT = 0.0
#: Weight of a dev-gold row in the keep model (hand labels, exact, but only 38 papers).
GOLD_WEIGHT = 2.0
#: Inverse regularisation strength of both regressions (scikit-learn's default).
C = 1.0
#: Keep thresholds tried by the cross-validation.
THRESHOLDS = np.round(np.arange(0.05, 0.95, 0.05), 2)
#: The threshold is the one with the best CV silver recall among those whose CV dev-gold F1 is
#: at least this (a margin over the acceptance line's 0.90).
MIN_DEV_F1 = 0.95
_CAND_TOKEN_RE = re.compile(r"(?<![\w²³⁴\-])[A-Za-z0-9²³⁴][\w²³⁴+\-.']*[\w²³⁴+*]")
_LOWER_RE = re.compile(r"(?<![\w-])[a-z][a-z'-]*[a-z](?![\w-])")


def corpus_abstracts(shared: Path) -> list[str]:
    """Return the unique clean abstracts of ``shared`` (four sources, duplicates dropped)."""
    raw: list[str] = []
    for path in sorted((shared / "icml2026").glob("*.txt")):
        raw += [a.strip() for a in path.read_text(encoding="utf-8").split("\n\n")[1:] if a.strip()]
    for path in sorted((shared / "iclr2026-primary-area").glob("*.csv")):
        with path.open(encoding="utf-8-sig", newline="") as fh:
            raw += [r["abstract"] for r in csv.DictReader(fh)]
    for path in sorted((shared / "airas-papers-db").glob("*.json")) + sorted(
        (shared / "papercopilot-paperlists").glob("*.json")
    ):
        raw += [d["abstract"] for d in json.loads(path.read_text(encoding="utf-8")) if d.get("abstract")]
    seen: set[str] = set()
    out = []
    for a in raw:
        key = " ".join(a.lower().split())
        if key not in seen:
            seen.add(key)
            out.append(clean_text(a))
    return out


def dev_papers(gold: list[dict[str, object]], lists: Path) -> list[tuple[str, str]]:
    """Return ``(clean, abstract)`` of each dev-gold record (``file``, ``index`` into ``lists``)."""
    with Library(":memory:") as lib:
        lib.ingest([lists], cards=False, embed=False)
        lines: dict[str, list[tuple[int, object]]] = {}
        for paper in lib.papers():
            for source in paper.sources:
                lines.setdefault(Path(source.path).name, []).append((source.line, paper))
    by_key = {
        (name, i): p
        for name, entries in lines.items()
        for i, (_, p) in enumerate(sorted(entries, key=lambda e: e[0]))
    }
    return [
        (by_key[(g["file"], g["index"])].clean_text, by_key[(g["file"], g["index"])].abstract) for g in gold
    ]


def build_rarity(cleans: list[str]) -> dict[str, object]:
    """Return the rarity table of the module docstring for the clean abstracts ``cleans``."""
    df: Counter[str] = Counter()
    lower: Counter[str] = Counter()
    for text in cleans:
        toks = {t.rstrip(".'") for t in _CAND_TOKEN_RE.findall(text)}
        df.update(t for t in toks if any(c.isupper() or c.isdigit() for c in t))
        lower.update(set(_LOWER_RE.findall(text)))
    kept = {t: n for t, n in sorted(df.items()) if n >= MIN_DF}
    caps = {t.lower() for t in kept}
    lower_kept = {w: n for w, n in sorted(lower.items()) if n >= MIN_DF and w in caps}
    return {"n_docs": len(cleans), "min_df": MIN_DF, "df": kept, "lower_df": lower_kept}


def rows(examples: list[tuple[str, str, list[str], bool]]) -> tuple[np.ndarray, ...]:
    """Return ``(X, y, is_gold, rule_found, paper index)`` rows and the candidates of each paper.

    ``examples`` holds ``(clean, original, gold names, is_gold)``; a row is positive when the
    candidate's name (or its long form) equals a gold name by :func:`method_key`.
    """
    xs, ys, gold_rows, rule_rows, groups, cands_all = [], [], [], [], [], []
    for i, (clean, original, gold, is_gold) in enumerate(examples):
        cands, x = method_candidates(clean, original)
        keys = {method_key(g) for g in gold}
        for c, row in zip(cands, x, strict=True):
            xs.append(row)
            ys.append(
                method_key(c.name) in keys or (c.long_form is not None and method_key(c.long_form) in keys)
            )
            gold_rows.append(is_gold)
            rule_rows.append(any(s.startswith("rule:") for s in c.sources))
            groups.append(i)
        cands_all.append(cands)
    return (
        np.array(xs),
        np.array(ys, dtype=float),
        np.array(gold_rows),
        np.array(rule_rows),
        np.array(groups),
        cands_all,
    )


def weights(y: np.ndarray, is_gold: np.ndarray, rule: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the row weights of the keep model and of the rank model (module docstring)."""
    keep = np.where(is_gold, GOLD_WEIGHT, np.where((y == 0) & rule, NOISY_NEGATIVE_WEIGHT, 1.0))
    rank = np.where(is_gold, 0.0, 1.0)
    return keep, rank


def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Return ``(mean, scale, coef, intercept)`` of a standardised logistic regression."""
    from sklearn.linear_model import LogisticRegression

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    clf = LogisticRegression(C=C, max_iter=3000, random_state=SEED)
    clf.fit((x - mean) / scale, y, sample_weight=w)
    return mean, scale, clf.coef_[0], float(clf.intercept_[0])


def _proba(x: np.ndarray, fitted: tuple[np.ndarray, np.ndarray, np.ndarray, float]) -> np.ndarray:
    mean, scale, coef, b = fitted
    return 1 / (1 + np.exp(-(((x - mean) / scale) @ coef + b)))


def cv_table(
    examples: list,
    cands: list,
    x: np.ndarray,
    y: np.ndarray,
    is_gold: np.ndarray,
    rule: np.ndarray,
    groups: np.ndarray,
) -> list[tuple[float, float, float, float]]:
    """Return ``(threshold, silver recall, silver primary, dev-gold F1)`` by 5-fold CV by paper."""
    w_keep, w_rank = weights(y, is_gold, rule)
    fold_of = np.random.default_rng(SEED).permutation(len(examples)) % 5
    keep, rank = np.zeros(len(y)), np.zeros(len(y))
    for k in range(5):
        te = fold_of[groups] == k
        keep[te] = _proba(x[te], fit(x[~te], y[~te], w_keep[~te]))
        rank[te] = _proba(x[te], fit(x[~te], y[~te], w_rank[~te]))
    starts = np.searchsorted(groups, np.arange(len(examples)))
    table = []
    for thr in THRESHOLDS:
        rec = prim = n_silver = tp = fp = fn = 0
        for i, (_, _, gnames, gold) in enumerate(examples):
            s = starts[i]
            kept = [j for j in range(s, s + len(cands[i])) if keep[j] >= thr]
            names = {method_key(cands[i][j - s].name) for j in kept}
            keys = {method_key(g) for g in gnames}
            if gold:
                tp, fp, fn = tp + len(names & keys), fp + len(names - keys), fn + len(keys - names)
                continue
            n_silver += 1
            rec += bool(names & keys)
            prim += bool(kept) and y[max(kept, key=lambda j: rank[j])] == 1
        table.append((float(thr), rec / n_silver, prim / n_silver, 2 * tp / max(1, 2 * tp + fp + fn)))
    return table


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--cv", action="store_true", help="print the cross-validation table")
    args = parser.parse_args()
    started = time.perf_counter()
    rarity = build_rarity(corpus_abstracts(args.shared))
    DATA.mkdir(parents=True, exist_ok=True)
    (DATA / "method_rarity.json.gz").write_bytes(
        gzip.compress(json.dumps(rarity, ensure_ascii=False, sort_keys=True).encode("utf-8"), mtime=0)
    )
    method_model.load_rarity.cache_clear()
    print(
        f"rarity: {rarity['n_docs']} abstracts, {len(rarity['df'])} tokens, {len(rarity['lower_df'])} lower words"
    )
    train, _ = silver_method_split(args.shared)
    gold = load_gold(args.shared / "gold" / "icml2026_cards_dev.jsonl")
    examples = [(e.clean, e.abstract, [str(e.gold)], False) for e in train]
    for g, (clean, abstract) in zip(gold, dev_papers(gold, args.shared / "icml2026"), strict=True):
        examples.append((clean, abstract, list(g.get("method_names") or []), True))
    x, y, is_gold, rule, groups, cands = rows(examples)
    print(
        f"{len(examples)} papers, {len(y)} candidates, {int(y.sum())} positives ({time.perf_counter() - started:.0f} s)"
    )
    table = cv_table(examples, cands, x, y, is_gold, rule, groups)
    if args.cv:
        print("threshold  silver recall  primary  dev F1 (5-fold CV by paper)")
        for t in table:
            print(f"{t[0]:9.2f}  {t[1]:13.3f}  {t[2]:7.3f}  {t[3]:6.3f}")
    ok = [t for t in table if t[3] >= MIN_DEV_F1] or table
    threshold = max(ok, key=lambda t: (t[1], t[0]))[0]
    w_keep, w_rank = weights(y, is_gold, rule)
    mean, scale, coef_keep, b_keep = fit(x, y, w_keep)
    _, _, coef_rank, b_rank = fit(x, y, w_rank)
    model = method_model.MethodModel(
        FEATURES,
        mean,
        scale,
        np.stack([coef_keep, coef_rank]),
        np.array([b_keep, b_rank]),
        float(threshold),
        method_model.MODEL_VERSION,
    )
    model.save(DATA / "method_model.npz")
    print(f"threshold {threshold}; wrote {DATA / 'method_model.npz'} ({time.perf_counter() - started:.0f} s)")
    for label, coef in (("keep", coef_keep), ("rank", coef_rank)):
        order = np.argsort(-np.abs(coef))[:12]
        print(
            f"top {label} weights (standardised):", ", ".join(f"{FEATURES[i]} {coef[i]:+.2f}" for i in order)
        )


if __name__ == "__main__":
    sys.exit(main())
