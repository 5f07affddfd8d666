"""Datasets: gazetteer, patterns for unknown names, own datasets, CIFAR-10/100 as two."""

from __future__ import annotations

from paperscope.extract.datasets import extract_datasets
from paperscope.extract.methods import extract_methods
from paperscope.text import clean_text


def _datasets(original: str) -> list[str]:
    clean = clean_text(original)
    return [d.name for d in extract_datasets(clean, extract_methods(clean, original))]


def test_slash_pair_counts_as_two_and_lists_are_read():
    text = "Experiments on CIFAR-10/100, Tiny-ImageNet, and multiple ImageNet-1K subsets show gains."
    assert _datasets(text) == ["CIFAR-10", "CIFAR-100", "Tiny-ImageNet", "ImageNet-1K"]


def test_case_19_still_finds_cifar_10():
    text = "We propose Cross-Consistency Regularization (C$^2$R); (ii) it improves CIFAR-10 accuracy."
    assert _datasets(text) == ["CIFAR-10"]


def test_unknown_names_next_to_dataset_or_benchmark():
    text = (
        "We test on the TabArena benchmark and on the LongLaMP dataset, plus an annotated Wikipedia corpus."
    )
    assert _datasets(text) == ["TabArena", "LongLaMP", "Wikipedia"]


def test_ambiguous_gazetteer_words_need_context():
    assert _datasets("Traffic in cities is a hard problem for weather models.") == []
    assert _datasets("We evaluate on the Traffic and Weather datasets.") == ["Traffic", "Weather"]


def test_own_dataset_from_its_definition():
    text = "We present a large-scale, fine-grained Visual Privacy Dataset (VPD-100K) for privacy detection."
    assert _datasets(text) == ["VPD-100K"]


def test_task_acronym_before_benchmarks_is_not_a_dataset():
    text = "Continual Model Merging (CMM) is popular. Experiments on standard CMM benchmarks confirm it."
    assert _datasets(text) == []


def test_dataset_span_points_at_the_name():
    clean = clean_text("We report 12.8 IR@1 in Flickr30k with 100 synthetic pairs.")
    (d,) = extract_datasets(clean)
    assert clean[d.start : d.end] == "Flickr30k"


def test_items_of_a_list_introduced_by_benchmarks_colon_are_datasets():
    from paperscope.extract.datasets import extract_datasets
    from paperscope.text import clean_text

    clean = clean_text(
        "We probe three benchmarks: Knight Tours (KT), PegSolitaire, and Lights Out, and report accuracy."
    )
    assert [d.name for d in extract_datasets(clean)] == ["KT", "PegSolitaire", "Lights Out"]


def test_datasets_such_as_list_stops_at_lower_case_words():
    from paperscope.extract.datasets import extract_datasets
    from paperscope.text import clean_text

    clean = clean_text("It transfers to datasets such as FooSet-7 and BarCorpus with little tuning.")
    assert [d.name for d in extract_datasets(clean)] == ["FooSet-7", "BarCorpus"]


def test_list_items_that_are_plain_words_or_numbers_are_not_datasets():
    from paperscope.extract.datasets import extract_datasets
    from paperscope.text import clean_text

    clean = clean_text("Gains hold on benchmarks such as Oxford, 26.95dB and 3D scenes alike.")
    assert extract_datasets(clean) == []
