"""Related papers: embedding neighbours fused with a BM25 "more like this" query.

Two legs, as in hybrid search:

* **dense**: the nearest neighbours of the paper's stored vector (cosine);
* **bm25**: a BM25 search for the paper's ``MLT_TERMS`` words of highest tf-idf (the "more like
  this" query of Lucene and Elasticsearch: sublinear tf × log(N / (1 + df))), so the rare names and
  terms two abstracts share count, not only their overall topic.

They are fused like hybrid search (score-normalised, weighted; ``RELATED_FUSION``). Measured by
``paperscope eval --task iclr-related`` (ICLR 2026 papers; a paper's related papers are those
sharing author keywords with it; 1,257 test papers): nDCG@10 dense 0.135, BM25 more-like-this
0.131, fused 0.163; with the words of the paper's task phrases added to the BM25 query, BM25
0.135 and fused 0.165 (training quarter 0.158 → 0.164). The number of terms (20 of 10/20/40) and the BM25 weight
(0.15 of 0.1–0.5) were chosen on the training quarter only.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

from ..models import Paper
from ..store import Store, papers
from ..store.lexical import search_fts
from ..store.retrieval import document_frequencies
from ..text import english_stop_words, find_urls, segment, tokenize
from .bm25 import STOP_WORDS, MemoryBM25, match_expression, scoring_terms
from .dense import DenseIndex
from .fusion import Fusion
from .search import Legs, fuse_legs, with_exact_cosines

__all__ = [
    "related_papers",
    "related_legs",
    "more_like_this_terms",
    "shared_terms",
    "DUPLICATE_COSINE",
    "MAX_TERMS",
    "MLT_TERMS",
    "RELATED_FUSION",
]

#: Cosine at or above which two papers count as the same text lightly edited (a duplicate).
#: MiniLM gives distinct abstracts on one topic 0.6–0.9; re-typed copies of one abstract > 0.98.
DUPLICATE_COSINE = 0.98
#: Shared words shown per neighbour.
MAX_TERMS = 5
#: Words of the "more like this" BM25 query (chosen on the iclr-related training quarter).
MLT_TERMS = 20
#: How the two legs are fused (weights chosen on the iclr-related training quarter).
RELATED_FUSION = Fusion(method="convex", normaliser="tm2c2", weights={"bm25": 0.15, "dense": 0.85})
_BOILERPLATE = frozenset(
    """also approach approaches based both can existing however more method methods new novel not only
    paper propose proposed proposes results show shows such than these they this through using while
    which work works across between each over without within where when then them been being has
    their there two one first further well show shown but yet near set its our all any may most
    many much other same some very often even still thus hence under into onto upon three
    although though thereby therefore whereas whether rather instead per sub via including include
    includes achieve achieves achieved achieving successfully experimental experiments experiment
    demonstrate demonstrates demonstrated extensive significantly effectively effective efficient
    efficiently furthermore moreover specifically particular particularly various several given
    able need needs make makes made provide provides provided use uses used enable enables""".split()
)


#: What is an address, not prose: URLs (with or without a scheme), e-mail addresses and DOIs.
#: Their pieces ("github", "com", "https") are shared by any two papers that link code, so they
#: explain nothing.
_ADDRESS_RE = re.compile(
    r"(?:https?|ftp)://\S+|www\.\S+|\S+@\S+\.\w+|\b10\.\d{4,9}/\S+"
    r"|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|edu|ai|dev)(?:/\S*)?",
    re.IGNORECASE,
)


@functools.cache
def _explain_stop_words() -> frozenset[str]:
    """Return the words never shown as shared: the lexical stop words and scikit-learn's English list.

    scikit-learn's list has 318 words (the Glasgow Information Retrieval Group's), read by
    :func:`paperscope.text.english_stop_words` without importing scikit-learn (about 1 s).
    """
    return STOP_WORDS | english_stop_words()


def _words(paper: Paper) -> list[str]:
    return _text_words(paper.title or "", paper.clean_text)


def _text_words(title: str, text: str) -> list[str]:
    words = tokenize(segment(f"{title} {text}", for_index=True))
    # Bare numbers ("2", "100") and short function words explain nothing; "cifar10", "fp4" do.
    return [
        w for w in words if len(w) >= 3 and not w.isdigit() and w not in STOP_WORDS and w not in _BOILERPLATE
    ]


def _host_words(text: str) -> set[str]:
    """Return the words of the host names the text links to ("github", "huggingface").

    A link's text often names its host ("[GitHub](https://github.com/…)", "code on Hugging
    Face"), which survives when the address itself is left out.
    """
    hosts = (urlsplit(url if "://" in url else f"http://{url}").hostname or "" for url in find_urls(text))
    return {piece for host in hosts for piece in re.split(r"[.\-]", host.lower()) if piece}


def _explaining_words(paper: Paper) -> frozenset[str]:
    """Return the words that may explain a relation: no address pieces or link hosts, no stop words."""
    return _explaining_words_of(paper.title or "", paper.clean_text)


#: Papers whose explaining words are kept (a few KB each): a paper page's ten neighbours are
#: often the neighbours of the next page too, and tokenising each took a fifth of its time.
_WORDS_CACHE_SIZE = 4096


@functools.lru_cache(maxsize=_WORDS_CACHE_SIZE)
def _explaining_words_of(title: str, clean_text: str) -> frozenset[str]:
    words = _text_words(title, _ADDRESS_RE.sub(" ", clean_text))
    stop = _explain_stop_words() | _host_words(clean_text)
    return frozenset(w for w in words if w not in stop)


def shared_terms(
    store: Store,
    a: Paper,
    b: Paper,
    limit: int = MAX_TERMS,
    df: Mapping[str, int] | None = None,
    a_words: frozenset[str] | None = None,
) -> list[str]:
    """Return up to ``limit`` words both papers use, rarest in the library first (ties: alphabetical).

    Pieces of URLs, e-mail addresses and DOIs and English stop words are left out (``github``
    and ``com`` are shared by any two papers that link their code). ``df`` (term → papers
    using it) may hold the document frequencies of ``a``'s words, looked up once for all of
    ``a``'s neighbours; None looks up the shared words now. ``a_words`` may hold ``a``'s
    explaining words, made once for all of its neighbours (None: made now).
    """
    common = (_explaining_words(a) if a_words is None else a_words) & _explaining_words(b)
    if not common:
        return []
    if df is None:
        df = document_frequencies(store.conn, common)
    return sorted(common, key=lambda w: (df.get(w, 0), w))[:limit]


def _task_words(paper: Paper) -> list[str]:
    """Return the words of the paper's task phrases (from its card, else extracted now, ~1 ms)."""
    tasks = (paper.card.extra or {}).get("tasks") if paper.card else None
    if tasks is None:
        from ..extract.tasks import extract_tasks

        tasks = [t.to_dict() for t in extract_tasks(paper.clean_text)]
    words = tokenize(" ".join(str(t.get("text", "")) for t in tasks))
    return [w for w in words if len(w) >= 3 and not w.isdigit() and w not in STOP_WORDS]


def more_like_this_terms(
    paper: Paper, frequency: Callable[[list[str]], dict[str, int]], n_papers: int, limit: int = MLT_TERMS
) -> list[str]:
    """Return the ``limit`` words of ``paper`` with the highest tf-idf, then its task words.

    tf-idf = (1 + ln tf) × ln(n_papers / (1 + df)), df from ``frequency`` (terms → papers using
    each); ties break alphabetically. The words of the card's task phrases follow ("dataset
    distillation": "dataset" is too common to make the tf-idf cut, yet names the topic).
    """
    tf = Counter(_words(paper))
    if not tf:
        return []
    df = frequency(sorted(tf))
    score = {t: (1 + math.log(c)) * math.log(max(n_papers, 1) / (1 + df.get(t, 0))) for t, c in tf.items()}
    best = sorted(score, key=lambda t: (-score[t], t))[:limit]
    return best + [w for w in dict.fromkeys(_task_words(paper)) if w not in best]


def related_legs(
    store: Store, index: DenseIndex | None, paper: Paper, depth: int, memory_bm25: MemoryBM25 | None = None
) -> Legs:
    """Return the dense and BM25 "more like this" candidates of ``paper`` (itself left out).

    Both lists hold ``(paper_id, raw score)`` best first; a BM25 candidate outside the dense list
    gets its exact cosine, as in hybrid search. Without an index (vectors not built yet), or
    when the paper has no vector, only the BM25 leg is returned.
    """
    legs = Legs()
    vector = index.vector_of(paper.paper_id) if index is not None else None
    if memory_bm25 is not None:
        terms = more_like_this_terms(paper, memory_bm25.document_frequencies, len(memory_bm25))
        bm25 = memory_bm25.search(scoring_terms(" ".join(terms)), depth + 1) if terms else []
    else:
        n_papers = store.count("papers")
        terms = more_like_this_terms(paper, lambda t: document_frequencies(store.conn, t), n_papers)
        expression = match_expression(" ".join(terms)) if terms else None
        bm25 = search_fts(store.conn, expression, depth + 1) if expression else []
    bm25 = [(pid, s) for pid, s in bm25 if pid != paper.paper_id][:depth]
    if index is not None and vector is not None and vector.any():
        dense = [(pid, s) for pid, s in index.search(vector, depth + 1) if pid != paper.paper_id][:depth]
        legs.lists["dense"] = with_exact_cosines(index, vector, dense, bm25)
        legs.floors["dense"] = dense[-1][1] if len(dense) >= depth else -1.0
    if bm25 or legs.lists:
        legs.lists["bm25"] = bm25
        legs.floors["bm25"] = bm25[-1][1] if len(bm25) >= depth else 0.0
    return legs


def related_papers(
    store: Store,
    index: DenseIndex | None,
    paper: Paper,
    limit: int,
    memory_bm25: MemoryBM25 | None = None,
    fusion: Fusion = RELATED_FUSION,
    same_paper: Callable[[Paper], bool] | None = None,
) -> list[tuple[Paper, float, dict[str, dict[str, float]], list[str]]]:
    """Return up to ``limit`` ``(neighbour, fused score, legs, shared terms)``, most related first.

    ``legs`` gives the neighbour's rank and raw score in each leg it appears in (``dense``:
    cosine; ``bm25``: BM25 score). Never returns ``paper`` itself or a duplicate of it: a
    neighbour at cosine :data:`DUPLICATE_COSINE` or more, or one ``same_paper`` (the
    library's identity rules against ``paper``: ``ingest.dedup.SamePaper(paper)``) calls the
    same paper. A title alone makes no duplicate: two papers may share one. With ``index``
    None (vectors not built yet) the neighbours come from the BM25 "more like this" leg alone.
    The shared terms are ranked by document frequencies from ``memory_bm25`` when given, else
    from SQLite's ``fts5vocab`` (about 3 ms for a paper's words on 21k papers).
    """
    depth = max(fusion.candidates, limit + 10)
    legs = related_legs(store, index, paper, depth, memory_bm25)
    if not legs.lists.get("dense") and not legs.lists.get("bm25"):
        return []
    cosine = dict(legs.lists.get("dense", []))
    mode = "hybrid" if "dense" in legs.lists else "bm25"
    candidates = len(cosine) if cosine else len(legs.lists["bm25"])
    out: list[tuple[Paper, float, dict[str, dict[str, float]], list[str]]] = []
    # The paper's words and one lookup of their frequencies serve every neighbour (ten SQL
    # lookups took 12 ms).
    mine = _explaining_words(paper)
    words = sorted(mine)
    df = (
        memory_bm25.document_frequencies(words)
        if memory_bm25 is not None
        else document_frequencies(store.conn, words)
    )
    for ranked in fuse_legs(legs, candidates, mode, fusion):
        other = papers.get_paper(store.conn, ranked.paper_id)
        if cosine.get(ranked.paper_id, 0.0) >= DUPLICATE_COSINE or (
            same_paper is not None and same_paper(other)
        ):
            continue
        out.append((other, ranked.score, ranked.legs, shared_terms(store, paper, other, df=df, a_words=mine)))
        if len(out) == limit:
            break
    return out
