"""Stemmed BM25 (issue 24): a word finds its other forms, and the form as written ranks first."""

from __future__ import annotations

from pathlib import Path

import pytest

import paperscope.library as library_module
from paperscope import Library
from paperscope.index.bm25 import match_expression, scoring_terms

FILLER = [
    "We release a dataset of street scenes for monocular depth estimation in cities.",
    "A reinforcement learning agent learns to grasp unseen objects from few demonstrations.",
    "We prove lower bounds for private mean estimation under heavy-tailed noise.",
    "Graph neural networks predict molecular properties from atom and bond features.",
]


def test_optimizers_finds_papers_that_only_say_optimization(icml_library):
    hits = icml_library.search("optimizers", mode="bm25", limit=100)
    # Snowball gives optimizers, optimizer, optimization, optimize and optimal the stem "optim"
    # ("optimistic" is "optimist"): 34 papers of the ICML lists, where 3 say "optimizers".
    assert len(hits) == 34
    assert all("optimizers" in hit.terms for hit in hits[:3])
    by_id = {hit.paper_id: hit for hit in hits}
    assert by_id["e49960cfc9b3"].terms == ["optimization"]  # found through the stem alone


def _two_forms_library(tmp_path: Path) -> Library:
    texts = [
        "We study transformers for long documents and report results on four benchmarks.",
        "We study transform coding for long documents and report results on four benchmarks.",
        *FILLER,
    ]
    listing = tmp_path / "forms.txt"
    listing.write_text("ICML 2026 Papers\n\n" + "\n\n".join(texts) + "\n", encoding="utf-8")
    lib = Library(tmp_path / "forms.db", embedder="fake")
    lib.ingest([listing])
    return lib


@pytest.mark.parametrize("in_memory", [False, True], ids=["fts5", "memory"])
def test_the_form_as_written_ranks_above_a_stem_only_match(tmp_path, monkeypatch, in_memory):
    if in_memory:
        monkeypatch.setattr(library_module, "MEMORY_BM25_THRESHOLD", 1)
    with _two_forms_library(tmp_path) as lib:
        if in_memory:
            assert lib.memory_bm25() is not None
        ranked = lib.search("transformers", mode="bm25")
        assert [h.snippet.split()[2] for h in ranked] == ["transformers", "transform"]
        assert ranked[0].score > ranked[1].score
        # "transform" is its own stem (no exact phrase): it finds both through the stem alone.
        assert sorted(h.snippet.split()[2] for h in lib.search("transform", mode="bm25")) == [
            "transform",
            "transformers",
        ]
        hit = lib.search("transformer", mode="bm25")[1]
        assert hit.terms == ["transform"] and hit.snippet.startswith("We study transform coding")


def test_query_words_match_their_stem_in_title_and_body_and_their_form_in_exact():
    assert match_expression("Transformers for graphs") == (
        '{title body} : ("transform" OR "graph") OR exact : "transformers" OR exact : "graphs"'
    )
    assert match_expression("GPT-4o LoRA") == '{title body} : ("gpt 4o" OR "lora")'
    assert scoring_terms("Transformers for graphs") == [
        "transform",
        "graph",
        "exact:transformers",
        "exact:graphs",
    ]
