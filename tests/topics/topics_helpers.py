"""Topic test helpers: a deterministic fake embedder, the real model, case inputs and checks."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np

from paperscope.text import clean_text
from paperscope.topics.label import BOILERPLATE_WORDS, LATEX_WORDS, STOP_WORDS

REPO = Path(__file__).resolve().parents[2]


def lsa_embed(docs: list[str], dim: int = 48) -> np.ndarray:
    """Return float32 (n_docs, <= dim) unit rows: TF-IDF then truncated SVD (latent semantic analysis).

    A deterministic stand-in for the dense model: same text, same vectors, and documents that
    share words end up close, so clusters mean something in tests.
    """
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    tfidf = TfidfVectorizer(sublinear_tf=True, stop_words="english").fit_transform(docs)
    k = max(1, min(dim, tfidf.shape[0] - 1, tfidf.shape[1] - 1))
    dense = TruncatedSVD(n_components=k, random_state=0, algorithm="arpack").fit_transform(tfidf)
    dense = dense.astype(np.float32)
    norms = np.linalg.norm(dense, axis=1, keepdims=True)
    return dense / np.where(norms > 0, norms, 1.0)


def real_embed(docs: list[str]) -> np.ndarray:
    """Embed with all-MiniLM-L6-v2: ``paperscope.index.embed`` once merged, else bench's fallback.

    Cached per list of documents for the test session (the model is the slow part).
    """
    return _real_embed_cached(tuple(docs)).copy()


@functools.cache
def _real_embed_cached(docs: tuple[str, ...]) -> np.ndarray:
    from paperscope.index.embed import get_embedder

    return np.asarray(get_embedder("minilm").embed(list(docs)), dtype=np.float32)


def library_embeddings(lib, embed=lsa_embed) -> tuple[list[str], np.ndarray]:  # type: ignore[no-untyped-def]
    """Return (paper_ids, matrix) for every paper of ``lib``, embedded from title and clean text."""
    papers = list(lib.papers())
    docs = [f"{p.title}. {p.clean_text}" if p.title else p.clean_text for p in papers]
    return [p.paper_id for p in papers], embed(docs)


# The words case 14 of the bug cases forbids in any label.
CASE14_FORBIDDEN = {"the", "of", "and", "we", "in", "this", "paper", "propose", "novel", "method", "times"}
CASE14_FORBIDDEN |= {"mathbf", "textit"}
FORBIDDEN = STOP_WORDS | BOILERPLATE_WORDS | LATEX_WORDS


def case14_docs() -> list[str]:
    kinds = ["images", "audio", "video", "text", "molecules"]
    diffusion = [
        f"In this paper we propose a novel method for diffusion models that reduces denoising steps for "
        f"{kinds[(i - 1) % 5]} generation by {i}$\\times$ while keeping sample quality."
        for i in range(1, 11)
    ]
    rl = [
        "In this paper we propose a novel method for reinforcement learning that shapes the reward of "
        f"policy optimisation in {kinds[(i - 1) % 5]} environments, improving return {i}$\\times$."
        for i in range(1, 11)
    ]
    return [clean_text(d) for d in diffusion + rl]


def assert_clean_name(name: str) -> None:
    words = set(re.findall(r"[^\W_]+", name.lower()))
    assert not words & FORBIDDEN, (name, words & FORBIDDEN)
    assert not words & CASE14_FORBIDDEN, name
