"""Names an abstract uses but does not coin (issue 27): the name model, its lexicon and URL features."""

from __future__ import annotations

import numpy as np
import pytest

from paperscope.extract.datasets import extract_datasets
from paperscope.extract.method_candidates import Candidate, MethodName, candidates, mentions
from paperscope.extract.method_features import url_share
from paperscope.extract.method_lexicon import LEXICON_FEATURES, Lexicon, lexicon_features
from paperscope.extract.method_model import NAME_FEATURES, load_name_model
from paperscope.extract.methods import extract_methods, primary_method
from paperscope.text import clean_text

USES = (
    "We propose FlexTune, which fine-tunes BERT with Low-Rank Adaptation (LoRA) and beats PPO baselines "
    "on GLUE. Unlike prior LLMs and GNNs, FlexTune needs no labels."
)


def test_a_used_name_is_listed_apart_from_the_papers_own_and_families_are_not_names():
    found = extract_methods(clean_text(USES), USES)
    assert [m.name for m in found if m.own] == ["FlexTune"]
    used = {m.name: m.confidence for m in found if not m.own}
    assert "LoRA" in used
    assert "LLMs" not in used and "GNNs" not in used
    assert primary_method(found).name == "FlexTune"


def test_the_bundled_name_model_reads_the_name_features():
    model = load_name_model()
    assert model.features == NAME_FEATURES
    assert model.coef.shape == (len(NAME_FEATURES),)
    assert 0 < model.floor < 0.5


def test_a_used_name_does_not_hide_a_result_dataset_but_an_own_method_name_does():
    text = "Our prover reaches 84.6% accuracy on QuasarQA, a new state of the art."
    at = text.index("QuasarQA")
    used = MethodName("QuasarQA", None, at, at + 8, own=False)
    own = MethodName("QuasarQA", None, at, at + 8, own=True)
    assert [d.name for d in extract_datasets(text, [used])] == ["QuasarQA"]
    assert extract_datasets(text, [own]) == []


def test_url_share_counts_mentions_inside_a_link():
    text = "We propose CMPAE. Code: github.com/MengyuanChen21/CMPAE and CMPAE again."
    cands = [Candidate(n, 0, 0, at=mentions(n, text)) for n in ("CMPAE", "MengyuanChen21")]
    assert len(cands[0].at) == 3
    assert url_share(text, cands).tolist() == pytest.approx([1 / 3, 1.0])
    assert url_share("No links in CMPAE here.", cands[:1]).tolist() == [0.0]


def test_lexicon_features_are_smoothed_counts_and_a_phrase_takes_its_rarest_word():
    lex = Lexicon(
        n_docs=99,
        min_df=3,
        counts={"LLM": [50, 80, 0, 2, 8], "Stable": [9, 0, 0, 0, 0], "Diffusion": [30, 0, 0, 0, 0]},
        title_names={"Stable Diffusion": 3},
    )
    x = lexicon_features(["LLM", "Stable Diffusion", "Unseen"], lex)
    assert x.shape == (3, len(LEXICON_FEATURES))
    assert x[0].tolist() == pytest.approx([np.log(51) / np.log(100), 80 / 51, 0.0, np.log(11), 2 / 11, 0.0])
    assert x[1].tolist() == pytest.approx([np.log(10) / np.log(100), 0.0, np.log(4), 0.0, 0.0, 0.0])
    assert x[2].tolist() == [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]


def test_a_name_with_a_bare_version_is_a_candidate_but_a_range_or_a_count_is_not():
    text = (
        "We train OLMo 2 and compare with Llama 3.1 and Dolmino Mix 1124 on 60M–1B models with GPT-4 3 times."
    )
    names = [c.name for c in candidates(text, [])]
    assert {"OLMo 2", "Llama 3.1", "Dolmino Mix 1124"} <= set(names)
    assert "60M 1B" not in names and "GPT-4 3" not in names


def test_a_word_capitalised_because_it_starts_a_sentence_is_no_part_of_a_name():
    """'Using PerSEval, ...' was listed (and shown, at 0.94) as the name 'Using PerSEval'."""
    text = clean_text(
        "While Vision-Language-Action models act well, they plan poorly. Using PerSEval, we find gaps."
        " On ImageNet, our model gains 2 points. FLARE 3B is our model, and Spider GAN helps."
    )
    names = {c.name for c in candidates(text, [])}
    assert {"Vision-Language-Action", "PerSEval", "ImageNet", "FLARE 3B", "Spider GAN"} <= names
    assert not names & {"While Vision-Language-Action", "Using PerSEval", "On ImageNet"}
    card_names = extract_methods(text)
    assert not any(n.name.split()[0] in ("While", "Using", "On") for n in card_names)
