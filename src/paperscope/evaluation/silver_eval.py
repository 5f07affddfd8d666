"""Score the cards on the silver test splits (:mod:`paperscope.evaluation.silver`): ``eval cards --silver``.

Each test abstract gets a full card (:func:`paperscope.extract.build_cards`) from its abstract
alone: the paper is passed without title, keywords, area or URLs, so the label is the derived
``"NAME — what it does"`` one.

**Method names** (one known name per paper, so recall and ranking; precision comes from the gold):

* *recall*: the title's name is among the card's ``method_names``;
* *primary*: the title's name is the card's primary name, **the one the label uses** (the text
  before the label's ``" — "``, or the whole label without one; today that is
  :func:`paperscope.extract.methods.primary_method`, which :func:`~paperscope.extract.label.build_label`
  puts first), which is what a reader sees in a result list;
* *first*: the title's name is the first of ``method_names`` (order of first appearance), for
  comparison.

Names are compared by :func:`method_key`: :func:`paperscope.text.clean_text`, then
:func:`paperscope.text.fold`, then everything but letters and digits dropped (``Graph-Mamba`` =
``Graph Mamba`` = ``graphmamba``; ``C$^2$R`` = ``C2R``).

**Keyphrases** (ICLR 2026 author keywords, test split): P/R/F1@5 by the exact rule of
:mod:`paperscope.evaluation.keyphrases`, for the trained ranker
(:func:`paperscope.extract.keyphrases.extract_keyphrases`, top 5; trained on the train split
only), the card's ``tasks`` (at most three phrases, in card order), YAKE, and TF-IDF fitted on
the train split's abstracts, all in the same run.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from ..extract import build_cards
from ..extract.keyphrases import extract_keyphrases
from ..models import Card, Paper
from ..progress import steps
from ..text import clean_text, fold
from .keyphrases import TfidfKeyphrases, keyphrase_prf, yake_keyphrases
from .silver import (
    DEFAULT_SHARED,
    SilverExample,
    load_silver_papers,
    method_examples,
    silver_keyphrase_split,
    split_of,
)

__all__ = ["format_silver_eval", "label_name", "method_key", "run_silver_eval", "score_methods"]

#: Keyphrases scored per paper (F1@5).
TOP_K = 5
_DASH = " — "


def method_key(name: str) -> str:
    """Return the matching key of a method name (clean, folded, letters and digits only)."""
    return re.sub(r"[\W_]+", "", fold(clean_text(name)))


def label_name(card: Card) -> str:
    """Return the name a card's label leads with: the text before ``" — "``, else the whole label."""
    return card.label.split(_DASH, 1)[0]


def score_methods(examples: list[SilverExample], cards: dict[str, Card]) -> dict[str, Any]:
    """Return recall, primary and first-name accuracy of ``cards`` (by example id) on ``examples``.

    Returns:
        ``{"n", "recall", "primary", "first", "any_name", "hits": {recall, primary, first, any_name}}``;
        ``any_name`` is the share of cards with at least one method name. Rates are 0.0 when ``n`` is 0.
    """
    hits = {"recall": 0, "primary": 0, "first": 0, "any_name": 0}
    for ex in examples:
        card, gold = cards[ex.id], method_key(str(ex.gold))
        found = [method_key(n) for n in card.method_names]
        hits["recall"] += gold in found
        hits["primary"] += method_key(label_name(card)) == gold
        hits["first"] += bool(found) and found[0] == gold
        hits["any_name"] += bool(found)
    n = len(examples)
    return {"n": n, **{k: (v / n if n else 0.0) for k, v in hits.items()}, "hits": hits}


def _cards(examples: list[SilverExample], workers: int) -> dict[str, Card]:
    """Build each example's card from its abstract only (no title, keywords or metadata)."""
    papers = [Paper(paper_id=ex.id, abstract=ex.abstract, clean_text=ex.clean) for ex in examples]
    return dict(build_cards(papers, workers=workers))


def _keyphrase_runs(
    train: list[SilverExample], test: list[SilverExample], cards: dict[str, Card], bar: Any
) -> dict[str, dict[str, float] | None]:
    golds = [list(ex.gold) for ex in test]
    runs: dict[str, dict[str, float] | None] = {}
    started = time.perf_counter()
    ranked = [[k.text for k in extract_keyphrases(ex.clean, TOP_K)] for ex in test]
    runs["keyphrase ranker"] = {
        **keyphrase_prf(ranked, golds, TOP_K),
        "seconds": time.perf_counter() - started,
    }
    tasks = [[t["text"] for t in cards[ex.id].extra.get("tasks", [])] for ex in test]
    runs["card tasks"] = {**keyphrase_prf(tasks, golds, TOP_K), "seconds": 0.0}
    bar.stage(f"keyphrases: YAKE on {len(test):,} abstracts")
    started = time.perf_counter()
    yake = yake_keyphrases([ex.clean for ex in test], TOP_K)
    runs["YAKE"] = None if yake is None else {**keyphrase_prf(yake, golds, TOP_K)}
    if runs["YAKE"] is not None:
        runs["YAKE"]["seconds"] = time.perf_counter() - started
    bar.update()
    bar.stage(f"keyphrases: TF-IDF fitted on {len(train):,} train abstracts")
    started = time.perf_counter()
    runs["TF-IDF n-grams"] = None  # nothing to fit on
    if train:
        tfidf = TfidfKeyphrases(ex.clean for ex in train)
        runs["TF-IDF n-grams"] = {
            **keyphrase_prf([tfidf.top(ex.clean, TOP_K) for ex in test], golds, TOP_K),
            "seconds": time.perf_counter() - started,
        }
    bar.update()
    return runs


def run_silver_eval(
    data_dir: Path = DEFAULT_SHARED, workers: int = 1, progress: bool = False
) -> dict[str, Any]:
    """Score today's cards on both silver test splits (see the module docstring).

    Args:
        data_dir: the shared data folder (``iclr2026-primary-area/``, ``airas-papers-db/``).
        workers: processes for card building (:func:`paperscope.extract.build_cards`).
        progress: show the steps on stderr.

    Returns:
        ``{"sizes": {...}, "rejected": {reason: count}, "methods": {overall, iclr2026, airas},
        "keyphrases": {"n_train", "n_test", "k", "runs": {name: {precision, recall, f1, …} | None}},
        "elapsed_s"}``; a run is None when it cannot run (YAKE not installed; TF-IDF without train papers).

    Raises:
        InputError: the folder lacks the files (:func:`paperscope.evaluation.silver.load_silver_papers`).
    """
    started = time.perf_counter()
    with steps(5, desc="eval cards --silver", enabled=progress) as bar:
        bar.stage(f"silver: read {data_dir}")
        loaded = load_silver_papers(Path(data_dir))
        examples, rejected = method_examples(Path(data_dir))
        m_train = [e for e in examples if split_of(e.title) == "train"]
        m_test = [e for e in examples if split_of(e.title) == "test"]
        k_train, k_test = silver_keyphrase_split(Path(data_dir))
        bar.update()
        wanted = {e.id: e for e in m_test + k_test}
        bar.stage(f"silver: build {len(wanted):,} cards from the abstracts")
        cards = _cards(list(wanted.values()), workers)
        bar.update()
        methods = {
            "all": score_methods(m_test, cards),
            "iclr2026": score_methods([e for e in m_test if e.source == "iclr2026"], cards),
            "airas": score_methods([e for e in m_test if e.source != "iclr2026"], cards),
        }
        bar.update()
        runs = _keyphrase_runs(k_train, k_test, cards, bar)
    return {
        "sizes": {
            "unique_papers": loaded.unique,
            "method_train": len(m_train),
            "method_test": len(m_test),
            "keyphrase_train": len(k_train),
            "keyphrase_test": len(k_test),
        },
        "rejected": dict(rejected.most_common()),
        "methods": methods,
        "keyphrases": {"n_train": len(k_train), "n_test": len(k_test), "k": TOP_K, "runs": runs},
        "elapsed_s": time.perf_counter() - started,
    }


def format_silver_eval(result: dict[str, Any]) -> str:
    """Return the silver figures as two plain-text tables (method names, keyphrases)."""
    sizes = result["sizes"]
    lines = [
        f"Silver method names: title 'Name: subtitle' with Name in the abstract, test split "
        f"({sizes['method_test']:,} test / {sizes['method_train']:,} train; abstract only)",
        "",
        f"{'papers':<10} {'n':>6} {'recall':>7} {'primary':>8} {'first':>6} {'any name':>9}",
    ]
    for name, s in result["methods"].items():
        lines.append(
            f"{name:<10} {s['n']:>6,} {s['recall']:>7.3f} {s['primary']:>8.3f} {s['first']:>6.3f} {s['any_name']:>9.3f}"
        )
    lines.append("recall: Name among the card's method names; primary: Name is the one the label leads with")
    kp = result["keyphrases"]
    lines += [
        "",
        f"Silver keyphrases: ICLR 2026 author keywords, test split ({kp['n_test']:,} test / "
        f"{kp['n_train']:,} train), top {kp['k']}, exact match after normalisation",
        "",
        f"{'extractor':<16} {'P@5':>6} {'R@5':>6} {'F1@5':>6} {'tp':>6} {'fp':>6} {'fn':>6}",
    ]
    for name, s in kp["runs"].items():
        if s is None:
            lines.append(f"{name:<16} skipped (YAKE not installed, or no train split to fit on)")
            continue
        lines.append(
            f"{name:<16} {s['precision']:>6.3f} {s['recall']:>6.3f} {s['f1']:>6.3f} "
            f"{s['tp']:>6,} {s['fp']:>6,} {s['fn']:>6,}"
        )
    return "\n".join(lines)
