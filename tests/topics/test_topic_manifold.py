"""UMAP in numpy (topics/manifold.py): the fuzzy graph, the layout, and umap-learn as an extra."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from topics_helpers import REPO

from paperscope.errors import ModelUnavailable
from paperscope.topics.manifold import curve_parameters, embed_manifold, fuzzy_graph
from paperscope.topics.reduce import exact_neighbours, get_reducer


def blobs(n_per: int = 40, seed: int = 0) -> np.ndarray:
    """Three well-separated Gaussian blobs on the unit sphere, float32 (3 * n_per, 16)."""
    rng = np.random.default_rng(seed)
    centres = np.eye(16)[:3] * 4.0
    points = np.vstack([c + rng.normal(scale=0.3, size=(n_per, 16)) for c in centres]).astype(np.float32)
    return points / np.linalg.norm(points, axis=1, keepdims=True)


def test_fuzzy_graph_matches_umap_memberships_by_hand():
    # One paper, neighbours at cosine distances 0.1, 0.2, 0.4 (k = 4 with itself): rho = 0.1 and
    # sigma solves 1 + exp(-0.1/s) + exp(-0.3/s) = log2(4) = 2, memberships 1, exp(-0.1/s), exp(-0.3/s).
    indices = np.array([[0, 1, 2, 3], [1, 0, 2, 3], [2, 1, 0, 3], [3, 2, 1, 0]])
    distances = np.array([[0, 0.1, 0.2, 0.4]] * 4, dtype=np.float32)
    graph = fuzzy_graph(indices, distances).toarray()
    from scipy.optimize import brentq

    sigma = brentq(lambda s: 1 + np.exp(-0.1 / s) + np.exp(-0.3 / s) - 2.0, 1e-3, 10)
    p01, p02 = 1.0, np.exp(-0.1 / sigma)  # row 0: paper 1 is nearest, paper 2 second
    p10, p20 = 1.0, np.exp(-0.1 / sigma)  # paper 0 is second for paper 1, and second for paper 2
    assert graph[0, 1] == pytest.approx(p01 + p10 - p01 * p10, abs=1e-6)
    assert graph[0, 2] == pytest.approx(p02 + p20 - p02 * p20, abs=1e-4)
    assert np.allclose(graph, graph.T) and np.all(np.diag(graph) == 0)


def test_curve_parameters_are_umap_learns():
    # umap-learn 0.5.12's umap_.find_ab_params(1.0, min_dist), printed by it for these two values.
    assert curve_parameters(0.1) == pytest.approx((1.5769434602697652, 0.8950608778515733), rel=1e-9)
    assert curve_parameters(0.0) == pytest.approx((1.93280839734315, 0.7904949732233831), rel=1e-9)


def test_layout_keeps_separate_groups_apart_and_reruns_identically():
    points = blobs()
    knn = exact_neighbours(points, 15)
    xy = embed_manifold(knn.indices, knn.distances, 2, 0.1, seed=42, n_epochs=200)
    assert xy.dtype == np.float32 and xy.shape == (120, 2) and np.isfinite(xy).all()
    centres = np.array([xy[i * 40 : (i + 1) * 40].mean(axis=0) for i in range(3)])
    spread = max(
        float(np.linalg.norm(xy[i * 40 : (i + 1) * 40] - centres[i], axis=1).max()) for i in range(3)
    )
    gaps = [float(np.linalg.norm(centres[i] - centres[j])) for i in range(3) for j in range(i + 1, 3)]
    assert min(gaps) > 2 * spread  # each blob a tight island, far from the others
    assert embed_manifold(knn.indices, knn.distances, 2, 0.1, seed=42, n_epochs=200).tobytes() == xy.tobytes()
    other = embed_manifold(knn.indices, knn.distances, 2, 0.1, seed=7, n_epochs=200)
    assert other.tobytes() != xy.tobytes()


def test_default_install_never_imports_umap_learn_or_numba():
    script = (
        "import sys, numpy as np; from paperscope.topics import fit_topics;"
        "rng = np.random.default_rng(0); m = rng.normal(size=(60, 8)).astype('float32');"
        "fit_topics([str(i) for i in range(60)], ['word'] * 60, m);"
        "print(sorted(k for k in ('umap', 'numba', 'llvmlite', 'pynndescent') if k in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", script],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"},
        check=True,
    )
    assert out.stdout.strip() == "[]"


def test_umap_learn_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(sys.modules, "umap", None)  # import umap now raises ImportError
    points = blobs()
    with pytest.raises(ModelUnavailable) as caught:
        get_reducer("umap-learn").fit_transform(points, exact_neighbours(points, 15))
    assert str(caught.value) == (
        "the umap-learn reducer and layout need umap-learn: pip install 'paperscope[umap]' "
        "(the default 'umap' runs UMAP in numpy without it)"
    )
