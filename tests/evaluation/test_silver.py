"""Silver evaluation: the title-name rule, the hash split, the metrics by hand, and the real run."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope.cli import cli
from paperscope.evaluation.keyphrases import (
    TfidfKeyphrases,
    candidate_phrases,
    keyphrase_key,
    keyphrase_prf,
    yake_keyphrases,
)
from paperscope.evaluation.silver import (
    load_silver_papers,
    method_examples,
    silver_id,
    silver_keyphrase_split,
    silver_method_split,
    split_of,
    split_title,
    title_method_name,
)
from paperscope.evaluation.silver_eval import label_name, method_key, run_silver_eval, score_methods
from paperscope.models import Card


@pytest.mark.parametrize(
    ("title", "abstract", "name"),
    [
        ("InfoBatch: Lossless Training Speed Up", "We propose InfoBatch, a framework.", "InfoBatch"),
        ("Deja Vu - Contextual Sparsity for LLMs", "We present Deja Vu, a system that predicts.", "Deja Vu"),
        ("Hubble – a Model Suite", "We present Hubble, a suite of models.", "Hubble"),
        # A coined shape may stand at a sentence start only.
        ("GPT-4: Technical Report", "GPT-4 is a large model.", "GPT-4"),
        ("Retro*: Learning Retrosynthetic Planning", "We propose Retro*, a planner.", "Retro*"),
    ],
)
def test_title_names_accepted(title: str, abstract: str, name: str):
    assert title_method_name(title, abstract, common={"suite", "model"}) == name


@pytest.mark.parametrize(
    ("title", "abstract", "why"),
    [
        ("Fake It Until You Make It: Tricks", "Fake It Until You Make It is our motto.", "3+ tokens"),
        ("Synthesizer: Rethinking Attention", "We propose the Synthesizer model.", "generic word"),
        ("Movement Pruning: Adaptive Sparsity", "We propose Movement Pruning here.", "both tokens generic"),
        ("The MultiBERTs: BERT Reproductions", "We release The MultiBERTs here.", "function word"),
        ("MARS: Meaning-Aware Scoring", "We score answers on Mars.", "case-sensitive"),
        ("Info: Better Batches", "We propose InfoBatch.", "word-bounded"),
        ("Hubble: a Model Suite", "Hubble is a suite. Hubble helps.", "only at sentence starts"),
        ("Co-rewarding learning for reasoning", "Co-rewarding is used by our Co-rewarding.", "no colon"),
        ("A^2TG: Tree Generation", "We propose A^2TG.", "other characters"),
    ],
)
def test_title_names_rejected(title: str, abstract: str, why: str):
    assert title_method_name(title, abstract, common={"synthesizer", "movement", "pruning"}) is None, why


def test_split_title_forms():
    assert split_title("ZipLoRA: Any Subject") == ("ZipLoRA", "Any Subject")
    assert split_title("Deja Vu — Sparsity") == ("Deja Vu", "Sparsity")
    assert split_title("Co-rewarding Learning") is None
    assert split_title("Name:") is None


def test_split_is_a_fixed_hash_of_the_normalised_title():
    # Written down once: a change of the hash rule moves papers between splits and must be seen.
    assert split_of("InfoBatch: Lossless Training Speed Up by Unbiased Dynamic Data Pruning") == "train"
    assert split_of("Hubble: a Model Suite to Advance the Study of LLM Memorization") == "test"
    assert silver_id("Hubble: a Model Suite to Advance the Study of LLM Memorization") == "s-85b679048c40eea7"
    # Copies spelled differently share id and split.
    a, b = "Deja Vu: Contextual Sparsity", "deja vu - contextual  sparsity."
    assert silver_id(a) == silver_id(b) and split_of(a) == split_of(b)
    shares = [split_of(f"Method{i}: a paper about topic {i}") for i in range(2000)]
    assert 0.45 < shares.count("test") / len(shares) < 0.55


def test_keyphrase_key_rule():
    assert keyphrase_key("Large Language Models") == keyphrase_key("large-language model")
    assert keyphrase_key("self-supervised") == "self supervised"
    assert keyphrase_key("Bayesian inference") == "bayesian inference"
    assert keyphrase_key("policies") == "policy" and keyphrase_key("gaussians") == "gaussian"
    assert [keyphrase_key(w) for w in ("loss", "corpus", "analysis", "ideas")] == [
        "loss",
        "corpus",
        "analysis",
        "idea",
    ]
    assert keyphrase_key("LLM") != keyphrase_key("large language model")


def test_keyphrase_prf_by_hand():
    preds = [["Large Language Models", "diffusion", "graph", "LLMs", "llm"], ["a1", "b", "c", "d", "e", "f"]]
    golds = [["large-language model", "Graphs", "transformers"], ["f"]]
    # Paper 1: keys {large language model, diffusion, graph, llm} (two spellings of llm, one key):
    # tp 2, fp 2, fn 1. Paper 2: the sixth phrase is past k=5: tp 0, fp 5, fn 1.
    s = keyphrase_prf(preds, golds, k=5)
    assert (s["tp"], s["fp"], s["fn"]) == (2, 7, 2)
    assert s["precision"] == pytest.approx(2 / 9) and s["recall"] == pytest.approx(0.5)
    assert s["f1"] == pytest.approx(2 * (2 / 9) * 0.5 / (2 / 9 + 0.5))
    with pytest.raises(ValueError):
        keyphrase_prf([[]], [])


def test_tfidf_candidates_and_ranking():
    assert candidate_phrases("We study graph neural networks, for link prediction in 2024.") == [
        "study",
        "graph",
        "neural",
        "networks",
        "study graph",
        "graph neural",
        "neural networks",
        "study graph neural",
        "graph neural networks",
        "link",
        "prediction",
        "link prediction",
    ]
    tfidf = TfidfKeyphrases(
        ["graph learning is common.", "graph methods.", "speculative decoding of graphs."]
    )
    # idf (smooth): ln(4/2)+1 = 1.69 for the three phrases of one train text, ln(4/3)+1 = 1.29 for
    # "graph" (two texts); tf is 1 for each, so the three tie (first seen first), then "graph".
    assert tfidf.top("Speculative decoding on a graph.", k=4) == [
        "speculative",
        "decoding",
        "speculative decoding",
        "graph",
    ]
    assert yake_keyphrases(["Speculative decoding speeds up large language models."], k=2) is not None


def test_method_scores_by_hand():
    from paperscope.evaluation.silver import SilverExample

    def ex(i: int, gold: str) -> SilverExample:
        return SilverExample(f"s-{i}", "", "", gold, f"{gold}: t", "iclr2026")

    examples = [ex(1, "InfoBatch"), ex(2, "Graph-Mamba"), ex(3, "C$^2$R"), ex(4, "Hubble")]
    cards = {
        "s-1": Card("InfoBatch — lossless training", ["InfoBatch", "SGD"]),
        "s-2": Card("SSM — a state space model", ["SSM", "Graph Mamba"]),
        "s-3": Card("C²R", ["C²R"]),
        "s-4": Card("A suite of models for memorization", []),
    }
    s = score_methods(examples, cards)
    assert s["n"] == 4
    assert (s["recall"], s["primary"], s["first"], s["any_name"]) == (0.75, 0.5, 0.5, 0.75)
    assert method_key("Graph-Mamba") == method_key("graph mamba") == "graphmamba"
    assert label_name(cards["s-2"]) == "SSM"


def _fixture_data(root: Path) -> Path:
    """A tiny shared-data folder: 5 ICLR papers, airas duplicates of one ICLR and one airas paper."""
    iclr = root / "iclr2026-primary-area"
    airas = root / "airas-papers-db"
    iclr.mkdir(parents=True)
    airas.mkdir()
    rows = [
        (
            "Hubble: a Model Suite",
            "We present Hubble, a suite of open models for memorization.",
            "memorization",
        ),
        (
            "Deja Vu: Contextual Sparsity",
            "We propose Deja Vu, a system for sparse inference.",
            "sparsity, LLMs",
        ),
        ("MARS: Meaning-Aware Scoring", "We propose MARS, a scoring rule for generations.", "uncertainty"),
        ("Graph Coarsening with Guarantees", "Graph coarsening reduces graphs.", "graph coarsening"),
        ("InfoBatch: Lossless Training", "We propose InfoBatch, a data pruning framework.", "data pruning"),
    ]
    with (iclr / "primary_area__x.csv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["openreview_url", "venue", "title", "abstract", "keywords", "primary_area"])
        for i, (title, abstract, kw) in enumerate(rows):
            w.writerow(
                [f"https://openreview.net/forum?id=x{i}", "ICLR 2026 Poster", title, abstract, kw, "x"]
            )
    flash = {
        "title": "FlashAttention: Fast Exact Attention",
        "abstract": "We propose FlashAttention, an IO-aware kernel.",
    }
    again = {"title": "infobatch - lossless training.", "abstract": "InfoBatch prunes data, said again."}
    (airas / "icml_2022.json").write_text(json.dumps([flash, again, dict(flash)]), encoding="utf-8")
    load_silver_papers.cache_clear()
    return root


def test_dedup_and_split_on_a_fixture(tmp_path: Path):
    data = _fixture_data(tmp_path)
    loaded = load_silver_papers(data)
    assert loaded.unique == {"iclr2026": 5, "airas": 1}  # FlashAttention once; InfoBatch kept from ICLR
    kept, reasons = method_examples(data)
    assert sorted(e.gold for e in kept) == ["Deja Vu", "FlashAttention", "Hubble", "InfoBatch", "MARS"]
    assert not reasons  # "Graph Coarsening with Guarantees" has no "Name:" at all
    train, test = silver_method_split(data)
    assert {e.id for e in train}.isdisjoint(e.id for e in test) and len(train) + len(test) == 5
    assert all(split_of(e.title) == "test" for e in test)
    k_train, k_test = silver_keyphrase_split(data)
    assert len(k_train) + len(k_test) == 5 and ("sparsity", "LLMs") in [e.gold for e in k_train + k_test]
    result = run_silver_eval(data)
    assert result["sizes"]["method_test"] == len(test)
    assert set(result["keyphrases"]["runs"]) == {"keyphrase ranker", "card tasks", "YAKE", "TF-IDF n-grams"}
    json.dumps(result, allow_nan=False)  # what --json prints
    load_silver_papers.cache_clear()


@pytest.mark.slow
def test_eval_cards_silver_on_the_real_data(shared_data: Path):
    """The silver sets hold thousands of papers; one run prints the gold and both silver tables (~2 min)."""
    train, test = silver_method_split(shared_data)
    assert len(train) > 1500 and len(test) > 1500
    assert {e.id for e in train}.isdisjoint(e.id for e in test)
    assert len({e.id for e in train + test}) == len(train) + len(test)  # each paper once
    k_train, k_test = silver_keyphrase_split(shared_data)
    assert len(k_train) + len(k_test) == 4302 and len(k_test) > 2000
    result = CliRunner().invoke(cli, ["eval", "cards", "--silver", "--no-iclr"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Card fields on the dev gold (38 papers)" in out
    assert "Silver method names" in out and "Silver keyphrases" in out
    for row in ("\nall ", "\nkeyphrase ranker ", "\ncard tasks ", "\nYAKE ", "\nTF-IDF n-grams "):
        assert row in out
    print(out)
