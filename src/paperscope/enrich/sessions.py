"""The sessions of a program row (kind, name, times with their time zone, room) and rows that are one paper.

A conference program lists a paper once per presentation: the official ICML 2026 CSV has an
``Oral`` row and a ``Poster`` row for every oral. :func:`merge_entries` makes them one
:class:`~paperscope.enrich.program.ProgramEntry` that keeps every session, so the matcher sees
one entry per paper (two identical rows tied, and the paper went to review).

Times: ``2026-07-14T10:00:00+09:00`` (ISO 8601 with an offset, or ``Z``) is read as written; a time
without an offset (``2026-07-14 10:00:00``) is read in the program's time zone, which a
``timezone`` column (per row) or ``paperscope enrich --timezone ZONE`` (an IANA name, e.g.
``Asia/Seoul``) gives; the column wins over the option. With a zone, every time is shown in that
zone (the same instant). A time without an offset and without a zone is an error naming the file
and line, never a guess.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dateutil import parser as date_parser

from ..errors import InputError
from ..ingest.fields import normalise_key, split_authors

if TYPE_CHECKING:
    from .program import ProgramEntry

__all__ = [
    "ProgramSession",
    "SESSION_FIELD_ALIASES",
    "session_fields",
    "read_session",
    "time_zone",
    "merge_entries",
]

#: Columns (after ``normalise_key``) each part of a session goes by, best first. ``event_type``
#: is the ICML program's kind column; ``institutions`` is kept on the entry.
SESSION_FIELD_ALIASES: dict[str, tuple[str, ...]] = {
    "kind": ("event_type", "kind", "presentation_type", "presentation", "session_type"),
    "start": ("starttime", "start_time", "start", "starts_at", "begin", "start_date"),
    "end": ("endtime", "end_time", "end", "ends_at", "finish", "end_date"),
    "room": ("room", "location", "board", "poster_board", "poster_position", "poster_number"),
    "timezone": ("timezone", "time_zone", "tz"),
    "institutions": ("institutions", "institution", "affiliations", "affiliation"),
}

_SLUG_RE = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class ProgramSession:
    """One presentation of a paper in the program.

    Attributes:
        kind: ``oral``, ``poster``, or the program's own word for it, folded (``spotlight``).
        name: the session's name (``Oral 1A Optimization``), or None.
        starts_at, ends_at: ISO 8601 with the UTC offset (``2026-07-14T10:00:00+09:00``), in the
            program's time zone when one is known; None when the program gives no time.
        timezone: the IANA zone the times are in (``Asia/Seoul``), or None (a bare offset).
        room: the room, board or poster position, when the program gives one.
        url: the event's own page (``https://icml.cc/virtual/2026/oral/1001``), when given.
        line: the program line the session was read from.

    """

    kind: str
    name: str | None = None
    starts_at: str | None = None
    ends_at: str | None = None
    timezone: str | None = None
    room: str | None = None
    url: str | None = None
    line: int = 0

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ProgramSession:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def session_fields(names: Sequence[str], column_map: Mapping[str, str]) -> dict[str, str]:
    """Return ``{part: column}`` for the session parts of a row with these column names.

    ``column_map`` may name any part (``--map start=Begins``); the rest are found by
    :data:`SESSION_FIELD_ALIASES`. A mapped column that is not there is left out (the caller
    checks ``--map`` against CSV headers).
    """
    by_key = {normalise_key(n): n for n in names}
    out: dict[str, str] = {}
    for part, aliases in SESSION_FIELD_ALIASES.items():
        wanted = column_map.get(part)
        if wanted is not None:
            if normalise_key(wanted) in by_key:
                out[part] = by_key[normalise_key(wanted)]
            continue
        found = next((by_key[a] for a in aliases if a in by_key), None)
        if found is not None:
            out[part] = found
    return out


def time_zone(name: str | None, path: str, line: int | None = None) -> ZoneInfo | None:
    """Return the IANA zone called ``name`` (None for None or blank).

    Raises:
        InputError: no zone has that name (the message names the file and line).

    """
    if name is None or not name.strip():
        return None
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise InputError(
            f"unknown time zone {name.strip()!r}: give an IANA name such as Asia/Seoul or America/Vancouver",
            path,
            line,
        ) from None


def _cell(item: Mapping[str, Any], column: str | None) -> str | None:
    if column is None:
        return None
    value = item.get(column)
    if isinstance(value, list):
        value = "; ".join(str(v) for v in value if v)
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text or None


def _parse_time(
    text: str, zone: ZoneInfo | None, path: str, line: int, what: str, default: datetime | None = None
) -> datetime:
    """Read one time cell; an ISO 8601 stamp first, then dateutil (``Jul 14 2026 10:00 AM``)."""
    try:
        stamp = datetime.fromisoformat(text)
    except ValueError:
        try:
            stamp = date_parser.parse(text, default=default.replace(tzinfo=None) if default else None)
        except (ValueError, OverflowError):
            raise InputError(
                f"{what} {text!r} is not a time (write 2026-07-14T10:00:00+09:00)", path, line
            ) from None
    if stamp.tzinfo is None:
        if zone is None:
            raise InputError(
                f"{what} {text!r} has no UTC offset and the program names no time zone:"
                " give one with --timezone (e.g. Asia/Seoul) or a timezone column",
                path,
                line,
            )
        return stamp.replace(tzinfo=zone)
    return stamp.astimezone(zone) if zone is not None else stamp


def _kind(text: str | None, session: str | None) -> str:
    """``oral``/``poster`` from the event type (or, without one, the session name), else the type folded."""
    for probe in (text, session):
        folded = (probe or "").casefold()
        if "oral" in folded:
            return "oral"
        if "poster" in folded:
            return "poster"
    return _SLUG_RE.sub("-", (text or "").casefold()).strip("-") or "session"


def read_session(
    item: Mapping[str, Any],
    fields: Mapping[str, str],
    name: str | None,
    urls: Sequence[str],
    zone: ZoneInfo | None,
    path: str,
    line: int,
) -> ProgramSession | None:
    """Return the session a program row describes, or None when it names no session, kind or time.

    Args:
        item: the row, ``{column: cell}``.
        fields: :func:`session_fields` of the row.
        name: the session name the reader found (``session`` column).
        urls: the row's links; one that is not the paper's (OpenReview, arXiv, PDF) is the event page.
        zone: the program's time zone (``--timezone``), overridden by a ``timezone`` cell.
        path: the program file, for errors.
        line: the row's line, for errors.

    Raises:
        InputError: a time is not a time, has no offset and no zone is known, a zone is unknown,
            or the session ends before it starts.

    """
    kind_text = _cell(item, fields.get("kind"))
    start_text = _cell(item, fields.get("start"))
    end_text = _cell(item, fields.get("end"))
    if not (name or kind_text or start_text):
        return None
    zone = time_zone(_cell(item, fields.get("timezone")), path, line) or zone
    start = _parse_time(start_text, zone, path, line, "start time") if start_text else None
    end = _parse_time(end_text, zone, path, line, "end time", default=start) if end_text else None
    if start is not None and end is not None and end < start:
        raise InputError(f"the session ends ({end_text}) before it starts ({start_text})", path, line)
    event_url = next(
        (u for u in urls if not any(s in u for s in ("openreview.net", "arxiv.org", ".pdf"))), None
    )
    return ProgramSession(
        kind=_kind(kind_text, name),
        name=name,
        starts_at=start.isoformat() if start else None,
        ends_at=end.isoformat() if end else None,
        timezone=zone.key if zone is not None else None,
        room=_cell(item, fields.get("room")),
        url=event_url,
        line=line,
    )


def institutions_of(item: Mapping[str, Any], fields: Mapping[str, str]) -> tuple[str, ...]:
    """Return the row's institutions (``;``-separated, as authors are), in order, without repeats."""
    return tuple(split_authors(item.get(fields["institutions"]))) if "institutions" in fields else ()


def _start_key(session: ProgramSession) -> tuple[int, str, int]:
    if session.starts_at is None:
        return (1, "", session.line)
    return (0, datetime.fromisoformat(session.starts_at).astimezone(UTC).isoformat(), session.line)


def merge_entries(entries: Sequence[ProgramEntry]) -> list[ProgramEntry]:
    """Make program rows that are one paper one entry that keeps every session.

    Two rows are one paper when they share the OpenReview id or the title (case and spacing
    ignored); the first row gives the line, title and decision, later rows add sessions, links
    and ids it lacks. Sessions are put in time order (those without a time last). Entries that
    are alone are returned as they are, in file order.
    """
    groups: list[list[ProgramEntry]] = []
    where: dict[tuple[str, str], int] = {}
    for entry in entries:
        keys = [("title", " ".join(entry.title.casefold().split()))]
        if entry.external_ids.get("openreview"):
            keys.append(("openreview", entry.external_ids["openreview"]))
        found = next((where[k] for k in keys if k in where), None)
        if found is not None and not _same_id(groups[found][0], entry):
            found = None  # one title, two OpenReview ids: two papers
        if found is None:
            found = len(groups)
            groups.append([])
        groups[found].append(entry)
        for key in keys:
            where.setdefault(key, found)
    return [group[0] if len(group) == 1 else _merged(group) for group in groups]


def _same_id(first: ProgramEntry, entry: ProgramEntry) -> bool:
    a, b = first.external_ids.get("openreview"), entry.external_ids.get("openreview")
    return a is None or b is None or a == b


def _merged(group: list[ProgramEntry]) -> ProgramEntry:
    first = group[0]
    sessions = sorted((s for e in group for s in e.sessions), key=_start_key)
    urls = list(dict.fromkeys(u for e in group for u in e.urls))
    ids: dict[str, str] = {}
    for entry in group:
        ids.update({k: v for k, v in entry.external_ids.items() if k not in ids})
    names = list(dict.fromkeys(s.name for s in sessions if s.name))
    return dataclasses.replace(
        first,
        authors=first.authors or next((e.authors for e in group if e.authors), ()),
        institutions=first.institutions or next((e.institutions for e in group if e.institutions), ()),
        decision=first.decision or next((e.decision for e in group if e.decision), None),
        area=first.area or next((e.area for e in group if e.area), None),
        session="; ".join(names) or None,
        sessions=tuple(sessions),
        urls=tuple(urls),
        external_ids=ids,
        lines=tuple(e.line for e in group),
    )
