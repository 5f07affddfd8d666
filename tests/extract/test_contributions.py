"""Contribution types on hand-written sentences (rules found on the hold-out of lists 002-004)."""

from __future__ import annotations

from paperscope.extract.contributions import extract_contribution_types
from paperscope.extract.methods import extract_methods
from paperscope.text import clean_text


def _types(text: str) -> list[str]:
    clean = clean_text(text)
    return [c.type for c in extract_contribution_types(clean, extract_methods(clean, text))]


def test_provide_a_new_layer_is_a_method():
    assert _types("We provide a new monotone layer with a convex parameter space.") == ["method"]


def test_information_theoretic_measure_is_not_theory():
    assert _types("We track training with an information-theoretic measure of compression.") == []


def test_information_theoretic_perspective_is_theory():
    assert _types("Pruning is read from an information-theoretic perspective.") == ["theory"]


def test_worst_case_guarantee_and_establish_that_are_theory():
    assert _types("The learner keeps a worst-case guarantee against any comparator.") == ["theory"]
    assert _types("We establish that the iteration admits a unique fixed point.") == ["theory"]


def test_establishing_a_baseline_is_not_theory():
    assert "theory" not in _types("We establish a strong baseline for table parsing.")


def test_find_that_our_method_outperforms_is_a_result_not_a_study():
    text = "We propose GridMix, a sampler for tabular data. We find that GridMix outperforms prior samplers."
    assert _types(text) == ["method"]


def test_evaluating_many_models_and_stated_findings_are_empirical_analysis():
    assert _types("We evaluate 31 open models on legal questions.") == ["empirical-analysis"]
    assert _types("Our sweep yields three key findings about warm-up.") == ["empirical-analysis"]


def test_evaluating_on_someone_elses_bench_is_not_a_benchmark_contribution():
    assert _types("Results on the TableQABench show gains for long tables.") == []
    assert _types("TableQABench tests reasoning over long tables.") == ["benchmark"]


def test_established_conditions_identifiability_and_competitive_ratio_are_theory():
    assert _types("We establish mild conditions under which the mixture is recovered.") == ["theory"]
    assert _types("The model's identifiability holds under sparse mixing.") == ["theory"]
    assert _types("The policy attains a competitive ratio close to the optimum.") == ["theory"]
    assert "theory" not in _types("Personally identifiable details are masked.")


def test_identified_phenomenon_and_these_findings_are_empirical_analysis():
    assert _types("We identify a recurring length-collapse phenomenon in reward models.") == [
        "empirical-analysis"
    ]
    assert _types("These findings reveal that judges favour long answers.") == ["empirical-analysis"]


def test_our_new_methods_and_propose_to_are_method():
    assert _types("Our new pruning methods keep accuracy at half the cost.") == ["method"]
    assert _types("We rethink caching and propose to evict keys by age.") == ["method"]


def _abstracts() -> list[str]:
    """The bundled example abstracts, and ICLR 2026's from ../shared/data when it is there."""
    from pathlib import Path

    from paperscope.index.minilm import calibration_texts

    texts = list(calibration_texts())
    shared = Path(__file__).resolve().parents[3] / "shared" / "data" / "iclr2026-primary-area"
    if shared.is_dir():
        import csv

        csv.field_size_limit(
            max(csv.field_size_limit(), 1 << 24)
        )  # never lower the reader's limit (process-wide)
        for path in sorted(shared.glob("*.csv")):
            with path.open(encoding="utf-8-sig", newline="") as handle:
                texts.extend(row["abstract"] for row in csv.DictReader(handle))
    return texts


def test_every_pattern_probe_is_a_necessary_substring():
    """A pre-test skips a pattern when none of its probes is in the text: no match may lack them.

    Checked on every abstract at hand (95 bundled ones; with ../shared/data also ICLR 2026's
    4,302), so a probe list that misses a way the pattern can match fails here, not silently.
    """
    from paperscope.extract import contributions

    probed = [(c, contributions._PROBES_OF[id(c)]) for cs in contributions._COMPILED.values() for c in cs]
    probed = [(c, p) for c, p in probed if p]
    assert len(probed) >= 20  # the probes are attached to the compiled patterns
    checked = 0
    for text in _abstracts():
        clean = clean_text(text)
        lowered = clean.lower()
        for pattern, probes in probed:
            if pattern.search(clean):
                checked += 1
                assert any(p in lowered for p in probes), (pattern.pattern, probes, clean[:200])
    assert checked > 0
