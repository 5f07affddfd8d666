"""Related papers: nearest neighbours by embedding cosine, explained by the rare words they share."""

from __future__ import annotations

from ..models import Paper
from ..store import Store, papers
from ..store.retrieval import document_frequencies
from ..text import fold, tokenize
from .bm25 import STOP_WORDS
from .dense import DenseIndex

__all__ = ["related_papers", "shared_terms", "DUPLICATE_COSINE", "MAX_TERMS"]

#: Cosine at or above which two papers count as the same text lightly edited (a duplicate).
#: MiniLM gives distinct abstracts on one topic 0.6–0.9; re-typed copies of one abstract > 0.98.
DUPLICATE_COSINE = 0.98
#: Shared words shown per neighbour.
MAX_TERMS = 5
_BOILERPLATE = frozenset(
    """also approach approaches based both can existing however more method methods new novel not only
    paper propose proposed proposes results show shows such than these they this through using while
    which work works across between each over without within where when then them been being has
    their there two one first further well show shown but yet near set its our all any may most
    many much other same some very often even still thus hence under into onto upon three""".split()
)


def _content_words(paper: Paper) -> set[str]:
    words = tokenize(f"{paper.title or ''} {paper.clean_text}")
    # Bare numbers ("2", "100") and short function words explain nothing; "cifar10", "fp4" do.
    return {
        w for w in words if len(w) >= 3 and not w.isdigit() and w not in STOP_WORDS and w not in _BOILERPLATE
    }


def shared_terms(store: Store, a: Paper, b: Paper, limit: int = MAX_TERMS) -> list[str]:
    """Return up to ``limit`` words both papers use, rarest in the library first (ties: alphabetical)."""
    common = _content_words(a) & _content_words(b)
    if not common:
        return []
    df = document_frequencies(store.conn, common)
    return sorted(common, key=lambda w: (df.get(w, 0), w))[:limit]


def _is_duplicate(a: Paper, b: Paper, cosine: float) -> bool:
    if cosine >= DUPLICATE_COSINE:
        return True
    return bool(a.title and b.title and fold(a.title) == fold(b.title))


def related_papers(
    store: Store, index: DenseIndex, paper: Paper, limit: int
) -> list[tuple[Paper, float, list[str]]]:
    """Return up to ``limit`` ``(neighbour, cosine, shared terms)``, most similar first.

    Never returns ``paper`` itself or a duplicate of it (see :data:`DUPLICATE_COSINE`).
    """
    vector = index.vector_of(paper.paper_id)
    if vector is None or not vector.any():
        return []
    depth = limit + 10
    while True:
        candidates = index.search(vector, depth)
        out: list[tuple[Paper, float, list[str]]] = []
        for other_id, score in candidates:
            if other_id == paper.paper_id:
                continue
            other = papers.get_paper(store.conn, other_id)
            if _is_duplicate(paper, other, score):
                continue
            out.append((other, score, []))
            if len(out) == limit:
                break
        if len(out) == limit or len(candidates) < depth or depth >= len(index):
            break
        depth *= 4
    return [(other, score, shared_terms(store, paper, other)) for other, score, _ in out]
