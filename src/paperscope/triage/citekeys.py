"""Citation keys for exports: ``lastname2026firstword``, ASCII, unique over a whole library.

The base key is the first author's family name (particles dropped: "van der Berg" → ``berg``),
the year, and the first word of the title (or, for a title-less list, of paperscope's label)
that is not a stopword, all folded to lower-case ASCII letters and digits (``names.ascii_fold``),
so every key is safe in BibTeX, biber and Pandoc (``[a-z0-9]+``). Without an author whose name
folds to ASCII, the venue stands in for it (``icml2026multimodal``), else ``paper``.

**Suffixes.** Keys are handed out over the whole library in the order papers were added
(their rowid): the first paper with a base key gets it bare; the next ones get ``a``, ``b``, …
``z``, then ``aa``, ``ab``, … appended, skipping any key already taken (``smith2026deepa`` may
also be some paper's bare key). So a paper's key depends only on the papers added before it:
it is the same in every export, whatever the selection, it stays when papers are added later,
and a library rebuilt by ingesting the same files in the same order gives the same keys.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from ..models import Paper
from .names import ascii_fold, split_name

__all__ = ["CitationKeys", "base_key"]

#: Words skipped when picking the title word (English function words and title openers).
STOPWORDS = frozenset(
    (
        "a an the and or of on in at to for from by with without via into onto over under about as is are"
        " be do does can how what when where which who why we our your you it its this that these those"
        " towards toward beyond through not no all any one new"
    ).split()
)
_WORD_RE = re.compile(r"[a-z0-9]+")


def _fold(text: str) -> str:
    return "".join(_WORD_RE.findall(ascii_fold(text).lower()))


def _family(author: str) -> str:
    parts = split_name(author)
    family = parts.get("family") or parts.get("literal", "")
    # "van der Berg" → "Berg": the particles are the lower-case words before the name.
    words = [w for w in family.split() if not w.islower()] or family.split()
    return _fold("".join(words))


def base_key(paper: Paper) -> str:
    """Return the key before deduplication: ``{family}{year}{word}``, lower-case ``[a-z0-9]``."""
    who = next((f for f in (_family(a) for a in paper.authors[:1]) if f), "") or _fold(paper.venue or "")
    who = who[:24] or "paper"
    words = _WORD_RE.findall(ascii_fold(paper.title or paper.label).lower())
    word = next((w for w in words if w not in STOPWORDS and not w.isdigit()), words[0] if words else "")
    return f"{who}{paper.year or ''}{word[:24]}"


def _suffixes() -> Iterator[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    for size in itertools.count(1):
        for combo in itertools.product(letters, repeat=size):
            yield "".join(combo)


class CitationKeys:
    """Hand out unique keys to papers in the order they are given (a library's rowid order)."""

    def __init__(self) -> None:
        self._used: set[str] = set()
        self._by_paper: dict[str, str] = {}

    def add(self, paper: Paper) -> str:
        """Return the key of ``paper``, giving it one (see the module doc) the first time it is seen."""
        known = self._by_paper.get(paper.paper_id)
        if known:
            return known
        base = base_key(paper)
        key = base
        if key in self._used:
            key = next(base + s for s in _suffixes() if base + s not in self._used)
        self._used.add(key)
        self._by_paper[paper.paper_id] = key
        return key

    def __getitem__(self, paper_id: str) -> str:
        return self._by_paper[paper_id]
