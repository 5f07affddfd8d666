"""MemoryBM25's pruned search (MaxScore) returns exactly what full scoring returns."""

from __future__ import annotations

import numpy as np
import pytest

import paperscope.index.bm25 as bm25_module
from paperscope.index.bm25 import MemoryBM25


@pytest.fixture(scope="module")
def index() -> MemoryBM25:
    # 30k short documents over a Zipf-like vocabulary: the commonest words have far more than
    # PRUNE_MIN_POSTINGS postings, the rare ones a handful, as in a large library.
    rng = np.random.default_rng(4)
    vocab = [f"w{i}" for i in range(3000)]
    p = 1.0 / np.arange(1, len(vocab) + 1)
    p /= p.sum()
    docs = []
    for i in range(30_000):
        words = rng.choice(len(vocab), size=rng.integers(5, 40), p=p)
        docs.append((f"d{i}", f"w{words[0]} w{words[1]}", " ".join(vocab[w] for w in words)))
    return MemoryBM25.build(docs)


QUERIES = [
    ["w0", "w1", "w2"],
    ["w2500", "w0", "w3"],
    ["w40", "w1", "w0", "w7", "w900"],
    ["w1"],
    ["w2999", "w5"],
]


@pytest.mark.parametrize("terms", QUERIES)
@pytest.mark.parametrize("limit", [1, 10, 100])
def test_pruned_search_equals_full_scoring(index, monkeypatch, terms, limit) -> None:
    common = index.vocabulary["w0"]
    assert int(index.indptr[common + 1] - index.indptr[common]) > bm25_module.PRUNE_MIN_POSTINGS
    pruned = index.search(terms, limit)
    monkeypatch.setattr(bm25_module, "PRUNE_MIN_POSTINGS", 10**12)
    full = index.search(terms, limit)
    assert [pid for pid, _ in pruned] == [pid for pid, _ in full]
    assert [s for _, s in pruned] == pytest.approx([s for _, s in full], rel=1e-6)


def test_max_weight_bounds_every_posting_and_survives_a_round_trip(index, tmp_path) -> None:
    for t in (0, 1, 500, 2999):
        start, end = int(index.indptr[t]), int(index.indptr[t + 1])
        assert index.max_weight[t] == pytest.approx(float(np.max(index.weights[start:end])))
    index.save(tmp_path / "bm25")
    loaded = MemoryBM25.load(tmp_path / "bm25")
    assert np.array_equal(loaded.max_weight, index.max_weight)
    (tmp_path / "bm25" / "max_weight.npy").unlink()  # an index saved before max_weight existed
    older = MemoryBM25.load(tmp_path / "bm25")
    assert np.array_equal(older.max_weight, index.max_weight)
    assert older.search(QUERIES[0], 10) == index.search(QUERIES[0], 10)
