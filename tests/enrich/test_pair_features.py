"""The pair score's inputs: candidate pairs, gaps, and the bundled model that reads them."""

from __future__ import annotations

import numpy as np

from paperscope.enrich.pair_features import DENSE_FEATURES, FEATURES, _gap, _name_tokens, pair_features
from paperscope.enrich.pair_model import load_pair_model
from paperscope.enrich.program import ProgramEntry
from paperscope.index.bm25 import MemoryBM25

from .conftest import N_PAPERS, REST_OF_PROGRAM, abstract, title


def test_a_gap_is_the_margin_over_the_best_other_value() -> None:
    m = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 5.0]])
    # row 0: the first stands 1 above the second; the others stand below the first
    # row 1: a tie for first gives both a gap of 0
    assert _gap(m, 1).tolist() == [[1.0, -2.0, -1.0], [-5.0, 0.0, 0.0]]
    assert _gap(m, 0).tolist() == [[3.0, -4.0, -3.0], [-3.0, 4.0, 3.0]]


def test_the_name_of_a_title_is_its_coined_words_or_its_one_word_head() -> None:
    assert _name_tokens("C²R: Cross-Modal Retrieval") == ["c2r"]
    assert _name_tokens("Kevin: Multi-Turn RL for Generating CUDA Kernels") == ["cuda", "kevin", "rl"]
    assert _name_tokens("Generate Any Scene: Scene Graph Driven Data Synthesis") == []
    assert _name_tokens("The Markovian Thinker") == []


def test_each_papers_own_entry_is_a_candidate_with_one_row_per_feature() -> None:
    papers = [(f"p{i}", abstract(i)) for i in range(N_PAPERS)]
    entries = [ProgramEntry(line=n + 2, title=t) for n, t in enumerate([title(i) for i in range(N_PAPERS)])]
    entries += [ProgramEntry(line=len(entries) + 2 + n, title=t) for n, t in enumerate(REST_OF_PROGRAM)]
    index = MemoryBM25.build([(p, None, t) for p, t in papers], title_weight=2.0)
    pairs = pair_features(papers, entries, index)
    assert pairs.mode == "bm25" and pairs.x.shape == (len(pairs.paper), len(FEATURES))
    own = {(int(p), int(e)) for p, e in zip(pairs.paper, pairs.entry, strict=True)}
    assert all((i, i) in own for i in range(N_PAPERS))
    assert len(own) == len(pairs.paper)  # each pair once
    at = {(int(p), int(e)): k for k, (p, e) in enumerate(zip(pairs.paper, pairs.entry, strict=True))}
    row = dict(zip(FEATURES, pairs.x[at[(0, 0)]], strict=True))
    assert row["a_gap"] > 0 and row["b_gap"] > 0 and row["agreed"] == 1.0 and row["name_found"] == 1.0
    assert pairs.a_rank[at[(0, 0)]] == 1 and pairs.b_rank[at[(0, 0)]] == 1
    vectors = np.eye(N_PAPERS, len(entries), dtype=np.float32)
    dense = pair_features(papers, entries, index, vectors, np.eye(len(entries), dtype=np.float32))
    assert dense.mode == "hybrid" and dense.x.shape[1] == len(DENSE_FEATURES)


def test_the_bundled_model_reads_the_features_of_its_mode_and_gives_probabilities() -> None:
    for mode, names in (("bm25", FEATURES), ("hybrid", DENSE_FEATURES)):
        model = load_pair_model(mode)
        assert model.features == names and model.coef.shape == (len(names),)
        assert 0.5 < model.floor < 1.0
        p = model.proba(np.vstack([model.mean, model.mean + 3 * model.scale * np.sign(model.coef)]))
        assert 0.0 < p[0] < p[1] < 1.0  # every feature towards its weight's sign raises it
