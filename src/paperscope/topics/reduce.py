"""Dimension reduction before clustering: the shared k-nearest-neighbour graph, UMAP, PCA.

The exact cosine kNN graph is computed once (a blocked matrix product, deterministic and fast
for libraries up to ~50k papers) and handed to both the reducer and the 2D layout, so UMAP
never runs a randomised nearest-neighbour descent and two runs give the same graph.

The default reducer runs UMAP in numpy (:mod:`paperscope.topics.manifold`), so a plain install
needs neither umap-learn nor numba and llvmlite (about 210 MB) and no first-use compile;
umap-learn itself is the ``"umap-learn"`` reducer, from the ``paperscope[umap]`` extra. On ICLR
2026 the two give the same broad-topic quality (bench/topics.py: NMI with the primary areas
0.292-0.293 over three seeds for numpy, 0.284-0.291 for umap-learn).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..errors import InputError, ModelUnavailable

__all__ = [
    "Neighbours",
    "exact_neighbours",
    "Reducer",
    "UMAPReducer",
    "UMAPLearnReducer",
    "PCAReducer",
    "IdentityReducer",
    "REDUCERS",
    "get_reducer",
    "pca",
    "umap_embed",
    "umap_learn_embed",
    "UMAP_MIN_PAPERS",
]

#: Below this many papers UMAP's kNN graph and spectral initialisation are degenerate (umap-learn
#: raises "k >= N" or warns about disconnected components; case 12 of the bug cases): PCA is used.
UMAP_MIN_PAPERS = 16

_BLOCK_ROWS = 1024


@dataclass(frozen=True)
class Neighbours:
    """The k nearest neighbours of every paper by cosine distance, the paper itself first.

    Attributes:
        indices: int64, shape (n_papers, k): row i lists paper i, then its neighbours, nearest first.
        distances: float32, shape (n_papers, k): cosine distances ``1 - cos`` in [0, 2], ascending.
    """

    indices: np.ndarray
    distances: np.ndarray

    @property
    def k(self) -> int:
        return int(self.indices.shape[1])


def exact_neighbours(embeddings: np.ndarray, k: int) -> Neighbours:
    """Return the exact ``k``-nearest-neighbour graph of L2-normalised rows.

    Ties are broken by the lower paper index, so the graph does not depend on sort stability.

    Args:
        embeddings: float32, shape (n_papers, dim), rows L2-normalised.
        k: neighbours per paper including itself; capped at n_papers.

    Returns:
        The graph; memory peaks at about ``1024 * n_papers * 4`` bytes per block.
    """
    n = embeddings.shape[0]
    k = max(1, min(k, n))
    indices = np.empty((n, k), dtype=np.int64)
    distances = np.empty((n, k), dtype=np.float32)
    for start in range(0, n, _BLOCK_ROWS):
        stop = min(start + _BLOCK_ROWS, n)
        sims = embeddings[start:stop] @ embeddings.T
        rows = np.arange(stop - start)
        sims[rows, np.arange(start, stop)] = np.inf  # the paper itself always comes first
        if k < n:
            part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        else:
            part = np.tile(np.arange(n), (stop - start, 1))
        part_sims = np.take_along_axis(sims, part, axis=1)
        order = np.lexsort((part, -part_sims), axis=1)
        top = np.take_along_axis(part, order, axis=1)
        indices[start:stop] = top
        top_sims = np.take_along_axis(sims, top, axis=1)
        top_sims[:, 0] = 1.0
        distances[start:stop] = np.clip(1.0 - top_sims, 0.0, 2.0)
    return Neighbours(indices, distances)


def pca(points: np.ndarray, n_components: int) -> np.ndarray:
    """Return the first ``n_components`` principal coordinates, zero-padded when rank is lower.

    Signs are fixed so the largest loading of each axis is positive (scikit-learn's
    ``svd_flip``), which makes the result deterministic.

    Args:
        points: float, shape (n_papers, dim).
        n_components: output dimension.

    Returns:
        float32, shape (n_papers, n_components), centred; all zeros for a single paper.
    """
    n = points.shape[0]
    out = np.zeros((n, n_components), dtype=np.float32)
    if n < 2:
        return out
    centred = np.asarray(points, dtype=np.float64) - points.mean(axis=0)
    u, s, vt = np.linalg.svd(centred, full_matrices=False)
    keep = min(n_components, int((s > 1e-9 * max(s[0], 1e-300)).sum()))
    for j in range(keep):
        sign = np.sign(vt[j, np.argmax(np.abs(vt[j]))]) or 1.0
        out[:, j] = u[:, j] * s[j] * sign
    return out


def umap_embed(
    embeddings: np.ndarray,
    neighbours: Neighbours,
    n_components: int,
    min_dist: float,
    seed: int,
    n_epochs: int | None = None,
) -> np.ndarray:
    """Run UMAP (McInnes et al., 2018) in numpy on a precomputed cosine kNN graph, seeded.

    See :mod:`paperscope.topics.manifold`; the same graph, seed and settings give the same bytes.

    Args:
        embeddings: float32, shape (n_papers, dim), rows L2-normalised (only their count is used).
        neighbours: the graph from :func:`exact_neighbours` (k >= 2).
        n_components: output dimension.
        min_dist: UMAP's ``min_dist`` (0.0 packs clusters tightly, good for clustering).
        seed: random seed.
        n_epochs: optimisation epochs; None is umap-learn's default (500 below 10k papers, else 200).

    Returns:
        float32, shape (n_papers, n_components).
    """
    from .manifold import embed_manifold

    epochs = n_epochs if n_epochs is not None else (500 if embeddings.shape[0] <= 10_000 else 200)
    return embed_manifold(neighbours.indices, neighbours.distances, n_components, min_dist, seed, epochs)


def umap_learn_embed(
    embeddings: np.ndarray,
    neighbours: Neighbours,
    n_components: int,
    min_dist: float,
    seed: int,
    n_epochs: int | None = None,
) -> np.ndarray:
    """Run umap-learn's UMAP on a precomputed cosine kNN graph, single-threaded and seeded.

    ``random_state`` makes umap-learn run its SGD on one thread, so two runs give identical
    coordinates; the kNN graph is ours, so NN-descent's randomness never enters. Arguments and
    result as :func:`umap_embed`.

    Raises:
        ModelUnavailable: umap-learn is not installed (the message names the extra).
    """
    with warnings.catch_warnings():
        # umap-learn warns on import that TensorFlow (for ParametricUMAP, unused here) is missing.
        warnings.filterwarnings("ignore", category=ImportWarning)
        try:
            import umap
        except ImportError:
            raise ModelUnavailable(
                "the umap-learn reducer and layout need umap-learn: pip install 'paperscope[umap]' "
                "(the default 'umap' runs UMAP in numpy without it)"
            ) from None

    model = umap.UMAP(
        n_neighbors=neighbours.k,
        n_components=n_components,
        metric="cosine",
        min_dist=min_dist,
        n_epochs=n_epochs,
        random_state=seed,
        n_jobs=1,
        precomputed_knn=(neighbours.indices, neighbours.distances, None),
        transform_mode="embedding",
    )
    with warnings.catch_warnings():
        # We never call transform(), so the missing NN-descent search index does not matter.
        warnings.filterwarnings("ignore", message=r"precomputed_knn\[2\]", category=UserWarning)
        # With duplicate papers the spectral init can fail; umap-learn then falls back to a
        # seeded random init, which is still deterministic, so the warning tells a user nothing.
        warnings.filterwarnings("ignore", message="Spectral initialisation failed", category=UserWarning)
        return np.asarray(model.fit_transform(embeddings), dtype=np.float32)


class Reducer(Protocol):
    """Maps embeddings to a few dimensions where clusters are dense."""

    def fit_transform(self, embeddings: np.ndarray, neighbours: Neighbours) -> np.ndarray:
        """Return float32, shape (n_papers, n_dims), for float32 (n_papers, dim) unit rows."""
        ...


class UMAPReducer:
    """UMAP (in numpy) to ``n_components`` dimensions with ``min_dist=0`` (dense clumps for HDBSCAN).

    Five dimensions and ``min_dist=0`` follow BERTopic's defaults (Grootendorst, 2022) and
    the UMAP docs' "clustering" guide. Libraries under :data:`UMAP_MIN_PAPERS` papers use PCA.
    """

    def __init__(self, n_components: int = 5, seed: int = 42, n_epochs: int | None = 200):
        self.n_components = n_components
        self.seed = seed
        self.n_epochs = n_epochs

    def _embed(self, embeddings: np.ndarray, neighbours: Neighbours) -> np.ndarray:
        return umap_embed(embeddings, neighbours, self.n_components, 0.0, self.seed, self.n_epochs)

    def fit_transform(self, embeddings: np.ndarray, neighbours: Neighbours) -> np.ndarray:
        if embeddings.shape[0] < UMAP_MIN_PAPERS:
            return pca(embeddings, self.n_components)
        return self._embed(embeddings, neighbours)


class UMAPLearnReducer(UMAPReducer):
    """As :class:`UMAPReducer`, with umap-learn's numba code (``pip install 'paperscope[umap]'``)."""

    def _embed(self, embeddings: np.ndarray, neighbours: Neighbours) -> np.ndarray:
        return umap_learn_embed(embeddings, neighbours, self.n_components, 0.0, self.seed, self.n_epochs)


class PCAReducer:
    """Principal components: linear, exact, and fast; a baseline and the small-library fallback."""

    def __init__(self, n_components: int = 5):
        self.n_components = n_components

    def fit_transform(self, embeddings: np.ndarray, neighbours: Neighbours) -> np.ndarray:
        return pca(embeddings, self.n_components)


class IdentityReducer:
    """No reduction: cluster the embeddings themselves (the trivial reducer for tests)."""

    def fit_transform(self, embeddings: np.ndarray, neighbours: Neighbours) -> np.ndarray:
        return np.asarray(embeddings, dtype=np.float32)


#: Reducers by short name (``fit_topics(reducer=...)``).
REDUCERS: dict[str, type[UMAPReducer] | type[PCAReducer] | type[IdentityReducer]] = {
    "umap": UMAPReducer,
    "umap-learn": UMAPLearnReducer,
    "pca": PCAReducer,
    "none": IdentityReducer,
}


def get_reducer(name: str, seed: int = 42) -> Reducer:
    """Return a new reducer registered under ``name``.

    Raises:
        InputError: no reducer has that name (the message lists the valid ones).
    """
    if name not in REDUCERS:
        raise InputError(f"unknown reducer {name!r}; choose one of: {', '.join(sorted(REDUCERS))}")
    factory = REDUCERS[name]
    return factory(seed=seed) if issubclass(factory, UMAPReducer) else factory()
