"""2D layout of papers for the map: UMAP (numpy) on the shared kNN graph, or PCA for tiny libraries."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ..errors import InputError
from .reduce import UMAP_MIN_PAPERS, Neighbours, pca, umap_embed, umap_learn_embed

__all__ = [
    "Layout",
    "UMAPLayout",
    "UMAPLearnLayout",
    "PCALayout",
    "LAYOUTS",
    "get_layout",
    "normalise_coordinates",
]


def normalise_coordinates(points: np.ndarray) -> np.ndarray:
    """Centre 2D points and scale them into [-1, 1] (same factor on both axes), rounded to 1e-6.

    Rounding keeps stored and exported coordinates short; a single paper sits at (0, 0).

    Args:
        points: float, shape (n_papers, 2).

    Returns:
        float64, shape (n_papers, 2), all finite.
    """
    points = np.nan_to_num(np.asarray(points, dtype=np.float64), nan=0.0, posinf=0.0, neginf=0.0)
    if points.shape[0] == 0:
        return points.reshape(0, 2)
    low, high = points.min(axis=0), points.max(axis=0)
    centred = points - (low + high) / 2.0
    extent = float(np.max(high - low)) / 2.0
    scaled = centred / extent if extent > 0 else centred * 0.0
    return np.round(scaled, 6) + 0.0  # + 0.0 turns -0.0 into 0.0 so bytes do not differ


class Layout(Protocol):
    """Places papers on a plane so that neighbours stay close."""

    def fit_transform(self, embeddings: np.ndarray, neighbours: Neighbours) -> np.ndarray:
        """Return float32, shape (n_papers, 2), for float32 (n_papers, dim) unit rows."""
        ...


class UMAPLayout:
    """UMAP (in numpy) to 2D with ``min_dist=0.1`` (umap-learn's default, readable spacing on a map).

    Libraries under :data:`~paperscope.topics.reduce.UMAP_MIN_PAPERS` papers use PCA.
    """

    def __init__(self, seed: int = 42, min_dist: float = 0.1, n_epochs: int | None = 200):
        self.seed = seed
        self.min_dist = min_dist
        self.n_epochs = n_epochs

    def _embed(self, embeddings: np.ndarray, neighbours: Neighbours) -> np.ndarray:
        return umap_embed(embeddings, neighbours, 2, self.min_dist, self.seed, self.n_epochs)

    def fit_transform(self, embeddings: np.ndarray, neighbours: Neighbours) -> np.ndarray:
        if embeddings.shape[0] < UMAP_MIN_PAPERS:
            return pca(embeddings, 2)
        return self._embed(embeddings, neighbours)


class UMAPLearnLayout(UMAPLayout):
    """As :class:`UMAPLayout`, with umap-learn's numba code (``pip install 'paperscope[umap]'``)."""

    def _embed(self, embeddings: np.ndarray, neighbours: Neighbours) -> np.ndarray:
        return umap_learn_embed(embeddings, neighbours, 2, self.min_dist, self.seed, self.n_epochs)


class PCALayout:
    """The first two principal components: exact and instant, but clusters overlap more."""

    def fit_transform(self, embeddings: np.ndarray, neighbours: Neighbours) -> np.ndarray:
        return pca(embeddings, 2)


#: Layouts by short name (``fit_topics(layout=...)``).
LAYOUTS: dict[str, type[UMAPLayout] | type[PCALayout]] = {
    "umap": UMAPLayout,
    "umap-learn": UMAPLearnLayout,
    "pca": PCALayout,
}


def get_layout(name: str, seed: int = 42) -> Layout:
    """Return a new layout registered under ``name``.

    Raises:
        InputError: no layout has that name (the message lists the valid ones).
    """
    if name not in LAYOUTS:
        raise InputError(f"unknown layout {name!r}; choose one of: {', '.join(sorted(LAYOUTS))}")
    factory = LAYOUTS[name]
    return factory(seed=seed) if issubclass(factory, UMAPLayout) else factory()
