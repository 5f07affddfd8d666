"""Text features for clustering: an LSA block of the papers' TF-IDF n-grams joined to the embeddings.

Latent semantic analysis (Deerwester et al., 1990) reduces the sublinear TF-IDF matrix of each
paper's 1- and 2-grams to :data:`TEXT_DIM` dimensions by a truncated SVD; :func:`join_features`
then concatenates ``sqrt(1 - w) * embedding`` and ``sqrt(w) * text``, both rows unit-length, so
the cosine of two joined rows is ``(1 - w) cos_embedding + w cos_text``. The lexical block adds
the field's terms that a small sentence embedder blurs.

Measured with bench/topics.py (broad topics' NMI with the gold groups, mean of seeds 42-44;
the weight was chosen on ICLR 2026 only, where 0.15-0.3 lie within 0.003 of each other):
ICLR 2026 0.291 -> 0.301 at ``w = 0.2``, held-out IJCAI 2024 0.354 -> 0.362, while k-means on
the embeddings with the same k scores 0.269 and 0.367. It is off by default
(``fit_topics(text_weight=0.0)``): on the held-out set it does not beat k-means, let alone by
the +0.03 that issue 27 asks for.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["TEXT_DIM", "MIN_TEXT_PAPERS", "lsa_features", "join_features"]

#: Dimensions of the LSA block (100 and 50 gave the same NMI on ICLR 2026; 200 was 0.005 lower).
TEXT_DIM = 100
#: Libraries smaller than this get no text block: too few documents for a stable vocabulary.
MIN_TEXT_PAPERS = 50


def lsa_features(docs: Sequence[str], dim: int = TEXT_DIM, seed: int = 0) -> np.ndarray | None:
    """Return the LSA block of the documents' TF-IDF 1-2-grams, or None when there is too little text.

    TF-IDF is scikit-learn's (``sublinear_tf``, English stop words, terms in at least 2 and at
    most half of the documents); the SVD is randomised with a fixed seed, so equal inputs give
    equal blocks.

    Args:
        docs: the clean text of each paper (title and abstract).
        dim: dimensions kept (capped below the vocabulary size and the number of documents).
        seed: seed of the randomised SVD.

    Returns:
        float32, shape (n_papers, dim'), rows L2-normalised (a paper without any kept term is a
        zero row); None for fewer than :data:`MIN_TEXT_PAPERS` documents or fewer than 2 terms.
    """
    if len(docs) < MIN_TEXT_PAPERS:
        return None
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(
        sublinear_tf=True, ngram_range=(1, 2), min_df=2, max_df=0.5, stop_words="english", dtype=np.float64
    )
    try:
        counts = vectorizer.fit_transform(docs)
    except ValueError:  # every term pruned (e.g. identical or empty documents)
        return None
    keep = min(dim, counts.shape[1] - 1, len(docs) - 1)
    if keep < 1:
        return None
    block = TruncatedSVD(keep, random_state=seed).fit_transform(counts)
    norms = np.linalg.norm(block, axis=1, keepdims=True)
    return np.divide(block, norms, out=np.zeros_like(block), where=norms > 0).astype(np.float32)


def join_features(embeddings: np.ndarray, text: np.ndarray, weight: float) -> np.ndarray:
    """Concatenate embeddings and a text block so cosines mix as ``(1 - weight) : weight``.

    Args:
        embeddings: float32, shape (n_papers, dim), rows L2-normalised.
        text: float32, shape (n_papers, text_dim), rows L2-normalised or zero.
        weight: share of the text block in the cosine, in [0, 1).

    Returns:
        float32, shape (n_papers, dim + text_dim), rows L2-normalised (never zero, as the
        embedding part is not).
    """
    joined = np.hstack([embeddings * np.sqrt(1.0 - weight), text * np.sqrt(weight)])
    return np.ascontiguousarray(joined / np.linalg.norm(joined, axis=1, keepdims=True), dtype=np.float32)
