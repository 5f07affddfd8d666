"""Facet counts over a set of papers: how many have each venue, year, area, dataset, session, day or mark.

What the search page's sidebar shows for the current result set. Every count is of papers
(a paper naming a dataset twice counts once); each value is what the matching search filter
takes, so a facet link is the current query plus ``filter=value``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from .sessions import session_facet_counts

__all__ = ["FACETS", "facet_counts"]

#: The facets in the order the sidebar shows them.
FACETS = (
    "venue",
    "year",
    "area",
    "topic",
    "contribution",
    "dataset",
    "has_code",
    "decision",
    "session",
    "day",
    "starred",
    "tag",
)

#: facet -> SQL yielding (value, label, papers) for the papers the "{where}" clause keeps.
_PAPER_SQL = {
    "venue": "SELECT venue, venue, count(*) FROM papers WHERE venue IS NOT NULL{where} GROUP BY lower(venue)",
    "year": "SELECT year, year, count(*) FROM papers WHERE year IS NOT NULL{where} GROUP BY year",
    "decision": "SELECT decision, decision, count(*) FROM papers WHERE decision IS NOT NULL{where}"
    " GROUP BY decision",
    "tag": "SELECT tag, tag, count(DISTINCT paper_id) FROM tags WHERE 1{where} GROUP BY lower(tag)",
    "starred": "SELECT 'true', 'true', count(*) FROM stars WHERE 1{where} HAVING count(*) > 0",
    "topic": "SELECT a.topic_id, t.name, count(*) FROM paper_topics a JOIN topics t USING (topic_id)"
    " WHERE t.is_unassigned = 0{where} GROUP BY a.topic_id",
}


def _sorted(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda r: (-r["count"], str(r["label"]).lower()))


def facet_counts(conn: sqlite3.Connection, paper_ids: Sequence[str] | None) -> dict[str, list[dict]]:
    """Count the papers ``paper_ids`` per value of each facet of :data:`FACETS`.

    Args:
        conn: the library connection.
        paper_ids: the current result set (any order; duplicates count once); None counts
            every paper of the library.

    Returns:
        ``{facet: [{"value": str, "label": str, "count": int}, ...]}`` for every facet, most
        papers first, then by label; ``session`` and ``day`` (the program's, migration 10) in
        time order instead. ``value`` is what the search filter of that name takes
        (``has_code``: ``"true"``/``"false"``; ``starred``: ``"true"``; ``topic``: the broad
        topic id, empty before a topic fit); datasets are grouped by their matching key
        (``CIFAR-10`` and ``cifar10`` are one value, labelled with the most used spelling). A
        facet without values is ``[]``. The card facets read the ``card_facets`` table that
        triggers keep beside ``cards`` (migration 6): 21k papers take tens of ms, where
        reading the card JSON took 1 s.
    """
    where, bound = "", ()
    if paper_ids is not None:
        where, bound = " AND paper_id IN (SELECT value FROM json_each(?))", (json.dumps(list(paper_ids)),)
    out: dict[str, list[dict]] = {}
    for facet, sql in _PAPER_SQL.items():
        clause = where.replace("paper_id", "a.paper_id") if facet == "topic" else where
        rows = conn.execute(sql.format(where=clause), bound).fetchall()
        out[facet] = _sorted([{"value": str(v), "label": str(lab), "count": int(n)} for v, lab, n in rows])
    spellings: dict[tuple[str, str], dict[str, int]] = {}
    for facet, key, label, n in conn.execute(
        f"SELECT facet, key, label, count(DISTINCT paper_id) FROM card_facets WHERE 1{where}"
        " GROUP BY facet, key, label",
        bound,
    ):
        spellings.setdefault((facet, key), {})[label] = int(n)
    for facet in ("area", "contribution", "dataset", "has_code"):
        out[facet] = []
    for (facet, _key), labels in spellings.items():
        best = max(labels, key=lambda lab: (labels[lab], lab))
        out[facet].append({"value": best, "label": best, "count": sum(labels.values())})
    if paper_ids is None:
        counted = conn.execute("SELECT count(*) FROM papers").fetchone()[0]
    else:
        counted = conn.execute(f"SELECT count(*) FROM papers WHERE 1{where}", bound).fetchone()[0]
    with_code = sum(e["count"] for e in out["has_code"])
    if counted - with_code > 0:
        out["has_code"].append({"value": "false", "label": "false", "count": int(counted - with_code)})
    timed = {
        facet: [
            {"value": v, "label": lab, "count": n}
            for v, lab, n in session_facet_counts(conn, facet, where, bound)
        ]
        for facet in ("session", "day")
    }
    return {facet: timed[facet] if facet in timed else _sorted(out[facet]) for facet in FACETS}
