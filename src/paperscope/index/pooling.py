"""Vector helpers every embedder shares: unit-length rows and equal windows over long texts."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["DoneCallback", "normalise_rows", "pool_windows", "WindowTracker", "split_evenly"]

#: ``on_done(indices, vectors, n_chunks)`` of :meth:`paperscope.index.embed.Embedder.embed_documents`.
DoneCallback = Callable[[np.ndarray, np.ndarray, np.ndarray], None]


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """Return float32 ``matrix`` with each row scaled to unit L2 norm (all-zero rows stay zero)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms == 0, 1, norms)).astype(np.float32)


def pool_windows(
    window_vectors: np.ndarray, owners: np.ndarray, texts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Return the pooled vectors and window counts of ``texts`` from their windows' vectors.

    Args:
        window_vectors: float32, shape (n_windows, dim), one row per window.
        owners: int64, shape (n_windows,): the text each window belongs to.
        texts: int64, shape (k,), sorted: the texts to pool (each with all its windows embedded).

    Returns:
        ``(vectors, n_chunks)``: float32 (k, dim), the mean of each text's windows re-normalised
        to unit length (zeros for a text with no window); int32 (k,), windows per text. A
        text's row is the same whichever other texts are pooled with it, so vectors handed out
        early (:class:`WindowTracker`) equal those of the whole call.
    """
    chosen = np.flatnonzero(np.isin(owners, texts))
    local = np.searchsorted(texts, owners[chosen])
    sums = np.zeros((len(texts), window_vectors.shape[1]), dtype=np.float32)
    np.add.at(sums, local, window_vectors[chosen])
    return normalise_rows(sums), np.bincount(local, minlength=len(texts)).astype(np.int32)


class WindowTracker:
    """Hands out each text's pooled vector as soon as all of its windows are embedded.

    Args:
        owners: int64, shape (n_windows,): the text each window belongs to.
        n_texts: how many texts the windows come from.
        on_done: called with ``(texts, vectors, n_chunks)`` as :func:`pool_windows` returns
            them, for the texts that just became complete; texts without a window are handed
            out by :meth:`start`.
    """

    def __init__(self, owners: np.ndarray, n_texts: int, on_done: DoneCallback):
        self.owners = owners
        self.left = np.bincount(owners, minlength=n_texts)
        self.on_done = on_done

    def start(self, window_vectors: np.ndarray) -> None:
        """Hand out the texts that have no window (empty texts: zero vectors, 0 windows)."""
        empty = np.flatnonzero(self.left == 0)
        if len(empty):
            self.on_done(empty, *pool_windows(window_vectors, self.owners, empty))

    def finished(self, windows: Sequence[int] | np.ndarray, window_vectors: np.ndarray) -> None:
        """Record ``windows`` as embedded (their rows filled in) and hand out the texts now complete."""
        touched = self.owners[np.asarray(windows, dtype=np.int64)]
        np.subtract.at(self.left, touched, 1)
        done = np.unique(touched[self.left[touched] == 0])
        if len(done):
            self.on_done(done, *pool_windows(window_vectors, self.owners, done))


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
