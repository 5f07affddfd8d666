"""Build the map's data and write it, with the vendored script and style, into one HTML file.

The page needs no network: ``static/map.js`` (our own canvas renderer, no library) and
``static/map.css`` are inlined, the data sits in a ``<script type="application/json">`` block,
and the fonts are the system's. Text is inserted with ``textContent`` only, so abstracts with
``<`` or ``&`` show as written (case 5 of the bug cases).
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..models import Paper, Topic

__all__ = ["map_payload", "write_map_html", "PALETTE", "COLOR_MODES", "UNASSIGNED_COLOR"]

#: Category colours (Tableau 20 reordered so neighbours in the list differ in hue); the map
#: and the PNG cycle through it in order of category size.
PALETTE = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d",
    "#31a354", "#756bb1", "#636363", "#a55194", "#6baed6", "#fd8d3c", "#74c476", "#9e9ac8",
]  # fmt: skip
#: Colour of the Unassigned group and of papers with an unknown area or venue.
UNASSIGNED_COLOR = "#b4b4b4"
#: Card keys the page already shows from the paper itself (or that mean nothing to a reader).
_CARD_SKIP = frozenset({"label", "extractor_version", "title", "authors", "venue", "year", "abstract"})
#: What the points can be coloured by.
COLOR_MODES = ("topic", "area", "venue")


def _categories(values: Sequence[str | None]) -> tuple[list[str], list[int]]:
    """Return (category names by size, index per value); None becomes the last, grey category."""
    counts: dict[str, int] = {}
    for value in values:
        if value is not None:
            counts[value] = counts.get(value, 0) + 1
    names = sorted(counts, key=lambda v: (-counts[v], v))
    index = {name: i for i, name in enumerate(names)}
    if any(v is None for v in values):
        names.append("(unknown)")
    return names, [index[v] if v is not None else len(names) - 1 for v in values]


def map_payload(
    papers: Sequence[Paper],
    assigned: dict[str, dict[str, Any]],
    topics: Sequence[Topic],
    color_by: str = "topic",
    title: str | None = None,
) -> dict[str, Any]:
    """Return the JSON the map page reads: papers column by column, topics, colour categories.

    Args:
        papers: the library's papers; those without coordinates in ``assigned`` are left out.
        assigned: ``paper_id → {topic_id, subtopic_id, is_outlier, x, y}`` (``Library.paper_topics``).
        topics: every stored topic.
        color_by: the initial colouring, one of :data:`COLOR_MODES`.
        title: page title.

    Raises:
        InputError: ``color_by`` is not one of :data:`COLOR_MODES`.
    """
    if color_by not in COLOR_MODES:
        raise InputError(f"unknown colouring {color_by!r}; choose one of: {', '.join(COLOR_MODES)}")
    rows = [p for p in papers if p.paper_id in assigned]
    names = {t.topic_id: t for t in topics}
    broad = [t for t in topics if t.level == 0 and not t.is_unassigned]
    topic_order = [t.topic_id for t in sorted(broad, key=lambda t: (-t.size, t.topic_id))]
    topic_index = {tid: i for i, tid in enumerate(topic_order)}
    topic_names = [names[tid].name for tid in topic_order]
    has_unassigned = any(assigned[p.paper_id]["topic_id"] not in topic_index for p in rows)
    if has_unassigned:
        topic_names.append(next((t.name for t in topics if t.is_unassigned), "Unassigned"))
    topic_cat = [topic_index.get(assigned[p.paper_id]["topic_id"], len(topic_order)) for p in rows]
    area_names, area_cat = _categories([p.source_area for p in rows])
    venue_names, venue_cat = _categories(
        [" ".join(str(v) for v in (p.venue, p.year) if v) or None for p in rows]
    )
    cards = [p.card.to_dict() if p.card else {} for p in rows]
    return {
        "title": title or f"paperscope map: {len(rows)} papers",
        "color_by": color_by,
        "palette": PALETTE,
        "unassigned_color": UNASSIGNED_COLOR,
        "papers": {
            "paper_id": [p.paper_id for p in rows],
            "x": [assigned[p.paper_id]["x"] for p in rows],
            "y": [assigned[p.paper_id]["y"] for p in rows],
            "topic_id": [assigned[p.paper_id]["topic_id"] for p in rows],
            "subtopic_id": [assigned[p.paper_id]["subtopic_id"] for p in rows],
            "is_outlier": [int(assigned[p.paper_id]["is_outlier"]) for p in rows],
            "label": [p.label for p in rows],
            "title": [p.title or "" for p in rows],
            "authors": [p.authors for p in rows],
            "venue": [" ".join(str(v) for v in (p.venue, p.year) if v) for p in rows],
            "area": [p.source_area or "" for p in rows],
            "abstract": [p.clean_text for p in rows],
            "urls": [p.urls for p in rows],
            "card": [
                {k: v for k, v in c.items() if v and k not in ("label", "extractor_version")} for c in cards
            ],
        },
        "categories": {
            "topic": {"names": topic_names, "index": topic_cat, "grey_last": has_unassigned},
            "area": {"names": area_names, "index": area_cat, "grey_last": area_names[-1:] == ["(unknown)"]},
            "venue": {
                "names": venue_names,
                "index": venue_cat,
                "grey_last": venue_names[-1:] == ["(unknown)"],
            },
        },
        "topics": [t.to_dict() for t in topics],
    }


def _static(name: str) -> str:
    return resources.files("paperscope.map").joinpath("static", name).read_text(encoding="utf-8")


def _json_for_script(data: Any) -> str:
    # "<" as \u003c keeps "</script>" and "<!--" inside strings from ending the block early.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def write_map_html(path: str | Path, payload: dict[str, Any]) -> Path:
    """Write the map page to ``path`` (a temp file renamed into place) and return the path.

    Args:
        path: the HTML file to write; its folder must exist.
        payload: the output of :func:`map_payload`.

    Raises:
        InputError: the folder of ``path`` does not exist.
    """
    out = Path(path)
    if not out.parent.is_dir():
        raise InputError(f"{out.parent}: folder does not exist; create it or choose another --out")
    page = (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{html.escape(payload['title'])}</title>\n<style>\n{_static('map.css')}\n</style>\n</head>\n"
        f"<body>\n{_static('map.html')}\n"
        f'<script type="application/json" id="map-data">{_json_for_script(payload)}</script>\n'
        f"<script>\n{_static('map.js')}\n</script>\n</body>\n</html>\n"
    )
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(out)
    return out
