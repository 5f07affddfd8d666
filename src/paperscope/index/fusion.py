"""Rank fusion: combine the BM25 and dense result lists into one ranking.

Two families, both over per-leg lists of ``(paper_id, score)`` best first:

- :func:`fuse_rrf`, reciprocal rank fusion, ``sum_leg w_leg / (k + rank_leg)`` with k = 60
  (Cormack, Clarke & Büttcher, SIGIR 2009). Kept as the reference: on ICLR 2026 title→abstract
  it ranks below BM25 alone, because it ignores how far apart the scores are.
- :func:`fuse_scores`, a convex combination of normalised scores,
  ``sum_leg w_leg * norm_leg(score)`` (Bruch, Gai & Ingber, "An Analysis of Fusion Functions
  for Hybrid Retrieval", ACM TOIS 2023). The default normalisation is their TM2C2
  "theoretical min-max": ``(s - m) / (max_observed - m)`` with the leg's theoretical minimum
  m (0 for BM25, -1 for cosine), which keeps a strong leg's margins instead of stretching the
  weakest candidate to 0 as plain min-max does.

The weights of the default fusion (:data:`DEFAULT_FUSION`) were chosen on training queries only
(SciFact train qrels and a fixed quarter of the ICLR 2026 titles); see
``paperscope.evaluation.fusion_tuning``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Fusion", "DEFAULT_FUSION", "RRF_K", "THEORETICAL_MIN", "fuse_rrf", "fuse_scores", "NORMALISERS"]

#: RRF's rank offset k = 60 (Cormack et al., 2009).
RRF_K = 60
#: The lowest score each leg can give: BM25 is non-negative, cosine is at least -1.
THEORETICAL_MIN: dict[str, float] = {"bm25": 0.0, "dense": -1.0}

Ranked = Sequence[tuple[str, float]]


@dataclass(frozen=True)
class Fusion:
    """How hybrid search combines its legs.

    Attributes:
        method: ``"convex"`` (normalised scores, weighted sum) or ``"rrf"``.
        normaliser: for ``"convex"``: ``"tm2c2"``, ``"minmax"`` or ``"zscore"`` (see NORMALISERS).
        weights: leg name → weight; a leg that is missing counts 0.
        glossed_weights: weights for a query that was glossed into English (a Chinese query
            and an English-only model), whose BM25 terms are dictionary senses, not the
            user's words; None means ``weights``.
        candidates: how many hits each leg contributes before fusion (at least the asked limit).
        weights_long: weights for a query of ``length_knots[1]`` terms or more (a pasted
            paragraph); None means ``weights`` at every length. Between the knots the weights
            move from ``weights`` to these linearly in log(terms).
        length_knots: ``(short, long)`` distinct query terms: ``weights`` up to ``short``,
            ``weights_long`` from ``long``.
    """

    method: str = "convex"
    normaliser: str = "tm2c2"
    weights: Mapping[str, float] = field(default_factory=lambda: {"bm25": 0.5, "dense": 0.5})
    glossed_weights: Mapping[str, float] | None = None
    candidates: int = 100
    weights_long: Mapping[str, float] | None = None
    length_knots: tuple[int, int] = (4, 32)

    def weights_for(self, n_terms: int, glossed: bool = False) -> Mapping[str, float]:
        """Return the leg weights for a query of ``n_terms`` distinct terms (glossed: a Chinese query).

        ``weights`` up to ``length_knots[0]`` terms, ``weights_long`` from ``length_knots[1]``,
        interpolated linearly in log(terms) between (a query's length is the cheapest signal of
        its kind: titles and keywords are short, statements longer, abstracts long).
        """
        if glossed and self.glossed_weights:
            return self.glossed_weights
        if self.weights_long is None or n_terms <= self.length_knots[0]:
            return self.weights
        if n_terms >= self.length_knots[1]:
            return self.weights_long
        lo, hi = (math.log(k) for k in self.length_knots)
        t = (math.log(n_terms) - lo) / (hi - lo)
        legs = set(self.weights) | set(self.weights_long)
        return {
            leg: (1 - t) * self.weights.get(leg, 0.0) + t * self.weights_long.get(leg, 0.0) for leg in legs
        }


def _tm2c2(scores: np.ndarray, leg: str) -> tuple[np.ndarray, float]:
    low = THEORETICAL_MIN.get(leg, float(scores.min()))
    span = float(scores.max()) - low
    if span <= 0:
        return np.ones_like(scores), 0.0
    return (scores - low) / span, 0.0


def _minmax(scores: np.ndarray, leg: str) -> tuple[np.ndarray, float]:
    span = float(scores.max() - scores.min())
    if span <= 0:
        return np.ones_like(scores), 0.0
    return (scores - scores.min()) / span, 0.0


def _zscore(scores: np.ndarray, leg: str) -> tuple[np.ndarray, float]:
    std = float(scores.std())
    if std <= 0:
        return np.zeros_like(scores), -3.0
    z = (scores - scores.mean()) / std
    # An unseen paper scored below every listed one: put it at the list's floor.
    return z, float(z.min())


#: Normaliser name → function(scores, leg) -> (normalised scores, value for an unlisted paper).
NORMALISERS = {"tm2c2": _tm2c2, "minmax": _minmax, "zscore": _zscore}

#: The hybrid fusion used by default: TM2C2 convex combination, weights tuned on training queries
#: only. Issue 11 chose dense 0.75 for short English queries (grid of 3 normalisers x dense weight
#: 0..1 step 0.05, MiniLM int8; mean of SciFact / ICLR-title / ICLR-keywords training queries
#: 0.808 against 0.770 for BM25 alone and 0.705 for dense alone). Issue 24 made the weights
#: follow the query's length (a pasted abstract is not a keyword query) and retuned them on the
#: stemmed BM25 leg with 128-term queries (``python -m paperscope.evaluation.fusion_tuning``:
#: TM2C2 and z-score x short and long dense weight 0.20..1.00 x knots (4,16) .. (16,64) x
#: glossed dense weight; objective the mean over five English families of training queries,
#: every family at or above its best leg). Training figures, flat 0.75 -> chosen: titles MRR@10
#: 0.960 -> 0.960, keywords nDCG@10 0.752 -> 0.753, SciFact nDCG@10 0.737 -> 0.738, abstract
#: -> title recall@1 0.820 -> 0.845, method sentences nDCG@10 0.119 -> 0.122; glossed Chinese
#: MRR@10 0.715 at dense 0.85 -> 0.722 at 0.80. The landscape is flat (the best z-score row is
#: 0.0015 below); with stems BM25 alone is the stronger leg on abstracts (0.770 vs 0.685), so a
#: long query leans a little more on BM25, not less.
DEFAULT_FUSION = Fusion(
    method="convex",
    normaliser="tm2c2",
    weights={"bm25": 0.25, "dense": 0.75},
    weights_long={"bm25": 0.35, "dense": 0.65},
    length_knots=(8, 64),
    glossed_weights={"bm25": 0.2, "dense": 0.8},
)


def fuse_rrf(
    legs: Mapping[str, Ranked], weights: Mapping[str, float] | None = None, k: int = RRF_K
) -> list[tuple[str, float]]:
    """Return ``(paper_id, fused score)`` best first by weighted reciprocal rank fusion.

    ``score = sum over legs of weight / (k + rank)``, rank 1-based; ties broken by paper_id.
    """
    fused: dict[str, float] = {}
    for leg, ranked in legs.items():
        weight = 1.0 if weights is None else weights.get(leg, 0.0)
        for rank, (paper_id, _) in enumerate(ranked, start=1):
            fused[paper_id] = fused.get(paper_id, 0.0) + weight / (k + rank)
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


def fuse_scores(
    legs: Mapping[str, Ranked],
    weights: Mapping[str, float],
    normaliser: str = "tm2c2",
    floors: Mapping[str, float] | None = None,
) -> list[tuple[str, float]]:
    """Return ``(paper_id, fused score)`` best first by a weighted sum of normalised leg scores.

    Args:
        legs: leg name → ``(paper_id, raw score)`` best first.
        weights: leg name → weight.
        normaliser: a key of :data:`NORMALISERS`.
        floors: leg name → raw score to assume for a paper missing from that leg's list
            (e.g. the lowest listed BM25 score when the list was cut). Default: the
            normaliser's floor (0 for tm2c2/minmax).

    Raises:
        ValueError: ``normaliser`` is unknown.
    """
    if normaliser not in NORMALISERS:
        raise ValueError(
            f"unknown normaliser {normaliser!r}; choose one of: {', '.join(sorted(NORMALISERS))}"
        )
    normalise = NORMALISERS[normaliser]
    everyone = list(dict.fromkeys(paper_id for ranked in legs.values() for paper_id, _ in ranked))
    fused = dict.fromkeys(everyone, 0.0)
    for leg, ranked in legs.items():
        weight = weights.get(leg, 0.0)
        if not ranked or weight == 0:
            continue
        raw = np.array([score for _, score in ranked], dtype=np.float64)
        floor_raw = None if floors is None else floors.get(leg)
        if floor_raw is not None:
            normed, _ = normalise(np.append(raw, floor_raw), leg)
            normed, floor = normed[:-1], float(normed[-1])
        else:
            normed, floor = normalise(raw, leg)
        value_of = {paper_id: v for (paper_id, _), v in zip(ranked, normed.tolist(), strict=True)}
        for paper_id in everyone:
            fused[paper_id] += weight * value_of.get(paper_id, floor)
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))
