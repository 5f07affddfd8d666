"""Keep topics put between fits: place new papers in the stored topics, carry ids and names over a refit.

The reducer's fitted state (UMAP's graph and embedding) is not stored, and UMAP in numpy
(:mod:`~paperscope.topics.manifold`) has no ``transform``, so a new paper cannot be placed in the
5D space the topics were clustered in. It is placed in the embedding space instead: it joins the
broad topic whose centroid (the L2-normalised mean of its members' vectors) has the highest
cosine, then the nearest subtopic of that topic, and sits on the map at the mean position of its
nearest fitted neighbours in that topic (Rocchio's nearest-centroid rule, the one BERTopic's
``transform`` falls back to when its reducer cannot transform).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..models import Topic
from .pipeline import UNASSIGNED_ID, TopicModel

__all__ = [
    "REFIT_SHARE",
    "MIN_MATCH_JACCARD",
    "KEEP_NAME_JACCARD",
    "Placement",
    "CarryOver",
    "place_new_papers",
    "match_topics",
    "carry_over",
]

#: Refit once more than this share of the library was placed by :func:`place_new_papers` since
#: the last fit. Nearest-centroid placement never creates a topic, so papers on a new subject pile
#: into the nearest old one; a quarter of the library is where that starts to dominate a topic
#: (``auto_n_topics`` gives 10-25 topics, so 25% new papers is several topics' worth), while the
#: everyday case (a workshop list or a few arXiv papers, 1-5%) never renumbers anything.
REFIT_SHARE = 0.25
#: A new topic inherits an old id only when the two share at least this Jaccard index of their
#: members; below it the id would point at mostly other papers, so the topic gets a fresh id.
MIN_MATCH_JACCARD = 0.3
#: A matched topic keeps its old name when at least this Jaccard index of members is shared (most
#: of the union: the same topic grown or trimmed); a looser match takes the new fit's name and the
#: change is reported.
KEEP_NAME_JACCARD = 0.5
#: New papers sit at the mean map position of this many nearest fitted papers of their topic.
_N_PLACE_NEIGHBOURS = 3


@dataclass
class Placement:
    """Where :func:`place_new_papers` puts the new papers.

    Attributes:
        topic_ids: int64, shape (n_new,): broad topic id (``UNASSIGNED_ID`` only when the fit has
            no real topic).
        subtopic_ids: int64, shape (n_new,): subtopic id, -1 when the broad topic has none.
        coordinates: float64, shape (n_new, 2): map position in [-1, 1].
    """

    topic_ids: np.ndarray
    subtopic_ids: np.ndarray
    coordinates: np.ndarray


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    return rows / np.where(norms > 0, norms, 1.0)


def _nearest_group(vectors: np.ndarray, matrix: np.ndarray, labels: np.ndarray, ids: list[int]) -> np.ndarray:
    """Return for each row of ``vectors`` the id in ``ids`` (ascending) whose members' centroid is most similar.

    Ties (equal cosines) go to the lower id, as :func:`~paperscope.topics.pipeline.assign_outliers`
    breaks them (``argmax`` takes the first).
    """
    centroids = np.stack([_unit(matrix[labels == i].mean(axis=0)) for i in ids])
    chosen: np.ndarray = np.asarray(ids, dtype=np.int64)[(vectors @ centroids.T).argmax(axis=1)]
    return chosen


def place_new_papers(
    new_matrix: np.ndarray,
    fitted_matrix: np.ndarray,
    topic_ids: np.ndarray,
    subtopic_ids: np.ndarray,
    coordinates: np.ndarray,
) -> Placement:
    """Assign new papers to the stored topics by nearest centroid in the embedding space.

    Args:
        new_matrix: float32, shape (n_new, dim): the new papers' vectors (normalised here).
        fitted_matrix: float32, shape (n_fitted, dim): the vectors of the papers already in topics.
        topic_ids: int64, shape (n_fitted,): their broad topic, ``UNASSIGNED_ID`` for none.
        subtopic_ids: int64, shape (n_fitted,): their subtopic, -1 for none.
        coordinates: float64, shape (n_fitted, 2): their map positions.

    Returns:
        The new papers' topics, subtopics and map positions. With no real topic stored (every
        fitted paper unassigned), new papers join the Unassigned group too.
    """
    n_new = new_matrix.shape[0]
    vectors = _unit(np.asarray(new_matrix, dtype=np.float64))
    fitted = _unit(np.asarray(fitted_matrix, dtype=np.float64))
    topic_ids = np.asarray(topic_ids, dtype=np.int64)
    subtopic_ids = np.asarray(subtopic_ids, dtype=np.int64)
    broad_ids = sorted({int(t) for t in topic_ids.tolist() if t != UNASSIGNED_ID})
    out_topics = np.full(n_new, UNASSIGNED_ID, dtype=np.int64)
    out_subs = np.full(n_new, -1, dtype=np.int64)
    out_xy = np.zeros((n_new, 2), dtype=np.float64)
    if n_new == 0 or fitted.shape[0] == 0:
        return Placement(out_topics, out_subs, out_xy)
    if broad_ids:
        out_topics = _nearest_group(vectors, fitted, topic_ids, broad_ids)
    for topic in sorted(set(out_topics.tolist())):
        rows = np.flatnonzero(out_topics == topic)
        members = np.flatnonzero(topic_ids == topic)
        children = sorted({int(s) for s in subtopic_ids[members].tolist() if s >= 0})
        if children:
            out_subs[rows] = _nearest_group(vectors[rows], fitted, subtopic_ids, children)
        sims = vectors[rows] @ fitted[members].T
        k = min(_N_PLACE_NEIGHBOURS, members.size)
        nearest = np.argsort(-sims, axis=1, kind="stable")[:, :k]
        out_xy[rows] = np.asarray(coordinates, dtype=np.float64)[members][nearest].mean(axis=1)
    return Placement(out_topics, out_subs, out_xy)


def match_topics(
    old: Mapping[int, set[str]], new: Mapping[int, set[str]], min_jaccard: float = MIN_MATCH_JACCARD
) -> dict[int, tuple[int, float]]:
    """Match new topics to old ones on shared members: a one-to-one assignment maximising Jaccard.

    The Jaccard matrix ``|A ∩ B| / |A ∪ B|`` between every old and new topic goes to
    :func:`scipy.optimize.linear_sum_assignment` (the Hungarian method, Kuhn 1955), which picks the
    pairs with the largest total overlap; a picked pair below ``min_jaccard`` stays unmatched.

    Args:
        old: old topic id → its paper_ids.
        new: new topic id → its paper_ids.
        min_jaccard: the least Jaccard index a pair needs, in [0, 1].

    Returns:
        new topic id → (old topic id, Jaccard index) for each matched new topic.
    """
    from scipy.optimize import linear_sum_assignment

    old_ids, new_ids = sorted(old), sorted(new)
    if not old_ids or not new_ids:
        return {}
    jaccard = np.zeros((len(old_ids), len(new_ids)))
    for i, o in enumerate(old_ids):
        for j, n in enumerate(new_ids):
            shared = len(old[o] & new[n])
            if shared:
                jaccard[i, j] = shared / len(old[o] | new[n])
    rows, cols = linear_sum_assignment(jaccard, maximize=True)
    return {
        new_ids[j]: (old_ids[i], float(jaccard[i, j]))
        for i, j in zip(rows.tolist(), cols.tolist(), strict=True)
        if jaccard[i, j] >= min_jaccard and jaccard[i, j] > 0
    }


@dataclass
class CarryOver:
    """The outcome of :func:`carry_over`.

    Attributes:
        model: the refitted model with carried ids and names.
        kept_ids: old ids that survive, each on the new topic that shares most of its papers.
        fresh_ids: ids given to new topics that match no old one (never used before).
        dropped_ids: old ids no new topic took (their links now give "no topic").
        renamed: ``(topic_id, old name, new name)`` for matched topics whose name changed.
        next_topic_id: the lowest id never given out, for the next refit.
    """

    model: TopicModel
    kept_ids: list[int]
    fresh_ids: list[int]
    dropped_ids: list[int]
    renamed: list[tuple[int, str, str]]
    next_topic_id: int


def _members(paper_ids: Sequence[str], labels: np.ndarray) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for pid, label in zip(paper_ids, labels.tolist(), strict=True):
        if label >= 0:
            out.setdefault(int(label), set()).add(pid)
    return out


def carry_over(
    model: TopicModel,
    old_topics: Sequence[Topic],
    old_assignments: Mapping[str, tuple[int, int | None]],
    next_topic_id: int = 0,
) -> CarryOver:
    """Give a refitted model the ids (and names) of the old topics it matches.

    Broad topics are matched to old broad topics and subtopics to old subtopics (each by
    :func:`match_topics`). A matched topic takes the old id, and the old name when the pair's
    Jaccard index is at least :data:`KEEP_NAME_JACCARD` and no other topic of the new fit is
    named so; an unmatched topic gets a fresh id above every id given out before, so an old link
    never points at a different topic. The Unassigned group keeps ``UNASSIGNED_ID``.

    Args:
        model: the new fit, ids as :func:`~paperscope.topics.fit_topics` numbers them.
        old_topics: the stored topics of the previous fit.
        old_assignments: paper_id → (broad topic id, subtopic id or None) of the previous fit.
        next_topic_id: the lowest id never given out (stored with the previous fit; 0 if unknown).

    Returns:
        The renumbered model and what changed.
    """
    old_by_id = {t.topic_id: t for t in old_topics if not t.is_unassigned}
    old_broad: dict[int, set[str]] = {t: set() for t, o in old_by_id.items() if o.level == 0}
    old_sub: dict[int, set[str]] = {t: set() for t, o in old_by_id.items() if o.level == 1}
    for pid, (broad_id, sub) in old_assignments.items():
        if broad_id in old_broad:
            old_broad[broad_id].add(pid)
        if sub is not None and sub in old_sub:
            old_sub[sub].add(pid)
    matched = {
        **match_topics(old_broad, _members(model.paper_ids, model.topic_ids)),
        **match_topics(old_sub, _members(model.paper_ids, model.subtopic_ids)),
    }
    next_id = max([next_topic_id, *(i + 1 for i in old_by_id)])
    new_names = {t.topic_id: t.name for t in model.topics if not t.is_unassigned}
    mapping: dict[int, int] = {UNASSIGNED_ID: UNASSIGNED_ID}
    fresh: list[int] = []
    for topic in sorted(model.topics, key=lambda t: (t.level, t.topic_id)):
        if topic.is_unassigned:
            continue
        if topic.topic_id in matched:
            mapping[topic.topic_id] = matched[topic.topic_id][0]
        else:
            mapping[topic.topic_id] = next_id
            fresh.append(next_id)
            next_id += 1
    renamed: list[tuple[int, str, str]] = []
    topics: list[Topic] = []
    for topic in model.topics:
        name = topic.name
        if topic.topic_id in matched:
            old_id, jaccard = matched[topic.topic_id]
            old_name = old_by_id[old_id].name
            taken = {n for i, n in new_names.items() if i != topic.topic_id}
            if jaccard >= KEEP_NAME_JACCARD and old_name not in taken:
                name = old_name
            elif old_name != name:
                renamed.append((old_id, old_name, name))
        parent = mapping[topic.parent_id] if topic.parent_id is not None else None
        topics.append(replace(topic, topic_id=mapping[topic.topic_id], name=name, parent_id=parent))
    topics.sort(key=lambda t: (t.is_unassigned, t.level, t.topic_id))
    remap = np.vectorize(lambda i: mapping.get(int(i), -1), otypes=[np.int64])
    new_model = replace(
        model,
        topic_ids=remap(model.topic_ids) if model.topic_ids.size else model.topic_ids,
        subtopic_ids=remap(model.subtopic_ids) if model.subtopic_ids.size else model.subtopic_ids,
        topics=topics,
    )
    kept = sorted(old for old, _ in matched.values())
    return CarryOver(
        model=new_model,
        kept_ids=kept,
        fresh_ids=fresh,
        dropped_ids=sorted(set(old_by_id) - set(kept)),
        renamed=sorted(renamed),
        next_topic_id=next_id,
    )
