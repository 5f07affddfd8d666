"""Embedding model ids: which two name vectors that may be compared or fed to one classifier."""

from __future__ import annotations

__all__ = ["compatible_model_ids"]


def compatible_model_ids(a: str, b: str) -> bool:
    """Return True when vectors of model ids ``a`` and ``b`` are of one model and pooling.

    Ids read ``model/runtime-precision/pooling`` (``all-MiniLM-L6-v2/torch-fp16/w256-mean``):
    the first and last parts must match; the runtime and precision may differ (the vectors of
    one model's runtimes agree at cosine >= 0.995, README "Embedding on a GPU"). An id of
    another shape (``fake-bow-384``) is compatible only with one of its own shape.
    """
    pa, pb = a.split("/"), b.split("/")
    return len(pa) == len(pb) and pa[0] == pb[0] and pa[-1] == pb[-1]
