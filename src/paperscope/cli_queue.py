r"""``paperscope queue``: one paper at a time, one keystroke to mark it and see the next.

On a terminal each key acts at once (``click.getchar``); when stdin is not a terminal (a pipe, a
script, a test) each line's first character is the key, so ``printf '3\n4\nq\n' | paperscope
queue`` keeps the first paper, rejects the second and stops. The marks are saved as each key is
pressed, so quitting at any point (q, Ctrl-C, closing the terminal) loses nothing, and the next
``paperscope queue`` resumes at the next unseen paper.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from .library import Library
    from .triage.queue import Queue, QueueItem

__all__ = ["KEYS", "run_queue", "print_item", "print_header"]

#: key → triage state; the same digits as the paper page's buttons (0 clears the state).
KEYS = {"1": "skimmed", "2": "maybe", "3": "keep", "4": "reject"}
_HELP = (
    "[1] skimmed  [2] maybe  [3] keep  [4] reject  [s] skip  [u] undo  [*] star  [t] tag  [n] note  [q] quit"
)
#: Lines of abstract shown before "…" (the whole abstract is one `paperscope show` away).
ABSTRACT_LINES = 14


def _width() -> int:
    return max(40, min(100, shutil.get_terminal_size((88, 24)).columns))


def print_header(queue: Queue) -> None:
    """Print ``Queue: 412 of 3,300 seen · keep 12 · reject 30 · ordered by recommendation``."""
    parts = [f"Queue: {queue.progress}"]
    parts += [f"{state} {n:,}" for state, n in sorted(queue.counts.items())]
    parts.append("ordered by recommendation" if queue.ordered_by == "recommended" else "topic by topic")
    click.echo(" · ".join(parts))
    if queue.notice:
        click.echo(f"note: {queue.notice}", err=True)


def print_item(item: QueueItem, position: int, total: int, lib: Library) -> None:
    """Print one queue paper: label, meta, topic, why it is here, card lines, abstract and links."""
    from .cli import _card_lines

    hit = item.hit
    paper = lib.get(hit.paper_id)
    width = _width()
    click.echo("─" * width)
    click.secho(f"[{position:,}/{total:,}] {hit.label}", bold=True)
    meta = [" ".join(str(v) for v in (hit.venue, hit.year) if v), hit.decision or ""]
    if item.topic and item.topic.get("topic"):
        meta.append(f"topic: {item.topic['topic']}")
    click.echo(" · ".join(m for m in meta if m) + f"   ({hit.paper_id})")
    if hit.authors:
        click.echo(textwrap.shorten(", ".join(hit.authors), width=width, placeholder=" …"))
    if hit.terms or hit.like:
        why = []
        if hit.like:
            why.append("like " + " | ".join(hit.like))
        if hit.terms:
            why.append("terms: " + ", ".join(hit.terms))
        click.echo("why: " + "; ".join(why))
    for line in _card_lines(paper.card.to_dict() if paper.card else {}):
        click.echo(textwrap.shorten(line, width=width, placeholder=" …"))
    lines = textwrap.wrap(paper.clean_text, width=width)
    click.echo("")
    click.echo("\n".join(lines[:ABSTRACT_LINES]) + (" …" if len(lines) > ABSTRACT_LINES else ""))
    if hit.links:
        click.echo("")
        click.echo("links: " + "  ".join(f"{kind} {url}" for kind, url in hit.links.items()))
    marks = item.marks
    if marks["starred"] or marks["tags"] or marks["note"] or marks["triage"]:
        from .cli import _marks_text

        click.echo(f"marks: {_marks_text(marks)}")


def _read_key(interactive: bool) -> str:
    """One key: a keystroke on a terminal, else the first character of the next line ("" at EOF)."""
    if interactive:
        try:
            return click.getchar()
        except (EOFError, KeyboardInterrupt):
            return "q"
    line = sys.stdin.readline()
    if not line:
        return ""
    return line.strip()[:1] or "\n"


def _read_text(prompt: str, interactive: bool) -> str:
    if interactive:
        return click.prompt(prompt, default="", show_default=False)
    return sys.stdin.readline().rstrip("\n")


def run_queue(lib: Library, order: str, topic_id: int | None, tag: str | None) -> dict[str, int]:
    """Run the interactive queue until q, end of input or nothing left; return marks set per state.

    Raises:
        InputError / NotFound: as :meth:`Library.queue` (unknown order or topic).
    """
    interactive = sys.stdin.isatty()
    skipped: list[str] = []
    history: list[tuple[str, str | None, str]] = []  # (paper_id, state before, state set) for undo
    done: dict[str, int] = {}
    first: str | None = None
    if order == "recommended":
        click.echo("Opening the queue (ranking the unseen papers by what you kept)…", err=True)
    queue = lib.queue(order=order, limit=1, topic_id=topic_id, tag=tag)
    if queue.seen:
        click.echo(f"Resuming: {queue.progress}.")
    print_header(queue)
    shown_order = queue.ordered_by
    while True:
        if not queue.items:
            click.echo(f"Nothing left unseen here: {queue.progress}.")
            return done
        item = queue.items[0]
        pid = item.hit.paper_id
        print_item(item, queue.seen + 1, queue.total, lib)
        click.echo(_HELP)
        key = _read_key(interactive)
        if interactive:
            click.echo(key if key.isprintable() else "")
        first = None
        if key in ("", "q", "\x03", "\x04"):
            click.echo(f"Stopped: {queue.progress}. `paperscope queue` resumes here.")
            return done
        if key in KEYS:
            history.append((pid, item.marks["triage"], KEYS[key]))
            lib.set_triage(pid, KEYS[key])
            done[KEYS[key]] = done.get(KEYS[key], 0) + 1
            click.echo(f"→ {KEYS[key]}")
        elif key == "s":
            skipped.append(pid)
        elif key == "u":
            if not history:
                click.echo("nothing to undo")
                first = pid
            else:
                undo_id, before, after = history.pop()
                lib.set_triage(undo_id, before)
                done[after] -= 1
                if not done[after]:
                    del done[after]
                if undo_id in skipped:
                    skipped.remove(undo_id)
                click.echo(f"undone: {undo_id} is {before or 'unseen'} again")
                first = undo_id
        elif key == "*":
            lib.star(pid, not item.marks["starred"])
            first = pid
        elif key == "t":
            tag_text = _read_text("tag", interactive).strip()
            if tag_text:
                lib.tag(pid, tag_text)
            first = pid
        elif key == "n":
            lib.set_note(pid, _read_text("note", interactive))
            first = pid
        else:
            click.echo(f"unknown key {key!r}; {_HELP}")
            first = pid
        queue = lib.queue(order=order, limit=1, topic_id=topic_id, tag=tag, skip=skipped[-500:], first=first)
        if queue.ordered_by != shown_order:
            shown_order = queue.ordered_by
            print_header(queue)
