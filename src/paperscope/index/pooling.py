"""Vector helpers every embedder shares: unit-length rows and equal windows over long texts."""

from __future__ import annotations

import numpy as np

__all__ = ["normalise_rows", "split_evenly"]


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """Return float32 ``matrix`` with each row scaled to unit L2 norm (all-zero rows stay zero)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms == 0, 1, norms)).astype(np.float32)


def split_evenly(n_tokens: int, window: int) -> list[tuple[int, int]]:
    """Return ``(start, end)`` spans that cover ``n_tokens`` in the fewest windows of equal size.

    Equal windows (rather than full windows and a short tail) give each chunk the same weight
    when chunk vectors are averaged. ``split_evenly(10, 4)`` is ``[(0, 3), (3, 7), (7, 10)]``.
    """
    if n_tokens <= 0:
        return []
    count = -(-n_tokens // window)
    bounds = [round(i * n_tokens / count) for i in range(count + 1)]
    return list(zip(bounds[:-1], bounds[1:], strict=True))
