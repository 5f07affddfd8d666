"""Facet counts over a set of papers: how many have each venue, year, area, dataset or mark.

What the search page's sidebar shows for the current result set. Every count is of papers
(a paper naming a dataset twice counts once); each value is what the matching search filter
takes, so a facet link is the current query plus ``filter=value``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence

from .retrieval import dataset_key

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
    "starred",
    "tag",
)

_IDS = "SELECT value FROM json_each(?)"

#: facet -> SQL yielding (value, label, papers) for the papers whose ids are the bound JSON array.
_SQL = {
    "venue": f"SELECT venue, venue, count(*) FROM papers WHERE venue IS NOT NULL AND paper_id IN ({_IDS})"
    " GROUP BY lower(venue)",
    "year": f"SELECT year, year, count(*) FROM papers WHERE year IS NOT NULL AND paper_id IN ({_IDS})"
    " GROUP BY year",
    "area": "SELECT json_extract(data, '$.area.label') AS a, json_extract(data, '$.area.label'), count(*)"
    f" FROM cards WHERE json_extract(data, '$.area.label') IS NOT NULL AND paper_id IN ({_IDS}) GROUP BY a",
    "contribution": "SELECT json_extract(t.value, '$.type') AS v, json_extract(t.value, '$.type'),"
    " count(DISTINCT c.paper_id) FROM cards c, json_each(c.data, '$.contribution_types') t"
    f" WHERE c.paper_id IN ({_IDS}) AND json_extract(t.value, '$.type') IS NOT NULL GROUP BY v",
    "decision": f"SELECT decision, decision, count(*) FROM papers WHERE decision IS NOT NULL AND paper_id IN ({_IDS})"
    " GROUP BY decision",
    "tag": f"SELECT tag, tag, count(DISTINCT paper_id) FROM tags WHERE paper_id IN ({_IDS}) GROUP BY lower(tag)",
}


def _sorted(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda r: (-r["count"], str(r["label"]).lower()))


def facet_counts(
    conn: sqlite3.Connection,
    paper_ids: Sequence[str],
    topics: Mapping[str, tuple[int, str]] | None = None,
) -> dict[str, list[dict]]:
    """Count the papers ``paper_ids`` per value of each facet of :data:`FACETS`.

    Args:
        conn: the library connection.
        paper_ids: the current result set (any order; duplicates count once).
        topics: ``paper_id -> (broad topic id, topic name)`` from the stored topic fit; None or
            empty leaves the topic facet empty.

    Returns:
        ``{facet: [{"value": str, "label": str, "count": int}, ...]}`` for every facet, most
        papers first, then by label. ``value`` is what the search filter of that name takes
        (``has_code``: ``"true"``/``"false"``; ``starred``: ``"true"``; ``topic``: the id);
        datasets are grouped by their matching key (``CIFAR-10`` and ``cifar10`` are one value,
        labelled with the most used spelling). A facet without values is ``[]``.
    """
    ids = list(dict.fromkeys(paper_ids))
    bound = (json.dumps(ids),)
    out: dict[str, list[dict]] = {}
    for facet in FACETS:
        if facet in _SQL:
            rows = conn.execute(_SQL[facet], bound).fetchall()
            out[facet] = _sorted(
                [{"value": str(v), "label": str(lab), "count": int(n)} for v, lab, n in rows]
            )
    datasets: dict[str, dict[str, int]] = {}
    for name, n in conn.execute(
        "SELECT json_extract(d.value, '$.name') AS name, count(DISTINCT c.paper_id)"
        f" FROM cards c, json_each(c.data, '$.datasets') d WHERE c.paper_id IN ({_IDS})"
        " AND json_extract(d.value, '$.name') IS NOT NULL GROUP BY name",
        bound,
    ):
        datasets.setdefault(dataset_key(name), {})[name] = int(n)
    out["dataset"] = _sorted(
        [
            {
                "value": max(spellings, key=spellings.get),
                "label": max(spellings, key=spellings.get),
                "count": sum(spellings.values()),
            }
            for spellings in datasets.values()
        ]
    )
    with_code = conn.execute(
        f"SELECT count(*) FROM cards WHERE paper_id IN ({_IDS})"
        " AND json_array_length(json_extract(data, '$.code_urls')) > 0",
        bound,
    ).fetchone()[0]
    counted = conn.execute(f"SELECT count(*) FROM papers WHERE paper_id IN ({_IDS})", bound).fetchone()[0]
    out["has_code"] = [
        r for r in ({"value": "true", "label": "true", "count": int(with_code)},
                    {"value": "false", "label": "false", "count": int(counted - with_code)}) if r["count"]
    ]  # fmt: skip
    starred = conn.execute(f"SELECT count(*) FROM stars WHERE paper_id IN ({_IDS})", bound).fetchone()[0]
    out["starred"] = [{"value": "true", "label": "true", "count": int(starred)}] if starred else []
    topic_counts: dict[int, list] = {}
    for pid in ids:
        if topics and pid in topics:
            tid, name = topics[pid]
            topic_counts.setdefault(tid, [name, 0])[1] += 1
    out["topic"] = _sorted(
        [{"value": str(tid), "label": str(name), "count": n} for tid, (name, n) in topic_counts.items()]
    )
    return {facet: out[facet] for facet in FACETS}
