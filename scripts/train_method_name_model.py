"""Train the method-name model of issue 27 (names used or introduced) and its name lexicon.

Usage: PYTHONPATH=src python scripts/train_method_name_model.py [--shared DIR] [--exclude FILE ...] [--cv]
(default DIR: ../shared/data). Writes ``src/paperscope/extract/data/method_lexicon.json.gz``
(:mod:`paperscope.extract.method_lexicon`) and ``src/paperscope/extract/data/method_name_model.npz``
(:class:`paperscope.extract.method_model.NameModel`).

1. **Lexicon**: the titles and abstracts of ``DIR`` (ICLR 2026 CSVs, airas-papers-db,
   papercopilot lists; ICML 2026 abstracts have no title), less every paper whose normalised
   title (:func:`paperscope.ingest.dedup.match_words`) is the title of a ``cards_gold`` record:
   the package's ``sample.jsonl`` and each ``--exclude`` JSONL (only its ``title`` fields are
   read; pass the holdout sample's). Duplicates by whitespace-folded abstract are dropped.
2. **Rows**: the method-name candidates of each record of the ``cards_gold`` dev half; a row is
   positive when its name (or its long form) has the key (:func:`paperscope.evaluation.cards_gold.name_key`)
   of a gold ``method_names`` entry or alias, introduced or used. Columns: the keep model's
   features, its logit, and :data:`paperscope.extract.method_lexicon.LEXICON_FEATURES`.
3. **Model**: a scikit-learn LogisticRegression (lbfgs, L2, ``C`` = :data:`C`, balanced by
   nothing) on standardised columns. ``--cv`` prints leave-one-venue-out figures: the model is
   fitted on three venues of dev and the cards of the fourth are built with it and scored as
   ``eval cards`` scores them (shown and whole card), summed over the four venues.
   Deterministic: the same data gives the same files.

On ../shared/data with the holdout sample excluded (2026-12-06): 21,238 abstracts (268 records
of 260 cards_gold titles left out), 7,119 tokens, 1,525 multi-word title names; 90 dev papers,
735 candidates, 177 positives; about 15 s. Leave-one-venue-out method names at C 0.1
(extractor 0.14): whole card P 0.649 R 0.846; shown from 0.5 P 0.845 R 0.723, from 0.65
P 0.910 R 0.644 (the show threshold, :data:`paperscope.confidence.SHOW_THRESHOLDS`), from 0.7
P 0.915 R 0.628; C 0.3 and 1 trade precision for recall at each threshold, C 0.03 recall for
nothing (extractor 0.13: C 0.1 from 0.7 P 0.883 R 0.601).
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

from paperscope.confidence import SHOW_THRESHOLDS, shown_card
from paperscope.evaluation.cards_gold import _paper, load_cards_gold, name_key, score_cards
from paperscope.evaluation.silver import DEFAULT_SHARED, split_title
from paperscope.extract import method_lexicon, method_model, methods
from paperscope.extract.card import build_card
from paperscope.extract.method_features import url_share
from paperscope.extract.method_lexicon import lexicon_features
from paperscope.extract.method_longform import PAREN_RE, find_long_form, is_short_form
from paperscope.extract.methods import method_candidates
from paperscope.ingest.dedup import match_words
from paperscope.text import clean_text

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "src/paperscope/extract/data"
GOLD = REPO / "src/paperscope/evaluation/data/cards_gold"
SEED = 0
#: Tokens seen in fewer abstracts are left out of the lexicon (as in the rarity table).
MIN_DF = 3
#: Inverse L2 strength, chosen by the leave-one-venue-out figures of ``--cv`` among 0.03, 0.1, 0.3, 1.
C = 0.1
#: Least name probability for a candidate to enter the card (shown from SHOW_THRESHOLDS up).
CARD_FLOOR = 0.25
_TOKEN_RE = re.compile(r"(?<![\w²³⁴\-])[A-Za-z0-9²³⁴][\w²³⁴+\-.']*[\w²³⁴+*]")


def excluded_titles(paths: list[Path]) -> set[str]:
    """Return the normalised titles of the records of ``paths`` (only ``title`` is read)."""
    out = set()
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.add(" ".join(match_words(json.loads(line)["title"])))
    return out


def corpus(shared: Path, exclude: set[str]) -> tuple[list[tuple[str, str]], int]:
    """Return ``(title, clean abstract)`` of the unique papers of ``shared`` and how many were excluded."""
    raw: list[tuple[str, str]] = []
    for path in sorted((shared / "icml2026").glob("*.txt")):
        raw += [("", a.strip()) for a in path.read_text(encoding="utf-8").split("\n\n")[1:] if a.strip()]
    for path in sorted((shared / "iclr2026-primary-area").glob("*.csv")):
        with path.open(encoding="utf-8-sig", newline="") as fh:
            raw += [(r["title"], r["abstract"]) for r in csv.DictReader(fh)]
    for path in sorted((shared / "airas-papers-db").glob("*.json")) + sorted(
        (shared / "papercopilot-paperlists").glob("*.json")
    ):
        raw += [
            (d.get("title") or "", d["abstract"])
            for d in json.loads(path.read_text(encoding="utf-8"))
            if d.get("abstract")
        ]
    seen: set[str] = set()
    out, dropped = [], 0
    for title, abstract in raw:
        if title and " ".join(match_words(title)) in exclude:
            dropped += 1
            continue
        key = " ".join(abstract.lower().split())
        if key not in seen:
            seen.add(key)
            out.append((clean_text(title) if title else "", clean_text(abstract)))
    return out, dropped


def build_lexicon(papers: list[tuple[str, str]]) -> dict[str, object]:
    """Return the lexicon body of :mod:`paperscope.extract.method_lexicon` for ``papers``."""
    df: Counter[str] = Counter()
    titled: Counter[str] = Counter()
    caps: Counter[str] = Counter()
    lower: Counter[str] = Counter()
    for title, text in papers:
        df.update(
            {t.rstrip(".'") for t in _TOKEN_RE.findall(text) if any(c.isupper() or c.isdigit() for c in t)}
        )
        parts = split_title(title) if title else None
        if parts and len(parts[0].split()) <= 3:
            titled[parts[0]] += 1
        defined: dict[str, bool] = {}
        for m in PAREN_RE.finditer(text):
            sf = m.group(1).strip()
            if not is_short_form(sf):
                continue
            lf = find_long_form(text[max(0, m.start() - 200) : m.start()].rstrip(), sf)
            if lf:
                words = [w for w in lf[1].split() if w[:1].isalpha() and len(w) > 3]
                defined[sf] = bool(words) and all(w[:1].isupper() for w in words)
        for sf, is_caps in defined.items():
            (caps if is_caps else lower)[sf] += 1
    counts = {
        t: [n, df.get(t + "s", 0), titled.get(t, 0), caps.get(t, 0), lower.get(t, 0)]
        for t, n in sorted(df.items())
        if n >= MIN_DF
    }
    multi = {n: k for n, k in sorted(titled.items()) if " " in n}
    return {"n_docs": len(papers), "min_df": MIN_DF, "counts": counts, "title_names": multi}


def rows(records: list[dict]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(X, y, record index)`` of the candidates of ``records`` (module docstring, step 2)."""
    keep = method_model.load_model()
    lexicon = method_lexicon.load_lexicon()
    xs, ys, groups = [], [], []
    for i, record in enumerate(records):
        paper = _paper(record)
        cands, x = method_candidates(paper.clean_text, paper.abstract)
        if not cands:
            continue
        keys = set()
        for m in record["method_names"]:
            keys |= {name_key(m["name"]), *(name_key(a) for a in m.get("aliases") or [])}
        xs.append(
            method_model.name_columns(
                x,
                keep,
                url_share(paper.clean_text, cands),
                lexicon_features([c.name for c in cands], lexicon),
            )
        )
        ys += [
            name_key(c.name) in keys or (c.long_form is not None and name_key(c.long_form) in keys)
            for c in cands
        ]
        groups += [i] * len(cands)
    return np.vstack(xs), np.array(ys, dtype=float), np.array(groups)


def fit(x: np.ndarray, y: np.ndarray, c: float = C) -> method_model.NameModel:
    """Return the name model fitted on rows ``x`` (``NAME_FEATURES`` columns) and labels ``y``."""
    from sklearn.linear_model import LogisticRegression

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    clf = LogisticRegression(C=c, max_iter=5000, random_state=SEED)
    clf.fit((x - mean) / scale, y)
    return method_model.NameModel(
        method_model.NAME_FEATURES,
        mean,
        scale,
        clf.coef_[0],
        float(clf.intercept_[0]),
        CARD_FLOOR,
        method_model.MODEL_VERSION,
    )


def venue_cv(
    records: list[dict], x: np.ndarray, y: np.ndarray, groups: np.ndarray, c: float
) -> tuple[list[dict], list[dict]]:
    """Return the records and their leave-one-venue-out cards (module docstring, step 3)."""
    venues = np.array([r["id"].split("-")[0] for r in records])
    ordered, cards = [], []
    for venue in sorted(set(venues)):
        train = venues[groups] != venue
        model = fit(x[train], y[train], c)
        methods.load_name_model = lambda model=model: model  # this fold's model for build_card
        for r in (r for r, v in zip(records, venues, strict=True) if v == venue):
            ordered.append(r)
            cards.append(build_card(_paper(r)).to_dict())
    methods.load_name_model = method_model.load_name_model
    return ordered, cards


def shown_at(cards: list[dict], threshold: float) -> list[dict]:
    """Return the shown cards when method names are shown from ``threshold`` up."""
    saved = SHOW_THRESHOLDS["methods"]
    SHOW_THRESHOLDS["methods"] = threshold
    try:
        return [shown_card(c) for c in cards]
    finally:
        SHOW_THRESHOLDS["methods"] = saved


def _line(label: str, scores: dict) -> str:
    return "  ".join(
        f"{label} {f}: P {scores[f]['precision']:.3f} R {scores[f]['recall']:.3f} F1 {scores[f]['f1']:.3f}"
        for f in ("method_names", "datasets")
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--exclude", type=Path, nargs="*", default=[], help="more cards_gold JSONL (titles)")
    parser.add_argument("--cv", action="store_true", help="print leave-one-venue-out figures for several C")
    args = parser.parse_args()
    started = time.perf_counter()
    exclude = excluded_titles([GOLD / "sample.jsonl", *args.exclude])
    papers, dropped = corpus(args.shared, exclude)
    lexicon = build_lexicon(papers)
    (DATA / "method_lexicon.json.gz").write_bytes(
        gzip.compress(json.dumps(lexicon, ensure_ascii=False, sort_keys=True).encode("utf-8"), mtime=0)
    )
    method_lexicon.load_lexicon.cache_clear()
    print(
        f"lexicon: {lexicon['n_docs']} abstracts ({dropped} cards_gold papers left out of {len(exclude)} titles), "
        f"{len(lexicon['counts'])} tokens, {len(lexicon['title_names'])} multi-word title names "
        f"({time.perf_counter() - started:.0f} s)"
    )
    records = load_cards_gold("dev")
    x, y, groups = rows(records)
    print(f"{len(records)} dev papers, {len(y)} candidates, {int(y.sum())} positives")
    if args.cv:
        for c in (0.03, 0.1, 0.3, 1.0):
            ordered, cards = venue_cv(records, x, y, groups, c)
            print(f"C {c}: " + _line("card", score_cards(ordered, cards)))
            for t in (0.5, 0.6, 0.7):
                print(f"   shown from {t}: " + _line("shown", score_cards(ordered, shown_at(cards, t))))
    model = fit(x, y)
    model.save(DATA / "method_name_model.npz")
    method_model.load_name_model.cache_clear()
    print(f"wrote {DATA / 'method_name_model.npz'} ({time.perf_counter() - started:.0f} s)")
    order = np.argsort(-np.abs(model.coef))[:15]
    print(
        "top weights (standardised):", ", ".join(f"{model.features[i]} {model.coef[i]:+.2f}" for i in order)
    )


if __name__ == "__main__":
    sys.exit(main())
