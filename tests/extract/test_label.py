"""Display labels: NAME — what it does; a phrase when the paper names nothing."""

from __future__ import annotations

import pytest

from paperscope.extract.label import MAX_LABEL_CHARS, build_label, is_generic_phrase
from paperscope.extract.methods import MethodName, extract_methods
from paperscope.text import clean_text


def _label(original: str) -> str:
    clean = clean_text(original)
    return build_label(clean, extract_methods(clean, original))


def test_long_form_and_opening_task():
    text = (
        "Multi-modal dataset distillation (MDD) seeks to compress large-scale multi-modal datasets. "
        "To address this, we propose analytic parameter matching (APM), which derives parameters."
    )
    assert _label(text) == "APM — analytic parameter matching for multi-modal dataset distillation"


def test_apposition_when_no_long_form():
    text = "We present APM, an adaptive pruning method that reaches a 9.6$\\times$ speedup on CIFAR-10."
    assert _label(text) == "APM — adaptive pruning method that reaches a 9.6× speedup on CIFAR-10"


def test_no_method_name_gives_a_phrase_from_the_abstract():
    text = "We revisit loss::mse style objectives and don't-care labels for sequence tagging."
    assert _label(text) == "Loss::mse style objectives and don't-care labels for sequence tagging"


def test_label_is_bounded_and_free_of_markup():
    text = "We propose **FooNet**, a " + "very " * 60 + "long $\\mathcal{O}(n)$ method."
    label = _label(text)
    assert label.startswith("FooNet — ")
    assert len(label) <= MAX_LABEL_CHARS
    assert not any(r in label for r in ("*", "$", "\\", "mathcal"))


def test_title_label_reshapes_name_colon_subtitle():
    from paperscope.extract.label import title_label

    assert title_label("PAGE: A Simple and Optimal Probabilistic Gradient Estimator") == (
        "PAGE — A Simple and Optimal Probabilistic Gradient Estimator"
    )
    assert title_label("Exponential Machines") == "Exponential Machines"


# Odd labels seen on lists 002-004, on sentences written by us.


def test_head_noun_before_the_name_and_its_clause_after_a_participial_aside():
    text = "We introduce a new metric DQ, motivated by rate theory, that rates the fidelity of summaries."
    assert _label(text) == "DQ — metric that rates the fidelity of summaries"


def test_unclosed_long_form_parenthesis_keeps_the_apposition():
    text = "We propose FlowMix (Mixing Flows by Rank, a compact generative sampler. FlowMix is fast."
    assert _label(text) == "FlowMix — compact generative sampler"


def test_simple_yet_effective_is_dropped_from_the_apposition():
    text = "We present LoopNet, a simple yet effective recurrent model that counts objects in video."
    assert _label(text) == "LoopNet — recurrent model that counts objects in video"


def test_tail_that_continues_the_verb_phrase_is_not_a_label():
    text = "This paper presents the first careful study of sparse attention for speech. We propose SpA and implement it in CUDA."
    assert _label(text) == "SpA — careful study of sparse attention for speech"


def test_head_noun_of_an_abbreviated_long_form_with_its_purpose_clause():
    text = (
        "We also propose a shared **memory, cache and routing protocol (MCRP)** to balance load across GPUs."
    )
    assert _label(text) == "MCRP — protocol to balance load across GPUs"


def test_a_tail_that_opens_with_a_verb_is_not_the_phrase():
    # Issue 15 item 6: "what it does" is a noun phrase ("SpineFL — adopts …" was not).
    from paperscope.extract.label_shape import opens_like_a_sentence

    text = "We propose SIX, based on random restarts, which measures how often a solver agrees with itself."
    label = _label(text)
    assert label.startswith("SIX — ") and opens_like_a_sentence(label) is None
    assert "measures how" not in label


def test_own_acronym_is_not_the_opening_task_and_hyphen_parts_spell_letters():
    text = (
        "We study retrieval at scale. We introduce Long-Range Memory Routing (LRMR), which routes "
        "queries to memory shards."
    )
    assert _label(text).startswith("LRMR — Long-Range Memory Routing")
    assert "introduce" not in _label(text)


def test_label_clause_stops_before_i_e():
    text = "We present a two-stage method (FaceMix) to separate identity, i.e., the face, from pose."
    assert _label(text) == "FaceMix — two-stage method to separate identity"


def test_a_long_label_is_cut_at_a_word_and_never_inside_a_bracket():
    text = (
        "In the pre-training-fine-tuning paradigm, pre-trained encoders have become high-value "
        "intellectual property (IP) that owners must protect from theft by adversaries."
    )
    from paperscope.extract.label import _clip

    label = _clip(text)  # the cut itself: any label too long for a line goes through it
    assert len(label) <= MAX_LABEL_CHARS
    assert "(" not in label and label.endswith("…") and label[:-1].split()[-1] in text.split()
    # Without a method name this abstract is labelled by its keyphrases, not its opening words.
    assert not _label(text).startswith("In the pre-training")


def test_long_labels_are_cut_before_a_bracket_and_say_so() -> None:
    from paperscope.extract.label import MAX_LABEL_CHARS, title_label

    long = "Low Complexity Homeomorphic Projection to Ensure Neural-Network Solution Feasibility for Optimization over (Non-)Convex Set"
    label = title_label(long)
    assert len(label) <= MAX_LABEL_CHARS and label.endswith("…") and "(" not in label
    assert title_label("A Short Title (With Brackets)") == "A Short Title (With Brackets)"


def test_every_title_label_of_the_shared_data_is_short_balanced_and_ends_cleanly(shared_data) -> None:
    """The label of every titled paper of ../shared/data (ICLR 2026 CSVs, airas, paperlists)."""
    import csv
    import json

    from paperscope.extract.label import _DANGLING, MAX_LABEL_CHARS, title_label

    titles: list[str] = []
    for path in sorted((shared_data / "iclr2026-primary-area").glob("*.csv")):
        with path.open(encoding="utf-8-sig", newline="") as handle:
            titles += [row["title"] for row in csv.DictReader(handle) if row.get("title")]
    for path in sorted((shared_data / "airas-papers-db").glob("*.json")):
        titles += [r["title"] for r in json.loads(path.read_text(encoding="utf-8")) if r.get("title")]
    assert len(titles) > 19_000
    bad = []
    for title in titles:
        label = title_label(title)
        words = label.rstrip("…").split()
        cut = label.endswith("…")
        if (
            len(label) > MAX_LABEL_CHARS
            or any(label.count(a) - label.count(b) > title.count(a) - title.count(b) for a, b in ("()", "[]"))
            or (cut and words and words[-1].lower().strip(",;:") in _DANGLING)
        ):
            bad.append(label)
    assert bad == []


def test_a_nameless_abstract_is_labelled_by_a_phrase_not_its_opening_words() -> None:
    text = (
        "Large vision-language models have adopted visual token pruning strategies to mitigate the cost"
        " of long visual sequences. Pruning visual tokens early often hurts fine-grained grounding."
        " Experiments show that adaptive token pruning keeps accuracy on grounding benchmarks."
    )
    label = _label(text)
    assert not label.startswith("Large vision-language models have") and " have " not in label
    assert "token pruning" in label.lower()
    # "We study X and show that …": the object, not the clause that follows it.
    studied = _label("We study gradient descent in matrix factorization and show that large steps help.")
    assert studied == "Gradient descent in matrix factorization"


@pytest.mark.parametrize(
    ("phrase", "generic"),
    [
        ("Convex functions", True),  # issue 27's example: two words in 2.5% and 7.7% of abstracts
        ("potential errors", True),  # "debiasing for robustness — potential errors"
        ("image classification", True),
        ("speculative decoding", False),  # "speculative": 0.1% of abstracts
        ("optimal transport", False),  # "transport": 1.0%
        ("LoRA fine-tuning", False),  # a coined name
        ("debiasing for robustness", False),  # "debiasing": 0.3%
        ("robust generalization of deep neural networks", False),  # more than three words
        ("", False),
    ],
)
def test_a_generic_phrase_is_short_uncoined_and_made_of_common_words(phrase: str, generic: bool):
    assert is_generic_phrase(phrase) is generic


def test_a_generic_label_gives_way_to_the_best_keyphrases():
    text = (
        "We study convex functions. We analyse stochastic mirror descent with heavy-tailed gradient noise"
        " and prove high-probability convergence rates for mirror descent under bounded p-th moments."
    )
    assert _label(text) == "Heavy-tailed gradient noise · mirror descent"  # was "Convex functions"


def test_a_generic_phrase_after_a_lower_case_name_gives_way_to_keyphrases_after_the_name():
    # The "debiasing for robustness — potential errors"; a name with a capital says
    # which paper it is, so its phrase stays.
    clean = (
        "We propose debiasing for robustness, a method for potential errors. It reweights spurious"
        " correlations in counterfactual data augmentation for group robustness on Waterbirds."
    )
    start = clean.index("debiasing")
    name = MethodName(name="debiasing for robustness", long_form=None, start=start, end=start + 24, score=0.9)
    assert (
        build_label(clean, [name]) == "debiasing for robustness — spurious correlations · counterfactual data"
    )
    coined = clean.replace("debiasing for robustness", "DebiasNet")
    name = MethodName(name="DebiasNet", long_form=None, start=start, end=start + 9, score=0.9)
    assert build_label(coined, [name]) == "DebiasNet — method for potential errors"
