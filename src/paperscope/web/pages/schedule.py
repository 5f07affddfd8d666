"""The attendee's plan ``/schedule``: the chosen papers' sessions by day and session, clashes marked.

Reads the same ``Library.schedule`` as ``GET /api/schedule`` and ``paperscope schedule``. The
papers are every paper with a session, the kept ones (``?papers=keep``), those marked maybe or the
starred ones; ``?day=YYYY-MM-DD`` keeps one day. The download button is ``GET /api/export?format=ics``
over the same papers. Days and times are written in the program's time zone, as the program gives them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ..api.deps import library_of
from ..i18n import lang_of, translator
from .common import html_errors, render

__all__ = ["router", "CHOICES", "day_label", "short_day", "session_text"]

router = APIRouter(include_in_schema=False)

#: The paper sets the page offers, the default first.
CHOICES = ("all", "keep", "maybe", "starred")
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


def _selection(choice: str) -> dict[str, Any]:
    return {"state": choice} if choice in ("keep", "maybe") else {"starred": choice == "starred"}


@router.get("/schedule", response_class=HTMLResponse)
@html_errors
def schedule_page(request: Request, papers: str = "all", day: str | None = None) -> HTMLResponse:
    """Render the plan of the chosen papers (one day, with ``day``) and the calendar download."""
    lang = lang_of(request)
    t = translator(lang)
    choice = papers if papers in CHOICES else "all"
    with library_of(request) as lib:
        whole = lib.schedule(**_selection(choice))
        plan = lib.schedule(**_selection(choice), day=day or None) if day else whole
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
    query = {"format": "ics", **{k: ("1" if v is True else v) for k, v in _selection(choice).items() if v}}

    def link(**values: str | None) -> str:
        merged = {"papers": choice, "day": day, **values}
        kept = {k: v for k, v in merged.items() if v and not (k == "papers" and v == "all")}
        return "/schedule" + (f"?{urlencode(kept)}" if kept else "")

    return render(
        request,
        "schedule.html",
        nav="schedule",
        plan=plan,
        days=shown,
        day=day,
        choice=choice,
        choices=[(c, link(papers=c)) for c in CHOICES],
        day_links=[(None, t("schedule_all_days"), link(day=None))]
        + [(d, short_day(d, lang), link(day=d)) for d in days],
        ics_href="/api/export?" + urlencode(query),
        sessions=len(plan.slots),
    )
