"""The attendee's plan ``/schedule``: the chosen papers' sessions by day and session, clashes marked.

Reads the same ``Library.schedule`` as ``GET /api/schedule`` and ``paperscope schedule``, with
their parameter names: the papers are every paper with a session, those with a triage state
(``?state=keep``, ``maybe``…) or the starred ones (``?starred=1``); ``?day=YYYY-MM-DD`` keeps one
day. Any other parameter, or a value none of these take, is a 400 page that says which. The
download button is ``GET /api/export?format=ics`` over the same papers. Days and times are
written in the program's time zone, as the program gives them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ..api.deps import library_of
from ..i18n import lang_of, translator
from .common import BadParam, html_errors, param_bool, param_str, render

__all__ = ["router", "CHOICES", "day_label", "short_day", "session_text"]

router = APIRouter(include_in_schema=False)

#: The paper sets the page offers, the default first: ``state=keep``, ``state=maybe``, ``starred=1``.
CHOICES = ("all", "keep", "maybe", "starred")
#: The query parameters the page takes (the API's names).
_PARAMS = ("state", "starred", "day")
_WEEKDAYS = {
    "en": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "zh": ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"),
}
_MONTHS_EN = "January February March April May June July August September October November December".split()


def day_label(day: str | None, lang: str, untimed: str) -> str:
    """Return ``Tuesday 14 July 2026`` (en) or ``2026年7月14日 星期二`` (zh); ``untimed`` for None."""
    if day is None:
        return untimed
    date = datetime.strptime(day, "%Y-%m-%d").date()
    weekday = _WEEKDAYS[lang][date.weekday()]
    if lang == "zh":
        return f"{date.year}年{date.month}月{date.day}日 {weekday}"
    return f"{weekday} {date.day} {_MONTHS_EN[date.month - 1]} {date.year}"


def short_day(day: str, lang: str) -> str:
    """Return ``Tue 14 Jul`` (en) or ``7月14日 星期二`` (zh) for the day links."""
    date = datetime.strptime(day, "%Y-%m-%d").date()
    if lang == "zh":
        return f"{date.month}月{date.day}日 {_WEEKDAYS['zh'][date.weekday()]}"
    return f"{_WEEKDAYS['en'][date.weekday()][:3]} {date.day} {_MONTHS_EN[date.month - 1][:3]}"


def _clock(stamp: str | None) -> str:
    return datetime.fromisoformat(stamp).strftime("%H:%M") if stamp else ""


def _zone(starts_at: str | None, timezone: str | None) -> str:
    """``Asia/Seoul (UTC+09:00)``, or ``UTC+09:00`` for a bare offset."""
    if not starts_at:
        return ""
    offset = datetime.fromisoformat(starts_at).strftime("%z")
    utc = f"UTC{offset[:3]}:{offset[3:]}"
    return f"{timezone} ({utc})" if timezone else utc


def session_text(slot: Any, lang: str, t: Any) -> str:
    """Return ``Oral · Tue 14 Jul 10:00–10:15 (UTC+09:00) · Oral 1A Optimization`` for a paper page."""
    kind = t("session_kind_" + slot.kind) if slot.kind in ("oral", "poster") else slot.kind
    when = ""
    if slot.starts_at and slot.day:
        end = f"–{_clock(slot.ends_at)}" if slot.ends_at else ""
        when = f"{short_day(slot.day, lang)} {_clock(slot.starts_at)}{end} ({_zone(slot.starts_at, None)})"
    room = t("schedule_room", room=slot.room) if slot.room else ""
    return " · ".join(p for p in (kind, when, slot.name or "", room) if p)


def _choice_params(choice: str) -> dict[str, str]:
    """The query of a paper set of :data:`CHOICES` (none for ``all``)."""
    return {"starred": "1"} if choice == "starred" else {"state": choice} if choice != "all" else {}


def _chosen(request: Request) -> dict[str, Any]:
    """Return ``{state, starred, day}`` from the query, as ``Library.schedule`` takes them.

    Raises:
        BadParam: a parameter the page does not take (the old ``papers=``) or a starred value
            that is not a boolean. An unknown state or day is the library's ``InputError``.
    """
    unknown = sorted(k for k in request.query_params if k not in _PARAMS)
    if unknown:
        raise BadParam(
            f"unknown parameter{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}: this page takes"
            " state (keep, maybe, skimmed, reject), starred=1 and day=YYYY-MM-DD, as /api/schedule does"
        )
    return {
        "state": param_str(request, "state"),
        "starred": bool(param_bool(request, "starred")),
        "day": param_str(request, "day"),
    }


@router.get("/schedule", response_class=HTMLResponse)
@html_errors
def schedule_page(request: Request) -> HTMLResponse:
    """Render the plan of the chosen papers (one day, with ``day``) and the calendar download."""
    lang = lang_of(request)
    t = translator(lang)
    chosen = _chosen(request)
    state, starred, day = chosen["state"], chosen["starred"], chosen["day"]
    if starred:
        choice = "starred" if state is None else None  # both: no one button is the selection
    else:
        choice = (state or "all") if (state or "all") in CHOICES else None  # skimmed, reject: none
    with library_of(request) as lib:
        whole = lib.schedule(state=state, starred=starred)
        plan = lib.schedule(state=state, starred=starred, day=day) if day else whole
    labels = {s.uid: s.label for s in whole.slots}
    days = [d.day for d in whole.days if d.day is not None]
    shown = [
        {
            "day": d.day,
            "label": day_label(d.day, lang, t("schedule_untimed")),
            "sessions": [
                {
                    **g.to_dict(),
                    "time": f"{_clock(g.starts_at)}–{_clock(g.ends_at)}"
                    if g.ends_at
                    else _clock(g.starts_at),
                    "zone": _zone(g.starts_at, g.slots[0].timezone),
                    "slots": [
                        {**s.to_dict(), "clash_labels": [labels[u] for u in s.clashes_with if u in labels]}
                        for s in g.slots
                    ],
                }
                for g in d.sessions
            ],
        }
        for d in plan.days
    ]
    selection = {"state": state, "starred": "1" if starred else None}
    query = {"format": "ics", **{k: v for k, v in selection.items() if v}}

    def link(**values: str | None) -> str:
        merged = {**selection, "day": day, **values}
        kept = {k: v for k, v in merged.items() if v}
        return "/schedule" + (f"?{urlencode(kept)}" if kept else "")

    return render(
        request,
        "schedule.html",
        nav="schedule",
        plan=plan,
        days=shown,
        day=day,
        choice=choice,
        choices=[(c, link(**{"state": None, "starred": None, **_choice_params(c)})) for c in CHOICES],
        day_links=[(None, t("schedule_all_days"), link(day=None))]
        + [(d, short_day(d, lang), link(day=d)) for d in days],
        ics_href="/api/export?" + urlencode(query),
        sessions=len(plan.slots),
    )
