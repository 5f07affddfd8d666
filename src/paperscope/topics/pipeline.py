"""The topic pipeline: embeddings → reduce → cluster → outliers → broad topics → labels → 2D layout.

1. The exact cosine kNN graph (k = 15, UMAP's default) is built once and shared by all steps.
2. The reducer (UMAP to 5D, in numpy: :mod:`~paperscope.topics.manifold`) and the clusterer (HDBSCAN) find dense clusters; HDBSCAN leaves
   low-density papers out, and they are flagged (``is_outlier``).
3. Each outlier joins the cluster that wins a similarity-weighted vote of its neighbours
   (:func:`assign_outliers`); papers that no cluster can claim, and every paper of a library
   where HDBSCAN finds no cluster at all, form one explicit "Unassigned" group that is never
   named like a topic (cases 12 and 13 of the bug cases).
4. Broad topics: when there are more dense clusters than broad topics wanted (about 10–25,
   :func:`auto_n_topics`), k-means partitions the assigned papers in the 5D space; otherwise
   the dense clusters are the broad topics. k-means was chosen by measurement on ICLR 2026
   (bench/topics.py): NMI against the primary areas 0.29–0.30 and adjusted Rand 0.67–0.84
   between runs with and without 5% of the papers, against 0.27–0.29 and 0.58–0.68 when the
   HDBSCAN clusters are merged by Ward linkage instead.
5. Subtopics: the clusterer runs again inside each broad topic; outliers there join a
   subtopic by the same neighbour vote or stay directly under the broad topic.
6. c-TF-IDF over the papers' keyphrases names broad topics against each other and subtopics
   against their siblings.
7. The layout (UMAP to 2D) places papers on the map.

Every step is seeded and single-threaded where order matters, so the same embeddings and
settings give byte-identical assignments and coordinates (see ``tests/topics``).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError
from ..models import Topic
from ..progress import steps
from . import keyphrase_label  # noqa: F401 - registers the "keyphrases" labeller
from .cluster import (
    Clusterer,
    HDBSCANClusterer,
    KMeansClusterer,
    auto_min_cluster_size,
    canonical_labels,
    get_clusterer,
)
from .features import join_features, lsa_features
from .label import Labeller, get_labeller, name_topic
from .layout import Layout, get_layout, normalise_coordinates
from .reduce import Neighbours, Reducer, exact_neighbours, get_reducer

__all__ = [
    "TopicModel",
    "fit_topics",
    "assign_outliers",
    "auto_n_topics",
    "drop_loose_clusters",
    "UNASSIGNED_ID",
    "UNASSIGNED_NAME",
]

#: ``topic_id`` of the explicit group of papers that belong to no topic.
UNASSIGNED_ID = -1
#: Its name: a description, never key phrases, so it cannot pass for a real topic (case 13).
UNASSIGNED_NAME = "Unassigned (no clear topic)"

_N_PHRASES = 10
#: Ranked phrases a name may draw on: more than are stored, so a topic whose best ten are single
#: words can still lead with a multi-word phrase (see :func:`~.label.name_topic`).
_N_NAME_CANDIDATES = 30
_N_REPRESENTATIVES = 3
_MAX_BROAD = 25
_MIN_BROAD = 10
#: A cluster must be this many standard errors tighter than the library (see :func:`drop_loose_clusters`).
_MIN_COHESION_Z = 3.0
#: The steps a progress display counts (each one's wall time lands in ``timings_ms``).
_STEPS = ("neighbours", "reduce", "cluster", "subtopics", "layout", "label")
#: Shown while umap-learn runs: its first use in a process compiles numba code (25-50 s measured).
_UMAP_LEARN_NOTE = "umap-learn to 5D; its first run compiles numba code, up to a minute"
#: Broad topics smaller than this many papers (or 3 × the cluster size) get no subtopics.
_MIN_SUBTOPIC_PARENT = 30


@dataclass
class TopicModel:
    """The result of :func:`fit_topics`: per-paper assignments and coordinates, and the topics.

    Attributes:
        paper_ids: the papers, in input order.
        topic_ids: int64, shape (n_papers,): broad topic of each paper, ``UNASSIGNED_ID`` if none.
        subtopic_ids: int64, shape (n_papers,): subtopic of each paper, -1 when its broad topic
            has no subtopics or the paper is unassigned.
        is_outlier: bool, shape (n_papers,): the clusterer left the paper out; when its
            ``topic_ids`` entry is not ``UNASSIGNED_ID`` it was placed by its neighbours.
        coordinates: float64, shape (n_papers, 2): map position in [-1, 1], finite.
        topics: broad topics by id, then subtopics by id, then the Unassigned group if used.
        settings: the step names and parameters used, for the store and for reproducing the run.
        timings_ms: wall time per step in milliseconds.
        elapsed_s: wall time of the whole fit in seconds (checks and steps).
    """

    paper_ids: list[str]
    topic_ids: np.ndarray
    subtopic_ids: np.ndarray
    is_outlier: np.ndarray
    coordinates: np.ndarray
    topics: list[Topic]
    settings: dict[str, Any] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)
    elapsed_s: float = 0.0

    @property
    def unassigned_fraction(self) -> float:
        """Share of papers in the Unassigned group, in [0, 1] (0 for an empty library)."""
        n = len(self.paper_ids)
        return float((self.topic_ids == UNASSIGNED_ID).sum() / n) if n else 0.0

    @property
    def outlier_fraction(self) -> float:
        """Share of papers the clusterer left out (before neighbour assignment), in [0, 1]."""
        n = len(self.paper_ids)
        return float(self.is_outlier.sum() / n) if n else 0.0

    def broad_topics(self) -> list[Topic]:
        """Return the real broad topics (level 0, not the Unassigned group)."""
        return [t for t in self.topics if t.level == 0 and not t.is_unassigned]

    def fingerprint(self) -> str:
        """Return a SHA-256 of assignments, coordinates and names: equal runs give equal prints."""
        digest = hashlib.sha256()
        digest.update("\n".join(self.paper_ids).encode())
        for array in (self.topic_ids, self.subtopic_ids, self.is_outlier, self.coordinates):
            digest.update(np.ascontiguousarray(array).tobytes())
        digest.update("\n".join(f"{t.topic_id}\t{t.name}" for t in self.topics).encode())
        return digest.hexdigest()


def auto_n_topics(n_papers: int, n_clusters: int) -> int:
    """Return the number of broad topics: ``clip(round(sqrt(n / 20)), 10, 25)``, at most ``n_clusters``.

    4,302 papers give 15 broad topics and 20,000 give 25 (the "10–25 broad topics" a
    conference overview wants). A library with at most 10 dense clusters keeps each one as a
    broad topic, so 20 papers on two themes show two topics, not ten.
    """
    if n_clusters <= _MIN_BROAD:
        return n_clusters
    return min(n_clusters, max(_MIN_BROAD, min(_MAX_BROAD, round(math.sqrt(n_papers / 20)))))


def assign_outliers(
    labels: np.ndarray,
    neighbours: Neighbours,
    min_share: float = 0.0,
    eligible: np.ndarray | None = None,
    rounds: int = 3,
) -> np.ndarray:
    """Give outliers (-1) the cluster that wins a similarity-weighted vote of their neighbours.

    In each round, outlier ``i`` takes cluster ``c`` when the cosine similarities of its
    neighbours in ``c`` sum to the most, and to at least ``min_share`` of the summed similarity
    of all its neighbours (ties go to the lower id). Later rounds let outliers next to newly
    placed ones follow; the others stay -1.

    Args:
        labels: int64, shape (n_papers,), -1 for outliers.
        neighbours: the shared kNN graph (column 0 is the paper itself and is ignored).
        min_share: vote share needed, in [0, 1]; 0 places every outlier with a clustered neighbour.
        eligible: bool, shape (n_papers,): only these outliers may be placed; None means all.
        rounds: propagation rounds.

    Returns:
        int64, shape (n_papers,): a new array; clustered papers keep their label.
    """
    labels = np.asarray(labels, dtype=np.int64).copy()
    if labels.size == 0 or labels.max() < 0 or neighbours.k < 2:
        return labels
    idx = neighbours.indices[:, 1:]
    weight = np.clip(1.0 - neighbours.distances[:, 1:].astype(np.float64), 0.0, None)
    n_clusters = int(labels.max()) + 1
    can_move = np.ones(labels.size, dtype=bool) if eligible is None else np.asarray(eligible, dtype=bool)
    for _ in range(rounds):
        outliers = np.flatnonzero((labels < 0) & can_move)
        if outliers.size == 0:
            break
        neighbour_labels = labels[idx[outliers]]
        rows = np.broadcast_to(np.arange(outliers.size)[:, None], neighbour_labels.shape)
        voting = neighbour_labels >= 0
        votes = np.zeros((outliers.size, n_clusters))
        np.add.at(votes, (rows[voting], neighbour_labels[voting]), weight[outliers][voting])
        total = weight[outliers].sum(axis=1)
        best = votes.argmax(axis=1)
        top = votes[np.arange(outliers.size), best]
        placed = (top > 0) & (top >= min_share * total)
        if not placed.any():
            break
        labels[outliers[placed]] = best[placed]
    return labels


def drop_loose_clusters(labels: np.ndarray, matrix: np.ndarray, min_z: float = _MIN_COHESION_Z) -> np.ndarray:
    """Turn clusters that are no tighter than random groups of papers into outliers (-1).

    Density clustering always finds *relatively* dense groups, even among eight papers on eight
    unrelated subjects (case 13 of the bug cases). A cluster of ``m`` papers is kept when its
    mean pairwise cosine exceeds the library's mean pairwise cosine ``mu`` by ``min_z``
    standard errors, ``sigma / sqrt(m (m - 1) / 2)``, with ``sigma`` the standard deviation of
    all pairwise cosines: a one-sided z-test that treats pairs as independent (a heuristic).
    ``mu`` and ``sigma`` come exactly from ``S = sum_i e_i`` and ``||E^T E||_F`` in O(n dim^2).

    Args:
        labels: int64, shape (n_papers,), -1 for outliers.
        matrix: float32, shape (n_papers, dim), rows L2-normalised.
        min_z: the z threshold (3 keeps every HDBSCAN topic of ICLR 2026 and ICML 2026).

    Returns:
        int64, shape (n_papers,), canonical ids.
    """
    n = labels.size
    if n < 3 or labels.max() < 0:
        return labels
    m64 = matrix.astype(np.float64)
    total = m64.sum(axis=0)
    pairs = n * (n - 1)
    mu = (total @ total - n) / pairs
    gram = m64.T @ m64
    sigma = math.sqrt(max((float((gram * gram).sum()) - n) / pairs - mu * mu, 0.0))
    if sigma == 0.0:
        return labels
    out = labels.copy()
    for c in range(int(labels.max()) + 1):
        members = labels == c
        m = int(members.sum())
        if m < 2:
            out[members] = -1
            continue
        s = m64[members].sum(axis=0)
        intra = (s @ s - m) / (m * (m - 1))
        if (intra - mu) / (sigma / math.sqrt(m * (m - 1) / 2)) < min_z:
            out[members] = -1
    return canonical_labels(out)


def _resolve(step: Any, getter: Any, seed: int) -> tuple[Any, str]:
    if isinstance(step, str):
        return getter(step, seed=seed), step
    return step, type(step).__name__


def _check_inputs(paper_ids: Sequence[str], docs: Sequence[str], embeddings: np.ndarray) -> np.ndarray:
    matrix = np.asarray(embeddings, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[0] != len(paper_ids) or len(docs) != len(paper_ids):
        raise InputError(
            f"fit_topics needs one embedding row and one document per paper: got {len(paper_ids)} "
            f"paper_ids, {len(docs)} documents and an embedding matrix of shape {matrix.shape}"
        )
    if len(set(paper_ids)) != len(paper_ids):
        raise InputError("fit_topics got the same paper_id twice; each paper must appear once")
    bad = ~np.isfinite(matrix).all(axis=1) | (np.linalg.norm(matrix, axis=1) == 0) if matrix.size else []
    if np.any(bad):
        first = paper_ids[int(np.flatnonzero(bad)[0])]
        raise InputError(
            f"{int(np.sum(bad))} embedding rows are zero or not finite (first: paper_id {first}); "
            "re-embed those papers before fitting topics"
        )
    norms = np.linalg.norm(matrix, axis=1, keepdims=True) if matrix.size else 1.0
    return np.ascontiguousarray(matrix / norms, dtype=np.float32)


def fit_topics(
    paper_ids: Sequence[str],
    docs: Sequence[str],
    embeddings: np.ndarray,
    *,
    reducer: str | Reducer = "umap",
    clusterer: str | Clusterer = "hdbscan",
    labeller: str | Labeller = "keyphrases",
    layout: str | Layout = "umap",
    n_topics: int | None = None,
    min_topic_size: int | None = None,
    n_neighbors: int = 15,
    min_share: float = 0.0,
    text_weight: float = 0.0,
    seed: int = 42,
    progress: bool = False,
) -> TopicModel:
    """Find broad topics and subtopics, name them, and lay the papers out in 2D.

    Args:
        paper_ids: one id per paper.
        docs: the clean text of each paper (title and abstract), used only for labels.
        embeddings: float32, shape (n_papers, dim); rows are L2-normalised here.
        reducer: registry name (``"umap"``: UMAP in numpy; ``"umap-learn"``: umap-learn, from the
            ``paperscope[umap]`` extra; ``"pca"``, ``"none"``) or an object with ``fit_transform``.
        clusterer: registry name (``"hdbscan"``, ``"kmeans"``, ``"single"``) or an object
            with ``fit_predict``; it finds the dense clusters and, inside each broad topic, the
            subtopics.
        labeller: registry name (``"keyphrases"``: c-TF-IDF over each paper's ranked keyphrases;
            ``"ctfidf"``: over all 1-2-word n-grams) or an object with ``fit`` and ``key_phrases``.
        layout: registry name (``"umap"``, ``"umap-learn"``, ``"pca"``) or an object with ``fit_transform``.
        n_topics: broad topics wanted; None means :func:`auto_n_topics`.
        min_topic_size: HDBSCAN's ``min_cluster_size``; None means
            :func:`~paperscope.topics.cluster.auto_min_cluster_size` of the library size.
        n_neighbors: k of the shared kNN graph (UMAP's ``n_neighbors``, default 15).
        min_share: vote share an outlier needs to join a topic (see :func:`assign_outliers`);
            the default 0 places every outlier that has a clustered neighbour, with its flag.
        text_weight: share of the papers' TF-IDF text (an LSA block,
            :mod:`~paperscope.topics.features`) in the cosine of the kNN graph that the reducer,
            clusterer and layout read, in [0, 1); 0 (the default) uses the embeddings alone.
            Libraries under 50 papers always use the embeddings alone.
        seed: seed of every random step.
        progress: show the steps on stderr as they start (:func:`paperscope.progress.steps`:
            ``topics: 1/6 steps (reduce: umap, ...)``), so a long step, such as umap-learn
            compiling with numba on first use (25-50 s), is never silent.

    Returns:
        The topic model (not yet stored); ``elapsed_s`` and ``len(paper_ids)`` make the
        summary line.

    Raises:
        InputError: lengths disagree, a paper_id repeats, an embedding row is zero or not
            finite, a step name is unknown, ``n_topics`` is below 1, or ``text_weight`` is
            outside [0, 1).
        ModelUnavailable: ``"umap-learn"`` was asked for and umap-learn is not installed.
    """
    timings: dict[str, float] = {}
    started = clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[name] = round((now - clock) * 1000.0, 1)
        clock = now
        bar.update()

    def start(name: str, detail: str) -> None:
        bar.stage(f"{name}: {detail}" if detail else name)

    if n_topics is not None and n_topics < 1:
        raise InputError(f"n_topics must be at least 1, got {n_topics}")
    if not 0.0 <= text_weight < 1.0:
        raise InputError(f"text_weight must be in [0, 1), got {text_weight}")
    matrix = _check_inputs(paper_ids, docs, embeddings)
    n = len(paper_ids)
    reducer_obj, reducer_name = _resolve(reducer, get_reducer, seed)
    clusterer_obj, clusterer_name = _resolve(clusterer, get_clusterer, seed)
    if clusterer == "hdbscan":
        clusterer_obj = HDBSCANClusterer(min_cluster_size=min_topic_size or auto_min_cluster_size(n))
    labeller_obj, labeller_name = _resolve(labeller, get_labeller, seed)
    layout_obj, layout_name = _resolve(layout, get_layout, seed)
    settings = {
        "reducer": reducer_name,
        "clusterer": clusterer_name,
        "labeller": labeller_name,
        "layout": layout_name,
        "n_topics": n_topics,
        "min_topic_size": min_topic_size,
        "n_neighbors": n_neighbors,
        "min_share": min_share,
        "text_weight": text_weight,
        "seed": seed,
    }
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return TopicModel(
            [],
            empty,
            empty,
            empty.astype(bool),
            np.zeros((0, 2)),
            [],
            settings,
            timings,
            time.perf_counter() - started,
        )

    with steps(len(_STEPS), desc="topics", enabled=progress) as bar:
        start("neighbours", f"exact cosine kNN graph, k = {n_neighbors}")
        # The graph, the reducer, the clusterer and the layout read the joined features;
        # representatives stay the papers nearest the centroid of their embeddings.
        features = matrix
        text = lsa_features(docs, seed=seed) if text_weight > 0 else None
        if text is not None:
            features = join_features(matrix, text, text_weight)
        neighbours = exact_neighbours(features, n_neighbors)
        lap("neighbours")
        start("reduce", _UMAP_LEARN_NOTE if reducer_name == "umap-learn" else reducer_name)
        reduced = reducer_obj.fit_transform(features, neighbours)
        lap("reduce")
        start("cluster", clusterer_name)
        dense = drop_loose_clusters(canonical_labels(clusterer_obj.fit_predict(reduced)), features)
        is_outlier = dense < 0
        dense = canonical_labels(assign_outliers(dense, neighbours, min_share))
        n_dense = int(dense.max()) + 1
        wanted = auto_n_topics(n, n_dense) if n_topics is None else min(n_topics, n_dense)
        broad = dense
        if wanted < n_dense:
            assigned = np.flatnonzero(dense >= 0)
            broad = np.full(n, UNASSIGNED_ID, dtype=np.int64)
            broad[assigned] = KMeansClusterer(wanted, seed).fit_predict(reduced[assigned])
            broad = canonical_labels(broad)
        lap("cluster")
        start("subtopics", clusterer_name)
        sub_clusterer = clusterer_obj
        if isinstance(clusterer_obj, HDBSCANClusterer):
            # Subtopics of 2-4 papers are noise on a map: at least 5 papers each.
            sub_clusterer = HDBSCANClusterer(
                max(5, clusterer_obj.min_cluster_size or 0), clusterer_obj.min_samples
            )
        fine = _subtopics(reduced, broad, neighbours, sub_clusterer, min_share)
        lap("subtopics")
        start("layout", f"{layout_name} to 2D")
        coordinates = normalise_coordinates(layout_obj.fit_transform(features, neighbours))
        lap("layout")
        start("label", labeller_name)
        labeller_obj.fit(docs)
        subtopic_ids, topics = _build_topics(paper_ids, matrix, coordinates, broad, fine, labeller_obj)
        lap("label")
    return TopicModel(
        paper_ids=list(paper_ids),
        topic_ids=broad,
        subtopic_ids=subtopic_ids,
        is_outlier=is_outlier,
        coordinates=coordinates,
        topics=topics,
        settings=settings,
        timings_ms=timings,
        elapsed_s=time.perf_counter() - started,
    )


def _subtopics(
    reduced: np.ndarray,
    broad: np.ndarray,
    neighbours: Neighbours,
    clusterer: Clusterer,
    min_share: float,
) -> np.ndarray:
    """Return int64 (n_papers,): ``broad * 10_000 + subtopic`` inside each broad topic, or -1.

    Only broad topics of at least ``max(30, 3 * min_cluster_size)`` papers that split into two
    or more clusters get subtopics.
    """
    fine = np.full(broad.size, -1, dtype=np.int64)
    size = getattr(clusterer, "min_cluster_size", None) or 0
    for topic_id in range(int(broad.max()) + 1 if broad.size else 0):
        members = np.flatnonzero(broad == topic_id)
        if members.size < max(_MIN_SUBTOPIC_PARENT, 3 * size):
            continue
        local = canonical_labels(clusterer.fit_predict(reduced[members]))
        if local.max() < 1:
            continue
        labels = np.full(broad.size, -1, dtype=np.int64)
        labels[members] = local
        eligible = np.zeros(broad.size, dtype=bool)
        eligible[members] = True
        labels = assign_outliers(labels, neighbours, min_share, eligible=eligible)
        inside = members[labels[members] >= 0]
        fine[inside] = topic_id * 10_000 + labels[inside]
    return fine


def _representatives(paper_ids: Sequence[str], matrix: np.ndarray, members: np.ndarray) -> list[str]:
    centroid = matrix[members].mean(axis=0)
    sims = matrix[members] @ centroid
    order = np.lexsort((members, -sims))
    return [paper_ids[int(members[i])] for i in order[:_N_REPRESENTATIVES]]


def _unique_names(
    scored: dict[int, list[tuple[str, float]]], ids: list[int], exclude: Sequence[str] = ()
) -> dict[int, str]:
    """Name each id by its phrases; a name already taken gets one more phrase until unique.

    A topic without any content phrase is called "Topic k" (k counts from 1 in ``ids`` order).
    """
    names: dict[int, str] = {}
    taken: set[str] = set()
    for number, topic_id in enumerate(ids, start=1):
        ranked = scored.get(topic_id, [])
        name = ""
        for extra in range(4):
            name = name_topic(ranked, 3 + extra, exclude) or name_topic(ranked, 3 + extra)
            if name not in taken:
                break
        if not name or name in taken:
            name = f"Topic {number}" + (f": {name}" if name else "")
        taken.add(name)
        names[topic_id] = name
    return names


def _build_topics(
    paper_ids: Sequence[str],
    matrix: np.ndarray,
    coordinates: np.ndarray,
    broad: np.ndarray,
    fine: np.ndarray,
    labeller: Labeller,
) -> tuple[np.ndarray, list[Topic]]:
    """Name broad topics and subtopics and assemble :class:`Topic` records, ids in display order."""
    n_broad = int(broad.max()) + 1 if broad.size else 0
    broad_scored = labeller.key_phrases(broad, None, _N_NAME_CANDIDATES)
    broad_names = _unique_names(broad_scored, list(range(n_broad)))
    topics: list[Topic] = []
    subtopics: list[Topic] = []
    subtopic_ids = np.full(len(paper_ids), -1, dtype=np.int64)
    next_id = n_broad

    def make(
        topic_id: int, name: str, members: np.ndarray, scored: list[tuple[str, float]], **kw: Any
    ) -> Topic:
        x, y = np.median(coordinates[members], axis=0)
        return Topic(
            topic_id=topic_id,
            name=name,
            size=int(members.size),
            key_phrases=[p for p, _ in scored[:_N_PHRASES]],
            x=round(float(x), 6) + 0.0,
            y=round(float(y), 6) + 0.0,
            **kw,
        )

    for topic_id in range(n_broad):
        members = np.flatnonzero(broad == topic_id)
        reps = _representatives(paper_ids, matrix, members)
        topics.append(
            make(
                topic_id,
                broad_names[topic_id],
                members,
                broad_scored[topic_id],
                level=0,
                representative_ids=reps,
            )
        )
        children = sorted(c for c in set(fine[members].tolist()) if c >= 0)
        if not children:
            continue
        # Subtopics are named against their siblings, so zooming in shows what tells them apart.
        child_scored = labeller.key_phrases(fine[members], members, _N_NAME_CANDIDATES)
        child_names = _unique_names(child_scored, children, exclude=broad_names[topic_id].split(", "))
        sizes = {c: int((fine[members] == c).sum()) for c in children}
        for child in sorted(children, key=lambda c: (-sizes[c], c)):
            child_members = members[fine[members] == child]
            subtopic_ids[child_members] = next_id
            reps = _representatives(paper_ids, matrix, child_members)
            subtopics.append(
                make(
                    next_id,
                    child_names[child],
                    child_members,
                    child_scored[child],
                    level=1,
                    parent_id=topic_id,
                    representative_ids=reps,
                )
            )
            next_id += 1
    topics.extend(subtopics)
    unassigned = np.flatnonzero(broad == UNASSIGNED_ID)
    if unassigned.size:
        topics.append(
            make(
                UNASSIGNED_ID,
                UNASSIGNED_NAME,
                unassigned,
                broad_scored.get(UNASSIGNED_ID, []),
                level=0,
                is_unassigned=True,
            )
        )
    return subtopic_ids, topics
