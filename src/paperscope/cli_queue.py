r"""``paperscope queue``: one paper at a time, one keystroke to mark it and see the next.

On a terminal each key acts at once (``click.getchar``); when stdin is not a terminal (a pipe, a
script, a test) each line's first character is the key, so ``printf '3\n4\nq\n' | paperscope
queue`` keeps the first paper, rejects the second and stops. The marks are saved as each key is
pressed, so quitting at any point (q, Ctrl-C, closing the terminal) loses nothing, and the next
``paperscope queue`` resumes at the next unseen paper.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from typing import TYPE_CHECKING, Any

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
    click.secho(f"[{position:,}/{total:,}] {hit.display_label}", bold=True)
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


class _Keys:
    """Read one key at a time from a terminal without losing keys typed ahead.

    ``click.getchar`` switches the terminal to raw mode for each key with ``TCSAFLUSH``, which
    throws away whatever was typed meanwhile (a key pressed while the next paper was being
    ranked was echoed, then lost). Here the terminal is put in cbreak mode (no echo, no line
    buffering, Ctrl-C still a signal) once, with ``TCSANOW``, for the whole queue, and restored on
    exit; a text prompt (tag, note) gets the normal mode back while it reads. Off a terminal (a
    pipe, a test) each line's first character is the key. Where ``termios`` is missing
    (Windows), ``click.getchar`` is used.
    """

    def __init__(self, interactive: bool):
        self.interactive = interactive
        self._saved: list[Any] | None = None
        self._fd = -1

    def __enter__(self) -> _Keys:
        if self.interactive:
            try:
                import termios
                import tty

                self._fd = sys.stdin.fileno()
                self._saved = termios.tcgetattr(self._fd)
                tty.setcbreak(self._fd, termios.TCSANOW)
            except (ImportError, OSError, ValueError):
                self._saved = None
        return self

    def __exit__(self, *exc: object) -> None:
        self._restore()

    def _restore(self) -> None:
        if self._saved is not None:
            import termios

            termios.tcsetattr(self._fd, termios.TCSANOW, self._saved)

    def key(self) -> str:
        """One key: a keystroke on a terminal, else the first character of the next line ("" at EOF)."""
        if not self.interactive:
            line = sys.stdin.readline()
            if not line:
                return ""
            return line.strip()[:1] or "\n"
        try:
            if self._saved is None:
                return click.getchar()
            data = os.read(self._fd, 1)
            if data == b"\x1b":  # an escape sequence (an arrow key): read it whole, it is no key
                import select

                while select.select([self._fd], [], [], 0.01)[0]:
                    os.read(self._fd, 8)
                return "\x1b"
            if data and data[0] >= 0xC0:  # the first byte of a UTF-8 character: read the rest
                need = 1 if data[0] < 0xE0 else 2 if data[0] < 0xF0 else 3
                data += os.read(self._fd, need)
            return data.decode("utf-8", "replace") if data else "q"
        except (EOFError, KeyboardInterrupt):
            return "q"

    def text(self, prompt: str) -> str | None:
        """A line of text (a tag, a note); None when cancelled (Ctrl-C, end of input)."""
        if not self.interactive:
            line = sys.stdin.readline()
            return line.rstrip("\n") if line else None
        import termios
        import tty

        self._restore()
        try:
            return click.prompt(prompt, default="", show_default=False)
        except (click.Abort, EOFError, KeyboardInterrupt):
            click.echo("  (cancelled)")
            return None
        finally:
            if self._saved is not None:
                tty.setcbreak(self._fd, termios.TCSANOW)


def run_queue(lib: Library, order: str, topic_id: int | None, tag: str | None) -> dict[str, int]:
    """Run the interactive queue until q, end of input or nothing left; return marks set per state.

    Raises:
        InputError / NotFound: as :meth:`Library.queue` (unknown order or topic).
    """
    with _Keys(sys.stdin.isatty()) as keys:
        return _run(lib, order, topic_id, tag, keys)


def _run(lib: Library, order: str, topic_id: int | None, tag: str | None, keys: _Keys) -> dict[str, int]:
    interactive = keys.interactive
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
        first = None
        while True:  # keys that do not move on (star, tag, note, unknown) read the next key here
            key = keys.key()
            if interactive:
                click.echo(key if key.isprintable() else "")
            if key in ("", "q", "\x03", "\x04"):
                click.echo(f"Stopped: {queue.progress}. `paperscope queue` resumes here.")
                return done
            if key in KEYS:
                history.append((pid, item.marks["triage"], KEYS[key]))
                lib.set_triage(pid, KEYS[key])
                done[KEYS[key]] = done.get(KEYS[key], 0) + 1
                click.echo(f"→ {KEYS[key]}")
                break
            if key == "s":
                skipped.append(pid)
                break
            if key == "u" and history:
                undo_id, before, after = history.pop()
                lib.set_triage(undo_id, before)
                done[after] -= 1
                if not done[after]:
                    del done[after]
                if undo_id in skipped:
                    skipped.remove(undo_id)
                click.echo(f"undone: {undo_id} is {before or 'unseen'} again")
                first = undo_id
                break
            if key == "u":
                click.echo("nothing to undo")
            elif key == "*":
                starred = not item.marks["starred"]
                lib.star(pid, starred)
                item.marks["starred"] = starred
                click.echo("★ starred" if starred else "unstarred")
            elif key == "t":
                tag_text = (keys.text("tag") or "").strip()
                if tag_text:
                    lib.tag(pid, tag_text)
                    click.echo(f"#{tag_text}")
            elif key == "n":
                note = keys.text("note")
                if note is not None:
                    lib.set_note(pid, note)
                    click.echo("note saved")
            else:
                click.echo(f"unknown key {key!r}; {_HELP}")
        queue = lib.queue(order=order, limit=1, topic_id=topic_id, tag=tag, skip=skipped[-500:], first=first)
        if queue.ordered_by != shown_order:
            shown_order = queue.ordered_by
            print_header(queue)
