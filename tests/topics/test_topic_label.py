"""c-TF-IDF labels: candidate phrases, the weighting formula, names, and case 14."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import sparse
from topics_helpers import assert_clean_name, case14_docs

from paperscope.errors import InputError
from paperscope.text import clean_text
from paperscope.topics.label import (
    CTfidfLabeller,
    candidate_phrases,
    ctfidf,
    get_labeller,
    name_topic,
)


def test_candidate_phrases_drop_boilerplate_stop_words_and_latex():
    text = clean_text(
        "In this paper we propose a novel method for diffusion models: it reduces denoising steps "
        "by 9.6$\\times$ (see $\\mathbf{x}$ and \\textit{dense} baselines)."
    )
    assert candidate_phrases(text) == [
        "diffusion",
        "diffusion models",
        "reduces",
        "denoising",
        "steps",
        "reduces denoising",
        "denoising steps",
        "dense",
    ]


def test_candidate_phrases_never_cross_a_removed_word_and_skip_generic_alone():
    # "learning" and "models" are generic: they may end a phrase but are never a phrase alone.
    assert candidate_phrases("Large language models and deep reinforcement learning; the RL agent.") == [
        "language",
        "language models",
        "reinforcement",
        "reinforcement learning",
        "rl",
        "agent",
        "rl agent",
    ]


def test_candidate_phrases_segment_chinese_and_drop_chinese_function_words():
    assert candidate_phrases("我们提出一种更快的扩散模型采样方法") == [
        "更快",
        "扩散",
        "模型",
        "采样",
        "扩散 模型",
        "模型 采样",
    ]


def test_ctfidf_matches_hand_worked_example():
    # Two classes, three terms: tf = counts / words per class, idf = log(1 + A / f(t)), A = 3.5.
    weights = ctfidf(sparse.csr_matrix(np.array([[2, 0, 1], [0, 3, 1]]))).toarray()
    idf = [math.log(1 + 3.5 / 2), math.log(1 + 3.5 / 3), math.log(1 + 3.5 / 2)]
    expected = [[2 / 3 * idf[0], 0.0, 1 / 3 * idf[2]], [0.0, 3 / 4 * idf[1], 1 / 4 * idf[2]]]
    assert weights == pytest.approx(np.array(expected), abs=1e-12)
    assert weights[0, 0] == pytest.approx(0.674400, abs=1e-6)


def test_ctfidf_empty_class_gets_zero_row():
    weights = ctfidf(sparse.csr_matrix(np.array([[0, 0], [1, 1]]))).toarray()
    assert weights[0].tolist() == [0.0, 0.0]


def test_name_prefers_bigram_and_skips_repeats_plurals_and_acronyms():
    scored = [
        ("diffusion", 1.0),
        ("denoising", 0.8),
        ("diffusion models", 0.6),
        ("models", 0.5),
        ("sampling", 0.4),
    ]
    assert name_topic(scored) == "diffusion models, denoising, sampling"
    scored = [
        ("reinforcement learning", 1.0),
        ("rl", 0.9),
        ("policies", 0.8),
        ("policy", 0.7),
        ("reward", 0.6),
    ]
    assert name_topic(scored) == "reinforcement learning, policies, reward"
    assert (
        name_topic([("video", 1.0), ("temporal", 0.8), ("tokens", 0.7)], exclude=["temporal"])
        == "video, tokens"
    )
    assert name_topic([]) == ""


def test_name_of_single_words_leads_with_the_best_phrase():
    scored = [("agents", 1.0), ("fairness", 0.9), ("voting", 0.8), ("social choice", 0.5), ("games", 0.4)]
    assert name_topic(scored) == "social choice, agents, fairness"
    # The lead phrase swallows the single words it contains; the rest fill in score order.
    scored = [("video", 1.0), ("tracking", 0.8), ("noise", 0.7), ("video tracking", 0.2)]
    assert name_topic(scored) == "video tracking, noise"
    # No multi-word phrase at all (or only an excluded one): single words are all there is.
    scored = [("video", 1.0), ("tokens", 0.7), ("speech recognition", 0.5)]
    assert name_topic(scored, exclude=["speech recognition"]) == "video, tokens"


def test_case14_labels_are_content_words():
    docs = case14_docs()
    labeller = CTfidfLabeller()
    labeller.fit(docs)
    scored = labeller.key_phrases(np.array([0] * 10 + [1] * 10))
    names = {c: name_topic(scored[c]) for c in (0, 1)}
    assert names == {
        0: "denoising steps, diffusion models, generation",
        1: "environments, policy optimisation, reinforcement learning",
    }
    for c in (0, 1):
        for phrase, _ in scored[c]:
            assert_clean_name(phrase)


def test_tiny_corpus_gets_labels_without_vectorizer_errors():
    # Case 12: one or two documents once made CountVectorizer raise on min_df/max_df.
    labeller = CTfidfLabeller()
    labeller.fit(["We propose a sparse attention method for long documents."])
    # Six phrases seen once each: tf = 1/6, A = 6, f(t) = 1, so every weight is log(7) / 6;
    # ties are ordered by phrase.
    weight = pytest.approx(math.log(7) / 6)
    assert labeller.key_phrases(np.array([0]))[0] == [
        ("attention", weight),
        ("documents", weight),
        ("long", weight),
        ("long documents", weight),
        ("sparse", weight),
        ("sparse attention", weight),
    ]


def test_corpus_without_content_words_gives_empty_phrases():
    labeller = CTfidfLabeller()
    labeller.fit(["We propose the method.", "$ $"])
    assert labeller.key_phrases(np.array([0, 1])) == {0: [], 1: []}


def test_unknown_labeller_names_the_choices():
    with pytest.raises(InputError, match="unknown labeller 'yake'; choose one of: ctfidf"):
        get_labeller("yake")


def test_hyphenated_words_with_an_excluded_part_are_dropped_but_compounds_kept():
    text = "state-of-the-art low-rank adaptation for real-world large-scale large language models"
    assert candidate_phrases(text) == [
        "low-rank",
        "adaptation",
        "low-rank adaptation",
        "large-scale",
        "language",
        "language models",
    ]
