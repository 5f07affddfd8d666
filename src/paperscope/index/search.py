"""Query → ranked papers: the BM25 leg, the dense leg, and their fusion, with filters applied first.

Modes: ``bm25`` (SQLite FTS5), ``dense`` (cosine over stored vectors) and ``hybrid`` (both,
fused by :data:`paperscope.index.fusion.DEFAULT_FUSION`). A filter becomes the set of allowed
paper_ids before either leg ranks, so a filtered search returns ``limit`` hits whenever that
many papers pass the filter and match. A query with Chinese characters is also glossed into
English (:mod:`paperscope.index.crosslingual`) for both legs when the embedder is English-only.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..store import Store
from ..store.lexical import TITLELESS_BODY_WEIGHT, search_fts
from ..store.retrieval import document_frequencies
from ..text import has_cjk
from . import query_cache
from .bm25 import MemoryBM25, match_expression, query_terms, scoring_terms
from .dense import TITLELESS_COSINE_BONUS, DenseIndex
from .embed import Embedder
from .fusion import DEFAULT_FUSION, Fusion, fuse_rrf, fuse_scores

__all__ = [
    "MODES",
    "RankedPaper",
    "RankedList",
    "Legs",
    "collect_legs",
    "fuse_legs",
    "with_exact_cosines",
    "search_papers",
    "MIN_DENSE_ONLY_COSINE",
    "RELEVANCE_FLOOR_BM25",
    "RELEVANCE_FLOOR_COSINE",
    "RELEVANCE_FLOOR_MAX_TERMS",
    "above_relevance_floor",
    "QUERY_VECTOR_CACHE_SIZE",
    "query_vector",
    "clear_query_vectors",
]

#: Search modes, in the order the CLI lists them.
MODES = ("hybrid", "bm25", "dense")
#: In hybrid mode, when no paper of the library matches a query word, dense hits below this
#: cosine are dropped: MiniLM gives unrelated texts cosines of about -0.1..0.2, so a made-up word
#: (``zqxjv``) returns nothing instead of noise. Dense mode keeps every hit; so does a filter that
#: leaves no BM25 match for a query that matches elsewhere.
MIN_DENSE_ONLY_COSINE = 0.25
#: The relevance floor of a hybrid result list (issue 24), so its count and facets describe papers
#: that match: a paper is kept when its BM25 score is at least RELEVANCE_FLOOR_BM25 times the
#: query's best BM25 score, or its cosine at least RELEVANCE_FLOOR_COSINE (all-MiniLM-L6-v2).
#: Without it the dense leg ranks every paper ("95 results for 'dataset distillation'" on a
#: 95-paper library). Chosen on training and dev queries (legs of ``paperscope.evaluation.
#: fusion_tuning``; set F1 against the judged papers, median papers kept, relevant top-10 papers
#: lost per query), BM25 ratio / cosine:
#: 0.3 / 0.4: ICML dev F1 0.51 (en) 0.37 (zh), kept 8 and 6 of 95, lost 0.17 / 0.25 per dev
#: query and at most 0.007 on titles, keywords, Chinese, method sentences, statements, abstracts;
#: 0.5 / 0.4: F1 0.58 / 0.36, kept 4 and 5, lost 0.33 / 0.50 per dev query, at most 0.007 on the
#: others; 0.5 / 0.45: lost 0.67 / 0.50. 0.5 / 0.4 is kept: at 0.3 a paper that matches only
#: the common word of "dataset distillation" ("dataset") passes (its score is 0.45 of the best).
#: Applied only when BM25 matched some paper: a query no paper mentions keeps its dense hits
#: above MIN_DENSE_ONLY_COSINE ("showing the closest").
RELEVANCE_FLOOR_BM25 = 0.5
RELEVANCE_FLOOR_COSINE = 0.4
#: The floor applies to queries of at most this many distinct terms (keyword and sentence
#: queries). A pasted paragraph or a search by example asks for a ranking of the library: its
#: best BM25 score is often a near copy of the text (the paper it was pasted from), against
#: which every other paper falls below half (a 300-word paste of an ICML abstract kept 2 of 95).
RELEVANCE_FLOOR_MAX_TERMS = 16
#: Query vectors kept per process (LRU). Paging, facet clicks and the map's highlight repeat the
#: last query; embedding it again cost 20-25 ms of the ~26 ms of a warm hybrid search at 21k
#: papers. 512 vectors of 384 float32 are 0.8 MB.
QUERY_VECTOR_CACHE_SIZE = 4096
_query_vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_query_vectors_lock = threading.Lock()


def clear_query_vectors() -> None:
    """Forget every cached query vector (tests that count embedder calls start from none)."""
    with _query_vectors_lock:
        _query_vectors.clear()


def query_vector(embedder: Embedder, text: str) -> np.ndarray:
    """Return the embedder's unit vector for a query text, float32 (dim,), from the LRU when known.

    After the per-process LRU, a server's workers look in the shared file of
    :func:`paperscope.index.query_cache.share_query_vectors` before embedding.

    The key is ``(embedder.model_id, text)``, so two models never share a vector; the returned
    array is read-only (it is shared by every search that asks for the same text).
    """
    key = (embedder.model_id, text)
    with _query_vectors_lock:
        if key in _query_vectors:
            _query_vectors.move_to_end(key)
            return _query_vectors[key]
    shared = query_cache.shared()
    vector = shared.get(embedder.model_id, text) if shared is not None else None
    if vector is None:
        vector = np.array(embedder.embed([text])[0], dtype=np.float32)
        if shared is not None:
            shared.put(embedder.model_id, text, vector)
    vector.flags.writeable = False
    with _query_vectors_lock:
        _query_vectors[key] = vector
        while len(_query_vectors) > QUERY_VECTOR_CACHE_SIZE:
            _query_vectors.popitem(last=False)
    return vector


@dataclass
class RankedPaper:
    """One ranked paper: fused score, 1-based rank, and each leg's rank and raw score."""

    paper_id: str
    score: float
    rank: int
    legs: dict[str, dict[str, float]] = field(default_factory=dict)


class RankedList(list[RankedPaper]):
    """What :func:`search_papers` returns: the ranked papers, best first.

    Attributes:
        below_floor: papers the BM25 leg matched (score > 0, among its ``depth`` candidates)
            that the hybrid relevance floor left out (:func:`above_relevance_floor`); 0 in the
            other modes and when the floor did not apply.
        below_floor_capped: the BM25 leg matched more papers than it listed, so more than
            ``below_floor`` fall below the floor.
    """

    below_floor: int = 0
    below_floor_capped: bool = False


def _query_texts(
    query: str,
    embedder: Embedder | None,
    frequency: Callable[[list[str]], dict[str, int]] | None = None,
    dense_text: str | None = None,
) -> tuple[str, str, bool]:
    """Return ``(lexical text, dense text, glossed)``: Chinese is glossed into English words.

    The glosses are added to the BM25 query (the original words still match Chinese
    abstracts); the dense leg embeds the English rendering unless the model is multilingual.
    ``dense_text`` (default ``query``) is what the dense leg embeds when no gloss is needed: the
    whole text of a long query whose lexical text keeps only its rarest terms.
    """
    if not has_cjk(query):
        return query, dense_text or query, False
    from .crosslingual import gloss_query

    gloss = gloss_query(query, frequency)
    lexical = f"{query} {' '.join(gloss.english)}"
    if embedder is not None and embedder.languages != "en":
        return lexical, dense_text or query, False
    return lexical, gloss.text or query, bool(gloss.english)


@dataclass
class Legs:
    """Each leg's candidates for one query, before fusion.

    Attributes:
        lists: leg name → ``(paper_id, raw score)`` best first (BM25 score; cosine).
        floors: leg name → raw score assumed for a paper missing from that leg's list.
        glossed: the query was glossed from Chinese into English (see ``Fusion.glossed_weights``).
        n_terms: distinct lexical terms of the query (stop words left out), which sets the
            fusion weights (:meth:`paperscope.index.fusion.Fusion.weights_for`).
        best_bm25: the best BM25 score of the query in the whole library, filters or not (0.0
            when no paper matches): the reference of the relevance floor.
        dense_nearest: the papers the index returned as nearest, best first (the dense list
            adds the BM25 candidates outside them, with their exact cosine:
            :func:`with_exact_cosines`).
    """

    lists: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    floors: dict[str, float] = field(default_factory=dict)
    glossed: bool = False
    n_terms: int = 0
    best_bm25: float = 0.0
    dense_nearest: list[str] = field(default_factory=list)


def _best_anywhere(
    store: Store,
    lexical_text: str,
    expression: str,
    in_memory: MemoryBM25 | None,
    body_weight: float,
    excluded: frozenset[str] = frozenset(),
) -> float:
    """Return the best BM25 score of the query over the library less ``excluded``, 0.0 when none.

    A filter can leave BM25 empty for a real query ("policy" among robotics papers); only a query
    that matches nothing anywhere (a made-up word) drops weak dense hits. The score is also the
    reference of the relevance floor, so a filter keeps exactly the unfiltered hits that pass it
    (BM25 scores do not depend on the filter: IDF and length norms are the whole library's).
    """
    depth = 1 + len(excluded)
    if in_memory is not None:
        top = in_memory.search(scoring_terms(lexical_text), depth, None, body_weight)
    else:
        top = search_fts(store.conn, expression, depth, None, body_weight)
    return next((score for pid, score in top if pid not in excluded), 0.0)


def collect_legs(
    store: Store,
    query: str,
    depth: int,
    mode: str = "hybrid",
    allowed: set[str] | None = None,
    embedder: Embedder | None = None,
    dense_index: Callable[[], DenseIndex] | None = None,
    memory_bm25: Callable[[], MemoryBM25 | None] | None = None,
    correct_titleless: bool = True,
    dense_text: str | None = None,
    excluded: frozenset[str] = frozenset(),
) -> Legs:
    """Return the top ``depth`` candidates of each leg that ``mode`` uses (see :func:`search_papers`).

    With ``correct_titleless`` (the default), a paper without a title loses nothing for it
    (issue 23): its body weighs :data:`paperscope.store.lexical.TITLELESS_BODY_WEIGHT` in the
    BM25 leg and its cosine gains :data:`paperscope.index.dense.TITLELESS_COSINE_BONUS` in the
    dense leg; False ranks as before issue 23. A query glossed from Chinese keeps the BM25 body
    weight 1.0: its terms are dictionary senses, mostly matched once in passing, not the salient
    words a title repeats (``bench/titleless.py``: Chinese problem statements, training quarter,
    title-less / titled MRR@10 0.974 at 1.0 but 1.083 at 1.5, all targets 0.694 → 0.684).
    ``excluded`` names papers left out of ``allowed`` that are not a filter (the example of a
    search by example): :attr:`Legs.best_bm25` is taken over the library without them.

    Raises:
        InputError: ``mode`` is unknown, or a dense mode is asked without an embedder.
    """
    if mode not in MODES:
        raise InputError(f"unknown search mode {mode!r}; choose one of: {', '.join(MODES)}")
    legs = Legs()
    if allowed is not None and not allowed:
        return legs
    in_memory = memory_bm25() if memory_bm25 is not None and mode != "dense" else None

    def frequency(terms: list[str]) -> dict[str, int]:
        if in_memory is not None:
            return in_memory.document_frequencies(terms)
        return document_frequencies(store.conn, terms)

    lexical_text, dense_text, legs.glossed = _query_texts(query, embedder, frequency, dense_text)
    body_weight = TITLELESS_BODY_WEIGHT if correct_titleless and not legs.glossed else 1.0
    bonus = TITLELESS_COSINE_BONUS if correct_titleless else 0.0
    expression = match_expression(lexical_text)
    if expression is None:
        return legs
    legs.n_terms = len(query_terms(query))
    if mode in ("bm25", "hybrid"):
        if in_memory is not None:
            mask = None
            if allowed is not None:
                mask = np.zeros(len(in_memory), dtype=bool)
                mask[[in_memory.row_of[p] for p in allowed if p in in_memory.row_of]] = True
            bm25 = in_memory.search(scoring_terms(lexical_text), depth, mask, body_weight)
        else:
            bm25 = search_fts(store.conn, expression, depth, allowed, body_weight)
        legs.lists["bm25"] = bm25
        if allowed is None:
            legs.best_bm25 = bm25[0][1] if bm25 else 0.0
        else:
            legs.best_bm25 = _best_anywhere(store, lexical_text, expression, in_memory, body_weight, excluded)
        # A full list was cut at `depth`: a paper outside it may still match, at most as well as
        # the last listed one. A shorter list holds every match; the others score 0.
        legs.floors["bm25"] = bm25[-1][1] if len(bm25) >= depth else 0.0
    if mode in ("dense", "hybrid"):
        if embedder is None or dense_index is None:
            raise InputError(f"search mode {mode!r} needs an embedder")
        index = dense_index()
        vector = query_vector(embedder, dense_text)
        dense = index.search(vector, depth, allowed, bonus)
        legs.dense_nearest = [pid for pid, _ in dense]
        if mode == "hybrid":
            dense = with_exact_cosines(index, vector, dense, legs.lists["bm25"], bonus)
            if legs.best_bm25 <= 0.0:
                dense = [(pid, s) for pid, s in dense if s >= MIN_DENSE_ONLY_COSINE]
        legs.lists["dense"] = dense
    return legs


def with_exact_cosines(
    index: DenseIndex,
    vector: np.ndarray,
    dense: list[tuple[str, float]],
    bm25: list[tuple[str, float]],
    titleless_bonus: float = 0.0,
) -> list[tuple[str, float]]:
    """Return ``dense`` plus the BM25 candidates outside it, each with its exact cosine, best first.

    Args:
        index: the library's dense index.
        vector: float32 (dim,), the query's (or the paper's) unit vector.
        dense: the dense leg's ``(paper_id, cosine)`` list.
        bm25: the BM25 leg's ``(paper_id, score)`` list.
        titleless_bonus: added to the cosine of a paper without a title, as in ``dense``.
    """
    listed = {pid for pid, _ in dense}
    extra = index.scores_of(vector, [pid for pid, _ in bm25 if pid not in listed], titleless_bonus)
    return sorted(dense + list(extra.items()), key=lambda item: (-item[1], item[0]))


def fuse_legs(
    legs: Legs, limit: int, mode: str = "hybrid", fusion: Fusion = DEFAULT_FUSION
) -> list[RankedPaper]:
    """Return the best ``limit`` papers: one leg's order in a single-leg mode, else fused."""
    return _ranked_papers(_fused_order(legs, limit, mode, fusion), _positions(legs))


def _fused_order(legs: Legs, limit: int, mode: str, fusion: Fusion) -> list[tuple[str, float]]:
    """Return the best ``limit`` ``(paper_id, score)`` pairs of :func:`fuse_legs`, best first."""
    if not legs.lists:
        return []
    if mode != "hybrid":
        return legs.lists[mode][:limit]
    if fusion.method == "rrf":
        return fuse_rrf(legs.lists, fusion.weights)[:limit]
    weights = fusion.weights_for(legs.n_terms, legs.glossed)
    return fuse_scores(legs.lists, weights, fusion.normaliser, legs.floors)[:limit]


def _positions(legs: Legs) -> dict[str, dict[str, tuple[int, float]]]:
    """Return leg -> paper_id -> (1-based rank, raw score) in that leg's list."""
    return {
        leg: {pid: (rank, score) for rank, (pid, score) in enumerate(hits, 1)}
        for leg, hits in legs.lists.items()
    }


def _ranked_papers(
    order: list[tuple[str, float]],
    positions: dict[str, dict[str, tuple[int, float]]],
    positions_of: dict[str, dict[str, dict[str, tuple[int, float]]]] | None = None,
) -> list[RankedPaper]:
    """Return ``order`` as RankedPapers ranked from 1, each with its rank and score in every leg.

    ``positions`` is :func:`_positions` of the legs; ``positions_of`` may give a paper the
    positions its rank came from instead (:func:`search_papers`: the head's legs).
    """
    out = []
    for rank, (paper_id, score) in enumerate(order, start=1):
        legs_of = positions if positions_of is None else positions_of.get(paper_id, positions)
        detail = {
            leg: {"rank": pos[paper_id][0], "score": pos[paper_id][1]}
            for leg, pos in legs_of.items()
            if paper_id in pos
        }
        out.append(RankedPaper(paper_id=paper_id, score=float(score), rank=rank, legs=detail))
    return out


def _floor_test(legs: Legs) -> Callable[[float, float], bool] | None:
    """Return ``passes(bm25 score, cosine)`` of the relevance floor, or None when it does not apply.

    A paper missing from a leg has BM25 score 0.0 or cosine -1.0 (see :func:`above_relevance_floor`).
    """
    if legs.best_bm25 <= 0.0 or legs.n_terms > RELEVANCE_FLOOR_MAX_TERMS:
        return None
    one_word = legs.n_terms == 1 and not legs.glossed
    lexical_floor = 0.0 if one_word else RELEVANCE_FLOOR_BM25 * legs.best_bm25

    def passes(bm25: float, cosine: float) -> bool:
        return 0.0 < bm25 >= lexical_floor or cosine >= RELEVANCE_FLOOR_COSINE

    return passes


def _head_legs(legs: Legs, depth: int) -> Legs:
    """Return the hybrid legs a search to ``depth`` collects, cut from ``legs`` collected deeper.

    The BM25 list is the first ``depth`` of the deeper one, its floor the score at ``depth``;
    the dense list is the index's first ``depth`` nearest plus the exact cosines of those BM25
    candidates, all in the deeper list already. Both legs' top ``k`` are the first ``k`` of
    their top ``2k`` (:func:`paperscope.index.topk.top_k` breaks ties by row).
    """
    bm25 = legs.lists.get("bm25", [])
    head = Legs(glossed=legs.glossed, n_terms=legs.n_terms, best_bm25=legs.best_bm25)
    if "bm25" in legs.lists:
        head.lists["bm25"] = bm25[:depth]
        head.floors["bm25"] = bm25[depth - 1][1] if len(bm25) >= depth else 0.0
    if "dense" in legs.lists:
        dense = legs.lists["dense"]
        head.dense_nearest = legs.dense_nearest[:depth]
        wanted = set(head.dense_nearest) | {pid for pid, _ in bm25[:depth]}
        head.lists["dense"] = [(pid, score) for pid, score in dense if pid in wanted]
    return head


def _below_floor(legs: Legs, shown: set[str]) -> int:
    """Count the papers BM25 matched (score > 0) that are not in ``shown``."""
    return sum(1 for pid, score in legs.lists.get("bm25", []) if score > 0.0 and pid not in shown)


def above_relevance_floor(ranked: list[RankedPaper], legs: Legs) -> RankedList:
    """Return the hybrid hits that pass the relevance floor, ranks renumbered from 1.

    A hit passes when its BM25 score is at least :data:`RELEVANCE_FLOOR_BM25` times the best
    BM25 score of the query in the whole library (:attr:`Legs.best_bm25`, so a filter keeps
    exactly the unfiltered hits that pass it), or its cosine is at least
    :data:`RELEVANCE_FLOOR_COSINE`. When BM25 matched no paper (see
    :data:`MIN_DENSE_ONLY_COSINE`), or the query has more than :data:`RELEVANCE_FLOOR_MAX_TERMS`
    terms, the list is returned as is. A one-word query (not glossed from Chinese) keeps every
    paper BM25 matched: each of them contains the word ("pruning" hid two papers that say
    "prune" once in a long abstract, below half the best score).
    """
    passes = _floor_test(legs)
    if passes is None:
        return RankedList(ranked)
    kept = RankedList(
        hit
        for hit in ranked
        if passes(hit.legs.get("bm25", {}).get("score", 0.0), hit.legs.get("dense", {}).get("score", -1.0))
    )
    for rank, hit in enumerate(kept, start=1):
        hit.rank = rank
    kept.below_floor = _below_floor(legs, {hit.paper_id for hit in kept})
    return kept


def search_papers(
    store: Store,
    query: str,
    limit: int,
    mode: str = "hybrid",
    allowed: set[str] | None = None,
    embedder: Embedder | None = None,
    dense_index: Callable[[], DenseIndex] | None = None,
    fusion: Fusion = DEFAULT_FUSION,
    memory_bm25: Callable[[], MemoryBM25 | None] | None = None,
    correct_titleless: bool = True,
    dense_text: str | None = None,
    excluded: frozenset[str] = frozenset(),
) -> RankedList:
    """Return the best ``limit`` papers for ``query``, and the BM25 matches the floor left out.

    In hybrid mode :attr:`RankedList.below_floor` counts the BM25 matches the relevance floor
    left out, among the leg's ``max(limit, fusion.candidates)`` best (``below_floor_capped``:
    the leg had more).

    Args:
        store: the open library.
        query: user text (any language; never passed raw to SQL).
        limit: how many papers to return at most.
        mode: one of :data:`MODES`.
        allowed: when set, only these papers may be returned (filters).
        embedder: embeds the query (dense and hybrid modes).
        dense_index: returns the library's dense index, embedding papers first if needed.
        fusion: how the legs are combined in hybrid mode.
        memory_bm25: returns the in-memory BM25 index for a large library, or None to use FTS5.
        correct_titleless: rank a paper without a title as if it had one (see :func:`collect_legs`).
        dense_text: what the dense leg embeds (default ``query``): the whole text of a long
            query whose ``query`` keeps only its rarest terms (:mod:`paperscope.index.bounds`).
        excluded: papers ``allowed`` leaves out that the floor's reference must not count
            (the example paper of a search by example, whose own text is the query).

    Raises:
        InputError: ``mode`` is unknown, or a dense mode is asked without an embedder.
    """

    def legs_to(depth: int) -> Legs:
        return collect_legs(
            store,
            query,
            depth,
            mode,
            allowed,
            embedder,
            dense_index,
            memory_bm25,
            correct_titleless,
            dense_text,
            excluded,
        )

    if mode != "hybrid":
        return RankedList(fuse_legs(legs_to(limit), limit, mode, fusion))
    # In hybrid mode the hits below the relevance floor are dropped, so their number counts
    # papers that match (:func:`above_relevance_floor`). Fused to the legs' depth first, then
    # cut: a list cut to ``limit`` before the floor came back shorter than asked when one of its
    # papers fell below the floor and a passing one ranked just after the cut.
    # Only the kept papers up to ``limit`` are made RankedPapers (a server answers 10 of ~200).
    # One ordering serves every limit and offset (see :func:`_sectioned`): the legs are collected
    # to the section depth that holds ``limit`` hits, deeper while each new section adds a hit.
    deepest = fusion.candidates * 2 ** (HYBRID_SECTIONS - 1)
    depth = fusion.candidates
    while depth < min(limit, deepest):
        depth *= 2
    ordering = _Ordering(next_bound=fusion.candidates)
    while True:
        legs = legs_to(depth)
        _extend(ordering, legs, depth, fusion, limit)
        if ordering.ended or len(ordering.order) >= limit or depth >= deepest:
            break
        depth *= 2  # the sections placed so far stay: deeper legs cut to their depth are the same
    order = ordering.order
    # Every placed paper has its section's positions (``_extend``): the deepest legs' are not needed.
    kept = RankedList(_ranked_papers(order[:limit], {}, ordering.positions_of))
    if _floor_test(legs) is not None:
        kept.below_floor = _below_floor(legs, {pid for pid, _ in order})
    kept.below_floor_capped = kept.below_floor > 0 and len(legs.lists.get("bm25", [])) >= depth
    return kept


#: Sections of a hybrid ordering at most (of ``fusion.candidates`` × 1, 2, 4, 8, 16: up to
#: 1,600 papers per leg by default), enough for the largest limit (1,000). Deeper legs are
#: collected only while the limit wants more papers and a deeper one could pass the floor.
HYBRID_SECTIONS = 5


@dataclass
class _Ordering:
    """The hybrid ordering placed so far (:func:`_extend`)."""

    next_bound: int
    order: list[tuple[str, float]] = field(default_factory=list)
    positions_of: dict[str, dict[str, dict[str, tuple[int, float]]]] = field(default_factory=dict)
    #: The papers placed (only they: one the floor failed may pass deeper).
    seen: set[str] = field(default_factory=set)
    ended: bool = False


def _extend(ordering: _Ordering, legs: Legs, depth: int, fusion: Fusion, limit: int) -> None:
    """Place the sections of the hybrid ordering that ``legs`` (collected to ``depth``) hold.

    One ordering serves every limit and offset, so a longer list starts with the shorter one
    and pages walk it without gaps or repeats. Section 1 is the fused order of the legs a search
    to ``fusion.candidates`` collects; section k the fused order of the legs to
    ``candidates × 2^(k-1)`` less the papers already placed, scores capped so they never rise
    down the list. A section's legs are cut from the deeper ones (:func:`_head_legs`), so they
    are what a search to that depth collects. Each paper is floored (:func:`_floor_test`) and
    explained by its own section's legs. The ordering ends (``ended``) at the first section that
    adds no paper, or where the legs hold every candidate; placing stops early once ``limit``
    papers are placed. Before sections, the web page's 200-hit pool and the command line's 10
    disagreed on 104 of 300 ICLR queries' first ten, and paging ``/api/search`` by 20 skipped and
    repeated papers: a BM25 list cut deeper gave papers outside it a lower floor.
    """
    passes = _floor_test(legs)  # the same for every depth: it reads best_bm25 and the terms
    order, seen = ordering.order, ordering.seen
    while not ordering.ended and ordering.next_bound <= depth and len(order) < limit:
        bound = ordering.next_bound
        section = legs if bound >= depth else _head_legs(legs, bound)
        positions = _positions(section)
        bm25, dense = positions.get("bm25", {}), positions.get("dense", {})
        ceiling = order[-1][1] if order else math.inf
        added = 0
        for pid, score in _fused_order(section, bound, "hybrid", fusion):
            if pid in seen:
                continue
            # A paper that fails the floor here may pass in a deeper section, whose legs may
            # hold its BM25 score (a filtered search of 750 papers naming a dataset listed 52).
            if passes is None or passes(bm25.get(pid, (0, 0.0))[1], dense.get(pid, (0, -1.0))[1]):
                seen.add(pid)
                order.append((pid, min(score, ceiling)))
                ordering.positions_of[pid] = positions
                added += 1
        exhausted = len(legs.lists.get("bm25", [])) < bound and len(legs.dense_nearest) < bound
        ordering.ended = added == 0 or exhausted
        if bound >= depth and not ordering.ended and passes is not None:
            ordering.ended = not _deeper_may_pass(legs, depth, seen, passes)
        ordering.next_bound = bound * 2


def _deeper_may_pass(legs: Legs, depth: int, seen: set[str], passes: Callable[[float, float], bool]) -> bool:
    """Return False when no paper of a deeper section could pass the floor (no need to look).

    ``legs`` were collected to ``depth``. A paper a deeper section adds is either in these legs
    but not placed yet, with the same scores there, or below both legs' last papers: its BM25 score at most the last listed one
    (0 when the list holds every match) and its cosine at most the last nearest one's. The floor
    passes a paper on either score alone, so when those two fail and no unplaced paper passes,
    nothing deeper does. A narrow query (a few papers pass) then collects its legs once.
    """
    bm25 = dict(legs.lists.get("bm25", []))
    dense = dict(legs.lists.get("dense", []))
    for pid in bm25.keys() | dense.keys():
        if pid not in seen and passes(bm25.get(pid, 0.0), dense.get(pid, -1.0)):
            return True
    listed, nearest = legs.lists.get("bm25", []), legs.dense_nearest
    last_bm25 = listed[-1][1] if listed and len(listed) >= depth else 0.0  # a short list holds every match
    last_cosine = dense.get(nearest[-1], -1.0) if nearest and len(nearest) >= depth else -1.0
    return passes(last_bm25, -1.0) or passes(0.0, last_cosine)
