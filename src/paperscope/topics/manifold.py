"""UMAP's embedding (McInnes, Healy & Melville, 2018) in numpy and scipy: no numba, seeded, one thread.

The steps and constants follow umap-learn 0.5 (``umap_.fuzzy_simplicial_set``,
``spectral.spectral_layout``, ``layouts.optimize_layout_euclidean``):

1. Fuzzy graph: each paper's k-nearest-neighbour distances ``d`` become memberships
   ``exp(-(d - rho) / sigma)``, with ``rho`` the distance to the nearest other paper and
   ``sigma`` found by bisection so the memberships sum to ``log2(k)``; the graph is made
   symmetric by the fuzzy union ``P + P^T - P * P^T``.
2. Initial layout: the graph's Laplacian eigenmap (spectral embedding), scaled to [0, 10].
3. Optimisation: ``n_epochs`` epochs of stochastic gradient descent on the fuzzy cross-entropy,
   each edge sampled in proportion to its weight, 5 negative samples per positive one, the
   learning rate falling linearly from 1 to 0, every gradient component clipped to [-4, 4].

One difference, which is what makes this numpy rather than a compiled loop: in each epoch
all sampled edges are moved at once from the epoch's starting positions (``np.add.at``, a
fixed summation order) instead of one after another. The result is a different, equally
seeded optimisation of the same objective; bench/topics.py measures its topics against
umap-learn's (NMI with the ICLR 2026 primary areas), and tests/topics checks that reruns and
fresh processes give the same bytes.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

__all__ = ["fuzzy_graph", "spectral_init", "curve_parameters", "optimise_layout", "embed_manifold"]

#: umap-learn's ``SMOOTH_K_TOLERANCE`` and ``MIN_K_DIST_SCALE`` (umap_.py).
_TOLERANCE = 1e-5
_MIN_SIGMA_SCALE = 1e-3
_BISECTION_STEPS = 64
_NEGATIVE_SAMPLE_RATE = 5
_CLIP = 4.0
#: Up to this many papers the eigenmap comes from LAPACK's dense solver (deterministic whatever the
#: graph's symmetries; 2,048 papers take about a second), above it from ARPACK.
_DENSE_MAX = 2048


def fuzzy_graph(indices: np.ndarray, distances: np.ndarray) -> sp.csr_matrix:
    """Return the symmetric fuzzy k-nearest-neighbour graph (UMAP's ``fuzzy_simplicial_set``).

    Args:
        indices: int64, shape (n_papers, k): each row the paper itself, then its neighbours.
        distances: float, shape (n_papers, k): their distances, ascending, the first 0.

    Returns:
        float64 CSR, shape (n_papers, n_papers), memberships in (0, 1], no self loops.
    """
    n, k = indices.shape
    dist = np.asarray(distances, dtype=np.float64)[:, 1:]
    target = np.log2(k)
    positive = np.where(dist > 0.0, dist, np.inf).min(axis=1)
    rho = np.where(np.isfinite(positive), positive, 0.0)
    excess = np.maximum(dist - rho[:, None], 0.0)
    low, high, sigma = np.zeros(n), np.full(n, np.inf), np.ones(n)
    for _ in range(_BISECTION_STEPS):
        total = np.exp(-excess / sigma[:, None]).sum(axis=1)
        if np.all(np.abs(total - target) < _TOLERANCE):
            break
        above = total > target
        high = np.where(above, sigma, high)
        low = np.where(above, low, sigma)
        sigma = np.where(above, (low + high) / 2.0, np.where(np.isinf(high), sigma * 2.0, (low + high) / 2.0))
    mean_all = dist.mean() if dist.size else 0.0
    floor = _MIN_SIGMA_SCALE * np.where(rho > 0.0, dist.mean(axis=1), mean_all)
    sigma = np.maximum(sigma, floor)
    values = np.where(excess > 0.0, np.exp(-excess / np.where(sigma > 0, sigma, 1.0)[:, None]), 1.0)
    rows = np.repeat(np.arange(n), k - 1)
    cols = indices[:, 1:].ravel()
    keep = cols != rows
    graph = sp.csr_matrix((values.ravel()[keep], (rows[keep], cols[keep])), shape=(n, n))
    graph.sum_duplicates()
    product = graph.multiply(graph.T)
    union = (graph + graph.T - product).tocsr()
    union.eliminate_zeros()
    union.sort_indices()
    return union


def spectral_init(graph: sp.csr_matrix, n_components: int, seed: int) -> np.ndarray:
    """Return the Laplacian eigenmap of ``graph`` (UMAP's ``spectral_layout``), scaled to [0, 10].

    The eigenvectors of the largest eigenvalues of ``D^-1/2 W D^-1/2`` after the first are
    those of the smallest of the normalised Laplacian; each axis' sign is fixed so its largest
    entry is positive. Above :data:`_DENSE_MAX` papers ARPACK finds them, starting from a vector
    of ones as umap-learn does. Below, LAPACK's dense solver does: on a small graph the Krylov
    space can close early (copies of one paper make the graph symmetric), and ARPACK then
    restarts from a random vector whose seed lives inside ARPACK and moves with every call, so
    two fits in one process differed. When ARPACK does not converge, the start is seeded
    uniform noise (umap-learn, too, falls back to a random start).

    Returns:
        float64, shape (n_papers, n_components).
    """
    from scipy.linalg import eigh
    from scipy.sparse.linalg import ArpackError, eigsh

    n = graph.shape[0]
    rng = np.random.default_rng(seed)
    k = n_components + 1
    degree = np.asarray(graph.sum(axis=1)).ravel()
    scale = sp.diags(1.0 / np.sqrt(np.where(degree > 0, degree, 1.0)))
    operator = scale @ graph @ scale
    try:
        with threadpool_limits(limits=1):
            if n <= _DENSE_MAX:
                values, vectors = eigh(operator.toarray(), subset_by_index=[n - k, n - 1])
            else:
                values, vectors = eigsh(
                    operator, k, which="LA", ncv=max(2 * k + 1, int(np.sqrt(n))), tol=1e-4,
                    v0=np.ones(n), maxiter=n * 5,
                )  # fmt: skip
    except ArpackError:
        return rng.uniform(0.0, 10.0, size=(n, n_components))
    coords = vectors[:, np.argsort(-values, kind="stable")[1:k]]
    for j in range(coords.shape[1]):
        coords[:, j] *= np.sign(coords[np.argmax(np.abs(coords[:, j])), j]) or 1.0
    coords = coords * (10.0 / max(float(np.abs(coords).max()), 1e-12))
    coords = coords + rng.normal(scale=1e-4, size=coords.shape)
    low, high = coords.min(axis=0), coords.max(axis=0)
    return 10.0 * (coords - low) / np.where(high > low, high - low, 1.0)


def curve_parameters(min_dist: float, spread: float = 1.0) -> tuple[float, float]:
    """Return UMAP's ``(a, b)``: ``1 / (1 + a d^2b)`` fitted to 1 below ``min_dist``, then ``exp(-(d - min_dist) / spread)``."""
    from scipy.optimize import curve_fit

    xs = np.linspace(0.0, spread * 3.0, 300)
    ys = np.where(xs < min_dist, 1.0, np.exp(-(xs - min_dist) / spread))
    (a, b), _ = curve_fit(lambda x, a, b: 1.0 / (1.0 + a * x ** (2 * b)), xs, ys)
    return float(a), float(b)


def optimise_layout(
    graph: sp.csr_matrix, init: np.ndarray, min_dist: float, n_epochs: int, seed: int
) -> np.ndarray:
    """Minimise UMAP's fuzzy cross-entropy by epochs of simultaneous SGD steps from ``init``.

    Args:
        graph: the fuzzy graph from :func:`fuzzy_graph`.
        init: float64, shape (n_papers, n_dims): the starting layout (not modified).
        min_dist: UMAP's ``min_dist``.
        n_epochs: epochs; edges lighter than ``max_weight / n_epochs`` are never sampled.
        seed: seed of the negative samples.

    Returns:
        float64, shape (n_papers, n_dims).
    """
    a, b = curve_parameters(min_dist)
    coo = graph.tocoo()
    weights = coo.data
    keep = weights >= weights.max() / n_epochs if weights.size else weights.astype(bool)
    head, tail, weights = coo.row[keep].astype(np.int64), coo.col[keep].astype(np.int64), weights[keep]
    embedding = np.array(init, dtype=np.float64, copy=True)
    if head.size == 0:
        return embedding
    n, dim = embedding.shape
    rng = np.random.default_rng(seed)
    per_sample = weights.max() / weights  # epochs between two samples of an edge
    per_negative = per_sample / _NEGATIVE_SAMPLE_RATE
    next_sample, next_negative = per_sample.copy(), per_negative.copy()
    for epoch in range(n_epochs):
        alpha = 1.0 - epoch / n_epochs
        active = np.flatnonzero(next_sample <= epoch)
        if active.size == 0:
            continue
        j, k = head[active], tail[active]
        diff = embedding[j] - embedding[k]
        d2 = (diff * diff).sum(axis=1)
        positive = d2 > 0.0
        coeff = np.zeros_like(d2)
        coeff[positive] = -2.0 * a * b * d2[positive] ** (b - 1.0) / (a * d2[positive] ** b + 1.0)
        grad = np.clip(coeff[:, None] * diff, -_CLIP, _CLIP) * alpha
        step = np.zeros_like(embedding)
        np.add.at(step, j, grad)
        np.add.at(step, k, -grad)
        next_sample[active] += per_sample[active]
        n_negative = ((epoch - next_negative[active]) / per_negative[active]).astype(np.int64)
        n_negative = np.maximum(n_negative, 0)
        next_negative[active] += n_negative * per_negative[active]
        sources = np.repeat(j, n_negative)
        others = rng.integers(0, n, size=sources.size)
        diff = embedding[sources] - embedding[others]
        d2 = (diff * diff).sum(axis=1)
        coeff = np.where(d2 > 0.0, 2.0 * b / ((0.001 + d2) * (a * d2**b + 1.0)), 0.0)
        grad = np.clip(coeff[:, None] * diff, -_CLIP, _CLIP)
        grad[d2 <= 0.0] = 0.0  # umap-learn gives a coincident pair no push (and skips j == k)
        np.add.at(step, sources, grad * alpha)
        embedding += step
    return embedding


def embed_manifold(
    indices: np.ndarray,
    distances: np.ndarray,
    n_components: int,
    min_dist: float,
    seed: int,
    n_epochs: int = 200,
) -> np.ndarray:
    """Return UMAP coordinates of papers from their kNN graph: fuzzy graph, eigenmap, SGD.

    Args:
        indices: int64, shape (n_papers, k): the paper itself, then its neighbours.
        distances: float, shape (n_papers, k): ascending cosine distances.
        n_components: output dimension.
        min_dist: UMAP's ``min_dist`` (0 packs clusters for HDBSCAN; 0.1 spaces a map).
        seed: seed of the initial noise and the negative samples.
        n_epochs: optimisation epochs (umap-learn uses 200 above 10,000 papers, 500 below).

    Returns:
        float32, shape (n_papers, n_components).
    """
    graph = fuzzy_graph(indices, distances)
    init = spectral_init(graph, n_components, seed)
    return optimise_layout(graph, init, min_dist, n_epochs, seed).astype(np.float32)
