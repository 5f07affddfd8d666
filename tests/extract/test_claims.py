"""Numeric claims (bugs/CASES.md cases 5 and 6): value, unit, what, span; no sizes or settings."""

from __future__ import annotations

from paperscope.extract.claims import extract_claims
from paperscope.text import clean_text


def _claims(original: str) -> list[tuple[str, str, str]]:
    # A bound in words ("up to", issue 27) is written before the value with a space, a symbol glued.
    return [
        (f"{c.bound} {c.value}" if c.bound[:1].isalpha() else c.bound + c.value, c.unit, c.what)
        for c in extract_claims(clean_text(original))
    ]


def test_case_5_bounds_survive_entity_decoding():
    text = "Our error drops to &lt;1% and accuracy stays &gt; 90% on CIFAR-10."
    assert _claims(text) == [("<1", "%", "Our error drops"), (">90", "%", "accuracy stays")]


def test_case_6_latex_times_gives_a_speedup_claim():
    text = "We introduce C$^2$R, which is 9.6$\\times$ faster than \\textit{dense} baselines."
    assert _claims(text) == [("9.6", "×", "faster")]


def test_sizes_and_settings_are_not_claims():
    text = (
        "We collect 100,000 images with 33 classes, train a 370M-parameter model for 64 epochs on CIFAR-10 "
        "at 50% sparsity with top-5% selection and p < 0.05."
    )
    assert _claims(text) == []


def test_claims_from_a_real_abstract_sentence():
    text = (
        "Empirically, APM achieves up to 65$\\times$ storage reduction and 9.6$\\times$ faster distillation, "
        "e.g., 12.8 IR@1 and 17.8 TR@1 in Flickr30k with 100 synthetic pairs."
    )
    assert [(v, u) for v, u, _ in _claims(text)] == [
        ("up to 65", "×"),
        ("9.6", "×"),
        ("12.8", "IR@1"),
        ("17.8", "TR@1"),
    ]


def test_claim_span_covers_the_number_and_unit():
    clean = clean_text("SpineFL can achieve up to 3.28% accuracy improvement.")
    (claim,) = extract_claims(clean)
    assert clean[claim.start : claim.end] == "3.28%"
    assert claim.what == "accuracy improvement"


def test_time_per_unit_of_work_is_a_latency_claim():
    from paperscope.extract.claims import extract_claims

    claims = extract_claims("It segments a room in 40 ms per frame and 2.5 seconds per video.")
    assert [(c.value, c.unit) for c in claims] == [("40", "ms"), ("2.5", "s")]


def test_reached_context_length_is_a_claim_but_training_tokens_are_not():
    from paperscope.extract.claims import extract_claims

    claims = extract_claims("Trained on 300B tokens, it handles context lengths of up to 2M tokens.")
    assert [(c.value, c.unit) for c in claims] == [("2", "M tokens")]


def test_shared_metric_signed_gains_and_fps():
    text = (
        "Strong models reach only 31.5 and 47.25 accuracy on hard cases. Our model runs at 48 FPS and "
        "lifts methods like AlphaSeg (+2.3) without extra cost."
    )
    got = [(v, u) for v, u, _ in _claims(text)]
    assert got == [("31.5", "accuracy"), ("47.25", "accuracy"), ("48", "FPS"), ("2.3", "pp")]
    whats = {v: w for v, _, w in _claims(text)}
    assert whats["2.3"] == "gain for AlphaSeg"
    assert "31.5" not in whats["31.5"] and whats["31.5"]


def test_baselines_of_before_after_pairs_are_not_claims():
    text = (
        "Our method improves QAx from 12.0% to 24.7%, lifts RoadQA: 19.6% → 57.1%, and beats the "
        "baseline by nearly 40 absolute points (71.56% vs. 31.83%)."
    )
    got = [(v, u) for v, u, _ in _claims(text)]
    assert got == [("24.7", "%"), ("57.1", "%"), ("about 40", "pp"), ("71.56", "%")]
    whats = {v: w for v, _, w in _claims(text)}
    assert whats["57.1"].endswith("RoadQA")


def test_numbers_inside_names_are_not_metric_values():
    text = "It reaches a perplexity of 7.1 at 64K tokens on PG-19 perplexity tasks and ResNet-50 x2 speed."
    assert [(v, u) for v, u, _ in _claims(text)] == [("7.1", "perplexity")]


def test_a_spread_after_the_value_is_not_the_value():
    text = r"It gives a 2.1$\pm$0.3 FID improvement and 85.2 ± 0.4% accuracy."
    assert [(v, u) for v, u, _ in _claims(text)] == [("2.1", "FID"), ("85.2", "%")]


def test_what_skips_lead_in_words_and_earlier_items_of_a_list():
    text = (
        "It helps retrieval tasks, e.g., 12.8 IR@1 and 17.8 TR@1 on CocoX. It reaches average gains "
        "of over 10% and cuts peak activation memory usage by as much as 82.5% for large models."
    )
    whats = {v: w for v, _, w in _claims(text)}
    assert whats["12.8"] == whats["17.8"] == "helps retrieval tasks"
    assert whats["more than 10"] == "average gains"
    assert whats["up to 82.5"].endswith("peak activation memory usage")


def _values(original: str) -> list[tuple[str, str, str]]:
    return [(c.bound, c.value, c.unit) for c in extract_claims(clean_text(original))]


def test_bounds_in_words_reach_ranges_comparatives_and_within_of():
    # Kinds of issue 27's "claims keep their bound": the low end of a range carries it, comparative
    # adjectives are bounds, and "within <a loss> of N" is an upper bound.
    assert _values("Each approach alone saturates around 42-43%, but together they reach more.") == [
        ("about", "42–43", "%")
    ]
    assert _values("This results in greater than 300% increase and fewer than 2% of tokens.") == [
        ("more than", "300", "%"),
        ("less than", "2", "%"),
    ]
    assert _values("We prune ResNet50 while staying within an accuracy loss of 1% on ImageNet.") == [
        ("at most", "1", "%")
    ]


def test_factors_in_words_are_speedups_but_k_fold_is_a_setting():
    assert _values("Our method is 4.5 times faster and processes 293.3 times fewer tokens.") == [
        ("", "4.5", "×"),
        ("", "293.3", "×"),
    ]
    assert _values("It gives a 40-fold reduction in parameters.") == [("", "40", "×")]
    assert _values("We use 5-fold cross-validation and repeat each run 3 times with new seeds.") == []


def test_a_metric_keeps_its_variant_word_and_any_case():
    assert _values("It reaches 53.9 box AP and 46.8 mask AP on COCO, and 78.6 mIOU on Cityscapes.") == [
        ("", "53.9", "box AP"),
        ("", "46.8", "mask AP"),
        ("", "78.6", "mIOU"),
    ]
    # A word before a lower-case metric is no variant of it.
    assert _values("It reaches 80.5 test accuracy.") == []


def test_a_percent_sign_escaped_twice_is_kept():
    # A CSV written with doubled backslashes ("$18.9\\\\%$" in the file) loses no percent sign.
    assert _values("We obtain an $18.9\\\\%$ relative accuracy improvement.") == [("", "18.9", "%")]
