"""Recommendations that learn from keeps and rejects: a weighted linear model over TF-IDF + embeddings.

arxiv-sanity-lite (Karpathy) ranks by an exemplar linear SVM per tag on TF-IDF: the tagged papers
are the positives and every other paper a negative. Here the same linear SVM (scikit-learn's
``LinearSVC``) is extended in three ways:

- features are the TF-IDF vector of title + clean abstract (``TfidfVectorizer`` fitted on the
  library, rows L2-normalised) next to the paper embedding *smoothed over the library*: each
  embedding plus the cosine-weighted mean of its :data:`NEIGHBOURS` nearest papers', renormalised
  (one step of feature propagation, as in SGC, Wu et al. 2019), stacked side by side
  (``scipy.sparse.hstack``);
- negatives are of two kinds: the papers the user rejected, with full weight, and every unlabelled
  paper as a weak negative (:data:`UNLABELLED_WEIGHT`), so a reject pushes the papers like it down
  while the bulk of the library still defines what is ordinary;
- the SVM's decision values are then propagated one hop on the same neighbour graph: a paper's
  score plus :data:`PROPAGATE` times the mean score of its neighbours, so a paper whose
  neighbours the model likes rises (a transductive step over the library; the graph is the
  symmetrised kNN graph of the embeddings, cosine-weighted, rows summing to 1).

Each recommendation is explained by its top contributing terms (TF-IDF weight × value, highest
first) and the positives it is closest to (cosine of the embeddings).

"Papers like mine" (:func:`rank_like`) ranks the library by similarity to outside papers,
reviewer-affinity style (as in the Toronto Paper Matching System): the cosine of each library paper
to each of the user's papers, in the same stacked feature space (their embeddings smoothed with
their library neighbours), averaged over the user's papers and propagated one hop like the SVM's
scores.

Where the method and constants come from: the ICLR 2026 simulated reader (bench/recommend.py,
precision@20, 12 areas) on dev seeds 100-104 and 105-114, never the bench's own 0-4. On seeds
100-104 the plain stacked SVM scored 0.688 (baseline 0.620); smoothing the embeddings 0.706;
smoothing and propagating the scores 0.709-0.713 (row-normalised or symmetric graph, weight 0.5-1);
on seeds 105-114 0.674 → 0.715 (baseline 0.633). What did not help there: dense weight 0.5/1.5/2
(0.677/0.669/0.645), C 0.05/0.2/0.5 (0.688/0.684/0.663), unlabelled weight 0.01/0.05
(0.684/0.674), reject weight 0.3/3 (0.688/0.683), logistic regression (0.686), bigrams or
max_df 0.1 (0.679/0.677), label propagation from positives minus rejects fused by z-score
(0.658-0.684), a second round with the top 20 as weak positives (0.691, twice the time), rank
fusion of a TF-IDF and a dense SVM (0.686), 200 LSA dimensions (0.701 but 9 s of SVD). For papers
like mine (5 of one area, seeds 100-104) the mean scored 0.585 and the max 0.539; with the smoothed
features and propagation the mean 0.654, the max 0.554; on mixed lists (3 papers of one area and 2
of another) the mean still won (0.608 against 0.564) and gave the smaller interest no fewer places
(24 % of the top 20 against 22 %), so the mean replaces the max.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "Features",
    "Recommendation",
    "build_features",
    "neighbour_graph",
    "rank_with_feedback",
    "rank_like",
]

#: Weight of the embedding block against the TF-IDF block (both blocks have unit-norm rows).
DENSE_WEIGHT = 1.0
#: SVM regularisation on the stacked features. C and the weights below were chosen on the ICLR 2026
#: simulated reader (bench/recommend.py, seeds 100-102, not the bench's own 0-4): C 0.1 with an
#: unlabelled weight of 0.02 gave precision@20 0.661 against 0.618 for C 0.5 / 0.05, a dense
#: weight of 3 lost 0.05, and larger C lost more; rechecked with the graph on seeds 100-104 (see
#: the module docstring).
SVM_C = 0.1
#: Sample weight of an unlabelled paper, a weak negative (a positive or a reject weighs 1).
UNLABELLED_WEIGHT = 0.02
#: Neighbours per paper in the embedding graph (features smoothed over it, scores propagated on it):
#: 10 scored 0.706 on seeds 100-104 with smoothing alone, 5 0.702, 20 0.701.
NEIGHBOURS = 10
#: Weight of the neighbours' mean score added to a paper's own score: 1 scored 0.709 and 0.715
#: (seeds 100-104, 105-114), 0.5 0.711 and 0.715, 2 0.706.
PROPAGATE = 1.0
#: Rows one fit uses at most: every positive and reject, and a seeded random sample of the
#: unlabelled papers (their weight scaled up so they weigh as much in all as every unlabelled
#: paper would). A conference (the bench's 4,302 papers) fits on all rows; on the 21,490 papers
#: of ../shared/data a fit on all rows took 3.6 s (primal solver) or 0.9 s (dual), on 4,000
#: sampled rows 0.13 s with 48 of the same top 50 (measured 2026-12-01, 2 cores).
MAX_FIT_ROWS = 6000
#: Terms and close positives listed per recommendation.
TOP_TERMS = 5
TOP_LIKE = 2


@dataclass
class Features:
    """The library's stacked features for recommendations.

    ``matrix`` (scipy CSR, n_papers × (n_terms + dim)), ``vectorizer`` (fitted on the library),
    ``terms`` (its vocabulary by column) and ``dense`` (the embeddings, for the closest positives).
    """

    matrix: Any
    vectorizer: Any
    terms: np.ndarray
    dense: np.ndarray
    graph: Any = None

    def transform(self, texts: list[str], dense: np.ndarray) -> Any:
        """Return the stacked features of outside texts (``dense``: their unit-norm embeddings).

        Their embeddings are smoothed with their library neighbours as the library's own are.
        """
        from scipy import sparse

        outside = np.asarray(dense, dtype=np.float32)
        weights = _neighbour_weights(outside, self.dense, exclude_self=False)
        return sparse.hstack(
            [self.vectorizer.transform(texts), sparse.csr_matrix(_smooth(outside, weights @ self.dense))],
            format="csr",
        )


@dataclass
class Recommendation:
    """One ranked row of the library.

    ``score`` (higher is better), ``terms`` (top contributing TF-IDF terms) and ``like`` (rows of
    the closest positives, or indices of the user's papers for :func:`rank_like`, closest first).
    """

    row: int
    score: float
    terms: list[str]
    like: list[int]


def build_features(texts: list[str], dense: np.ndarray, graph: Any = None) -> Features:
    """Fit TF-IDF on ``texts`` (title + clean abstract per paper) and stack it with ``dense``.

    Args:
        texts: one text per paper, in the order of the rows of ``dense``.
        dense: float32, shape (n_papers, dim), rows L2-normalised.
        graph: the neighbour graph of ``dense`` (:func:`neighbour_graph`) when already built (a
            cache file); None builds it (24 s at 21,490 papers on 2 loaded cores, 1.6 s at 4,302).

    Words only: on the 4,302 ICLR 2026 abstracts the fit takes 0.7 s (2 shared cores) and gives
    the bench's precision@20 0.660, against 3.0 s and 0.661 with bigrams too. The neighbour graph
    (:data:`NEIGHBOURS` per paper, cosines in blocks of 1,024 rows) adds 1.6 s there at a load
    of 8 on 2 cores. Fit once per library and reuse (``Library`` caches it per process).
    """
    from scipy import sparse
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(
        stop_words="english", sublinear_tf=True, min_df=2, max_df=0.5, ngram_range=(1, 1), max_features=50000
    )
    try:
        tfidf = vectorizer.fit_transform(texts)
    except ValueError:  # too few documents for min_df/max_df: keep every word
        vectorizer = TfidfVectorizer(sublinear_tf=True)
        tfidf = vectorizer.fit_transform(texts)
    dense = np.asarray(dense, dtype=np.float32)
    graph = neighbour_graph(dense) if graph is None else graph
    matrix = sparse.hstack([tfidf, sparse.csr_matrix(_smooth(dense, graph @ dense))], format="csr")
    return Features(matrix, vectorizer, vectorizer.get_feature_names_out(), dense, graph)


def _smooth(dense: np.ndarray, neighbours: np.ndarray) -> np.ndarray:
    """Each embedding plus the mean of its neighbours', renormalised, times :data:`DENSE_WEIGHT`."""
    from sklearn.preprocessing import normalize

    return normalize(np.asarray(dense + neighbours, dtype=np.float32)) * DENSE_WEIGHT


def _neighbour_weights(rows: np.ndarray, library: np.ndarray, exclude_self: bool) -> Any:
    """Sparse (len(rows), len(library)): each row's :data:`NEIGHBOURS` nearest library rows by cosine.

    Weights are the cosines (negative ones dropped), each row summing to 1 (a row with no
    positive cosine stays zero). ``exclude_self``: ``rows`` is ``library`` and a row is not its own
    neighbour.
    """
    from scipy import sparse

    n, m = len(rows), len(library)
    k = min(NEIGHBOURS, m - 1 if exclude_self else m)
    if k <= 0 or n == 0:
        return sparse.csr_matrix((n, m), dtype=np.float32)
    cols, vals = [], []
    for start in range(0, n, 1024):  # blocks of 1,024 rows: 16 MB of cosines at a time for 4,302 papers
        sims = rows[start : start + 1024] @ library.T
        if exclude_self:
            sims[np.arange(len(sims)), np.arange(start, start + len(sims))] = -np.inf
        top = np.argpartition(sims, -k, axis=1)[:, -k:]
        cols.append(top)
        vals.append(np.maximum(np.take_along_axis(sims, top, axis=1), 0))
    g = sparse.csr_matrix(
        (np.concatenate(vals).ravel(), (np.repeat(np.arange(n), k), np.concatenate(cols).ravel())),
        shape=(n, m),
    )
    if exclude_self:
        g = g.maximum(g.T)  # symmetric: a neighbour's neighbour list counts too
    total = np.asarray(g.sum(axis=1)).ravel()
    total[total == 0] = 1.0
    return (sparse.diags(1.0 / total) @ g).tocsr().astype(np.float32)


def neighbour_graph(dense: np.ndarray) -> Any:
    """The library's row-stochastic kNN graph on the embeddings (see :func:`_neighbour_weights`)."""
    return _neighbour_weights(dense, dense, exclude_self=True)


def rank_with_feedback(
    features: Features,
    positive_rows: list[int],
    negative_rows: list[int],
    limit: int,
    exclude_rows: list[int] | tuple[int, ...] = (),
) -> list[Recommendation]:
    """Rank the rows that are neither positive, negative nor excluded by a weighted linear SVM.

    The SVM's decision values are propagated one hop on the neighbour graph before ranking
    (``Recommendation.score`` is the propagated value).

    Args:
        features: from :func:`build_features`.
        positive_rows: the kept / starred / tagged papers (at least one).
        negative_rows: the rejected papers (may be empty); a row in both counts as positive.
        limit: how many rows to return.
        exclude_rows: further rows not to return (e.g. papers already triaged).

    Returns:
        Up to ``limit`` :class:`Recommendation`, best first.

    Raises:
        ValueError: ``positive_rows`` is empty or nothing is left to rank.
    """
    positives = sorted(set(positive_rows))
    if not positives:
        raise ValueError("no positive papers: star, keep or tag some papers first")
    negatives = sorted(set(negative_rows) - set(positives))
    n = features.matrix.shape[0]
    labels = np.zeros(n, dtype=np.int8)
    labels[positives] = 1
    weights = np.full(n, UNLABELLED_WEIGHT, dtype=np.float64)
    weights[negatives] = 1.0
    # balance: the positives together weigh as much as all negatives together
    weights[positives] = (
        max(1.0, (weights.sum() - len(positives)) / len(positives)) if n > len(positives) else 1.0
    )
    if n == len(positives):
        raise ValueError("every paper is already marked: nothing left to recommend")
    from sklearn.svm import LinearSVC  # imported here: sklearn costs ~1.8 s of start-up per command

    rows = _fit_rows(n, positives, negatives, weights)
    # dual: n_samples may exceed n_features in a large library, where "auto" picks the 3x slower primal
    svm = LinearSVC(C=SVM_C, max_iter=10000, tol=1e-4, random_state=0, dual=True)
    svm.fit(features.matrix[rows], labels[rows], sample_weight=weights[rows])
    scores = _propagate(features, np.asarray(svm.decision_function(features.matrix), dtype=np.float64))
    scores[positives] = -np.inf
    scores[negatives] = -np.inf
    scores[list(exclude_rows)] = -np.inf
    left = int(np.isfinite(scores).sum())
    if left == 0:
        raise ValueError("every paper is already marked: nothing left to recommend")
    order = np.argsort(-scores, kind="stable")[: min(limit, left)]
    coef = svm.coef_.ravel()[: len(features.terms)]
    return [
        Recommendation(int(row), float(scores[row]), _top_terms(features, coef, int(row)), like)
        for row, like in zip(order, _closest(features.dense, order, positives), strict=True)
    ]


def _fit_rows(n: int, positives: list[int], negatives: list[int], weights: np.ndarray) -> np.ndarray:
    """Rows to fit on (at most :data:`MAX_FIT_ROWS`); scales the sampled unlabelled weights in place."""
    if n <= MAX_FIT_ROWS:
        return np.arange(n)
    labelled = np.zeros(n, dtype=bool)
    labelled[positives] = True
    labelled[negatives] = True
    unlabelled = np.flatnonzero(~labelled)
    take = max(MAX_FIT_ROWS - int(labelled.sum()), 1)
    if take >= len(unlabelled):
        return np.arange(n)
    sample = np.random.default_rng(0).choice(unlabelled, size=take, replace=False)
    weights[sample] *= len(unlabelled) / take
    return np.sort(np.concatenate([np.flatnonzero(labelled), sample]))


def rank_like(features: Features, mine: Any, limit: int) -> list[Recommendation]:
    """Rank every library row by its mean cosine to the user's papers (``mine``), propagated one hop.

    The score is the mean cosine plus :data:`PROPAGATE` times its mean over the paper's
    neighbours (see the module docstring for why the mean and not the max).

    Args:
        features: from :func:`build_features` (the library's).
        mine: the user's papers in the same space (:meth:`Features.transform`), at least one row.
        limit: how many rows to return.

    Returns:
        Up to ``limit`` :class:`Recommendation`; ``like`` holds indices into ``mine`` (closest first).
    """
    from sklearn.preprocessing import normalize

    lib = normalize(features.matrix)
    own = normalize(mine)
    sims = np.asarray((lib @ own.T).todense(), dtype=np.float64)  # (n_papers, n_mine)
    scores = _propagate(features, sims.mean(axis=1))
    order = np.argsort(-scores, kind="stable")[: min(limit, len(scores))]
    n_terms = len(features.terms)
    out = []
    for row in order:
        like = [int(j) for j in np.argsort(-sims[row], kind="stable")[:TOP_LIKE]]
        shared = lib[row, :n_terms].multiply(own[like[0], :n_terms]).tocoo()
        top = shared.col[np.argsort(-shared.data, kind="stable")[:TOP_TERMS]]
        out.append(Recommendation(int(row), float(scores[row]), [str(features.terms[c]) for c in top], like))
    return out


def _propagate(features: Features, scores: np.ndarray) -> np.ndarray:
    """Scores plus :data:`PROPAGATE` times the mean score of each paper's neighbours (one hop)."""
    if features.graph is None:
        return scores
    return scores + PROPAGATE * np.asarray(features.graph @ scores, dtype=np.float64)


def _top_terms(features: Features, coef: np.ndarray, row: int) -> list[str]:
    """The row's terms with the largest positive contribution (weight × TF-IDF value)."""
    vec = features.matrix[row, : len(features.terms)].tocoo()
    contrib = coef[vec.col] * vec.data
    best = np.argsort(-contrib, kind="stable")[:TOP_TERMS]
    return [str(features.terms[vec.col[i]]) for i in best if contrib[i] > 0]


def _closest(dense: np.ndarray, rows: np.ndarray, positives: list[int]) -> list[list[int]]:
    """For each row, the positives closest to it by embedding cosine (closest first)."""
    sims = dense[rows] @ dense[positives].T
    return [[positives[int(j)] for j in np.argsort(-s, kind="stable")[:TOP_LIKE]] for s in sims]
