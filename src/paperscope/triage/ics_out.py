"""The attendee's calendar (``export --format ics``): one iCalendar event per session of each paper.

Written with the ``icalendar`` library (RFC 5545). Each event has the stable UID of
:func:`paperscope.schedule.session_uid` (paper_id, kind and ordinal: the same in every export),
the session's start and end, the paper's title or label as the summary (``Oral: …``), the session
name and room as the location, and the paper's own page as the URL. Times are written in the
program's IANA time zone (``DTSTART;TZID=Asia/Seoul``, with the ``VTIMEZONE`` it needs) when the
program or ``enrich --timezone`` named one, else in UTC (a bare offset has no zone a calendar
knows; the instant is the same). A session without a time is not an event (RFC 5545 needs a
start); a paper without sessions adds none.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from ..models import Paper
from .entry import entry_of

if TYPE_CHECKING:
    import icalendar

__all__ = ["write_ics", "PRODID"]

#: The calendar's product identifier (RFC 5545 §3.7.3).
PRODID = "-//paperscope//attendee plan//EN"


def _when(stamp: str, zone: str | None) -> datetime:
    moment = datetime.fromisoformat(stamp)
    return moment.astimezone(ZoneInfo(zone)) if zone else moment.astimezone(UTC)


def _event(paper: Paper, info: dict[str, Any], session: dict[str, Any], stamp: datetime) -> icalendar.Event:
    import icalendar

    entry = entry_of(paper, info)
    link = session.get("link") or entry.url
    event = icalendar.Event()
    event.add("uid", session["uid"])
    event.add("dtstamp", stamp)
    event.add("dtstart", _when(session["starts_at"], session.get("timezone")))
    if session.get("ends_at"):
        event.add("dtend", _when(session["ends_at"], session.get("timezone")))
    event.add("summary", f"{session['kind'].capitalize()}: {entry.title}")
    place = ", ".join(p for p in (session.get("name"), session.get("room")) if p)
    if place:
        event.add("location", place)
    lines = [entry.title, *([session["name"]] if session.get("name") else [])]
    if link:
        lines.append(link)
    lines.append(f"paper_id: {paper.paper_id}")
    event.add("description", "\n".join(lines))
    if link:
        event.add("url", link)
    event.add("categories", [session["kind"]])
    return event


def write_ics(papers: Iterable[tuple[Paper, dict[str, Any]]]) -> Iterator[str]:
    """Yield one iCalendar (``VCALENDAR``) holding an event per timed session of ``papers``.

    Each paper's ``info["sessions"]`` lists its sessions as :meth:`paperscope.schedule.Slot.to_dict`
    gives them (``Library.export`` adds them for this format); a paper without the key has none.
    ``icalendar`` is imported here, not with the module: it takes about 0.14 s, which every
    other export and the web app's start would pay.
    """
    import icalendar

    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("x-wr-calname", "paperscope plan")
    stamp = datetime.now(UTC).replace(microsecond=0)
    for paper, info in papers:
        for session in info.get("sessions") or ():
            if session.get("starts_at"):
                calendar.add_component(_event(paper, info, session, stamp))
    calendar.add_missing_timezones()
    yield calendar.to_ical().decode("utf-8")
