"""Bounding the work of one query by its cost, not by the position of its words (issue 24).

A pasted abstract, a paragraph of a draft or a whole page is a fair query, but one query must not
hold a search (or the server) for seconds. The work of the BM25 leg grows with the number of
distinct query terms (one postings scan each) and the dense leg's with the wordpiece windows it
embeds, so those are what is bounded:

- the lexical leg keeps at most :data:`MAX_QUERY_TERMS` distinct terms, chosen by their
  information in this library: highest inverse document frequency first, first occurrence in
  the query breaking ties; a term no paper holds cannot match and goes last (Robertson & Sparck
  Jones' term weighting: a term's BM25 contribution is bounded by its IDF, so the dropped terms
  are those that could move a score the least). Cutting the query to its first 64 terms instead
  dropped the informative words at the end of a pasted abstract: matching 600 ICLR abstracts to
  their titles fell from 0.762 to 0.525 top-1 (BM25, issue 24);
- the dense leg embeds the query text in the model's windows, as documents are embedded, up to
  :data:`MAX_DENSE_QUERY_CHARS` characters (about four 256-wordpiece windows);
- no text past :data:`MAX_QUERY_CHARS` characters is read at all.

:func:`bound_query` returns what each leg gets and the one-line notice that says what was dropped.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from ..config import MAX_QUERY_CHARS, MAX_QUERY_TERMS
from ..text import clean_text, tokenize
from .bm25 import STOP_WORDS

__all__ = [
    "MAX_QUERY_TERMS",
    "MAX_QUERY_CHARS",
    "MAX_DENSE_QUERY_CHARS",
    "BoundedQuery",
    "bound_query",
    "chars_notice",
    "cut_text",
    "surface_terms",
]

#: Characters of the query the dense leg embeds: about four windows of all-MiniLM-L6-v2's 256
#: wordpieces (English runs about 4.5 characters per wordpiece), the windows of a long abstract.
#: Embedding them costs about 60 ms warm on two cores.
MAX_DENSE_QUERY_CHARS = 4_000


@dataclass(frozen=True)
class BoundedQuery:
    """What each leg of a search gets from one query text.

    Attributes:
        lexical: the text the BM25 leg searches: the query itself when it has at most
            MAX_QUERY_TERMS terms, else its kept terms in query order, space-separated.
        dense: the text the dense leg embeds (at most MAX_DENSE_QUERY_CHARS characters).
        kept: the distinct lexical terms kept, in query order.
        dropped: the distinct lexical terms dropped, in query order.
        unmatched: kept terms that no paper of the library holds, in query order.
        chars_cut: characters past MAX_QUERY_CHARS that were not read (0: none).
    """

    lexical: str
    dense: str
    kept: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    chars_cut: int = 0

    @property
    def notice(self) -> str | None:
        """One line saying what the bounds dropped, or None when the whole query was used."""
        parts = []
        if self.chars_cut:
            parts.append(chars_notice(self.chars_cut))
        if self.dropped:
            sample = ", ".join(f"'{t}'" for t in self.dropped[:5])
            more = f" and {len(self.dropped) - 5} more" if len(self.dropped) > 5 else ""
            parts.append(
                f"{len(self.dropped)} of {len(self.kept) + len(self.dropped)} query terms were dropped"
                f" ({sample}{more}): a query keeps its {MAX_QUERY_TERMS} most informative terms,"
                " the rarest in this library"
            )
        return "; ".join(parts) if parts else None


def chars_notice(chars_cut: int) -> str:
    """Return the notice of a query cut at :data:`MAX_QUERY_CHARS`, ``chars_cut`` characters dropped."""
    return (
        f"only the first {MAX_QUERY_CHARS:,} characters of the query were read ({chars_cut:,} more were not)"
    )


def cut_text(text: str, limit: int) -> str:
    """Return ``text`` cut to at most ``limit`` characters, at the last whitespace when there is one."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    space = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    return head[:space] if space > limit // 2 else head


def surface_terms(text: str) -> list[str]:
    """Return the distinct lexical terms of ``text`` in order of first occurrence (stop words dropped).

    Terms are the index's tokens (:func:`paperscope.text.tokenize`: folded, Chinese segmented).
    """
    seen: dict[str, None] = {}
    for chunk in clean_text(text).split():
        for token in tokenize(chunk):
            if token not in STOP_WORDS:
                seen.setdefault(token, None)
    return list(seen)


def bound_query(
    query: str,
    frequency: Callable[[list[str]], dict[str, int]],
    n_papers: int,
    max_terms: int = MAX_QUERY_TERMS,
) -> BoundedQuery:
    """Return what the legs of a search get from ``query``, within the bounds of this module.

    Args:
        query: the user's text, any length and language.
        frequency: terms → how many papers of the library hold each (unknown terms left out),
            e.g. :func:`paperscope.store.retrieval.document_frequencies`.
        n_papers: papers in the library (N of the IDF).
        max_terms: distinct lexical terms kept (default MAX_QUERY_TERMS).

    Terms are ranked by ``idf = log((N - n + 0.5) / (n + 0.5) + 1)`` (the non-negative BM25 IDF;
    the order is that of the document frequency n), first occurrence breaking ties; a term no
    paper holds ranks last (it can match nothing).

    Returns:
        The :class:`BoundedQuery`; ``frequency`` is called once, with every distinct term.
    """
    chars_cut = 0
    if len(query) > MAX_QUERY_CHARS:
        kept_text = cut_text(query, MAX_QUERY_CHARS)
        chars_cut = len(query) - len(kept_text)
        query = kept_text
    terms = surface_terms(query)
    df = frequency(terms) if terms else {}
    unmatched = [t for t in terms if not df.get(t)]
    dense = cut_text(query, MAX_DENSE_QUERY_CHARS)
    if len(terms) <= max_terms:
        return BoundedQuery(query, dense, terms, [], unmatched, chars_cut)

    def information(item: tuple[int, str]) -> tuple[float, int]:
        position, term = item
        n = df.get(term, 0)
        if not n:
            return (math.inf, position)  # matches nothing: last
        return (-math.log((n_papers - n + 0.5) / (n + 0.5) + 1.0), position)

    ranked = sorted(enumerate(terms), key=information)
    keep = {term for _, term in ranked[:max_terms]}
    kept = [t for t in terms if t in keep]
    dropped = [t for t in terms if t not in keep]
    return BoundedQuery(" ".join(kept), dense, kept, dropped, [t for t in unmatched if t in keep], chars_cut)
