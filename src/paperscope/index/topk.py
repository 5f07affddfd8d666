"""The ``k`` best of an array of scores, ties broken the same way whatever ``k`` is."""

from __future__ import annotations

import numpy as np

__all__ = ["top_k"]


def top_k(scores: np.ndarray, k: int, tie: np.ndarray | None = None) -> np.ndarray:
    """Return the positions of the ``k`` highest scores, best first; among equal scores the lowest ``tie``.

    Args:
        scores: float array, shape (n,).
        k: how many to return (fewer when ``n`` is smaller).
        tie: int array, shape (n,), the key that orders equal scores (default: the position).

    Returns:
        int64 positions, shape (min(k, n),), by descending score, then ascending ``tie``.

    ``np.argpartition`` alone picks any of the papers tied at the k-th score, so a list of 100
    and the first 100 of a list of 200 could hold different ones. Here the papers tied at the
    cut are taken by ``tie``, so the best ``k`` are always the first ``k`` of the best ``2k``
    (:func:`paperscope.index.search.search_papers` relies on it). O(n), like ``argpartition``.
    """
    n = scores.size
    k = min(k, n)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k == n:
        chosen = np.arange(n)
    else:
        kth = scores[np.argpartition(-scores, k - 1)[k - 1]]
        above = np.flatnonzero(scores > kth)
        tied = np.flatnonzero(scores == kth)
        if tie is not None:
            tied = tied[np.argsort(tie[tied], kind="stable")]
        chosen = np.concatenate([above, tied[: k - above.size]])
    key = chosen if tie is None else tie[chosen]
    return chosen[np.lexsort((key, -scores[chosen]))]
