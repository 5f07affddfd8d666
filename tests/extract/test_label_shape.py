"""Labels end at a phrase boundary and read as noun phrases (issue 15 item 6).

The checks are :mod:`paperscope.extract.label_shape`'s: a label never ends in a function word,
inside a bracket, or (without "…") where the abstract goes on inside the same noun-phrase chunk;
its "what it does" part never opens with a verb, a conjunction or an anaphor. Measured on real
abstracts with their titles removed (the lists carry none): the ICML 2026 lists a fresh-user
trial read, and ICLR 2026 abstracts of ../shared/data.

Run as a script to count the defects of 600 ICLR 2026 abstracts sampled with a seed (seed 3 was
the development sample, 23 scored once)::

    .venv/bin/python tests/extract/test_label_shape.py 23
"""

from __future__ import annotations

import collections
import csv
import random
import sys
from pathlib import Path

import pytest

from paperscope.extract.label import MAX_LABEL_CHARS, build_label
from paperscope.extract.label_shape import ends_inside_a_phrase, opens_like_a_sentence, settle
from paperscope.extract.methods import extract_methods
from paperscope.text import clean_text

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"


def _iclr_abstracts(shared_data: Path) -> list[str]:
    rows: list[str] = []
    for path in sorted((shared_data / "iclr2026-primary-area").glob("*.csv")):
        with path.open(encoding="utf-8-sig", newline="") as handle:
            rows += [row["abstract"] for row in csv.DictReader(handle) if row.get("abstract")]
    return rows


def count_defects(abstracts: list[str]) -> tuple[collections.Counter, collections.Counter, list[str]]:
    """Return the counts of each "ends inside a phrase" and "not a noun phrase" reason, and the bad labels."""
    inside: collections.Counter = collections.Counter()
    opening: collections.Counter = collections.Counter()
    bad: list[str] = []
    for original in abstracts:
        clean = clean_text(original)
        label = build_label(clean, extract_methods(clean, original))
        why_end, why_open = ends_inside_a_phrase(label, clean), opens_like_a_sentence(label)
        inside.update([why_end] if why_end else [])
        opening.update([why_open] if why_open else [])
        if why_end or why_open or len(label) > MAX_LABEL_CHARS:
            bad.append(f"[{why_end or ''}|{why_open or ''}] {label}")
    return inside, opening, bad


# The kinds the trial found, on sentences written by us.


def test_the_check_sees_a_phrase_cut_inside_a_chunk_without_an_ellipsis() -> None:
    clean = "TACO compresses the training set in a latent space. It is fast."
    assert ends_inside_a_phrase("TACO — model that compresses the training set in a latent", clean) == "cut"
    assert ends_inside_a_phrase("TACO — model that compresses the training set in a latent…", clean) is None
    assert (
        ends_inside_a_phrase("TACO — model that compresses the training set in a latent space", clean) is None
    )
    assert ends_inside_a_phrase("MINIM — broker on the client side before", "x") == "function word"
    assert ends_inside_a_phrase("X — method (with a bracket", "x") == "bracket"
    # A term before its short form is complete; a modifier before a bracket is not.
    assert (
        ends_inside_a_phrase("GLA — gated linear attention", "We use gated linear attention (GLA) here.")
        is None
    )
    vae = "tokenization for Visual Auto-Regressive (VAR) models."
    assert ends_inside_a_phrase("HIT — tokenization for Visual Auto-Regressive", vae) == "cut"


def test_the_check_sees_verb_anaphor_and_clause_openings() -> None:
    assert opens_like_a_sentence("SpineFL — adopts a backbone-sharing mechanism") == "verb"
    assert opens_like_a_sentence("Fact memorization — and study how data shapes it") == "verb"
    assert opens_like_a_sentence("Such multi-regime behavior in scientific machine learning") == "anaphor"
    assert opens_like_a_sentence("Resulting method under two sampling regimes") == "anaphor"
    assert opens_like_a_sentence("SGG — DP mechanisms, which contains the Gaussian mechanism") == "clause"
    assert opens_like_a_sentence("Rex — family of reversible exponential Runge-Kutta solvers") is None
    assert opens_like_a_sentence("Models that learn to plan") is None


def test_settle_finishes_a_chunk_or_cuts_back_with_an_ellipsis() -> None:
    clean = "We propose Rex, a family of reversible exponential (stochastic) Runge-Kutta solvers obtained by Lawson."
    assert settle("family of reversible exponential", clean, 12) == (
        "family of reversible exponential (stochastic) Runge-Kutta solvers"
    )
    long = (
        "framework that manages this full agent lifecycle by first autonomously discovering specialist agents"
    )
    assert settle(long, f"ASpec, a {long}.", 8) == "framework that manages this full agent lifecycle…"
    assert settle(long, f"ASpec, a {long}.", 11) == long  # the chunk ends within three words: finished
    # A verb before its object is no place to end: "solver that directly optimizes | the …".
    text = "Falcon, a proximal-gradient solver that directly optimizes the discrete K-way NCut objective without it"
    assert settle(text[len("Falcon, a ") :], text, 6) == "proximal-gradient solver…"


# Real data: the trial's lists and the held-out ICLR 2026 abstracts.


def test_every_icml_list_label_ends_at_a_boundary_and_reads_as_a_noun_phrase(icml_dir: Path) -> None:
    abstracts = []
    for path in sorted(icml_dir.glob("*.txt")):
        paragraphs = path.read_text(encoding="utf-8").split("\n\n")[1:]
        abstracts += [p.strip() for p in paragraphs if len(p.strip()) > 200]
    assert len(abstracts) >= 90
    inside, opening, bad = count_defects(abstracts)
    assert bad == [], bad  # 12 of 95 before issue 15 item 6's boundary rule


def test_labels_of_iclr_abstracts_without_titles_end_at_boundaries(shared_data: Path) -> None:
    """300 ICLR 2026 abstracts (seed 5: neither the development nor the scored sample)."""
    sample = random.Random(5).sample(_iclr_abstracts(shared_data), 300)
    inside, opening, bad = count_defects(sample)
    # 600 of seed 3 (development): 90 ending inside a phrase, 18 not noun phrases before; 3 and 0 after.
    # 600 of seed 23 (held out, scored once): 70 and 14 before; 2 and 0 after.
    assert inside["function word"] == 0 and inside["bracket"] == 0, bad
    assert sum(inside.values()) <= 6 and sum(opening.values()) <= 3, bad


@pytest.mark.slow
def test_every_iclr_abstract_label_is_short_balanced_and_never_ends_in_a_function_word(
    shared_data: Path,
) -> None:
    """All 4,302 ICLR 2026 abstracts, titles removed: the mechanical checks hold for every label."""
    abstracts = _iclr_abstracts(shared_data)
    assert len(abstracts) > 4_000
    inside, opening, bad = count_defects(abstracts)
    assert inside["function word"] == 0 and inside["bracket"] == 0, bad
    assert not [b for b in bad if len(b.split("] ", 1)[1]) > MAX_LABEL_CHARS]
    assert sum(inside.values()) + sum(opening.values()) <= 0.02 * len(abstracts), bad


if __name__ == "__main__":
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 23
    found_inside, found_opening, found_bad = count_defects(
        random.Random(seed).sample(_iclr_abstracts(SHARED), 600)
    )
    if "-v" in sys.argv:
        print("\n".join(found_bad))
    print(
        f"seed {seed}, 600 ICLR 2026 abstracts: ends inside a phrase {sum(found_inside.values())} "
        f"{dict(found_inside)}; not a noun phrase {sum(found_opening.values())} {dict(found_opening)}"
    )
