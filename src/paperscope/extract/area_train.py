"""Training of the area model's text part (needs scikit-learn, pinned in pyproject)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from .area_model import FIELD_WEIGHTS, FIELDS, AreaModel, analyze

__all__ = ["train_area_model"]


def train_area_model(
    papers: Sequence[tuple[str, str, str, str]],
    seed: int = 0,
    c: float = 0.3,
    abstract_only_copies: bool = True,
    max_features: int = 20000,
) -> AreaModel:
    """Train the area classifier (needs scikit-learn, pinned in pyproject).

    Args:
        papers: ``(abstract, title, keywords, area)`` tuples of clean text.
        seed: seed of the fifth held out to fit the softmax temperature.
        c: the SVM's regularisation constant C.
        abstract_only_copies: also train on each paper's abstract alone (as text lists give it).
        max_features: keep this many features (largest weight norms; see :meth:`AreaModel.prune`),
            which keeps the shipped file under 1 MB without losing held-out accuracy.

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
