"""Lexical query building: user text → a safe FTS5 MATCH expression ranked by BM25.

User text never reaches ``MATCH`` raw. Each whitespace-separated chunk of the query is
tokenised exactly as the index was (:func:`paperscope.text.tokenize`), and its tokens become
one double-quoted FTS5 phrase, so ``state-of-the-art`` is the phrase "state of the art" and
``AND``, ``*``, ``:``, quotes or ``%`` are plain text, never operators. Phrases are OR-ed and
ranked by SQLite's ``bm25()`` (Robertson & Zaragoza, 2009; FTS5 uses k1 = 1.2, b = 0.75).
"""

from __future__ import annotations

from ..text import clean_text, tokenize

__all__ = ["STOP_WORDS", "match_expression"]

#: Function words dropped from queries: a query of only these matches nothing (not everything).
STOP_WORDS = frozenset(
    """a an and are as at be by for from has have how in into is it its of on or that the their
    this to was were what which with we our you your via vs""".split()
)


def match_expression(query: str) -> str | None:
    """Return the FTS5 MATCH expression for ``query``, or None when nothing searchable is left.

    LaTeX and markdown in the query are cleaned like abstracts (``C$^2$R`` → ``C²R``), so a
    query written like the source text finds it.
    """
    phrases: list[str] = []
    for chunk in clean_text(query).split():
        tokens = [t for t in tokenize(chunk)]
        if not tokens or all(t in STOP_WORDS for t in tokens):
            continue
        phrase = " ".join(tokens)
        if phrase not in phrases:
            phrases.append(phrase)
    if not phrases:
        return None
    return " OR ".join('"' + p.replace('"', '""') + '"' for p in phrases)
