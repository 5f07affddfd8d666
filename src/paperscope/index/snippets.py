"""Why a hit matched, in words: the query terms a paper contains and the sentence that holds most of them."""

from __future__ import annotations

import re

from ..text import fold

__all__ = ["explain_hit", "SNIPPET_CHARS"]

#: Longest snippet shown, in characters; a longer sentence is cut at a word boundary with "…".
SNIPPET_CHARS = 240
_SENTENCE_RE = re.compile(r"(?<=[.!?。！？])\s+")
_WORD_RE = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    # fold + \w+ gives query_terms' keys for Latin text at ~0.07 ms an abstract; the index's
    # tokenize (jieba segmentation included) costs ~1.6 ms, too slow for every hit of a search.
    return set(_WORD_RE.findall(fold(text)))


def explain_hit(
    terms: list[str], title: str | None, text: str, limit: int = SNIPPET_CHARS
) -> tuple[list[str], str]:
    """Return ``(matched terms, snippet)`` for one hit.

    Args:
        terms: the query's index terms (:func:`paperscope.index.bm25.query_terms`), computed once
            per query.
        title: the paper's title, or None.
        text: the paper's clean abstract.
        limit: longest snippet in characters.

    Returns:
        The ``terms`` the title or abstract contains, in query order; and the abstract sentence
        holding the most distinct matched terms (ties: the earlier one; none matched: the first
        sentence), cut at the last space before ``limit`` characters and ended with "…" when longer.
    """
    sentences = [s.strip() for s in _SENTENCE_RE.split(text) if s.strip()]
    sentence_words = [_words(s) for s in sentences]
    present = set().union(_words(title or ""), *sentence_words)
    matched = [t for t in terms if t in present]
    if not sentences:
        return matched, ""
    wanted = set(matched)
    scores = [len(wanted & words) for words in sentence_words]
    best = sentences[scores.index(max(scores))]
    if len(best) > limit:
        best = best[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return matched, best
