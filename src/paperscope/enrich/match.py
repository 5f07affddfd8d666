"""Matching title-less papers to program entries: the two-leg margin matcher, and the entry point.

:func:`match_program` runs one of :data:`MATCHERS`: ``"assignment"`` (the default since issue 23,
:mod:`.assign`: a learned pair score and a one-to-one assignment over the whole list and program)
or ``"margins"``, the matcher of issue 15 described here, kept for ``paperscope eval enrich``'s
comparison.

Leg A, paper → entry: the paper's clean abstract is the query (each term weighted by how often
the abstract uses it, :func:`abstract_query`) and the program titles are the documents: BM25
over the titles (:class:`paperscope.index.bm25.MemoryBM25`, FTS5's formula),
plus, when the library has vectors, the cosine between the paper's stored vector and the title's
embedding from the library's embedder; each is turned into z-scores over all entries of the
program and the two are averaged (fused).

Leg B, entry → paper: the program title is the query and the library is searched by its own BM25
(title and abstract columns, title weighted as ``store.lexical.TITLE_WEIGHT``, over every paper of
the library, titled ones too): z-scores over all papers.

A pair (paper, entry) is **agreed** when each is the other's top 1 (entry is A's first for the
paper and the paper is B's first for the entry; a titled paper winning B blocks the entry). An
agreed pair is attached when both margins — the z-score gap between the first and the second of
each ranking — reach the thresholds of :data:`THRESHOLDS`, and the pair's absolute
**evidence** — the share of the title's content terms, each weighted by its IDF over the program's
titles, that the abstract contains — reaches :data:`EVIDENCE_FLOOR`. The margins only say the
pair stands out from the rest; when a paper has no entry in the program and the entry no paper
in the library (an open world), two such orphans can still be each other's clear first, with a
title that shares little with the abstract. Everything else becomes a suggestion: a paper's
candidates (A's top entries and entries whose B ranking holds the paper) ranked by the sum of the
two z-scores, each with positive evidence (a title sharing no content term with the abstract is
never suggested).

Scores are z-scores: how many standard deviations above the mean of the whole ranking (all
entries, or all papers) a score stands; margins are differences of them. Both are unitless and
do not depend on the length of the query, which BM25 values do.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..index.bm25 import MemoryBM25, query_terms
from ..text import tokenize
from .program import ProgramEntry

__all__ = [
    "Pairing",
    "MatchResult",
    "THRESHOLDS",
    "EVIDENCE_FLOOR",
    "title_evidence",
    "match_program",
    "bm25_scores",
    "abstract_query",
    "SUGGESTIONS",
    "MATCHERS",
    "ASSIGNMENT_MIN_ENTRIES",
]

#: The matchers :func:`match_program` knows; the first is the default.
MATCHERS = ("assignment", "margins")
#: The fewest program entries the assignment's pair model is used for; a smaller program is
#: matched by the margins matcher. The model reads z-scores over the program's entries, and in a
#: sample of n the largest z-score is at most (n - 1) / sqrt(n) (Shiffler, "Maximum Z scores and
#: outliers", The American Statistician 42(1), 1988): the model was trained and its floor chosen
#: on programs of 1,000-2,000 entries (the ICLR 2026 quarters and halves). The synthetic
#: 290-entry program of tests/enrich/test_match.py is matched in full by the model, a 40-entry
#: one not at all; 250 stays above the smallest size seen to work.
ASSIGNMENT_MIN_ENTRIES = 250

#: (leg A margin, leg B margin) an agreed pair needs to be attached, per mode. Chosen by
#: ``paperscope eval enrich`` on the dev half (seed 15, 2,151 papers) of the ICLR 2026 set,
#: jointly with :data:`EVIDENCE_FLOOR`: the triple giving the most dev coverage in the worst of
#: the closed world and two open worlds (a third and two thirds of the library in no program)
#: with dev precision >= 0.985 on the whole library and on three 300-paper libraries against the
#: whole program and >= 0.975 in the open worlds, rounded up to two decimals. "bm25": 1.39,
#: 2.39 (dev coverage 0.707 in every world; test half: precision 0.9993 / 0.9954 / 0.9893 at
#: coverage 0.714 / 0.710 / 0.710, closed / a third / two thirds in no program). Before the open
#: worlds it was 1.39, 0.07 (closed test 0.998 at 0.759, but 0.964 and 0.945 in the open
#: worlds), earlier 1.124, 0.061. Short of the target in 300-paper open libraries (two thirds
#: in no program): test precision 0.933 at coverage 0.827 (margins alone 0.897).
#: "hybrid" (``eval enrich --dense`` with the int8 MiniLM): leg A margin 0.89, chosen after
#: extractor 0.10 in the closed world (dev precision 0.999 at coverage 0.779); leg B's margin and
#: the evidence are the same BM25 / lexical quantities in both modes, so the open-world choice's
#: 2.39 and 0.49 are carried over from "bm25" (they only hold back pairs; not re-measured with
#: ``--dense`` yet).
THRESHOLDS: dict[str, tuple[float, float]] = {"bm25": (1.39, 2.39), "hybrid": (0.89, 2.39)}
#: Evidence (see :func:`title_evidence`, 0-1) an agreed pair needs besides the margins, per mode;
#: chosen with :data:`THRESHOLDS` (dev half: 0.486, rounded up). The margins alone let titles onto
#: papers in no program: in the trial's open world (300 ICLR papers, 100 of them in a 689-entry
#: program) 14 of 105 attached titles went onto such papers.
EVIDENCE_FLOOR: dict[str, float] = {"bm25": 0.49, "hybrid": 0.49}
#: Candidates kept per paper as suggestions, and ranks kept per leg to find them.
SUGGESTIONS = 3
_TOP = 5


@dataclass
class Pairing:
    """One (paper, entry) pairing with the figures of both legs.

    Attributes:
        paper_id: the library paper.
        entry: index into the program's entries.
        score: margins matcher: mean of the pair's two z-scores (leg A's and leg B's);
            assignment: the pair model's probability (0-1). Higher is surer.
        a_rank, b_rank: 1-based rank of the entry in the paper's leg A ranking, and of the paper
            in the entry's leg B ranking (0: not among the first ``_TOP``).
        a_margin, b_margin: z-score gap between the first and the second of each ranking (set
            only for an agreed pair, else 0).
        evidence: :func:`title_evidence` of the entry's title in the paper's abstract (0-1).

    """

    paper_id: str
    entry: int
    score: float
    a_rank: int = 0
    b_rank: int = 0
    a_margin: float = 0.0
    b_margin: float = 0.0
    evidence: float = 0.0

    @property
    def agreed(self) -> bool:
        return self.a_rank == 1 and self.b_rank == 1


@dataclass
class MatchResult:
    """What matching found: pairs to attach, and suggestions for the other papers.

    Attributes:
        mode: ``"bm25"`` (both legs lexical) or ``"hybrid"`` (leg A fused with dense cosines).
        matcher: ``"margins"`` or ``"assignment"`` (see :data:`MATCHERS`).
        attached: pairs to attach, best score first: agreed pairs whose margins reach the
            thresholds, or the pairs the assignment chose.
        agreed: every agreed pair, attached or not (the eval chooses thresholds from these;
            empty for the assignment).
        ranked: paper_id → up to ``SUGGESTIONS`` pairings, best first, for every paper that has
            a candidate (attached ones too: the eval scores rank 1 at any threshold).

    """

    mode: str
    matcher: str = "margins"
    attached: list[Pairing] = field(default_factory=list)
    agreed: list[Pairing] = field(default_factory=list)
    ranked: dict[str, list[Pairing]] = field(default_factory=dict)

    @property
    def suggestions(self) -> dict[str, list[Pairing]]:
        """paper_id → pairings, best first, for the papers not attached."""
        done = {p.paper_id for p in self.attached}
        return {pid: found for pid, found in self.ranked.items() if pid not in done}


def bm25_scores(
    index: MemoryBM25, terms: list[str], weights: Mapping[str, float] | None = None
) -> np.ndarray:
    """Return the BM25 score of every document of ``index`` for ``terms`` (float32, shape (n_docs,)).

    The same sums as :meth:`MemoryBM25.search`, kept whole (the z-scores need every document);
    with ``weights``, each term's part is multiplied by its weight (see :func:`abstract_query`).
    """
    scores = np.zeros(len(index.paper_ids), dtype=np.float32)
    for term in terms:
        t = index.vocabulary.get(term)
        if t is None:
            continue
        start, end = int(index.indptr[t]), int(index.indptr[t + 1])
        weight = 1.0 if weights is None else weights[term]
        scores[index.rows[start:end]] += weight * index.idf[t] * index.weights[start:end]
    return scores


def abstract_query(text: str) -> tuple[list[str], dict[str, float]]:
    """Return leg A's query: the abstract's terms, each weighted ``1 + ln(times it occurs)``.

    An abstract repeats what its title names (the method, the task); counting each term once
    let a title sharing many one-off words win. Measured on the dev half of ``eval enrich``
    (BM25 legs): coverage 0.698 -> 0.774 at the chosen thresholds, dev precision 0.999 -> 0.998.
    """
    terms = query_terms(text, stem=False)
    counts = Counter(tokenize(text))
    return terms, {t: 1.0 + math.log(max(counts.get(t, 1), 1)) for t in terms}


def title_evidence(title_terms: Sequence[str], abstract_terms: set[str], index: MemoryBM25) -> float:
    """Return the share of ``title_terms``' IDF (over ``index``, the program's titles) found in the abstract.

    0 when the title shares no content term with the abstract (or has none), 1 when the abstract
    holds every one. Unitless, and unlike a z-score it does not depend on the other entries: an
    absolute floor for the pairs whose margins pass only because nothing else fits.
    """
    total = found = 0.0
    for term in title_terms:
        t = index.vocabulary.get(term)
        weight = float(index.idf[t]) if t is not None else 1.0
        total += weight
        if term in abstract_terms:
            found += weight
    return found / total if total > 0 else 0.0


def _z(scores: np.ndarray) -> np.ndarray:
    """Return ``(scores - mean) / std`` (all zeros when every score is the same)."""
    std = float(scores.std())
    if std <= 1e-12:
        return np.zeros_like(scores, dtype=np.float32)
    return ((scores - float(scores.mean())) / std).astype(np.float32)


def _top(z: np.ndarray, k: int) -> np.ndarray:
    """Return the indices of the ``k`` highest values, highest first (ties by index)."""
    k = min(k, z.size)
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    part = np.argpartition(-z, k - 1)[:k]
    return part[np.lexsort((part, -z[part]))]


def match_program(
    papers: Sequence[tuple[str, str]],
    entries: Sequence[ProgramEntry],
    library_index: MemoryBM25,
    paper_vectors: np.ndarray | None = None,
    title_vectors: np.ndarray | None = None,
    thresholds: tuple[float, float] | None = None,
    evidence_floor: float | None = None,
    matcher: str = MATCHERS[0],
    floor: float | None = None,
) -> MatchResult:
    """Match title-less papers to program entries with ``matcher``; see the module docstring.

    Args:
        papers: ``(paper_id, clean_text)`` of the papers to find titles for (every one must be
            a row of ``library_index``).
        entries: the program entries that may be attached (those already in the library left out).
        library_index: BM25 over every paper of the library (title and clean text), leg B's scorer.
        paper_vectors: float32 (n_papers, dim), L2-normalised rows in ``papers`` order, or None.
        title_vectors: float32 (n_entries, dim), L2-normalised, the entries' title embeddings, or
            None. Both given: leg A is fused (mode ``"hybrid"``), else BM25 alone.
        thresholds: (leg A margin, leg B margin); None: :data:`THRESHOLDS` of the mode (margins).
        evidence_floor: the evidence an attached pair needs; None: :data:`EVIDENCE_FLOOR` of the
            mode (margins).
        matcher: one of :data:`MATCHERS`; ``"assignment"`` on a program of fewer than
            :data:`ASSIGNMENT_MIN_ENTRIES` entries runs ``"margins"`` (the result says which ran).
        floor: the pair probability an attached pair needs; None: the model's (assignment).

    Returns:
        A :class:`MatchResult`.

    Raises:
        ValueError: ``matcher`` is not one of :data:`MATCHERS`.
        ModelUnavailable: the assignment's bundled pair model lacks the mode.

    """
    if matcher not in MATCHERS:
        raise ValueError(f"unknown matcher {matcher!r}; choose one of: {', '.join(MATCHERS)}")
    if matcher == "assignment" and len(entries) >= ASSIGNMENT_MIN_ENTRIES:
        from .assign import match_assignment

        return match_assignment(papers, entries, library_index, paper_vectors, title_vectors, floor)
    hybrid = paper_vectors is not None and title_vectors is not None and len(entries) > 0
    mode = "hybrid" if hybrid else "bm25"
    result = MatchResult(mode=mode)
    if not papers or not entries:
        return result
    tau_a, tau_b = thresholds if thresholds is not None else THRESHOLDS[mode]
    floor = EVIDENCE_FLOOR[mode] if evidence_floor is None else evidence_floor
    title_terms = [query_terms(entry.title, stem=False) for entry in entries]
    # Leg B: each title against the whole library.
    row_of = library_index.row_of
    wanted = {row_of[pid]: pid for pid, _ in papers}
    b_first: dict[int, tuple[int, float]] = {}  # entry → (library row of its first, margin)
    b_lists: dict[str, list[tuple[int, int, float]]] = {}  # paper → [(entry, rank, z)]
    b_floor = np.zeros(len(entries), dtype=np.float32)  # z of each entry's last kept rank
    for e, terms in enumerate(title_terms):
        z = _z(bm25_scores(library_index, terms))
        top = _top(z, _TOP)
        if top.size == 0:
            continue
        b_first[e] = (int(top[0]), float(z[top[0]] - z[top[1]]) if top.size > 1 else float(z[top[0]]))
        b_floor[e] = float(z[top[-1]])
        for rank, row in enumerate(top.tolist(), start=1):
            pid = wanted.get(row)
            if pid is not None:
                b_lists.setdefault(pid, []).append((e, rank, float(z[row])))
    # Leg A: each abstract against the program's titles.
    title_index = MemoryBM25.build(
        ((str(i), None, e.title) for i, e in enumerate(entries)), title_weight=1.0, stem=False
    )
    for i, (pid, text) in enumerate(papers):
        query, weights = abstract_query(text)
        z = _z(bm25_scores(title_index, query, weights))
        abstract_terms = set(query)
        if hybrid:
            # The mean, not the sum: a z-score scale, so the BM25 thresholds keep their meaning.
            z = (z + _z(title_vectors @ paper_vectors[i])) / 2  # type: ignore[operator,index]
        top = _top(z, _TOP)
        if top.size == 0:
            continue
        b_of = {e: (rank, bz) for e, rank, bz in b_lists.get(pid, [])}
        candidates = dict.fromkeys([*top.tolist(), *b_of])
        pairings = []
        a_rank = {int(e): r for r, e in enumerate(top.tolist(), start=1)}
        for e in candidates:
            b_rank, bz = b_of.get(e, (0, float(b_floor[e])))
            evidence = title_evidence(title_terms[e], abstract_terms, title_index)
            if evidence > 0:  # a suggestion needs positive evidence
                pairings.append(
                    Pairing(
                        pid, int(e), (float(z[e]) + bz) / 2, a_rank.get(int(e), 0), b_rank, evidence=evidence
                    )
                )
        if not pairings:
            continue
        pairings.sort(key=lambda p: (-p.score, p.entry))
        result.ranked[pid] = pairings[:SUGGESTIONS]
        first = int(top[0])
        agreed = next((p for p in pairings if p.entry == first and p.b_rank == 1), None)
        # The paper's own best entry by leg B's z-scores must be the same one: in a small library
        # one paper is often the first of several titles (its own and a similar one).
        b_best = max(b_of, key=lambda e: (b_of[e][1], -e)) if b_of else None
        if agreed is not None and b_best == first and b_first.get(first, (-1, 0.0))[0] == row_of[pid]:
            agreed.a_margin = float(z[top[0]] - z[top[1]]) if top.size > 1 else float(z[top[0]])
            agreed.b_margin = b_first[first][1]
            result.agreed.append(agreed)
            if agreed.a_margin >= tau_a and agreed.b_margin >= tau_b and agreed.evidence >= floor:
                result.attached.append(agreed)
    result.attached.sort(key=lambda p: (-p.score, p.paper_id))
    return result
