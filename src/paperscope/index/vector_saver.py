"""Commit the vectors of an embedder call as it finishes them, so an interrupted run keeps them."""

from __future__ import annotations

import inspect
import time

import numpy as np

from ..store import Store
from ..store import vectors as stored
from .embed import Embedder

__all__ = ["COMMIT_PAPERS", "COMMIT_INTERVAL_S", "VectorSaver", "takes_on_done"]

#: Finished vectors are committed once this many are waiting, or ``COMMIT_INTERVAL_S`` after the
#: last commit (issue 26): a killed ``embed`` keeps all but the last second or so of its work
#: (it kept nothing of a 512-paper call, 10-15 s of the real model on 2 cores). A commit of 64
#: vectors takes about 1.3 ms here (WAL, ``synchronous=NORMAL``), 0.4 ms of 4: at the real
#: model's 35-50 papers/s that is about a thousandth of an embed's time.
COMMIT_PAPERS = 64
#: Seconds after which waiting vectors are committed even when fewer than ``COMMIT_PAPERS``.
COMMIT_INTERVAL_S = 1.0


def takes_on_done(embedder: Embedder) -> bool:
    """Return True when the embedder's ``embed_documents`` takes ``on_done`` (a plugin may not)."""
    try:
        return "on_done" in inspect.signature(embedder.embed_documents).parameters
    except (TypeError, ValueError):
        return False


class VectorSaver:
    """Commits the vectors of one embedder call as they are finished, a few dozen at a time.

    Used as a context manager around the call: what is waiting is committed when the block
    ends, also when it ends by an exception (Ctrl-C, an embedder error), so only a SIGKILL or
    a power cut loses the last ``COMMIT_PAPERS`` papers or ``COMMIT_INTERVAL_S`` of work.

    Args:
        store: the open library.
        model_id: the embedder's model id.
        batch: ``(paper_id, title, clean_text, content_hash)`` rows, in the call's text order.
    """

    def __init__(self, store: Store, model_id: str, batch: list[tuple[str, str | None, str, str]]):
        self.store = store
        self.model_id = model_id
        self.batch = batch
        self.waiting: list[tuple[str, str, np.ndarray, int]] = []
        self.saved = np.zeros(len(batch), dtype=bool)
        self.last_commit = time.perf_counter()

    def take(self, indices: np.ndarray, vectors: np.ndarray, n_chunks: np.ndarray) -> None:
        """Queue finished texts (``on_done``); commit when enough wait or enough time passed."""
        for row, i in enumerate(indices.tolist()):
            if not self.saved[i]:
                self.saved[i] = True
                pid, _, _, content_hash = self.batch[i]
                self.waiting.append((pid, content_hash, vectors[row], int(n_chunks[row])))
        if len(self.waiting) >= COMMIT_PAPERS or time.perf_counter() - self.last_commit >= COMMIT_INTERVAL_S:
            self.commit()

    def take_rest(self, vectors: np.ndarray, n_chunks: np.ndarray) -> None:
        """Queue the texts of the finished call that ``on_done`` did not hand over."""
        rest = np.flatnonzero(~self.saved)
        self.take(rest, vectors[rest], n_chunks[rest])

    def commit(self) -> None:
        """Store the waiting vectors in one transaction."""
        if self.waiting:
            with self.store.transaction() as conn:
                stored.save_vectors(conn, self.model_id, self.waiting)
            self.waiting = []
        self.last_commit = time.perf_counter()

    def __enter__(self) -> VectorSaver:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.commit()
