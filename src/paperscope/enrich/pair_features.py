"""Candidate (paper, entry) pairs and their feature rows, what the learned pair score reads.

Three score matrices over every title-less paper and every program entry, each of shape
(n_papers, n_entries):

* **leg A** (paper → entry): BM25 of the paper's abstract (:func:`.match.abstract_query`) over
  the program's titles, z-scored over the entries of each paper's row;
* **leg B** (entry → paper): BM25 of the entry's title over the whole library (title and clean
  text, titled papers too), z-scored over every library paper of the entry's ranking; only the
  title-less papers' columns are kept, with each entry's first and second z over the library;
* **dense** (with vectors): the cosine of the paper's vector and the title's embedding,
  z-scored over the entries of each row.

A pair is a candidate when it is in the first :data:`CANDIDATES` of the paper's leg A or dense
ranking or the first :data:`CANDIDATES` of the entry's leg B ranking. Its features
(:data:`FEATURES`, dense ones :data:`DENSE_FEATURES` added in hybrid mode) are the z-scores, the
**gaps** (the pair's z minus the best z of any *other* entry for the paper, or of any other
paper for the entry: positive only for a clear first, a margin), their minimum and whether all
are positive (issue 15's agreement, which a linear score cannot form from the gaps), the
log-ranks, and lexical
evidence that does not depend on the rest of the program: :func:`.match.title_evidence` (IDF
share of the title's terms in the abstract), the plain share of those terms, whether the
title's name (the head before a colon, or its coined tokens such as ``scDEBART``) and the
abstract's defined short forms (``(MDD)``) are found on the other side, and the title's length.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..index.bm25 import MemoryBM25, query_terms
from ..text import fold, tokenize
from .program import ProgramEntry

__all__ = ["FEATURES", "DENSE_FEATURES", "CANDIDATES", "PairSet", "pair_features", "features_of"]

#: Ranks kept per leg and side to propose candidates. On the ICLR 2026 set (BM25 legs, closed
#: world) the right entry is within the first 10 of leg A or leg B for all but about 1% of
#: papers (and those have no feature that could win them anyway).
CANDIDATES = 10
#: Ranks beyond this read as this one in the log-rank features (a far rank says "not close").
_RANK_CAP = 50

FEATURES: tuple[str, ...] = (
    "a_z",
    "a_gap",
    "a_col_gap",
    "a_log_rank",
    "b_z",
    "b_gap",
    "b_row_gap",
    "b_log_rank",
    "evidence",
    "term_share",
    "has_name",
    "name_found",
    "acronym_found",
    "missing_idf_max",
    "missing_idf_sum",
    "title_log_terms",
    "min_gap",
    "agreed",
    "agreed_evidence",
)
DENSE_FEATURES: tuple[str, ...] = (
    *FEATURES,
    "d_cos",
    "d_z",
    "d_gap",
    "d_col_gap",
    "d_log_rank",
    "min_gap_dense",
)
#: Columns of :data:`FEATURES` computed per pair from the title and the abstract alone.
_LEXICAL = 8

_COLON_RE = re.compile(r"^([^:]{1,60}):\s")


def features_of(mode: str) -> tuple[str, ...]:
    """Return the feature names of ``mode`` (``"bm25"`` or ``"hybrid"``)."""
    return DENSE_FEATURES if mode == "hybrid" else FEATURES


@dataclass
class PairSet:
    """The candidate pairs of one matching problem.

    Attributes:
        mode: ``"bm25"`` or ``"hybrid"``.
        paper: int64, shape (n_pairs,): index into the papers matched.
        entry: int64, shape (n_pairs,): index into the entries.
        x: float64, shape (n_pairs, n_features): the rows, columns :func:`features_of` ``mode``.
        a_rank, b_rank: int64, shape (n_pairs,): 1-based rank of the entry in the paper's leg A
            ranking and of the paper in the entry's leg B ranking (capped at ``_RANK_CAP``).
        evidence: float64, shape (n_pairs,): :func:`.match.title_evidence`.

    """

    mode: str
    paper: np.ndarray
    entry: np.ndarray
    x: np.ndarray
    a_rank: np.ndarray
    b_rank: np.ndarray
    evidence: np.ndarray


def _z_rows(m: np.ndarray) -> np.ndarray:
    """Z-score each row of ``m`` (a constant row gives zeros)."""
    std = m.std(axis=1, keepdims=True)
    return ((m - m.mean(axis=1, keepdims=True)) / np.where(std > 1e-12, std, 1.0)).astype(np.float32)


def _first_two(m: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the largest and second largest value along ``axis`` (the second is -inf when only one)."""
    if m.shape[axis] < 2:
        first = m.max(axis=axis)
        return first, np.full_like(first, -np.inf)
    part = -np.partition(-m, 1, axis=axis)
    return np.take(part, 0, axis=axis), np.take(part, 1, axis=axis)


def _gap(m: np.ndarray, axis: int) -> np.ndarray:
    """Return each value minus the best *other* value along ``axis`` (a margin for the first)."""
    first, second = _first_two(m, axis)
    first, second = np.expand_dims(first, axis), np.expand_dims(second, axis)
    other = np.where(m >= first, second, first)
    return np.where(np.isfinite(other), m - other, m)


def _ranks(m: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Return the 1-based rank of ``m[rows, cols]`` within its row (ties count for the pair), capped."""
    out = np.empty(len(rows), dtype=np.int64)
    for r in np.unique(rows).tolist():
        at = np.flatnonzero(rows == r)
        row = m[r]
        out[at] = 1 + (row[None, :] > row[cols[at]][:, None]).sum(axis=1)
    return np.minimum(out, _RANK_CAP)


def _top_k(m: np.ndarray, k: int, axis: int) -> np.ndarray:
    """Return a boolean mask of the ``k`` largest values along ``axis``."""
    k = min(k, m.shape[axis])
    idx = np.argpartition(-m, k - 1, axis=axis)
    idx = idx[:k] if axis == 0 else idx[:, :k]
    mask = np.zeros(m.shape, dtype=bool)
    np.put_along_axis(mask, idx, True, axis=axis)
    return mask


def _is_coined(word: str) -> bool:
    """Return whether ``word`` is shaped like a coined name: a part (between hyphens) with a digit or an inner capital."""
    return any(
        any(c.isdigit() for c in part) or any(c.isupper() for c in part[1:]) for part in word.split("-")
    )


def _name_tokens(title: str) -> list[str]:
    """Return the tokens of the title's name: a one-word head before a colon, and its coined words."""
    head = _COLON_RE.match(title)
    words = [w for w in title.split() if _is_coined(w)]
    if head and len(head.group(1).split()) == 1:
        words.append(head.group(1))
    return sorted({t for t in tokenize(fold(" ".join(words))) if not t.isdigit()})


def _lexical(
    title: str, title_terms: Sequence[str], abstract_tokens: set[str], short_forms: set[str], idf: MemoryBM25
) -> tuple[float, ...]:
    """Return the lexical features (``FEATURES[8:16]``) of one pair.

    ``idf`` is the program titles' index: the missing terms' IDF is over the titles.
    """
    from .match import title_evidence

    evidence = title_evidence(title_terms, abstract_tokens, idf)
    share = sum(t in abstract_tokens for t in title_terms) / len(title_terms) if title_terms else 0.0
    name = _name_tokens(title)
    found = sum(t in abstract_tokens for t in name) / len(name) if name else 0.0
    title_tokens = set(tokenize(fold(title)))
    acronym = float(any(s in title_tokens for s in short_forms))
    vocabulary = idf.vocabulary
    missing = [
        float(idf.idf[vocabulary[t]]) for t in title_terms if t not in abstract_tokens and t in vocabulary
    ]
    return (
        evidence,
        share,
        float(bool(name)),
        found,
        acronym,
        max(missing, default=0.0),
        sum(missing),
        math.log1p(len(title_terms)),
    )


def pair_features(
    papers: Sequence[tuple[str, str]],
    entries: Sequence[ProgramEntry],
    library_index: MemoryBM25,
    paper_vectors: np.ndarray | None = None,
    title_vectors: np.ndarray | None = None,
) -> PairSet:
    """Return the candidate pairs of ``papers`` x ``entries`` with their feature rows.

    Args:
        papers: ``(paper_id, clean_text)`` of the title-less papers (each a row of ``library_index``).
        entries: the program entries that may be attached.
        library_index: BM25 over every paper of the library (title and clean text), leg B's scorer.
        paper_vectors: float32 (n_papers, dim), L2-normalised rows in ``papers`` order, or None.
        title_vectors: float32 (n_entries, dim), L2-normalised, or None. Both given: hybrid mode.

    Returns:
        A :class:`PairSet` (empty arrays when either side is empty).
    """
    from ..extract.methods import defined_short_forms
    from .match import abstract_query, bm25_scores

    hybrid = paper_vectors is not None and title_vectors is not None
    mode = "hybrid" if hybrid else "bm25"
    n_p, n_e = len(papers), len(entries)
    width = len(features_of(mode))
    if n_p == 0 or n_e == 0:
        empty = np.zeros(0, dtype=np.int64)
        return PairSet(mode, empty, empty, np.zeros((0, width)), empty, empty, np.zeros(0))
    title_terms = [query_terms(e.title, stem=False) for e in entries]
    title_index = MemoryBM25.build(
        ((str(i), None, e.title) for i, e in enumerate(entries)), title_weight=1.0, stem=False
    )
    # Leg A: each abstract against the titles.
    queries = [abstract_query(text) for _, text in papers]
    a = _z_rows(np.vstack([bm25_scores(title_index, q, w) for q, w in queries]))
    # Leg B: each title against the whole library; keep the title-less papers' columns, and
    # each entry's best two z over the library (titled papers compete there too).
    cols = np.array([library_index.row_of[pid] for pid, _ in papers], dtype=np.int64)
    b = np.empty((n_e, n_p), dtype=np.float32)
    b_first = np.empty(n_e, dtype=np.float32)
    b_second = np.empty(n_e, dtype=np.float32)
    b_rank_all = np.empty((n_e, n_p), dtype=np.int64)
    for e, terms in enumerate(title_terms):
        scores = bm25_scores(library_index, terms)
        std = float(scores.std())
        z = (scores - float(scores.mean())) / std if std > 1e-12 else np.zeros_like(scores)
        top = np.sort(z[np.argpartition(-z, min(_RANK_CAP, z.size) - 1)[: min(_RANK_CAP, z.size)]])[::-1]
        b_first[e] = top[0]
        b_second[e] = top[1] if top.size > 1 else -np.inf
        b[e] = z[cols]
        b_rank_all[e] = np.minimum(1 + (top[None, :] > b[e][:, None]).sum(axis=1), _RANK_CAP)
    b = b.T  # (n_papers, n_entries)
    b_gap = b - np.where(b >= b_first[None, :], b_second[None, :], b_first[None, :])
    b_gap = np.where(np.isfinite(b_gap), b_gap, b)
    mask = _top_k(a, CANDIDATES, axis=1) | _top_k(b, CANDIDATES, axis=0)
    if hybrid:
        cos = (paper_vectors @ title_vectors.T).astype(np.float32)  # type: ignore[union-attr]
        d = _z_rows(cos)
        mask |= _top_k(d, CANDIDATES, axis=1)
    rows, ents = np.nonzero(mask)
    a_rank = _ranks(a, rows, ents)
    b_rank = b_rank_all.T[rows, ents]
    cols_out = [
        a[rows, ents],
        _gap(a, 1)[rows, ents],
        _gap(a, 0)[rows, ents],
        np.log(a_rank),
        b[rows, ents],
        b_gap[rows, ents],
        _gap(b, 1)[rows, ents],
        np.log(b_rank),
    ]
    abstract_tokens = [set(tokenize(fold(text))) for _, text in papers]
    short_forms = [{s for f in defined_short_forms(text) for s in tokenize(f)} for _, text in papers]
    lexical = np.array(
        [
            _lexical(entries[e].title, title_terms[e], abstract_tokens[p], short_forms[p], title_index)
            for p, e in zip(rows.tolist(), ents.tolist(), strict=True)
        ],
        dtype=np.float64,
    ).reshape(len(rows), _LEXICAL)
    cols_out += [lexical[:, k] for k in range(_LEXICAL)]
    min_gap = np.minimum(np.minimum(cols_out[1], cols_out[5]), cols_out[6])
    agreed = (min_gap > 0).astype(np.float64)
    cols_out += [min_gap, agreed, agreed * lexical[:, 0]]
    if hybrid:
        cols_out += [
            cos[rows, ents],
            d[rows, ents],
            _gap(d, 1)[rows, ents],
            _gap(d, 0)[rows, ents],
            np.log(_ranks(d, rows, ents)),
        ]
        cols_out.append(np.minimum(min_gap, cols_out[-3]))
    x = np.column_stack(cols_out).astype(np.float64)
    return PairSet(
        mode, rows.astype(np.int64), ents.astype(np.int64), x, a_rank, b_rank, lexical[:, 0].copy()
    )
