"""The HNSW path of DenseIndex: int8 graph, exact re-scoring, memory-mapped reload."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paperscope.index.dense import DenseIndex, ann_installed

# Not importorskip: usearch imported before OpenVINO breaks OpenVINO in this process (dense.py).
pytestmark = pytest.mark.skipif(
    not ann_installed(), reason="the HNSW graph needs the ann extra: pip install 'paperscope[ann]'"
)


def _clustered(n: int, dim: int = 64, centres: int = 40, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(centres, dim)).astype(np.float32)
    m = c[rng.integers(0, centres, n)] + rng.normal(0, 0.1, (n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _index(matrix: np.ndarray, cache: Path | None) -> DenseIndex:
    ids = [f"p{i}" for i in range(len(matrix))]
    return DenseIndex(ids, matrix, np.ones(len(ids), dtype=np.int32), ann_threshold=0, cache_path=cache)


def test_hnsw_hits_carry_exact_cosines_and_match_exact_search(tmp_path: Path) -> None:
    both = _clustered(3030)  # queries from the papers' clusters, as a real query would be
    matrix, queries = both[:3000], both[3000:]
    graph = _index(matrix, tmp_path / "hnsw-test.usearch")
    graph.build_ann()
    exact = _index(matrix, None)
    exact.ann_threshold = 10**9
    overlap = []
    for q in queries:
        got = graph.search(q, 10)
        want = exact.search(q, 10)
        assert len(got) == 10
        # Scores are the float32 cosines, not the int8 graph's approximations.
        for pid, score in got:
            assert abs(score - float(matrix[int(pid[1:])] @ q)) < 1e-6
        assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
        overlap.append(len({p for p, _ in got} & {p for p, _ in want}) / 10)
    assert np.mean(overlap) >= 0.95


def test_a_saved_graph_is_viewed_by_a_new_index_and_answers_alike(tmp_path: Path) -> None:
    matrix = _clustered(2000)
    path = tmp_path / "hnsw-test.usearch"
    first = _index(matrix, path)
    first.build_ann()
    assert path.is_file()
    second = _index(matrix, path)
    assert second.ann_is_cached()
    q = _clustered(1, seed=2)[0]
    assert second.search(q, 5) == first.search(q, 5)


def test_a_filtered_search_stays_exact_beside_the_graph(tmp_path: Path) -> None:
    matrix = _clustered(2000)
    graph = _index(matrix, tmp_path / "hnsw-test.usearch")
    graph.build_ann()
    allowed = {f"p{i}" for i in range(0, 2000, 7)}
    q = _clustered(1, seed=3)[0]
    got = graph.search(q, 5, allowed)
    rows = sorted(int(p[1:]) for p in allowed)
    best = sorted(rows, key=lambda r: -float(matrix[r] @ q))[:5]
    assert [p for p, _ in got] == [f"p{r}" for r in best]
