"""A reading list as Markdown (``export --format markdown``): a checklist grouped by topic.

One ``## topic (n)`` section per topic (as the HTML reading list, :func:`html_out.topic_groups`),
each paper one task-list item: star, label (a link to its own page when it has one), venue and
year, paper_id, code link and tags; under it the card summary (methods, tasks, datasets, first
claims) and the user's note, indented so they stay inside the item (CommonMark list items).
Every piece of paper or user text is escaped (:func:`md`), so no HTML, link or emphasis from a
paper passes through; only ``http(s)`` URLs become links.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..links import is_web_url
from ..models import Paper
from .entry import card_summary, entry_of
from .html_out import topic_groups

__all__ = ["write_markdown", "md"]

#: What Markdown reads as markup inside a line: emphasis, code, links, strikethrough, raw HTML
#: (``<``) and entity references (``&name;``). Each is backslash-escaped in paper text (CommonMark
#: 0.31 §2.4: any ASCII punctuation may be); a lone ``&`` or ``>`` mid-line is already literal.
_MD_SPECIAL = re.compile(r"[\\`*_\[\]<~]|&(?=#?[A-Za-z0-9]+;)")


def md(text: object) -> str:
    """Return text from a paper or a mark as literal Markdown: no HTML, links or emphasis pass through."""
    return _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), str(text))


def _item(paper: Paper, info: dict[str, Any]) -> str:
    marks = info["marks"]
    entry = entry_of(paper, info)
    label = f"**{md(entry.title)}**"
    if entry.url and is_web_url(entry.url):
        label = f"**[{md(entry.title)}](<{entry.url}>)**"
    line = f"- [ ] {'★ ' if marks['starred'] else ''}{label}"
    venue = " ".join(str(v) for v in (paper.venue, paper.year) if v)
    if venue:
        line += f" ({md(venue)})"
    line += f" `{paper.paper_id}`"
    if entry.code_url and is_web_url(entry.code_url):
        line += f" — code: <{entry.code_url}>"
    if marks.get("triage"):
        line += f" — {md(marks['triage'])}"
    if marks["tags"]:
        line += " — " + " ".join(f"#{md(t)}" for t in marks["tags"])
    out = [line + "\n"]
    summary = card_summary(paper)
    if summary:
        out.append("  - " + " · ".join(f"{name}: {md(text)}" for name, text in summary) + "\n")
    if marks["note"]:
        # Continuation lines are indented under the note item, so a multi-line note stays inside.
        lines = marks["note"].strip().splitlines() or [""]
        out.append(f"  - note: {md(lines[0])}\n" + "".join(f"    {md(rest)}\n" for rest in lines[1:]))
    return "".join(out)


def write_markdown(papers: Iterable[tuple[Paper, dict[str, Any]]]) -> Iterator[str]:
    """Yield the Markdown reading list of ``papers`` (each with its export ``Info``), topic by topic."""
    groups = topic_groups(papers)
    count = sum(len(items) for items in groups.values())
    yield "# Reading list\n\n"
    yield f"{count} paper{'' if count == 1 else 's'} in {len(groups)} group{'' if len(groups) == 1 else 's'}, by topic.\n"
    for name, items in groups.items():
        yield f"\n## {md(name)} ({len(items)})\n\n"
        for paper, info in items:
            yield _item(paper, info)
