"""Training of the area model's text part (needs scikit-learn, pinned in pyproject)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from .area_embedding import EmbeddingBlock, train_embedding_block
from .area_model import FIELD_WEIGHTS, FIELDS, AreaModel, analyze

__all__ = ["block_rows", "feature_matrix", "fit_embedding_block", "train_area_model"]


def train_area_model(
    papers: Sequence[tuple[str, str, str, str]],
    seed: int = 0,
    c: float = 0.3,
    abstract_only_copies: bool = True,
    max_features: int = 60000,
) -> AreaModel:
    """Train the area classifier (needs scikit-learn, pinned in pyproject).

    Args:
        papers: ``(abstract, title, keywords, area)`` tuples of clean text.
        seed: seed of the fifth held out to fit the softmax temperature.
        c: the SVM's regularisation constant C.
        abstract_only_copies: also train on each paper's abstract alone (as text lists give it).
        max_features: keep this many features (largest weight norms; see :meth:`AreaModel.prune`).
            60,000 (file 2-3 MB with the embedding block) against 20,000: 5-fold CV on the train
            80% (``scripts/cv_area_model.py``) 0.654 -> 0.660 text, 0.664 -> 0.669 with the
            vectors; the features dropped beyond that are rare n-grams.

    Returns:
        The trained :class:`AreaModel` (fitted on all ``papers``; the temperature on a held-out fifth).

    """
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer
    from sklearn.model_selection import train_test_split
    from sklearn.svm import LinearSVC

    stop = frozenset(ENGLISH_STOP_WORDS)
    # Each paper also appears as its abstract alone, as the text lists give it.
    rows = list(papers)
    if abstract_only_copies:
        rows += [(a, "", "", y) for a, _, k, y in papers if k]
    labels = np.array([r[3] for r in rows])

    def fit(subset: Sequence[tuple[str, str, str, str]]) -> tuple[AreaModel, object]:
        vectorizers, blocks = [], []
        for f, field in enumerate(FIELDS):
            texts = [r[2] if f >= 2 else r[f] for r in subset]
            vec = TfidfVectorizer(
                analyzer=functools.partial(analyze, field, stop_words=stop),
                sublinear_tf=True,
                min_df=2 if field == "abstract" else 1,
                dtype=np.float32,
            )
            blocks.append(vec.fit_transform(texts) * FIELD_WEIGHTS[f])
            vectorizers.append(vec)
        from scipy.sparse import hstack

        x = hstack(blocks).tocsr()
        svm = LinearSVC(C=c, random_state=seed).fit(x, np.array([r[3] for r in subset]))
        model = AreaModel(
            [v.vocabulary_ for v in vectorizers],
            [v.idf_.astype(np.float32) for v in vectorizers],
            svm.coef_.astype(np.float32),
            svm.intercept_.astype(np.float32),
            list(svm.classes_),
            stop,
        )
        return model, svm

    train_idx, held_idx = train_test_split(
        np.arange(len(rows)), test_size=0.2, stratify=labels, random_state=seed
    )
    probe, _ = fit([rows[i] for i in train_idx])
    probe = probe.prune(max_features)
    decisions = np.stack([probe.decision(*_fields(rows[i])) for i in held_idx])
    gold = np.array([probe.classes.index(rows[i][3]) for i in held_idx])
    best_t, best_nll = 1.0, float("inf")
    for t in (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 1.0):
        z = decisions / t
        z = z - z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        nll = -float(logp[np.arange(len(gold)), gold].mean())
        if nll < best_nll:
            best_t, best_nll = t, nll
    model, _ = fit(rows)
    model.temperature = best_t
    return model.prune(max_features)


def _fields(row: tuple[str, str, str, str]) -> tuple[str, str, str]:
    return row[0], row[1], row[2]


def feature_matrix(model: AreaModel, rows: Sequence[tuple[str, str, str]]):  # -> scipy.sparse.csr_matrix
    """Return the text features of ``(abstract, title, keywords)`` rows, float32 CSR (len(rows), n_features).

    The rows are what :meth:`AreaModel.features` gives at prediction time, so a model trained on
    them (the embedding block) sees the same inputs in training and in use.
    """
    from scipy.sparse import csr_matrix

    indptr, indices, values = [0], [], []
    for abstract, title, keywords in rows:
        idx, vals = model.features(abstract, title, keywords)
        indices.append(idx)
        values.append(vals)
        indptr.append(indptr[-1] + len(idx))
    n = int(model.offsets[-1])
    return csr_matrix(
        (
            np.concatenate(values or [np.zeros(0, np.float32)]),
            np.concatenate(indices or [np.zeros(0, np.int64)]),
            indptr,
        ),
        shape=(len(rows), n),
        dtype=np.float32,
    )


def block_rows(
    papers: Sequence[tuple[str, str, str, str]], vectors: np.ndarray
) -> tuple[list[tuple[str, str, str]], np.ndarray, list[str]]:
    """Return the embedding block's training rows: each paper, and its abstract alone when it has keywords.

    Returns ``(text rows, vectors, labels)``, the copies as in :func:`train_area_model`.
    """
    rows = [(a, t, k) for a, t, k, _ in papers]
    labels = [p[3] for p in papers]
    copies = [n for n, p in enumerate(papers) if p[2]]
    rows += [(papers[n][0], "", "") for n in copies]
    labels += [papers[n][3] for n in copies]
    return rows, np.vstack([vectors, vectors[copies]]), labels


def fit_embedding_block(
    model: AreaModel, papers: Sequence[tuple[str, str, str, str]], vectors: np.ndarray, model_id: str
) -> EmbeddingBlock:
    """Train ``model``'s embedding block on ``papers`` (``(abstract, title, keywords, area)``) and their vectors.

    ``vectors`` is (len(papers), dim), of embedder ``model_id``; the block's text part uses
    ``model``'s features, so ``model`` must be the text model the block will be stored with.
    """
    rows, x, labels = block_rows(papers, vectors)
    return train_embedding_block(feature_matrix(model, rows), x, labels, model.classes, model_id)
