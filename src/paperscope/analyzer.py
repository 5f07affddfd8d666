"""The lexical analyzer: text → the stemmed tokens and exact surface forms the BM25 index holds.

Words are stemmed with the Snowball English stemmer (Porter 2; M. Porter, "Snowball: a language
for stemming algorithms", 2001, snowballstem.org/algorithms/english/stemmer.html), through
PyStemmer's C implementation, which caches the words it has seen. Only words of ASCII letters
are stemmed: Chinese words (segmented by rjieba, :func:`paperscope.text.segment`), tokens with
digits (``cifar10``, ``4o``) and other scripts pass through unchanged.

Exact names keep counting (the ``keyword_repeat`` idea of Elasticsearch): a surface token whose
stem differs from it ("transformers" → "transform") is also indexed as written, in the lexical
index's ``exact`` column, so a query word found as written ranks above one that only shares the
stem. :data:`LEXICAL_ANALYZER` names this analysis; an index built by another is rebuilt.
"""

from __future__ import annotations

import functools

from .text import segment, tokenize

__all__ = ["LEXICAL_ANALYZER", "stem_tokens", "index_tokens", "index_row", "query_tokens"]

#: The analysis the lexical index and the in-memory BM25 caches were built with. Change it with
#: any change to what :func:`index_row` returns: libraries built by another analyzer are rebuilt
#: on open (``paperscope.store.lexical.ensure_lexical_index``), caches keyed by it are not read.
#: 2: Chinese segmented by rjieba instead of jieba (one run of 321,682 in the shared data differs).
LEXICAL_ANALYZER = "snowball-english-2"


@functools.cache
def _stemmer():  # type: ignore[no-untyped-def]
    import Stemmer

    return Stemmer.Stemmer("english")


def _is_stemmed(token: str) -> bool:
    return token.isascii() and token.isalpha()


def stem_tokens(tokens: list[str]) -> list[str]:
    """Return the index form of each token: the Snowball English stem, or the token itself.

    ``stem_tokens(["optimizers", "cifar10", "扩散"])`` gives ``["optim", "cifar10", "扩散"]``.
    Tokens must be folded already (:func:`paperscope.text.tokenize` output).
    """
    stems = _stemmer().stemWords([t for t in tokens if _is_stemmed(t)])
    it = iter(stems)
    return [next(it) if _is_stemmed(t) else t for t in tokens]


def index_tokens(text: str) -> list[str]:
    """Return the stemmed tokens of a document field, as the index holds them (jieba search mode)."""
    return stem_tokens(tokenize(segment(text, for_index=True))) if text else []


def index_row(title: str | None, body: str) -> tuple[str, str, str]:
    """Return the lexical index's ``(title, body, exact)`` column texts of one paper.

    ``title`` and ``body`` are the stored title and clean text; the columns hold space-separated
    stems of each, and ``exact`` the surface tokens of both (title first) whose stem differs from
    them, in text order with repeats (their term frequency counts).
    """
    columns, exact = [], []
    for text in (title or "", body):
        surface = tokenize(segment(text, for_index=True)) if text else []
        stems = stem_tokens(surface)
        columns.append(" ".join(stems))
        exact.extend(s for s, t in zip(surface, stems, strict=True) if s != t)
    return columns[0], columns[1], " ".join(exact)


def query_tokens(chunk: str) -> list[tuple[str, str]]:
    """Return ``(surface, stem)`` for each token of one whitespace-free query chunk.

    Queries are segmented by rjieba's plain mode (no sub-words), documents by its search mode.
    """
    surface = tokenize(chunk)
    return list(zip(surface, stem_tokens(surface), strict=True))
