"""Keyphrase scoring (P/R/F1@k against author keywords) and two baselines: YAKE and TF-IDF.

Matching rule (exact, after normalisation; :func:`keyphrase_key`): lower-cased, every run of
characters other than letters and digits (hyphens, punctuation, spaces) becomes one space, and
each word loses a simple plural ending (``-ies`` → ``-y``, ``-sses`` → ``-ss``, else a final
``-s`` unless the word ends in ``ss``, ``us`` or ``is`` or has three letters or fewer). So
``"Large Language Models"`` = ``"large language model"`` and ``"self-supervised"`` =
``"self supervised"``; ``"LLM"`` ≠ ``"large language model"`` and ``"diffusion"`` ≠
``"diffusion models"`` (no partial credit).

Scores are micro-averaged over (paper, phrase) pairs: precision over the predictions made (at most
``k`` a paper, duplicates by key counted once; an extractor that offers fewer phrases is not
charged for the missing ones, but loses recall), recall over the distinct gold keys.

Baselines:

* **YAKE** (``yake`` from PyPI, ``KeywordExtractor(lan="en", n=3, top=k)``, the package's
  defaults otherwise); None when the package is not installed.
* **TF-IDF** over noun-phrase-ish candidates (:func:`candidate_phrases`: 1–3-word n-grams inside
  runs of words that scikit-learn's English stop-word list and punctuation split apart, no
  pure number), ``TfidfVectorizer`` with its defaults, fitted on the train split's abstracts; a
  paper's top ``k`` candidates by weight, ties by first appearance.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from ..extract.keyphrases import phrase_key
from .cards import prf

__all__ = [
    "TfidfKeyphrases",
    "candidate_phrases",
    "keyphrase_key",
    "keyphrase_prf",
    "yake_keyphrases",
]

_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]*|[^\sA-Za-z0-9]")
_MAX_N = 3


def keyphrase_key(phrase: str) -> str:
    """Return the matching key of a keyphrase (the rule of the module docstring).

    The one rule is :func:`paperscope.extract.keyphrases.phrase_key`, which the trained ranker
    also groups its candidates by; ``tests/evaluation/test_silver.py`` pins it.
    """
    return phrase_key(phrase)


def _keys(phrases: Iterable[str]) -> list[str]:
    out: list[str] = []
    for phrase in phrases:
        key = keyphrase_key(phrase)
        if key and key not in out:
            out.append(key)
    return out


def keyphrase_prf(
    predictions: Sequence[Sequence[str]], golds: Sequence[Sequence[str]], k: int = 5
) -> dict[str, float]:
    """Return micro P/R/F1@k (and tp, fp, fn) of ``predictions`` (best first) against ``golds``.

    Raises:
        ValueError: the two sequences differ in length.
    """
    if len(predictions) != len(golds):
        raise ValueError(f"{len(predictions)} predictions for {len(golds)} gold lists")
    tp = fp = fn = 0
    for pred, gold in zip(predictions, golds, strict=True):
        p, g = _keys(pred)[:k], set(_keys(gold))
        hits = sum(key in g for key in p)
        tp, fp, fn = tp + hits, fp + len(p) - hits, fn + len(g) - hits
    return prf(tp, fp, fn)


def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def candidate_phrases(text: str, stop: frozenset[str] | None = None) -> list[str]:
    """Return the 1–3-word candidates of ``text`` in order (lower-cased, with repeats, for TF-IDF)."""
    stop = _stop_words() if stop is None else stop
    runs: list[list[str]] = [[]]
    for token in _WORD_RE.findall(text):
        word = token.lower()
        if not word[0].isalnum() or word in stop:
            if runs[-1]:
                runs.append([])
            continue
        runs[-1].append(word.strip("-"))
    out = []
    for run in runs:
        for n in range(1, _MAX_N + 1):
            for i in range(len(run) - n + 1):
                gram = run[i : i + n]
                if all(w for w in gram) and not all(w.replace("-", "").isdigit() for w in gram):
                    out.append(" ".join(gram))
    return out


class TfidfKeyphrases:
    """TF-IDF keyphrases: fit on train abstracts, then each text's top candidates by weight."""

    def __init__(self, train_texts: Iterable[str]) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        stop = _stop_words()
        self._analyzer: Callable[[str], list[str]] = lambda text: candidate_phrases(text, stop)
        self._vectorizer = TfidfVectorizer(analyzer=self._analyzer)
        self._vectorizer.fit(list(train_texts))
        self._vocab = self._vectorizer.vocabulary_
        self._idf = self._vectorizer.idf_

    def top(self, text: str, k: int = 5) -> list[str]:
        """Return the ``k`` candidates of ``text`` with the highest TF-IDF weight (ties: first seen)."""
        row = self._vectorizer.transform([text])
        weight = dict(zip(row.indices, row.data, strict=True))
        order: dict[str, int] = {}
        for i, phrase in enumerate(self._analyzer(text)):
            order.setdefault(phrase, i)
        scored = [
            (-weight[self._vocab[p]], first, p) for p, first in order.items() if self._vocab.get(p) in weight
        ]
        return [p for _, _, p in sorted(scored)[:k]]


def yake_keyphrases(texts: Sequence[str], k: int = 5) -> list[list[str]] | None:
    """Return YAKE's top ``k`` phrases of each text (best first), or None without the ``yake`` package."""
    try:
        import yake
    except ImportError:
        return None
    extractor = yake.KeywordExtractor(lan="en", n=_MAX_N, top=k)
    return [[phrase for phrase, _ in extractor.extract_keywords(text)] for text in texts]
