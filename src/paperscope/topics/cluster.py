"""Clustering of reduced embeddings: HDBSCAN (density-based, leaves outliers) and baselines.

Every clusterer returns int64 labels with ``-1`` for "no cluster"; :func:`canonical_labels`
renumbers clusters by size so that ids never depend on the library's internal order.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ..errors import InputError

__all__ = [
    "Clusterer",
    "HDBSCANClusterer",
    "KMeansClusterer",
    "SingleClusterer",
    "CLUSTERERS",
    "get_clusterer",
    "canonical_labels",
    "auto_min_cluster_size",
]


def auto_min_cluster_size(n_papers: int) -> int:
    """Return HDBSCAN's ``min_cluster_size`` for a library: ``clip(round(n / 200), 2, 50)``.

    Proportional to the library so 4,302 papers give fine topics of 20+ papers (a reading
    list, not a pair) while 20 papers still form clusters of 2; chosen on ICLR 2026 (bench/topics.py).
    """
    return int(min(50, max(2, round(n_papers / 200))))


def canonical_labels(labels: np.ndarray) -> np.ndarray:
    """Renumber clusters 0..k-1 by decreasing size, ties by the first paper in them; keep -1.

    Args:
        labels: int, shape (n_papers,), -1 for outliers.

    Returns:
        int64, shape (n_papers,).
    """
    labels = np.asarray(labels, dtype=np.int64)
    ids = [c for c in np.unique(labels).tolist() if c >= 0]
    first = {c: int(np.flatnonzero(labels == c)[0]) for c in ids}
    size = {c: int((labels == c).sum()) for c in ids}
    order = sorted(ids, key=lambda c: (-size[c], first[c]))
    mapping = np.full(max(ids, default=-1) + 2, -1, dtype=np.int64)
    for new, old in enumerate(order):
        mapping[old] = new
    return np.where(labels >= 0, mapping[labels], -1)


class Clusterer(Protocol):
    """Groups points; ``-1`` marks a point left out of every cluster."""

    def fit_predict(self, points: np.ndarray) -> np.ndarray:
        """Return int64 labels, shape (n_papers,), for float32 points (n_papers, n_dims)."""
        ...


class HDBSCANClusterer:
    """HDBSCAN (Campello, Moulavi & Sander, 2013) as implemented in scikit-learn.

    Args:
        min_cluster_size: smallest topic, in papers; None means :func:`auto_min_cluster_size`.
        min_samples: density smoothing; None means ``min(min_cluster_size, 5)``, which keeps
            fewer papers as outliers than HDBSCAN's default (= min_cluster_size).
        selection: ``"eom"`` (excess of mass, HDBSCAN's default) or ``"leaf"``.
    """

    def __init__(
        self, min_cluster_size: int | None = None, min_samples: int | None = None, selection: str = "eom"
    ):
        self.min_cluster_size = min_cluster_size
        self.min_samples = min_samples
        self.selection = selection

    def fit_predict(self, points: np.ndarray) -> np.ndarray:
        from sklearn.cluster import HDBSCAN

        n = points.shape[0]
        if n < 3:
            return np.full(n, -1, dtype=np.int64)
        size = self.min_cluster_size or auto_min_cluster_size(n)
        size = max(2, min(size, n))
        samples = max(1, min(self.min_samples or min(size, 5), n - 1))
        model = HDBSCAN(
            min_cluster_size=size,
            min_samples=samples,
            cluster_selection_method=self.selection,
            copy=True,
        )
        return canonical_labels(model.fit_predict(np.asarray(points, dtype=np.float64)))


class KMeansClusterer:
    """k-means (Lloyd) with k-means++ seeding: every paper in a cluster (the broad-topic partition).

    Args:
        n_clusters: number of clusters, capped at the number of papers.
        seed: random seed.
    """

    def __init__(self, n_clusters: int = 12, seed: int = 42):
        self.n_clusters = n_clusters
        self.seed = seed

    def fit_predict(self, points: np.ndarray) -> np.ndarray:
        from sklearn.cluster import KMeans
        from threadpoolctl import threadpool_limits

        n = points.shape[0]
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        k = max(1, min(self.n_clusters, n))
        model = KMeans(n_clusters=k, n_init=10, random_state=self.seed)
        # One OpenMP thread: on a busy 2-core machine more threads made it 15x slower (6 s vs 0.4 s
        # for 4,302 papers), and one thread fixes the summation order.
        with threadpool_limits(limits=1):
            labels = model.fit_predict(np.asarray(points, dtype=np.float64))
        return canonical_labels(labels)


class SingleClusterer:
    """Every paper in one cluster (the trivial clusterer for tests and one-topic libraries)."""

    def fit_predict(self, points: np.ndarray) -> np.ndarray:
        return np.zeros(points.shape[0], dtype=np.int64)


#: Clusterers by short name (``fit_topics(clusterer=...)``).
CLUSTERERS: dict[str, type[HDBSCANClusterer] | type[KMeansClusterer] | type[SingleClusterer]] = {
    "hdbscan": HDBSCANClusterer,
    "kmeans": KMeansClusterer,
    "single": SingleClusterer,
}


def get_clusterer(name: str, seed: int = 42) -> Clusterer:
    """Return a new clusterer registered under ``name``.

    Raises:
        InputError: no clusterer has that name (the message lists the valid ones).
    """
    if name not in CLUSTERERS:
        raise InputError(f"unknown clusterer {name!r}; choose one of: {', '.join(sorted(CLUSTERERS))}")
    return KMeansClusterer(seed=seed) if name == "kmeans" else CLUSTERERS[name]()
