"""Recommendations from stars/tags: exemplar SVM ranking, explanations, and errors."""

from __future__ import annotations

import numpy as np
import pytest

from paperscope import Library
from paperscope.errors import InputError
from paperscope.triage.recommend import rank_by_preference


def _unit(rows: list[list[float]]) -> np.ndarray:
    m = np.asarray(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_svm_ranks_the_cluster_of_the_positives_first() -> None:
    # Two clusters: rows 0-3 near the x axis, rows 4-7 near the y axis.
    matrix = _unit([[1, 0.1], [1, 0.2], [1, -0.1], [1, 0.05], [0.1, 1], [0.2, 1], [-0.1, 1], [0.05, 1]])
    ranked = rank_by_preference(matrix, [0, 1], limit=6)
    assert {row for row, _, _ in ranked[:2]} == {2, 3}
    assert {row for row, _, _ in ranked} == {2, 3, 4, 5, 6, 7}
    assert all(because in (0, 1) for _, _, because in ranked)
    assert ranked[0][1] > ranked[2][1]


def test_no_positive_or_all_positive_is_an_error() -> None:
    matrix = _unit([[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="star or tag"):
        rank_by_preference(matrix, [], 5)
    with pytest.raises(ValueError, match="nothing left"):
        rank_by_preference(matrix, [0, 1], 5)


def test_library_recommend_excludes_marked_papers(icml_library: Library) -> None:
    with pytest.raises(InputError, match="no paper is starred"):
        icml_library.recommend()
    liked = [h.paper_id for h in icml_library.search("dataset distillation", limit=2, mode="bm25")]
    for paper_id in liked:
        icml_library.star(paper_id)
    hits = icml_library.recommend(limit=5)
    assert len(hits) == 5 and not {h.paper_id for h in hits} & set(liked)
    assert all(h.terms[0] in liked for h in hits)
    assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
    icml_library.tag(liked[0], "distill")
    tagged = icml_library.recommend(limit=3, tag="distill")
    assert liked[0] not in {h.paper_id for h in tagged}
