"""Topic names from the papers' keyphrases (c-TF-IDF over each paper's ranked keyphrases)."""

from __future__ import annotations

import numpy as np
from topics_helpers import assert_clean_name, case14_docs

from paperscope.extract.keyphrases import FUNCTION_WORDS
from paperscope.topics.keyphrase_label import KeyphraseLabeller, paper_phrases
from paperscope.topics.label import get_labeller, name_topic


def test_topic_names_are_keyphrases_without_a_trailing_function_word():
    docs = case14_docs()
    labeller = KeyphraseLabeller()
    labeller.fit(docs)
    scored = labeller.key_phrases(np.array([0] * 10 + [1] * 10))
    for c in (0, 1):
        name = name_topic(scored[c])
        assert name
        for phrase in name.split(", "):
            assert_clean_name(phrase)
            assert phrase.split()[-1] not in FUNCTION_WORDS
    assert all(p == p.strip() and p for d in docs for p in paper_phrases(d))


def test_keyphrase_labeller_is_registered_and_reads_chinese_with_the_plain_candidates():
    assert isinstance(get_labeller("keyphrases"), KeyphraseLabeller)
    assert paper_phrases("我们提出一种更快的扩散模型采样方法")[:2] == ["更快", "扩散"]


def test_topic_phrases_are_multiword_where_the_papers_say_so():
    docs = case14_docs()
    labeller = KeyphraseLabeller()
    labeller.fit(docs)
    scored = labeller.key_phrases(np.array([0] * 10 + [1] * 10))
    assert any(" " in p for p, _ in scored[0][:3]) and any(" " in p for p, _ in scored[1][:3])
