"""``top_k``: the best ``k`` of a score array are the first ``k`` of its best ``2k``, ties included."""

from __future__ import annotations

import numpy as np

from paperscope.index.topk import top_k


def test_papers_tied_at_the_cut_are_taken_by_their_key_whatever_k_is():
    rng = np.random.default_rng(7)
    scores = rng.integers(0, 6, size=500).astype(np.float32)  # many ties at every score
    tie = rng.permutation(500)
    best = top_k(scores, 500, tie)
    assert [(-scores[i], tie[i]) for i in best] == sorted((-scores[i], tie[i]) for i in range(500))
    for k in (1, 7, 64, 100, 333, 499):
        assert top_k(scores, k, tie).tolist() == best[:k].tolist()
    assert top_k(scores, 10).tolist() == sorted(range(500), key=lambda i: (-scores[i], i))[:10]


def test_k_past_the_array_or_zero():
    scores = np.array([0.5, 0.9, 0.1], dtype=np.float32)
    assert top_k(scores, 10).tolist() == [1, 0, 2]
    assert top_k(scores, 0).tolist() == []
    assert top_k(np.zeros(0, dtype=np.float32), 3).tolist() == []
