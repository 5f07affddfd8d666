"""Why a hit matched, in words: the query terms a paper contains and the sentence that holds most of them."""

from __future__ import annotations

import functools
import re

from ..analyzer import stem_tokens
from ..text import english_stop_words, fold

__all__ = ["explain_hit", "highlight_terms", "SNIPPET_CHARS"]

#: Longest snippet shown, in characters; a longer sentence is cut at a word boundary with "…".
SNIPPET_CHARS = 240
_SENTENCE_RE = re.compile(r"(?<=[.!?。！？])\s+")
_WORD_RE = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    # fold + \w+ gives the index's tokens for Latin text at ~0.07 ms an abstract; the index's
    # tokenize (jieba segmentation included) costs ~1.6 ms, too slow for every hit of a search.
    return list(dict.fromkeys(_WORD_RE.findall(fold(text))))


#: Papers whose sentences and words are kept between searches (:func:`_sentences`): a server
#: answers the same popular papers again and again; 4,096 abstracts are about 20 MB.
_TEXT_CACHE = 4096
#: Words whose stem is kept (:func:`_stems`); the cache is emptied when it grows past this.
_STEM_CACHE_MAX = 200_000
_STEMS: dict[str, str] = {}


@functools.lru_cache(maxsize=_TEXT_CACHE)
def _sentences(
    title: str, text: str
) -> tuple[tuple[str, ...], tuple[frozenset[str], ...], dict[str, tuple[str, ...]]]:
    """Return one paper's ``(sentences, each sentence's stems, stem -> its words)``.

    The words of a stem are the distinct folded words of the title, then of the abstract, in
    text order. Kept per paper (LRU): a hit's explanation is then a few set intersections
    (~0.2 ms a hit before, stemming every word of the abstract again on each search).
    """
    sentences = tuple(s.strip() for s in _SENTENCE_RE.split(text) if s.strip())
    per_sentence = [_words(s) for s in sentences]
    words = list(dict.fromkeys(_words(title) + [w for ws in per_sentence for w in ws]))
    stem_of = _stems(tuple(words))
    by_stem: dict[str, list[str]] = {}
    for w in words:
        by_stem.setdefault(stem_of[w], []).append(w)
    sentence_stems = tuple(frozenset(stem_of[w] for w in ws) for ws in per_sentence)
    return sentences, sentence_stems, {stem: tuple(ws) for stem, ws in by_stem.items()}


def _stems(words: tuple[str, ...]) -> dict[str, str]:
    """Return a mapping that holds the Snowball stem of every word of ``words`` (a shared cache).

    A full cache is replaced, never cleared, so a mapping another thread holds keeps its words.
    """
    global _STEMS
    cache = _STEMS
    missing = [w for w in words if w not in cache]
    if missing:
        if len(cache) + len(missing) > _STEM_CACHE_MAX:
            cache = _STEMS = {}
            missing = list(words)
        cache.update(zip(missing, stem_tokens(missing), strict=True))
    return cache


@functools.cache
def _stop_stems() -> frozenset[str]:
    words = sorted(english_stop_words())
    return frozenset(words) | frozenset(stem_tokens(words))


def highlight_terms(terms: list[str]) -> list[str]:
    """Return the query stems worth marking in a hit: ``terms`` less English function words.

    BM25 keeps words such as "not", "they" or "under" (its IDF already makes them count
    little), but marked in every snippet of a pasted paragraph they explain nothing. The list
    is scikit-learn's English stop words (:func:`paperscope.text.english_stop_words`) and
    their Snowball stems; order is kept.
    """
    stop = _stop_stems()
    return [t for t in terms if t not in stop]


def explain_hit(
    terms: list[str], title: str | None, text: str, limit: int = SNIPPET_CHARS
) -> tuple[list[str], str]:
    """Return ``(matched words, snippet)`` for one hit.

    Args:
        terms: the query's stems (:func:`paperscope.index.bm25.query_terms`), computed once
            per query.
        title: the paper's title, or None.
        text: the paper's clean abstract.
        limit: longest snippet in characters.

    Returns:
        The words of the title or abstract, as written there (folded), whose stem is one of
        ``terms``: in query order, then text order (the stem "transform" gives "transformers" and
        "transformer" when both occur); and the abstract sentence holding the most distinct
        matched stems (ties: the earlier one; none matched: the first sentence), cut at the last
        space before ``limit`` characters and ended with "…" when longer.
    """
    sentences, sentence_stems, by_stem = _sentences(title or "", text)
    wanted = set(terms)
    matched = [w for t in terms for w in by_stem.get(t, ())]
    if not sentences:
        return matched, ""
    scores = [len(stems & wanted) for stems in sentence_stems]
    best = sentences[scores.index(max(scores))]
    if len(best) > limit:
        best = best[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return matched, best
