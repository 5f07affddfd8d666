"""A reading list as one self-contained HTML file, grouped by topic (``export --format html``).

For a reading group or a browser tab with no paperscope behind it: one file with its own small
stylesheet, no script and nothing loaded from the network. Each paper shows its title (a link
to its own page), venue and year, authors, code link, a card summary (method names, tasks,
datasets, the first claims), the user's star, tags, triage state and note. Every piece of paper
or user text is HTML-escaped (``html.escape``), and only ``http(s)`` URLs become links.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Iterator
from typing import Any

from ..links import is_web_url
from ..models import Paper
from .entry import card_summary, entry_of

__all__ = ["write_html", "topic_groups", "NO_TOPIC"]

#: The group of papers that have no topic (added since the last topic fit, or none fitted).
NO_TOPIC = "Not in a topic"
_STYLE = """
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2733}
h1{font-size:1.6rem}h2{font-size:1.2rem;border-bottom:1px solid #d8dee6;padding-bottom:.2rem;margin-top:2rem}
article{margin:1rem 0 1.4rem}h3{font-size:1.02rem;margin:0}.meta,.marks{color:#5a6776;font-size:.9rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .8rem;margin:.4rem 0;font-size:.92rem}
dt{color:#5a6776}dd{margin:0}.note{background:#fff8e1;border-left:3px solid #e0b000;padding:.3rem .6rem;
white-space:pre-wrap}a{color:#1f5fa8}
""".strip()


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _link(url: str | None, text: str) -> str:
    if url and is_web_url(url):
        return f'<a href="{_e(url)}">{_e(text)}</a>'
    return _e(text)


def _article(paper: Paper, info: dict[str, Any]) -> str:
    entry = entry_of(paper, info)
    parts = [f'<article id="p-{_e(paper.paper_id)}">', f"<h3>{_link(entry.url, entry.title)}</h3>"]
    meta = " · ".join(str(v) for v in (paper.venue, paper.year) if v)
    if paper.authors:
        meta = " — ".join(p for p in (meta, ", ".join(paper.authors)) if p)
    if meta:
        parts.append(f'<div class="meta">{_e(meta)}</div>')
    rows = card_summary(paper)
    if entry.code_url and is_web_url(entry.code_url):
        rows.insert(0, ("Code", ""))
    if rows:
        parts.append("<dl>")
        for name, text in rows:
            value = _link(entry.code_url, entry.code_url or "") if name == "Code" else _e(text)
            parts.append(f"<dt>{_e(name)}</dt><dd>{value}</dd>")
        parts.append("</dl>")
    marks = [m for m in ("★ starred" if entry.starred else "", entry.state or "") if m]
    marks += [f"#{t}" for t in entry.tags]
    if marks:
        parts.append(f'<div class="marks">{_e(" · ".join(marks))}</div>')
    if entry.note:
        parts.append(f'<div class="note">{_e(entry.note.strip())}</div>')
    parts.append("</article>")
    return "\n".join(parts)


def topic_groups(
    papers: Iterable[tuple[Paper, dict[str, Any]]],
) -> dict[str, list[tuple[Paper, dict[str, Any]]]]:
    """Group papers by topic name, topics in order of first appearance, :data:`NO_TOPIC` last.

    ``info["topic"]["topic"]`` names a paper's topic (an outlier's is the topic nearest to it);
    papers without one (topics not fitted since they were added) go to the last group.
    """
    groups: dict[str, list[tuple[Paper, dict[str, Any]]]] = {}
    for paper, info in papers:
        name = (info.get("topic") or {}).get("topic")
        groups.setdefault(name or NO_TOPIC, []).append((paper, info))
    if NO_TOPIC in groups:
        groups[NO_TOPIC] = groups.pop(NO_TOPIC)
    return groups


def write_html(papers: Iterable[tuple[Paper, dict[str, Any]]]) -> Iterator[str]:
    """Yield one HTML document: the papers grouped by topic (:func:`topic_groups`)."""
    groups = {name: [_article(p, i) for p, i in items] for name, items in topic_groups(papers).items()}
    count = sum(len(v) for v in groups.values())
    yield (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>Reading list ({count} papers)</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        f'<h1>Reading list</h1>\n<p class="meta">{count} paper{"" if count == 1 else "s"} in'
        f" {len(groups)} group{'' if len(groups) == 1 else 's'}, by topic.</p>\n"
    )
    for name, articles in groups.items():
        yield f"<section>\n<h2>{_e(name)} ({len(articles)})</h2>\n" + "\n".join(articles) + "\n</section>\n"
    yield "</body>\n</html>\n"
