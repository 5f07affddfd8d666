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


def test_lower_case_bench_suffix_and_own_dataset_appositions():
    text = (
        "We introduce TrailSet (Trail Annotations for Learning), a carefully curated dataset of hikes, "
        "and evaluate on QA-bench."
    )
    assert _datasets(text) == ["TrailSet", "QA-bench"]


def test_own_dataset_after_a_head_noun_and_comma():
    text = "We construct a corresponding dataset, RoadQA-50K, through an automatic pipeline."
    assert _datasets(text) == ["RoadQA-50K"]


def test_names_a_result_is_reported_on():
    text = (
        "Our model reaches 81.2% pass@8 on ProveSet-2 and improves TabQA-X from 12.0% to 24.7%, "
        "with SOTA on the CityNav4 suite. Humans voted in Q-Sort Arena."
    )
    assert _datasets(text) == ["ProveSet-2", "TabQA-X", "CityNav4", "Q-Sort Arena"]


def test_version_suffix_and_no_shorter_duplicate():
    text = "Scores rise on LongBench v2 and on SWE-bench Verified, with SOTA results on ImageNet64×64."
    assert _datasets(text) == ["LongBench v2", "SWE-bench Verified", "ImageNet64×64"]


def test_own_dataset_named_before_its_head_noun_or_as_an_environment():
    text = (
        "We introduce the Grounded Scene Captions (GSCap) dataset. We also introduce MemArena-Gym, an "
        "interactive environment for evaluating memory."
    )
    assert _datasets(text) == ["GSCap", "MemArena-Gym"]


def test_pair_before_a_plural_head_experiments_on_and_no_model_or_modality_names():
    text = (
        "On the GSX and ObjVerse3D datasets errors halve. Experiments on DomainSuite confirm it, and "
        "results on LLaMB-8B too. We release a real-to-sim RGB-D dataset."
    )
    assert _datasets(text) == ["GSX", "ObjVerse3D", "DomainSuite"]


def test_apposition_stops_at_another_head_noun():
    text = "We propose TABZ, an end-to-end tabular compression model that compresses the training dataset."
    assert _datasets(text) == []


def test_a_name_is_widened_by_an_all_capital_word_or_a_numeral_but_not_a_generic_one():
    text = "Results on PASCAL VOC and MS COCO improve, and our model sets a new COCO SOTA."
    assert [d.name for d in extract_datasets(text)] == ["PASCAL VOC", "MS COCO"]
    assert [d.name for d in extract_datasets("MS COCO is used at a sentence start.")] == ["MS COCO"]
    assert [d.name for d in extract_datasets("We use COCO. MS students label it.")] == ["COCO"]


def test_a_widened_name_in_a_list_is_one_item():
    text = "Experiments on ImageNet, MS COCO and CIFAR-10 show gains."
    assert [d.name for d in extract_datasets(text)] == ["ImageNet", "MS COCO", "CIFAR-10"]


def test_listed_names_may_carry_a_modifier_or_a_lower_case_word():
    text = (
        "Gains hold across benchmarks, including AlpacaEval 2.0, safety-focused GuardTestX, and the "
        "reasoning-specific GSM8k. Models trained on datasets including Fooville flowers, Barr-A and "
        "Needle-In-A-Stack replicate content."
    )
    names = [d.name for d in extract_datasets(text)]
    for name in ("GuardTestX", "GSM8k", "Fooville flowers", "Barr-A", "Needle-In-A-Stack"):
        assert name in names
    assert "safety-focused GuardTestX" not in names


def test_a_lower_case_word_after_a_listed_name_must_end_its_item():
    text = "It transfers to datasets such as Fooville flowers that bloom in spring."
    assert extract_datasets(text) == []


def test_a_dataset_after_i_e_a_metric_a_leaderboard_or_a_shared_task():
    text = (
        "We test on one single-label dataset, i.e., QuuxImages. It reaches 37.01% average mAP on "
        "ZetaNet-v1.3, ranks first on the KiloQ leaderboard and wins the XYZ25 shared task."
    )
    assert [d.name for d in extract_datasets(text)] == ["QuuxImages", "ZetaNet-v1.3", "KiloQ", "XYZ25"]


def test_lists_after_a_dash_or_a_comma_and_like_name_datasets():
    assert _datasets("Across 15 benchmarks—including MedQA, GSM8K, HumanEval, and GLUE—it wins.") == [
        "MedQA",
        "GSM8K",
        "HumanEval",
        "GLUE",
    ]
    assert _datasets("It beats prior models on multiple datasets, like CelebAMask-HQ and LaPa.") == [
        "CelebAMask-HQ",
        "LaPa",
    ]


def test_every_name_before_a_plural_head_noun_is_a_dataset_but_not_a_field():
    assert _datasets("It ranks first on both Sintel and KITTI-2015 benchmarks.") == ["Sintel", "KITTI-2015"]
    # The last word of a longer name is not an item of its own; a field is no name.
    assert "V2" not in _datasets("Results on the NYU Depth V2, UrbanLF, and MCubeS datasets.")
    assert _datasets("We evaluate on widely used Natural Language Understanding benchmarks.") == []


def test_a_modifier_is_not_part_of_a_dataset_name_and_a_year_is():
    assert _datasets("Models do well on the English-only RULER benchmark.") == ["RULER"]
    assert _datasets("Our certificate scales to ImageNet-scale datasets.") == []
    assert _datasets("It reaches 43.3% accuracy on AIME 2024 with a 7B model.") == ["AIME 2024"]
    assert _datasets("We train on the synthetic Hypersim dataset.") == ["Hypersim"]
