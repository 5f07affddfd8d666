"""Train the bundled keyphrase ranker (``extract/keyphrases.py``) and write it into the package.

Usage: PYTHONPATH=src python scripts/train_keyphrases.py [--data DIR] [--out FILE] [--cv-only]
(defaults: ../shared/data, src/paperscope/extract/data/keyphrase_model.npz).

Data, all from ``../shared/data`` and never the ICLR 2026 *test* split
(:func:`paperscope.evaluation.silver.silver_keyphrase_split`):

* **library document frequency**: candidate keys of the airas-papers-db abstracts (deduplicated
  by abstract) and of the ICLR 2026 train split; keys in at least :data:`MIN_DF` abstracts ship;
* **priors**: on the train split's author keywords: per key, the papers that list it and the
  papers where it is a candidate; per first / last word, the smoothed log rate of a candidate
  with that word matching a keyword (:data:`WORD_ALPHA`);
* **ranker**: scikit-learn ``LogisticRegression`` (lbfgs, fixed seed) on the standardised
  features; positives are candidates whose key equals one of the paper's keyword keys. The
  train rows get *out-of-fold* priors (:data:`FOLDS` folds by paper), so the model never learns
  from a prior that holds the row's own keywords; the shipped priors use the whole train split.

The regularisation ``C`` is chosen by cross-validation on the train split (F1@5 on each held-out
fold, models fitted on the others); the script prints the CV table. Deterministic: same data,
same arrays (the zip entries carry the write time).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections import Counter
from pathlib import Path

import numpy as np

from paperscope.evaluation.keyphrases import keyphrase_prf
from paperscope.evaluation.silver import DEFAULT_SHARED, SilverExample, silver_keyphrase_split
from paperscope.extract.keyphrases import (
    FEATURES,
    Candidate,
    candidates,
    feature_matrix,
    model_from_arrays,
    phrase_key,
)
from paperscope.text import clean_text

REPO = Path(__file__).resolve().parents[1]
#: A key ships in the library table when it is a candidate of at least this many abstracts.
MIN_DF = 3
#: Folds of the train split for out-of-fold priors and for choosing C.
FOLDS = 5
#: Pseudo-count of the first/last-word priors (shrinks rare words to the overall rate).
WORD_ALPHA = 20.0
#: Values of C tried by cross-validation.
C_GRID = (0.01, 0.1, 1.0)
SEED = 0
K = 5


def library_texts(data: Path, train: list[SilverExample]) -> list[str]:
    """Return the clean abstracts of airas-papers-db (deduplicated) and of the ICLR 2026 train split."""
    seen: set[str] = set()
    texts = [ex.clean for ex in train]
    for path in sorted((data / "airas-papers-db").glob("*.json")):
        for d in json.loads(path.read_text(encoding="utf-8")):
            body = " ".join((d.get("abstract") or "").lower().split())
            if body and body not in seen:
                seen.add(body)
                texts.append(clean_text(d["abstract"]))
    return texts


def word_rates(
    cands: list[list[Candidate]], golds: list[set[str]], pick: int
) -> tuple[dict[str, float], float]:
    """Return smoothed log rates of a candidate with word ``pick`` (0 first, -1 last) being a keyword."""
    pos: Counter[str] = Counter()
    tot: Counter[str] = Counter()
    for cs, gold in zip(cands, golds, strict=True):
        for c in cs:
            word = phrase_key(c.words[pick]) or c.words[pick]
            tot[word] += 1
            pos[word] += c.key in gold
    p0 = max(sum(pos.values()), 1) / max(sum(tot.values()), 1)
    rates = {w: math.log((pos[w] + WORD_ALPHA * p0) / (n + WORD_ALPHA)) for w, n in tot.items() if n >= 3}
    return rates, math.log(p0)


def prior_arrays(cands: list[list[Candidate]], golds: list[set[str]]) -> dict[str, np.ndarray]:
    """Return the prior tables of ``golds`` (papers' keyword keys) as the arrays the model file holds."""
    kw = Counter(k for g in golds for k in g)
    cand = Counter(c.key for cs in cands for c in cs if c.key in kw)
    keys = sorted(kw)
    heads, d_head = word_rates(cands, golds, -1)
    firsts, _ = word_rates(cands, golds, 0)
    return {
        "prior_keys": np.array(keys, dtype=str),
        "prior_kw": np.array([kw[k] for k in keys], dtype=np.int32),
        "prior_cand": np.array([cand[k] for k in keys], dtype=np.int32),
        "head_words": np.array(sorted(heads), dtype=str),
        "head_rates": np.array([heads[w] for w in sorted(heads)], dtype=np.float32),
        "first_words": np.array(sorted(firsts), dtype=str),
        "first_rates": np.array([firsts[w] for w in sorted(firsts)], dtype=np.float32),
        "default_word_prior": np.array(d_head),
    }


def _placeholder(df: dict[str, np.ndarray], priors: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    n = len(FEATURES)
    return {
        **df,
        **priors,
        "weights": np.zeros(n),
        "bias": np.array(0.0),
        "mean": np.zeros(n),
        "scale": np.ones(n),
    }


def _fold(ex: SilverExample) -> int:
    return int(ex.id[2:10], 16) % FOLDS


def top_k(clean: str, cands: list[Candidate], scores: np.ndarray, k: int = K) -> list[str]:
    order = np.lexsort((np.arange(len(cands)), -scores))[:k]
    return [cands[i].text for i in order]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--out", type=Path, default=REPO / "src/paperscope/extract/data/keyphrase_model.npz")
    parser.add_argument("--cv-only", action="store_true", help="print the CV table, write nothing")
    args = parser.parse_args()
    from sklearn.linear_model import LogisticRegression

    started = time.perf_counter()
    train, _ = silver_keyphrase_split(args.data)
    texts = library_texts(args.data, train)
    df: Counter[str] = Counter()
    for text in texts:
        df.update(c.key for c in candidates(text))
    df_keys = sorted(k for k, n in df.items() if n >= MIN_DF)
    df_arrays = {
        "df_keys": np.array(df_keys, dtype=str),
        "df_counts": np.array([df[k] for k in df_keys], dtype=np.int32),
        "n_library": np.array(len(texts)),
    }
    print(
        f"library: {len(texts):,} abstracts, {len(df_keys):,} keys with df >= {MIN_DF} ({time.perf_counter() - started:.0f} s)"
    )

    cands = [candidates(ex.clean) for ex in train]
    golds = [{phrase_key(g) for g in ex.gold} - {""} for ex in train]
    folds = np.array([_fold(ex) for ex in train])
    rows: list[np.ndarray] = [np.zeros((0, len(FEATURES)))] * len(train)
    for f in range(FOLDS):
        other = np.flatnonzero(folds != f)
        model = model_from_arrays(
            _placeholder(df_arrays, prior_arrays([cands[i] for i in other], [golds[i] for i in other]))
        )
        for i in np.flatnonzero(folds == f):
            rows[i] = feature_matrix(train[i].clean, cands[i], model)
    labels = [np.array([c.key in g for c in cs], dtype=bool) for cs, g in zip(cands, golds, strict=True)]
    reach = sum(int(y.sum()) for y in labels) / max(sum(len(g) for g in golds), 1)
    print(f"train: {len(train):,} papers, candidate recall of keyword keys {reach:.3f}")

    def fit(idx: np.ndarray, c_value: float) -> tuple[LogisticRegression, np.ndarray, np.ndarray]:
        x = np.vstack([rows[i] for i in idx])
        y = np.concatenate([labels[i] for i in idx])
        mean, scale = x.mean(axis=0), x.std(axis=0)
        scale[scale == 0] = 1.0
        lr = LogisticRegression(C=c_value, max_iter=2000, random_state=SEED)
        lr.fit((x - mean) / scale, y)
        return lr, mean, scale

    best = (-1.0, C_GRID[0])
    for c_value in C_GRID:
        preds: list[list[str]] = [[] for _ in train]
        for f in range(FOLDS):
            lr, mean, scale = fit(np.flatnonzero(folds != f), c_value)
            for i in np.flatnonzero(folds == f):
                if len(cands[i]):
                    s = ((rows[i] - mean) / scale) @ lr.coef_[0] + lr.intercept_[0]
                    preds[i] = top_k(train[i].clean, cands[i], s)
        score = keyphrase_prf(preds, [list(ex.gold) for ex in train], K)
        print(
            f"CV C={c_value:<5} P@5 {score['precision']:.3f} R@5 {score['recall']:.3f} F1@5 {score['f1']:.3f}"
        )
        best = max(best, (score["f1"], c_value))
    if args.cv_only:
        return
    c_value = best[1]
    lr, mean, scale = fit(np.arange(len(train)), c_value)
    arrays = {
        **df_arrays,
        **prior_arrays(cands, golds),
        "weights": lr.coef_[0].astype(np.float64),
        "bias": np.array(float(lr.intercept_[0])),
        "mean": mean,
        "scale": scale,
        "features": np.array(FEATURES, dtype=str),
    }
    np.savez_compressed(args.out, **arrays)
    print(f"C={c_value}; weights (standardised):")
    for name, w in sorted(zip(FEATURES, lr.coef_[0], strict=True), key=lambda t: -abs(t[1])):
        print(f"  {name:<20} {w:+.3f}")
    print(
        f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB) in {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
