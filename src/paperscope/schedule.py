"""The attendee's plan: the sessions of the chosen papers, by day and session, in time order, with clashes.

Sessions come from the program (``paperscope enrich --program FILE``, stored by migration 10).
A **clash** is two sessions of two different chosen papers whose times overlap (``a.start <
b.end`` and ``b.start < a.end``; a session without an end is an instant): an oral during another
oral, or an oral during a poster, cannot both be attended. Two posters of one poster session are
not a clash: the session is a hall to walk through, and seeing both is what it is for. Sessions
without a time are listed apart and never clash.

The ``uid`` of a session (:func:`session_uid`) is what the iCalendar export names the event by:
the paper_id, the kind and the session's place among the paper's sessions of that kind
(``<paper_id>-oral-1@paperscope``), so it is the same in every export and a session the
program moves keeps its UID (a calendar updates the event instead of adding a second one).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .errors import InputError
from .links import paper_links
from .store import marks, papers, sessions

__all__ = [
    "Slot",
    "SessionGroup",
    "DayPlan",
    "Plan",
    "session_uid",
    "find_clashes",
    "build_plan",
    "plan_for",
    "parse_day",
]

#: The link a session's paper is shown with: the first of these kinds the paper has.
_LINK_ORDER = ("openreview", "arxiv", "doi", "pdf", "url", "project", "code")


def session_uid(paper_id: str, kind: str, ordinal: int) -> str:
    """Return the stable iCalendar UID of a paper's ``ordinal``-th (1-based) session of ``kind``."""
    return f"{paper_id}-{kind}-{ordinal}@paperscope"


@dataclass
class Slot:
    """One session of one chosen paper.

    Attributes:
        uid: :func:`session_uid` of the session.
        paper_id, label, title: the paper, what it is shown as, and its title (None when the label
            is generated, the paper having no title).
        link: the paper's page (OpenReview first), or None.
        kind, name, room, url: the session's kind (``oral``/``poster``…), name, room or board,
            and its event page.
        starts_at, ends_at: ISO 8601 with the program's offset, or None.
        timezone: the program's IANA zone, or None.
        day: the local date of the start (``YYYY-MM-DD``), or None.
        clashes_with: uids of the slots this one clashes with.

    """

    uid: str
    paper_id: str
    label: str
    title: str | None
    link: str | None
    kind: str
    name: str | None
    starts_at: str | None
    ends_at: str | None
    timezone: str | None
    day: str | None
    room: str | None
    url: str | None
    clashes_with: list[str] = field(default_factory=list)

    @property
    def start(self) -> datetime | None:
        return datetime.fromisoformat(self.starts_at) if self.starts_at else None

    @property
    def end(self) -> datetime | None:
        return datetime.fromisoformat(self.ends_at) if self.ends_at else self.start

    def to_dict(self) -> dict[str, Any]:
        return {
            "uid": self.uid,
            "paper_id": self.paper_id,
            "label": self.label,
            "title": self.title,
            "link": self.link,
            "kind": self.kind,
            "name": self.name,
            "starts_at": self.starts_at,
            "ends_at": self.ends_at,
            "timezone": self.timezone,
            "day": self.day,
            "room": self.room,
            "url": self.url,
            "clashes_with": list(self.clashes_with),
        }


@dataclass
class SessionGroup:
    """One session of the day (a name at a time) and the chosen papers presented in it."""

    kind: str
    name: str | None
    starts_at: str | None
    ends_at: str | None
    slots: list[Slot] = field(default_factory=list)

    @property
    def has_clash(self) -> bool:
        return any(s.clashes_with for s in self.slots)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "starts_at": self.starts_at,
            "ends_at": self.ends_at,
            "has_clash": self.has_clash,
            "slots": [s.to_dict() for s in self.slots],
        }


@dataclass
class DayPlan:
    """One day (local date) of the plan: its sessions in time order."""

    day: str | None
    sessions: list[SessionGroup] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"day": self.day, "sessions": [g.to_dict() for g in self.sessions]}


@dataclass
class Plan:
    """The plan: days in order (sessions without a time in a last day ``None``), and every clash.

    ``clashes`` holds each clashing pair once, as ``(uid, uid)`` in time order; ``papers`` counts
    the papers in the plan, ``without_sessions`` the chosen papers that have no session on any day.
    """

    days: list[DayPlan] = field(default_factory=list)
    clashes: list[tuple[str, str]] = field(default_factory=list)
    papers: int = 0
    without_sessions: int = 0

    @property
    def slots(self) -> list[Slot]:
        return [s for d in self.days for g in d.sessions for s in g.slots]

    def to_dict(self) -> dict[str, Any]:
        return {
            "days": [d.to_dict() for d in self.days],
            "clashes": [list(pair) for pair in self.clashes],
            "papers": self.papers,
            "without_sessions": self.without_sessions,
        }


def _is_clash(a: Slot, b: Slot) -> bool:
    if a.paper_id == b.paper_id or a.start is None or b.start is None:
        return False
    if a.kind == b.kind == "poster" and (a.name, a.starts_at) == (b.name, b.starts_at):
        return False  # one poster session: walk from board to board
    a_start, a_end, b_start, b_end = a.start, a.end, b.start, b.end
    assert a_end is not None and b_end is not None  # a start means an end (the start, at least)
    if a_start == b_start:
        return True
    return a_start < b_end and b_start < a_end


def find_clashes(slots: Sequence[Slot]) -> list[tuple[str, str]]:
    """Return every clashing pair of ``slots`` (in time order) as ``(uid, uid)``, and mark both slots.

    ``slots`` must be in time order (:func:`build_plan` sorts them); the sweep compares each slot
    with the later ones that start before it ends.
    """
    timed = [s for s in slots if s.start is not None]
    pairs: list[tuple[str, str]] = []
    for i, a in enumerate(timed):
        for b in timed[i + 1 :]:
            if b.start is not None and a.end is not None and b.start > a.end:
                break
            if _is_clash(a, b):
                pairs.append((a.uid, b.uid))
                a.clashes_with.append(b.uid)
                b.clashes_with.append(a.uid)
    return pairs


def build_plan(slots: Iterable[Slot]) -> Plan:
    """Group ``slots`` (the sessions of the chosen papers) by day and session in time order; mark the clashes."""
    ordered = sorted(
        slots,
        key=lambda s: (
            s.start is None,
            s.start.timestamp() if s.start else 0.0,
            s.end.timestamp() if s.end else 0.0,
            s.name or "",
            s.label.casefold(),
            s.uid,
        ),
    )
    plan = Plan(clashes=find_clashes(ordered))
    groups: dict[tuple[Any, ...], SessionGroup] = {}
    days: dict[str | None, DayPlan] = {}
    for slot in ordered:
        day = days.get(slot.day)
        if day is None:
            day = days[slot.day] = DayPlan(slot.day)
            plan.days.append(day)
        key = (slot.day, slot.kind, slot.name, slot.starts_at, slot.ends_at)
        group = groups.get(key)
        if group is None:
            group = groups[key] = SessionGroup(slot.kind, slot.name, slot.starts_at, slot.ends_at)
            day.sessions.append(group)
        group.slots.append(slot)
    plan.papers = len({s.paper_id for s in ordered})
    return plan


def chosen_ids(
    conn: sqlite3.Connection, state: str | None = None, starred: bool = False, tag: str | None = None
) -> set[str] | None:
    """Return the paper_ids with triage ``state``, starred and with ``tag`` (each when given), or None for all.

    Raises:
        InputError: ``state`` is not a triage state.

    """
    if state is not None and state not in marks.TRIAGE_STATES:
        raise InputError(f"unknown triage state {state!r}; choose one of: {', '.join(marks.TRIAGE_STATES)}")
    keep: set[str] | None = marks.marked_ids(conn, starred=starred, tag=tag) if starred or tag else None
    if state is not None:
        in_state = {p for p, s in marks.triage_states(conn).items() if s == state}
        keep = in_state if keep is None else keep & in_state
    return keep


def parse_day(day: str) -> str:
    """Return ``day`` as ``YYYY-MM-DD`` (the form sessions store).

    Raises:
        InputError: ``day`` is not a ``YYYY-MM-DD`` date.
    """
    try:
        return datetime.strptime(day, "%Y-%m-%d").date().isoformat()
    except ValueError:
        raise InputError(f"--day {day!r} is not a date: write it as YYYY-MM-DD (2026-07-14)") from None


def plan_for(
    conn: sqlite3.Connection,
    state: str | None = None,
    starred: bool = False,
    tag: str | None = None,
    day: str | None = None,
    paper_ids: Iterable[str] | None = None,
) -> Plan:
    """Return the plan of the chosen papers' stored sessions (every enriched paper when none is chosen).

    Args:
        conn: the library connection.
        state: keep papers with this triage state (``keep``…).
        starred: keep starred papers.
        tag: keep papers with this tag.
        day: keep one local day, ``YYYY-MM-DD``.
        paper_ids: keep these papers (full ids).

    Raises:
        InputError: ``state`` is unknown or ``day`` is not a ``YYYY-MM-DD`` date.

    """
    if day is not None:
        day = parse_day(day)
    keep = chosen_ids(conn, state, starred, tag)
    if paper_ids is not None:
        wanted = set(paper_ids)
        keep = wanted if keep is None else keep & wanted
    rows = sessions.paper_sessions(conn, sorted(keep) if keep is not None else None)
    ordinals: dict[tuple[str, str], int] = {}
    slots: list[Slot] = []
    shown: dict[str, tuple[str, str | None, str | None]] = {}
    for row in rows:  # in time order: the ordinal of a kind counts over the paper's whole program
        pid = row["paper_id"]
        ordinals[(pid, row["kind"])] = ordinals.get((pid, row["kind"]), 0) + 1
        if day is not None and row["day"] != day:
            continue
        if pid not in shown:
            paper = papers.get_paper(conn, pid)
            links = paper_links(paper.urls, paper.external_ids)
            link = next((links[k] for k in _LINK_ORDER if k in links), None)
            shown[pid] = (paper.label, paper.title, link)
        label, title, link = shown[pid]
        slots.append(
            Slot(
                uid=session_uid(pid, row["kind"], ordinals[(pid, row["kind"])]),
                paper_id=pid,
                label=label,
                title=title,
                link=link,
                kind=row["kind"],
                name=row["name"],
                starts_at=row["starts_at"],
                ends_at=row["ends_at"],
                timezone=row["timezone"],
                day=row["day"],
                room=row["room"],
                url=row["url"],
            )
        )
    plan = build_plan(slots)
    if keep is not None:
        plan.without_sessions = len(keep - {row["paper_id"] for row in rows})
    return plan
