"""The triage queue: which unseen paper comes next, and how far the reader has got.

A queue is not stored: it is worked out from the marks each time, so it always resumes where the
reader stopped (in any process, CLI or web) and a paper marked elsewhere leaves it at once.

Two orders (:data:`ORDERS`):

- ``"recommended"``: by the recommender's score (:meth:`paperscope.Library.recommend`), refitted
  on every call, so each keep or reject reorders what follows. It needs a kept or starred paper
  and every paper's vector; until then the queue goes topic by topic and says why.
- ``"topic"``: topic by topic, largest broad topic first; inside a topic its representative
  papers (closest to the centroid) first, then subtopic by subtopic (largest first), then in the
  order the papers were added. Papers in no topic (or in a library whose topics were never fitted)
  come last, in the order they were added.

This module orders and counts; :meth:`paperscope.Library.queue` gathers the marks, topics and
recommendations and builds the :class:`Queue`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..models import Hit, Topic

__all__ = ["ORDERS", "MAX_SKIP", "QueueItem", "Queue", "topic_sequence", "progress_text"]

#: The orders a queue can follow.
ORDERS = ("recommended", "topic")
#: Papers one queue call may be told to skip (the web page carries them in its URL).
MAX_SKIP = 500


@dataclass
class QueueItem:
    """One paper of the queue: its search-hit view, topic and marks.

    ``hit.score`` is the recommender's decision value in the recommended order (``hit.terms`` and
    ``hit.like`` explain it) and 0.0 in topic order; ``hit.rank`` is the 1-based place in the queue.
    ``topic`` is ``{topic_id, topic, subtopic_id, subtopic}`` or None.
    """

    hit: Hit
    topic: dict[str, Any] | None
    marks: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """Return the hit's JSON shape with ``topic`` and ``marks`` added."""
        return {**self.hit.to_dict(), "topic": self.topic, "marks": self.marks}


@dataclass
class Queue:
    """Where the reader stands and what comes next.

    Attributes:
        total: papers in the queue's scope (the library, or one topic).
        seen: papers of the scope with a triage state (skimmed, maybe, keep or reject).
        counts: papers of the scope per triage state (states with none left out).
        order: the order asked for.
        ordered_by: the order used: ``"topic"`` when ``"recommended"`` could not be followed.
        notice: why the order asked for was not used, else None.
        items: the next unseen papers, first the one to look at now.
    """

    total: int
    seen: int
    counts: dict[str, int]
    order: str
    ordered_by: str
    notice: str | None
    items: list[QueueItem] = field(default_factory=list)

    @property
    def progress(self) -> str:
        """``"412 of 3,300 seen"``."""
        return progress_text(self.seen, self.total)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON shape (the ``/api/queue`` answer)."""
        return {
            "total": self.total,
            "seen": self.seen,
            "progress": self.progress,
            "counts": dict(self.counts),
            "order": self.order,
            "ordered_by": self.ordered_by,
            "notice": self.notice,
            "items": [item.to_dict() for item in self.items],
        }


def progress_text(seen: int, total: int) -> str:
    """Return ``"412 of 3,300 seen"`` (thousands separated by commas)."""
    return f"{seen:,} of {total:,} seen"


def topic_sequence(
    paper_ids: Sequence[str], assignments: Mapping[str, Mapping[str, Any]], topics: Iterable[Topic]
) -> list[str]:
    """Order ``paper_ids`` topic by topic (see the module docstring).

    Args:
        paper_ids: the papers to order, in the order they were added to the library.
        assignments: ``paper_id → {"topic_id", "subtopic_id", "is_outlier", …}`` (papers missing
            here, or outliers, count as in no topic).
        topics: the stored topics (:meth:`paperscope.Library.topics`).

    Returns:
        The same ids, reordered (a stable sort: ties keep the order of ``paper_ids``).
    """
    topics = list(topics)
    broad = sorted(
        (t for t in topics if t.level == 0 and not t.is_unassigned), key=lambda t: (-t.size, t.topic_id)
    )
    sub = sorted((t for t in topics if t.level == 1), key=lambda t: (-t.size, t.topic_id))
    broad_rank = {t.topic_id: i for i, t in enumerate(broad)}
    sub_rank = {t.topic_id: i for i, t in enumerate(sub)}
    representative = {pid: i for t in broad for i, pid in enumerate(t.representative_ids)}
    last = len(broad) + len(sub) + 1

    def key(pid: str) -> tuple[int, int, int]:
        a = assignments.get(pid)
        if a is None or a.get("is_outlier") or a.get("topic_id") not in broad_rank:
            return (last, 0, 0)
        if pid in representative:
            return (broad_rank[a["topic_id"]], -1, representative[pid])
        return (broad_rank[a["topic_id"]], sub_rank.get(a.get("subtopic_id"), last), 0)

    return sorted(paper_ids, key=key)
