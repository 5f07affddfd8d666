r"""``paperscope enrich``: the report of a run and ``--review``, one suggestion at a time.

Review shows one suggested pairing (the paper's label and abstract opening beside the program
entry's title, authors, session and score) and reads one key: ``a`` accept (the entry's fields
are attached, as an agreed pair would be, with method ``review``), ``r`` reject (never suggested
again), ``s`` skip (kept for a later review), ``q`` quit. On a terminal each key acts at once;
from a pipe each line's first character is the key (``printf 'a\nr\nq\n' | paperscope enrich
--review``), as in ``paperscope queue``. Each key is saved at once.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .cli_output import emit_json

if TYPE_CHECKING:
    from .enrich import EnrichReport
    from .enrich.attach import UndoReport
    from .library import Library

__all__ = ["print_report", "print_undo", "run_review", "counted", "REVIEW_KEYS"]

REVIEW_KEYS = "[a] accept  [r] reject  [s] skip  [q] quit"
#: Lines of the paper's abstract shown beside a suggestion.
_ABSTRACT_LINES = 6


def _width() -> int:
    return max(40, min(100, shutil.get_terminal_size((88, 24)).columns))


def _read_key(interactive: bool) -> str:
    """One key: a keystroke on a terminal, else the first character of the next line ("" at EOF)."""
    if interactive:
        try:
            return click.getchar()
        except (EOFError, KeyboardInterrupt):
            return "q"
    line = sys.stdin.readline()
    return (line.strip()[:1] or "\n") if line else ""


#: How the run matched, in words (``EnrichReport.mode``): the titles' and abstracts' embeddings
#: too, or BM25 of their words alone.
_HOW = {"hybrid": "matched with the embeddings", "bm25": "matched by words only"}


def counted(n: int, noun: str) -> str:
    """Return ``n`` with ``noun``, plural unless n is 1 (``1 row``, ``3 rows``, ``2 entries``)."""
    if n == 1:
        return f"1 {noun}"
    return f"{n:,} {noun[:-1] + 'ies' if noun.endswith('y') else noun + 's'}"


def print_undo(done: UndoReport, program: Path | None, as_json: bool) -> None:
    """Print what ``enrich --undo`` did: papers restored, open suggestions and sessions removed."""
    restored, kept = done
    if as_json:
        data = {
            "restored": restored,
            "changed_since": kept,
            "suggestions_removed": done.suggestions,
            "sessions_removed": done.sessions,
        }
        emit_json(data)
        return
    click.echo(
        f"undone: {counted(len(restored), 'paper')} restored; removed {counted(done.suggestions, 'open suggestion')}"
        f" and {counted(done.sessions, 'session')}" + (f" (program {program})" if program else "")
    )
    if kept:
        click.echo(
            f"note: {counted(len(kept), 'paper')} had a field changed since; that field was left as it is",
            err=True,
        )


def print_report(report: EnrichReport) -> None:
    """Print what one enrich run attached and left for review (lines on stdout, notes on stderr)."""
    click.echo(
        f"{report.program}: {counted(report.entries, 'entry')} ({report.in_library:,} already in the"
        f" library), {counted(report.untitled, 'paper')} without a title; {_HOW[report.mode]}"
    )
    for item in report.attached:
        click.echo(
            f"  attached {item['paper_id']}  {item['title']}  (score {item['score']:.2f}, line {item['line']})"
        )
    click.echo(
        f"attached {len(report.attached):,} titles; {report.suggestions:,} suggestions to review"
        " (`paperscope enrich --review`)"
    )
    if report.sessions:
        click.echo(f"stored {report.sessions:,} sessions of the attached papers (`paperscope schedule`)")
    if report.sessions_shared:
        n = report.sessions_shared
        click.echo(
            f"{n:,} of the program's sessions {'was' if n == 1 else 'were'} stored from another program"
            " already: each is shown once"
        )
    if report.without_title:
        lines = ", ".join(str(n) for n in report.without_title[:10])
        more = f" and {len(report.without_title) - 10} more" if len(report.without_title) > 10 else ""
        n = len(report.without_title)
        click.echo(
            f"note: {counted(n, 'program row')} {'has' if n == 1 else 'have'} no title"
            f" (line{'' if n == 1 else 's'} {lines}{more})",
            err=True,
        )
    if report.unused_columns:
        click.echo(f"note: program columns not used: {', '.join(report.unused_columns)}", err=True)
    if report.notice:
        click.echo(f"note: {report.notice}", err=True)


def _print_suggestion(lib: Library, s: dict[str, Any], position: int, total: int) -> None:
    paper = lib.get(s["paper_id"])
    entry = s["entry"]
    width = _width()
    click.echo("─" * width)
    click.secho(f"[{position:,}/{total:,}] {paper.display_label}", bold=True)
    click.echo(f"({paper.paper_id})")
    lines = textwrap.wrap(paper.clean_text, width=width)
    click.echo("\n".join(lines[:_ABSTRACT_LINES]) + (" …" if len(lines) > _ABSTRACT_LINES else ""))
    click.echo("")
    click.secho(f"program: {entry.title}", bold=True)
    meta = [
        " ".join(str(v) for v in (entry.venue, entry.year) if v),
        entry.decision or "",
        entry.session or "",
    ]
    click.echo(
        " · ".join(m for m in meta if m)
        + f"   (suggestion {s['rank']} for this paper, score {s['score']:.2f},"
        f" line {entry.line})"
    )
    if entry.authors:
        click.echo(textwrap.shorten(", ".join(entry.authors), width=width, placeholder=" …"))


def run_review(lib: Library, program: str | None = None) -> dict[str, int]:
    """Review the open suggestions until q, end of input or none left; return counts per action.

    The counter ``[i/n]``: i is this suggestion's place in the session, n the suggestions settled
    or skipped so far plus every one still open (the count the web page and ``--review --json``
    give; an accept closes the paper's other suggestions, so n can drop by more than one).
    Keys are read case-blind; any other key is answered with the list of keys.
    """
    interactive = sys.stdin.isatty()
    done = {"accepted": 0, "rejected": 0, "skipped": 0}
    skipped: set[int] = set()
    while True:
        open_now = lib.enrich_suggestions(program)
        pending = [s for s in open_now if s["suggestion_id"] not in skipped]
        if not pending:
            left = f" ({len(open_now):,} skipped, still open)" if open_now else ""
            click.echo(f"No suggestions left to review{left}.")
            return done
        s = pending[0]
        seen = sum(done.values())
        _print_suggestion(lib, s, seen + 1, done["accepted"] + done["rejected"] + len(open_now))
        click.echo(REVIEW_KEYS)
        key = _read_key(interactive)
        if interactive:
            click.echo(key if key.isprintable() else "")
        key = key.lower()
        if key in ("", "q", "\x03", "\x04"):
            click.echo(f"Stopped with {len(open_now):,} suggestions open.")
            return done
        if key == "a":
            lib.review_enrich(s["suggestion_id"], accept=True)
            done["accepted"] += 1
            click.echo(f"→ attached: {s['entry'].title}")
        elif key == "r":
            lib.review_enrich(s["suggestion_id"], accept=False)
            done["rejected"] += 1
            click.echo("→ rejected")
        elif key == "s":
            skipped.add(s["suggestion_id"])
            done["skipped"] += 1
        else:
            shown = "Enter" if key in ("\n", "\r") else repr(key)
            click.echo(f"unknown key {shown}: the keys are {REVIEW_KEYS}", err=True)
