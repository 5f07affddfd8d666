"""The one decision every caller of topic fitting goes through: place new papers, or refit and carry ids over.

``Library.update_topics`` (the ``topics`` and ``map`` commands, ``POST /api/topics/fit``) places
papers added since the last fit in the stored topics (:func:`~paperscope.topics.stable.place_new_papers`)
and refits only when asked or when more than :data:`~paperscope.topics.stable.REFIT_SHARE` of the
library was placed since the fit. Every refit (``Library.fit_topics`` too) matches the new topics
to the old ones (:func:`~paperscope.topics.stable.carry_over`), so a topic id in a link, a search
filter or the map names the same papers before and after.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .errors import InputError
from .store import topics as topic_store

if TYPE_CHECKING:
    from .library import Library
    from .topics import TopicModel
    from .topics.stable import CarryOver

__all__ = ["TopicUpdate", "fit_and_store", "update_topics"]


@dataclass
class TopicUpdate:
    """What :func:`update_topics` did.

    Attributes:
        action: ``"fitted"`` (first fit), ``"refit"``, ``"assigned"`` (new papers placed in the
            stored topics) or ``"current"`` (every paper already had a topic).
        reason: why it refitted (empty unless ``action == "refit"``).
        n_assigned: papers placed in the stored topics by this call.
        assigned_share: share of the library placed since the last fit, in [0, 1] (0 after a fit).
        model: the new fit, None unless it fitted.
        carried: ids kept, fresh, dropped and names changed by the refit, None unless it refitted.
    """

    action: Literal["fitted", "refit", "assigned", "current"]
    reason: str = ""
    n_assigned: int = 0
    assigned_share: float = 0.0
    model: TopicModel | None = None
    carried: CarryOver | None = None

    def notice(self) -> str:
        """Return what happened in a line or a few (for stderr or a web notice); '' when current."""
        if self.action == "assigned":
            return (
                f"{self.n_assigned:,} new papers assigned to existing topics; "
                f"{self.assigned_share:.1%} of the library assigned since the last fit"
            )
        if self.action != "refit" or self.carried is None:
            return ""
        c = self.carried
        lines = [
            f"topics refitted: {self.reason}",
            f"topic ids kept: {len(c.kept_ids)}, new: {len(c.fresh_ids)}, gone: {len(c.dropped_ids)}"
            + (f" ({', '.join(map(str, c.dropped_ids))})" if c.dropped_ids else ""),
        ]
        lines += [f"topic {tid} renamed: {old!r} -> {new!r}" for tid, old, new in c.renamed]
        return "\n".join(lines)


def _texts(lib: Library) -> dict[str, str]:
    return {
        r["paper_id"]: f"{r['title']}. {r['clean_text']}" if r["title"] else r["clean_text"]
        for r in lib.store.conn.execute("SELECT paper_id, title, clean_text FROM papers")
    }


def fit_and_store(
    lib: Library, embeddings: tuple[list[str], Any] | None = None, **settings: Any
) -> tuple[TopicModel, CarryOver | None]:
    """Fit topics, give them the ids and names of the stored topics they match, and store them.

    Args:
        lib: the library (writable).
        embeddings: ``(paper_ids, matrix)``, matrix float32 (n_papers, dim); None means
            ``lib.embeddings()``.
        **settings: passed to :func:`paperscope.topics.fit_topics`.

    Returns:
        The stored model, and what carried over (None on the first fit).

    Raises:
        ModelUnavailable: no embeddings were given and the embedding model is not installed.
        InputError: an embedded paper_id is not in the library, or the embeddings are bad.
        StoreError: the library is read-only.
    """
    from .topics import fit_topics
    from .topics.stable import carry_over

    lib.store.require_writable()
    if embeddings is None:
        embeddings = lib.embeddings()
    paper_ids, matrix = list(embeddings[0]), np.asarray(embeddings[1], dtype=np.float32)
    texts = _texts(lib)
    missing = [pid for pid in paper_ids if pid not in texts]
    if missing:
        raise InputError(f"{len(missing)} embedded papers are not in the library (first: {missing[0]})")
    model = fit_topics(paper_ids, [texts[pid] for pid in paper_ids], matrix, **settings)
    conn = lib.store.conn
    old_topics = topic_store.load_topics(conn)
    carried = None
    next_topic_id = max((t.topic_id + 1 for t in model.topics), default=0)
    if old_topics:
        old = {
            pid: (a["topic_id"], a["subtopic_id"]) for pid, a in topic_store.load_assignments(conn).items()
        }
        carried = carry_over(model, old_topics, old, int(topic_store.load_run(conn).get("next_topic_id", 0)))
        model, next_topic_id = carried.model, carried.next_topic_id
    rows = [
        (pid, int(t), int(s) if s >= 0 else None, bool(o), float(x), float(y))
        for pid, t, s, o, (x, y) in zip(
            model.paper_ids,
            model.topic_ids,
            model.subtopic_ids,
            model.is_outlier,
            model.coordinates,
            strict=True,
        )
    ]
    run = {
        "settings": model.settings,
        "n_papers": len(paper_ids),
        "n_assigned_since_fit": 0,
        "next_topic_id": next_topic_id,
        "unassigned_fraction": round(model.unassigned_fraction, 6),
        "outlier_fraction": round(model.outlier_fraction, 6),
        "fingerprint": model.fingerprint(),
        "timings_ms": model.timings_ms,
    }
    with lib.store.transaction() as conn:
        topic_store.replace_topics(conn, model.topics, rows, run)
    return model, carried


def update_topics(
    lib: Library, refit: bool = False, embeddings: tuple[list[str], Any] | None = None, **settings: Any
) -> TopicUpdate:
    """Place papers without a topic in the stored topics, or refit when asked or when too many were placed.

    A refit happens when no topics are stored, when ``refit`` is True, or when the papers placed
    since the last fit, with this call's, would be more than
    :data:`~paperscope.topics.stable.REFIT_SHARE` of the papers with a vector.

    Args:
        lib: the library (writable).
        refit: fit again even when every paper can be placed.
        embeddings: ``(paper_ids, matrix)`` as :func:`fit_and_store` takes them; None means
            ``lib.embeddings()`` (embedding papers that lack a vector first).
        **settings: passed to :func:`paperscope.topics.fit_topics` when it refits.

    Returns:
        What it did, with :meth:`TopicUpdate.notice` to show.

    Raises:
        ModelUnavailable: no embeddings were given and the embedding model is not installed.
        InputError: an embedded paper_id is not in the library, or the embeddings are bad.
        StoreError: the library is read-only.
    """
    from .topics.stable import REFIT_SHARE, place_new_papers

    lib.store.require_writable()
    conn = lib.store.conn
    if embeddings is None:
        embeddings = lib.embeddings()
    if not topic_store.has_topics(conn):
        model, _ = fit_and_store(lib, embeddings, **settings)
        return TopicUpdate("fitted", "no topics were stored yet", model=model)
    if refit:
        model, carried = fit_and_store(lib, embeddings, **settings)
        return TopicUpdate("refit", "asked for (refit)", model=model, carried=carried)
    paper_ids, matrix = list(embeddings[0]), np.asarray(embeddings[1], dtype=np.float32)
    known = {r[0] for r in conn.execute("SELECT paper_id FROM papers")}
    unknown = [pid for pid in paper_ids if pid not in known]
    if unknown:
        raise InputError(f"{len(unknown)} embedded papers are not in the library (first: {unknown[0]})")
    stored = topic_store.load_assignments(conn)
    new = [i for i, pid in enumerate(paper_ids) if pid not in stored]
    if not new:
        return TopicUpdate("current")
    run = topic_store.load_run(conn)
    since = int(run.get("n_assigned_since_fit", 0)) + len(new)
    share = since / len(paper_ids)
    if share > REFIT_SHARE:
        model, carried = fit_and_store(lib, embeddings, **settings)
        reason = (
            f"{since:,} papers ({share:.1%} of the library) would be assigned since the last fit, more "
            f"than the {REFIT_SHARE:.0%} that nearest-centroid assignment keeps in shape"
        )
        return TopicUpdate("refit", reason, model=model, carried=carried)
    fitted = [i for i, pid in enumerate(paper_ids) if pid in stored]
    fitted_ids = [paper_ids[i] for i in fitted]
    subtopics = [stored[pid]["subtopic_id"] for pid in fitted_ids]
    placed = place_new_papers(
        matrix[new],
        matrix[fitted],
        np.array([stored[pid]["topic_id"] for pid in fitted_ids], dtype=np.int64),
        np.array([-1 if s is None else s for s in subtopics], dtype=np.int64),
        np.array([(stored[pid]["x"], stored[pid]["y"]) for pid in fitted_ids], dtype=np.float64).reshape(
            -1, 2
        ),
    )
    rows = [
        (paper_ids[i], int(t), int(s) if s >= 0 else None, False, float(x), float(y))
        for i, t, s, (x, y) in zip(
            new, placed.topic_ids, placed.subtopic_ids, placed.coordinates, strict=True
        )
    ]
    with lib.store.transaction() as conn:
        topic_store.add_assignments(conn, rows)
        topic_store.update_run(conn, {"n_assigned_since_fit": since})
    return TopicUpdate("assigned", n_assigned=len(new), assigned_share=share)
