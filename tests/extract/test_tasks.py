"""Task phrases on hand-written sentences (rules found on the hold-out of lists 002-004)."""

from __future__ import annotations

from paperscope.extract.tasks import extract_tasks
from paperscope.text import clean_text


def _tasks(text: str) -> list[str]:
    return [t.text for t in extract_tasks(clean_text(text))]


def test_defined_term_uses_the_spelled_long_form_not_a_leading_determiner():
    text = "Here we study such failures in neural radiance fields (NeRF) training under sparse views."
    assert _tasks(text)[0] == "neural radiance fields"


def test_defined_term_at_the_start_of_the_abstract_keeps_its_first_letters():
    assert _tasks("Sparse graph tuning (SGT) adapts models cheaply.") == ["sparse graph tuning"]


def test_we_study_object_is_a_task():
    text = "We study robust mean estimation under heavy tails, and give a fast estimator."
    assert "robust mean estimation under heavy tails" in _tasks(text)


def test_we_study_how_is_not_a_task():
    assert _tasks("We study how warm-up changes loss spikes.") == []


def test_counts_clause_words_and_vague_single_words_are_not_tasks():
    text = (
        "Results on eight datasets across three tasks are strong. It also helps downstream tasks. "
        "A standard approach for approximating this ratio can fail."
    )
    assert _tasks(text) == []


def test_purpose_after_a_parenthesised_short_form():
    text = "We present a Vision Language Model (VLM) tailored for chart question answering."
    assert "chart question answering" in _tasks(text)


def test_purpose_ending_in_a_generic_head_is_not_a_task():
    assert _tasks("We instantiate the framework for tabular data.") == []
