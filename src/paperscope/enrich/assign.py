"""One-to-one matching of papers and program entries by the learned pair score.

Each candidate pair (:mod:`.pair_features`) gets the probability :class:`.pair_model.PairModel`
gives it; pairs below the model's **floor** are left out, and the rest are matched one to one
(a paper gets at most one entry, an entry goes to at most one paper) so that the sum of
``logit(p) - logit(floor)`` over the chosen pairs is the largest. With independent pair
probabilities that is the most likely matching when leaving a paper without an entry costs
``logit(floor)``; a paper with no program entry (an open world) keeps no title because no pair
of it reaches the floor. The problem splits into the connected components of the pairs above
the floor (most are one paper and one entry); each component is solved exactly by scipy's
``linear_sum_assignment`` (Crouse, 2016, a shortest augmenting path Jonker-Volgenant variant).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from ..index.bm25 import MemoryBM25
from .match import SUGGESTIONS, MatchResult, Pairing
from .pair_features import PairSet, pair_features
from .pair_model import PairModel, load_pair_model
from .program import ProgramEntry

__all__ = ["assign", "match_assignment", "score_pairs"]

#: A suggestion needs this probability when the title shares no content term with the abstract
#: (dense legs can find such a title; a lexical-only suggestion needs positive evidence, as before).
_SUGGEST_WITHOUT_EVIDENCE = 0.5


def _logit(p: np.ndarray | float) -> np.ndarray:
    q = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1 - 1e-12)
    return np.log(q / (1 - q))


def assign(paper: np.ndarray, entry: np.ndarray, proba: np.ndarray, floor: float) -> np.ndarray:
    """Return the indices of the pairs chosen one to one among those with ``proba >= floor``.

    Args:
        paper: int, shape (n_pairs,): each pair's paper index.
        entry: int, shape (n_pairs,): each pair's entry index; a (paper, entry) pair appears at
            most once.
        proba: float, shape (n_pairs,): each pair's probability.
        floor: probability (0-1) a pair needs.

    Returns:
        int64 indices into the pairs, sorted, no paper or entry twice, maximising the sum of
        ``logit(proba) - logit(floor)`` (see the module docstring).
    """
    keep = np.flatnonzero(proba >= floor)
    if keep.size == 0:
        return keep.astype(np.int64)
    # A small positive weight for a pair exactly at the floor, so that it still counts as an edge.
    weight = _logit(proba[keep]) - float(_logit(floor)) + 1e-9
    papers, p_local = np.unique(paper[keep], return_inverse=True)
    entries, e_local = np.unique(entry[keep], return_inverse=True)
    n_p = papers.size
    graph = coo_matrix(
        (np.ones(keep.size), (p_local, n_p + e_local)), shape=(n_p + entries.size, n_p + entries.size)
    )
    _, label = connected_components(graph, directed=False)
    component = label[p_local]
    chosen: list[int] = []
    order = np.argsort(component, kind="stable")
    bounds = np.flatnonzero(np.diff(component[order])) + 1
    for group in np.split(order, bounds):
        if group.size == 1:
            chosen.append(int(keep[group[0]]))
            continue
        rows, r_at = np.unique(p_local[group], return_inverse=True)
        cols, c_at = np.unique(e_local[group], return_inverse=True)
        matrix = np.zeros((rows.size, cols.size))
        matrix[r_at, c_at] = weight[group]
        lookup = {(int(r), int(c)): int(keep[g]) for r, c, g in zip(r_at, c_at, group, strict=True)}
        for r, c in zip(*linear_sum_assignment(matrix, maximize=True), strict=True):
            if matrix[r, c] > 0:  # a zero cell is no pair: that paper stays without an entry
                chosen.append(lookup[(int(r), int(c))])
    return np.array(sorted(chosen), dtype=np.int64)


def score_pairs(pairs: PairSet, model: PairModel | None = None) -> np.ndarray:
    """Return the probability of each pair of ``pairs`` (float64, (n_pairs,)) by ``model`` (default: bundled)."""
    model = model or load_pair_model(pairs.mode)
    return model.proba(pairs.x) if len(pairs.paper) else np.zeros(0)


def match_assignment(
    papers: Sequence[tuple[str, str]],
    entries: Sequence[ProgramEntry],
    library_index: MemoryBM25,
    paper_vectors: np.ndarray | None = None,
    title_vectors: np.ndarray | None = None,
    floor: float | None = None,
    model: PairModel | None = None,
) -> MatchResult:
    """Match title-less papers to entries one to one by the learned pair score.

    Args:
        papers: ``(paper_id, clean_text)`` of the title-less papers (each a row of ``library_index``).
        entries: the program entries that may be attached.
        library_index: BM25 over every paper of the library (title and clean text).
        paper_vectors: float32 (n_papers, dim), L2-normalised rows in ``papers`` order, or None.
        title_vectors: float32 (n_entries, dim), L2-normalised, or None (both given: hybrid).
        floor: the probability a pair needs; None: the model's (chosen on the dev split).
        model: the pair model; None: the bundled one of the mode.

    Returns:
        A :class:`MatchResult` (``matcher="assignment"``): ``attached`` holds the chosen pairs,
        best first, each ``score`` the pair's probability; ``ranked`` up to ``SUGGESTIONS``
        pairings per paper, most probable first (a pairing whose title shares no content term
        with the abstract only above probability 0.5).

    Raises:
        ModelUnavailable: the bundled model lacks the mode (see :func:`load_pair_model`).
    """
    pairs = pair_features(papers, entries, library_index, paper_vectors, title_vectors)
    result = MatchResult(mode=pairs.mode, matcher="assignment")
    if len(pairs.paper) == 0:
        return result
    model = model or load_pair_model(pairs.mode)
    proba = score_pairs(pairs, model)
    chosen = assign(pairs.paper, pairs.entry, proba, model.floor if floor is None else floor)

    def pairing(k: int) -> Pairing:
        return Pairing(
            papers[int(pairs.paper[k])][0],
            int(pairs.entry[k]),
            float(proba[k]),
            int(pairs.a_rank[k]),
            int(pairs.b_rank[k]),
            evidence=float(pairs.evidence[k]),
        )

    result.attached = sorted((pairing(k) for k in chosen.tolist()), key=lambda p: (-p.score, p.paper_id))
    suggestible = (pairs.evidence > 0) | (proba >= _SUGGEST_WITHOUT_EVIDENCE)
    order = np.lexsort((pairs.entry, -proba, pairs.paper))
    for k in order[suggestible[order]].tolist():
        found = result.ranked.setdefault(papers[int(pairs.paper[k])][0], [])
        if len(found) < SUGGESTIONS:
            found.append(pairing(k))
    return result
