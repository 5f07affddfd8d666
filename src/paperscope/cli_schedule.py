"""``paperscope schedule``: the attendee's day plan, by session in time order, clashes marked.

Registered on the ``cli`` group by :func:`register` (called from ``cli.py``), as ``build`` is.
The plan itself is :mod:`paperscope.schedule`; this module parses the options and prints it.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

import click

from .cli_output import emit_json, json_option

if TYPE_CHECKING:
    from .schedule import Plan, SessionGroup

__all__ = ["register", "format_plan"]

#: The mark before a paper that clashes with another chosen paper's session.
CLASH_MARK = "!!"


def _clock(stamp: str | None) -> str:
    return datetime.fromisoformat(stamp).strftime("%H:%M") if stamp else "--:--"


def _heading(group: SessionGroup) -> str:
    start = datetime.fromisoformat(group.starts_at) if group.starts_at else None
    offset = start.strftime("%z") if start else ""
    offset = f" (UTC{offset[:3]}:{offset[3:]})" if offset else ""
    when = f"{_clock(group.starts_at)}–{_clock(group.ends_at)}{offset}" if start else "no time"
    return f"{when}  {group.kind}  {group.name or ''}".rstrip()


def format_plan(plan: Plan) -> str:
    """Return the plan as text: a block per day, a heading per session, a line per paper.

    A paper whose session clashes with another's is marked ``!!`` and names the other paper.
    """
    labels = {s.uid: s.label for s in plan.slots}
    out: list[str] = []
    for day in plan.days:
        if day.day is None:
            out.append("Sessions without a time")
        else:
            out.append(datetime.fromisoformat(day.day).strftime("%A %Y-%m-%d"))
        for group in day.sessions:
            out.append("  " + _heading(group) + ("  [clash]" if group.has_clash else ""))
            for slot in group.slots:
                mark = CLASH_MARK if slot.clashes_with else "  "
                room = f"  ({slot.room})" if slot.room else ""
                out.append(f"    {mark} {slot.label}{room}  {slot.paper_id}")
                for other in slot.clashes_with:
                    out.append(f"         clashes with: {labels[other]}")
        out.append("")
    n, papers, sessions = len(plan.clashes), plan.papers, len(plan.slots)
    out.append(
        f"{papers:,} paper{'' if papers == 1 else 's'}, {sessions:,} session{'' if sessions == 1 else 's'},"
        f" {n:,} clash{'' if n == 1 else 'es'}"
        + (
            f"; {plan.without_sessions:,} chosen papers have no session (enrich --program FILE)"
            if plan.without_sessions
            else ""
        )
    )
    return "\n".join(out)


def register(cli: click.Group, command: Any, library: Any) -> None:
    """Add ``schedule`` to ``cli``; ``command`` and ``library`` are cli.py's helpers."""

    @command("schedule")
    @click.option(
        "--state", default=None, help="Only papers with this triage state (skimmed, maybe, keep, reject)."
    )
    @click.option("--starred", is_flag=True, help="Only starred papers.")
    @click.option("--tag", default=None, help="Only papers with this tag.")
    @click.option(
        "--day", default=None, metavar="YYYY-MM-DD", help="Only this day (the program's local date)."
    )
    @json_option("Print the plan as JSON.")
    @click.pass_context
    def schedule(
        ctx: click.Context, state: str | None, starred: bool, tag: str | None, day: str | None, as_json: bool
    ) -> None:
        """Print the day plan of your papers: their sessions by day, in time order, clashes marked.

        Sessions come from the program (`paperscope enrich --program FILE`). Two sessions of two
        chosen papers that overlap are a clash (two posters of one poster session are not).

        Example: paperscope schedule --state keep --day 2026-07-14
        """
        plan = library(ctx).schedule(state=state, starred=starred, tag=tag, day=day)
        if as_json:
            emit_json(plan.to_dict())
            return
        if not plan.slots:
            other_days = (
                day is not None and library(ctx).schedule(state=state, starred=starred, tag=tag).slots
            )
            click.echo(
                f"No sessions of these papers on {day}"
                if other_days
                else "No sessions for these papers: attach the program first (paperscope enrich --program FILE)",
                err=True,
            )
            return
        click.echo(format_plan(plan))
