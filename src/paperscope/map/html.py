"""Build the map's data; write it into one offline HTML file, or the shell of the server's live page.

Two pages run the same ``static/map.js`` (our own canvas renderer, no library):

- the standalone file of ``paperscope map --out F`` needs no network: the script and
  ``static/map.css`` are inlined and the data sits in a ``<script type="application/json">``
  block (:func:`write_map_html`);
- the server's ``/map`` (:func:`live_map_html`) is a shell under the app's strict CSP: the script
  and style are files (``/map/assets/...``), the data is fetched from ``/api/map``, and the
  page's query is highlighted with the library's own search.

The fonts are the system's. Text is inserted with ``textContent`` only, so abstracts with ``<``
or ``&`` show as written (case 5 of the bug cases).
"""

from __future__ import annotations

import functools
import hashlib
import html
import os
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from .. import strict_json
from ..confidence import shown_card
from ..errors import InputError, NotFound
from ..models import Paper, Topic, claim_text
from ..text import readable

__all__ = [
    "map_payload",
    "write_map_html",
    "live_map_html",
    "live_map_parts",
    "map_asset",
    "MAP_ASSETS",
    "PALETTE",
    "COLOR_MODES",
    "UNASSIGNED_COLOR",
]

#: Category colours (Tableau 20 reordered so neighbours in the list differ in hue); the map
#: and the PNG cycle through it in order of category size.
PALETTE = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d",
    "#31a354", "#756bb1", "#636363", "#a55194", "#6baed6", "#fd8d3c", "#74c476", "#9e9ac8",
]  # fmt: skip
#: Colour of the Unassigned group and of papers with an unknown area or venue.
UNASSIGNED_COLOR = "#b4b4b4"
#: Card keys the payload leaves out: shown from the paper's own columns, or meaningless to a reader.
_CARD_DROP = frozenset({"label", "extractor_version", "venue", "year"})
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
    abstract_chars: int | None = None,
    compact: bool = False,
) -> dict[str, Any]:
    """Return the JSON the map page reads: papers column by column, topics, colour categories.

    Args:
        papers: the library's papers; those without coordinates in ``assigned`` are left out.
        assigned: ``paper_id → {topic_id, subtopic_id, is_outlier, x, y}`` (``Library.paper_topics``).
        topics: every stored topic.
        color_by: the initial colouring, one of :data:`COLOR_MODES`.
        title: page title.
        abstract_chars: cut each abstract to about this many characters (the live page, whose
            card links to the paper page, needs only a snippet); None keeps them whole.
        compact: the live page's smaller payload (about a third at 21k papers): each card keeps
            only what the card panel shows (no span offsets or evidence), a title equal to the
            label is sent once (as the label), coordinates are rounded to 5 decimals.

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
    # Only the confident items, as on the paper page (issue 27).
    cards = [shown_card(p.card.to_dict()) if p.card else {} for p in rows]
    cards = [{k: v for k, v in c.items() if v and k not in _CARD_DROP} for c in cards]
    for card in cards:  # each claim as the paper page writes it: one formatter, in Python
        card["claims"] = [
            {**c, "text": claim_text(c)} for c in card.get("claims") or [] if isinstance(c, dict)
        ]
        if not card["claims"]:
            del card["claims"]
    if compact:
        cards = [_readable_card(c) for c in cards]
    digits = 5 if compact else None
    abstracts = [p.clean_text for p in rows]
    if abstract_chars is not None:
        abstracts = [_cut(text, abstract_chars) for text in abstracts]
    return {
        "title": title or f"paperscope map: {len(rows)} papers",
        "color_by": color_by,
        "palette": PALETTE,
        "unassigned_color": UNASSIGNED_COLOR,
        "papers": {
            "paper_id": [p.paper_id for p in rows],
            "x": [_round(assigned[p.paper_id]["x"], digits) for p in rows],
            "y": [_round(assigned[p.paper_id]["y"], digits) for p in rows],
            "topic_id": [assigned[p.paper_id]["topic_id"] for p in rows],
            "subtopic_id": [assigned[p.paper_id]["subtopic_id"] for p in rows],
            "is_outlier": [int(assigned[p.paper_id]["is_outlier"]) for p in rows],
            "label": [p.display_label for p in rows],  # a generated label marked "[Label] …"
            "title": [p.title or "" if not compact or p.title != p.label else "" for p in rows],
            "authors": [p.authors for p in rows],
            "venue": [" ".join(str(v) for v in (p.venue, p.year) if v) for p in rows],
            "area": [p.source_area or "" for p in rows],
            "decision": [p.decision or "" for p in rows],
            "keywords": [[readable(k) for k in p.keywords] for p in rows],
            "abstract": abstracts,
            "urls": [p.urls for p in rows],
            "card": cards,
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


#: What the card panel reads of each card entry (compact payload); other keys are spans and evidence.
_CARD_KEEP = {
    "methods": ("name", "long_form"),
    "contribution_types": ("type",),
    "tasks": ("text",),
    "datasets": ("name",),
    "claims": ("text",),
    "area": ("label", "source", "confidence"),
}


#: The search box's length: ``paperscope.library.MAX_QUERY_CHARS`` (a search cuts a query there);
#: not imported, as the library imports this module.
MAX_QUERY_CHARS = 20_000


def _readable_card(card: dict[str, Any]) -> dict[str, Any]:
    """Return ``card`` with only the keys the card panel shows (no offsets, mentions or evidence)."""
    slim: dict[str, Any] = {}
    for key, value in card.items():
        keep = _CARD_KEEP.get(key)
        if keep is None:
            if key in ("code_urls", "project_urls") or (key == "method_names" and not card.get("methods")):
                slim[key] = value
        elif isinstance(value, dict):
            slim[key] = {k: value[k] for k in keep if value.get(k) not in (None, "")}
        elif isinstance(value, list):
            slim[key] = [
                {k: e[k] for k in keep if e.get(k) not in (None, "")} if isinstance(e, dict) else e
                for e in value
            ]
    return slim


def _round(value: float, digits: int | None) -> float:
    return value if digits is None else round(value, digits)


def _cut(text: str, limit: int) -> str:
    """Return ``text`` cut at a word boundary near ``limit`` characters, with "…" when cut."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    space = head.rfind(" ")
    return (head[:space] if space > limit // 2 else head).rstrip(" ,;:") + "…"


def _static(name: str) -> str:
    return resources.files("paperscope.map").joinpath("static", name).read_text(encoding="utf-8")


def _json_for_script(data: Any) -> str:
    # "<" as \u003c keeps "</script>" and "<!--" inside strings from ending the block early.
    return strict_json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


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


#: The files the live page loads from ``/map/assets/{name}``, with their media types. A fixed
#: list: any other name is a 404, so no request path ever reaches the file system.
MAP_ASSETS = {"map.js": "text/javascript; charset=utf-8", "map.css": "text/css; charset=utf-8"}
#: The site's pages, as the nav of every page links them: (data-nav key, href, English, 中文).
_NAV = (
    ("search", "/", "Search", "搜索"),
    ("topics", "/topics", "Topics", "主题"),
    ("map", "/map", "Map", "地图"),
    ("library", "/library", "Reading list", "阅读列表"),
    ("ingest", "/ingest", "Ingest", "导入"),
)
_SEARCH_MODES = ("hybrid", "bm25", "dense")
_SHELL_TEXT = {
    "en": {"q": "Search papers (English or 中文)", "go": "Search", "title": "Topic map"},
    "zh": {"q": "搜索论文（中文或英文）", "go": "搜索", "title": "主题地图"},
}


def map_asset(name: str) -> tuple[bytes, str]:
    """Return ``(bytes, media type)`` of a live-page asset named in :data:`MAP_ASSETS`.

    Raises:
        NotFound: ``name`` is not one of them.
    """
    media = MAP_ASSETS.get(name)
    if media is None:
        raise NotFound(f"no map asset {name!r}; the map serves {', '.join(sorted(MAP_ASSETS))}")
    return _asset_bytes(name), media


@functools.cache
def _asset_bytes(name: str) -> bytes:
    return resources.files("paperscope.map").joinpath("static", name).read_bytes()


@functools.cache
def _asset_version(name: str) -> str:
    return hashlib.sha256(_asset_bytes(name)).hexdigest()[:12]


def live_map_parts() -> dict[str, str]:
    """Return what a template of the live page needs: the map's body fragment and asset versions.

    ``map_body`` is this package's own ``static/map.html`` (trusted markup, no data in it);
    the versions go in the asset URLs (``?v=``) so a browser never runs a stale script.
    """
    return {
        "map_body": _static("map.html"),
        "map_css_version": _asset_version("map.css"),
        "map_js_version": _asset_version("map.js"),
    }


def live_map_html(
    query: str = "", mode: str | None = None, lang: str = "en", message: str | None = None
) -> str:
    """Return the server's map page: site nav, map controls, external script and style, no data.

    The script fetches the data from ``/api/map`` and highlights the hits of ``query`` (the
    library's own search, ``mode`` as ``/api/search`` takes it). With ``message`` the page
    shows that text instead of a map (the 404 before topics are fitted) and loads no script.
    No inline script and no style attribute: the page runs under the app's strict CSP.

    Args:
        query: the page's ``?q=``, put in the highlight box.
        mode: the page's ``?mode=``; None (or an unknown mode) leaves the search default.
        lang: ``"en"`` or ``"zh"`` (the interface language, from the ``paperscope_lang`` cookie).
        message: show this instead of the map.
    """
    lang = lang if lang in _SHELL_TEXT else "en"
    text = _SHELL_TEXT[lang]
    esc = html.escape
    mode = mode if mode in _SEARCH_MODES else None
    here = "/map" + ("?" + urlencode({"q": query, **({"mode": mode} if mode else {})}) if query else "")
    back = esc(quote(here, safe=""))
    current = ' aria-current="page"'
    links = "\n".join(
        f'  <a href="{href}" data-nav="{key}"{current if key == "map" else ""}>'
        f"{esc(zh if lang == 'zh' else en)}</a>"
        for key, href, en, zh in _NAV
    )
    options = "".join(
        f'<option value="{m}"{" selected" if m == (mode or "hybrid") else ""}>{m}</option>'
        for m in _SEARCH_MODES
    )
    nav = (
        '<nav id="nav" aria-label="paperscope">\n  <a href="/" class="brand">paperscope</a>\n'
        f"{links}\n"
        '  <form id="search-form" action="/" method="get" role="search">\n'
        f'    <input id="q" name="q" type="search" maxlength="{MAX_QUERY_CHARS}" placeholder="{esc(text["q"])}" aria-label="{esc(text["q"])}">\n'
        f'    <select id="mode" name="mode" aria-label="mode">{options}</select>\n'
        f'    <button type="submit">{esc(text["go"])}</button>\n  </form>\n'
        f'  <span class="langs"><a href="/lang/en?next={back}" data-lang="en" lang="en">English</a>'
        f' <a href="/lang/zh?next={back}" data-lang="zh" lang="zh-Hans">中文</a></span>\n</nav>\n'
    )
    head = (
        f'<!doctype html>\n<html lang="{"zh-Hans" if lang == "zh" else "en"}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(text['title'])} · paperscope</title>\n"
        '<link rel="icon" href="data:,">\n'
        f'<link rel="stylesheet" href="/map/assets/map.css?v={_asset_version("map.css")}">\n'
    )
    if message is not None:
        return (
            f'{head}</head>\n<body class="live message">\n{nav}'
            f'<main id="map-message"><p>{esc(message)}</p></main>\n</body>\n</html>\n'
        )
    attrs = f' data-map-src="/api/map" data-lang="{lang}"'
    attrs += f' data-query="{esc(query)}"' + (f' data-mode="{mode}"' if mode else "")
    return (
        f'{head}<script src="/map/assets/map.js?v={_asset_version("map.js")}" defer></script>\n</head>\n'
        f'<body class="live"{attrs}>\n{nav}{_static("map.html")}\n</body>\n</html>\n'
    )
