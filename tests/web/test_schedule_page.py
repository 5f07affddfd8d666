"""GET /api/schedule and the /schedule page (in-process): the plan, its clashes, the .ics download, both languages."""

from __future__ import annotations

from collections.abc import Iterator

import icalendar
import pytest
from browser_helpers import visible_text
from fastapi.testclient import TestClient
from schedule_program import TITLES, planned_library
from test_api import _conforms

from paperscope import Library
from paperscope.web import create_app


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Library, dict[str, str]]]:
    lib, ids = planned_library(tmp_path_factory.mktemp("plan"))
    yield lib, ids
    lib.close()


def test_the_json_plan_matches_its_schema(planned: tuple[Library, dict[str, str]]) -> None:
    lib, ids = planned
    with TestClient(create_app(lib)) as client:
        answer = client.get("/api/schedule", params={"state": "keep"})
        spec = client.get("/openapi.json").json()
        bad = client.get("/api/schedule", params={"day": "July 14"})
    assert answer.status_code == 200
    schema = spec["paths"]["/api/schedule"]["get"]["responses"]["200"]["content"]["application/json"][
        "schema"
    ]
    _conforms(answer.json(), schema, spec)
    data = answer.json()["data"]
    assert data["papers"] == 6 and data["without_sessions"] == 0
    assert data["clashes"] == [
        [f"{ids['quokka']}-oral-1@paperscope", f"{ids['wombat']}-oral-1@paperscope"],
        [f"{ids['koala']}-poster-1@paperscope", f"{ids['dingo']}-oral-1@paperscope"],
    ]
    poster = data["days"][0]["sessions"][2]
    assert (poster["name"], poster["has_clash"]) == ("Poster Session 1 East", False)
    assert sorted(s["label"] for s in poster["slots"]) == sorted(
        TITLES[k] for k in ("quokka", "platypus", "echidna")
    )
    assert bad.status_code == 400
    assert bad.json() == {
        "ok": False,
        "error": "--day 'July 14' is not a date: write it as YYYY-MM-DD (2026-07-14)",
        "status": 400,
    }


def test_the_calendar_download_is_the_plans_papers(planned: tuple[Library, dict[str, str]]) -> None:
    lib, ids = planned
    with TestClient(create_app(lib)) as client:
        page = client.get("/schedule", params={"state": "keep"}).text
        href = page.split('id="schedule-ics" href="', 1)[1].split('"', 1)[0]
        assert href == "/api/export?format=ics&amp;state=keep"
        answer = client.get("/api/export", params={"format": "ics", "state": "keep"})
    assert answer.headers["content-type"] == "text/calendar; charset=utf-8"
    assert answer.headers["content-disposition"].endswith('-keep.ics"')
    events = icalendar.Calendar.from_ical(answer.content).events
    assert len(events) == 9  # 6 papers, 3 of them with an oral and a poster
    assert {str(e["SUMMARY"]) for e in events if e.uid.startswith(ids["dingo"])} == {
        f"Oral: {TITLES['dingo']}",
        f"Poster: {TITLES['dingo']}",
    }


def test_the_page_and_the_api_choose_papers_by_the_same_names(
    planned: tuple[Library, dict[str, str]],
) -> None:
    lib, ids = planned
    lib.set_triage(ids["koala"], "maybe")
    try:
        with TestClient(create_app(lib)) as client:
            pages = {q: client.get(f"/schedule?{q}") for q in ("state=maybe", "starred=1", "", "state=keep")}
            plans = {q: client.get(f"/api/schedule?{q}").json()["data"] for q in pages}
            links = pages["state=maybe"].text
            bad = {
                q: (client.get(f"/schedule?{q}"), client.get(f"/api/schedule?{q}"))
                for q in ("papers=keep", "state=kept", "starred=maybe")
            }
    finally:
        lib.set_triage(ids["koala"], "keep")
    for q, page in pages.items():  # the page shows what the API gives for the same query
        assert page.status_code == 200
        assert page.text.count('<li data-paper-id="') == sum(
            len(g["slots"]) for d in plans[q]["days"] for g in d["sessions"]
        )
    assert plans["state=maybe"]["papers"] == 1 and plans["starred=1"]["papers"] == 0
    assert plans[""]["papers"] == 6 and plans["state=keep"]["papers"] == 5
    assert '<a data-choice="maybe" href="/schedule?state=maybe" aria-current="true">' in links
    assert '<a data-choice="starred" href="/schedule?starred=1">' in links
    assert 'href="/api/export?format=ics&amp;state=maybe"' in links
    messages = {
        "papers=keep": "unknown parameter papers: this page takes state (keep, maybe, skimmed, reject),"
        " starred=1 and day=YYYY-MM-DD, as /api/schedule does",
        "state=kept": "unknown triage state &#39;kept&#39;; choose one of: skimmed, maybe, keep, reject",
        "starred=maybe": "starred must be 1 or 0 (true or false), got &#39;maybe&#39;",
    }
    for q, (page, api) in bad.items():
        assert page.status_code == 400 and f'<p class="error-message">{messages[q]}' in page.text
        assert api.status_code == 400 and api.json()["ok"] is False
    assert bad["papers=keep"][1].json()["error"] == (
        "unknown query parameter: papers; this route takes: day, starred, state, tag"
    )
    assert bad["state=kept"][1].json()["error"] == (
        "unknown triage state 'kept'; choose one of: skimmed, maybe, keep, reject"
    )


def test_the_page_of_one_day_in_chinese(planned: tuple[Library, dict[str, str]]) -> None:
    lib, _ = planned
    with TestClient(create_app(lib)) as client:
        client.cookies.set("paperscope_lang", "zh")
        page = client.get("/schedule", params={"day": "2026-07-15"}).text
    assert "<h2>2026年7月15日 星期三</h2>" in page
    assert '<p class="muted" id="schedule-summary">2 篇论文，3 场报告，1 处时间冲突。</p>' in page
    assert f'<p class="clash-note">冲突论文：{TITLES["koala"]}</p>' in page
    assert (
        '<a data-day="2026-07-15" href="/schedule?day=2026-07-15" aria-current="true">7月15日 星期三</a>'
        in page
    )


def _section(page: str, facet: str) -> str:
    """The visible text of one facet section of the search page."""
    html = page.split(f'<section class="facet" data-facet="{facet}">', 1)[1].split("</section>", 1)[0]
    return visible_text(html)


def test_session_and_day_facets_in_time_order(planned: tuple[Library, dict[str, str]]) -> None:
    lib, ids = planned
    with TestClient(create_app(lib)) as client:
        counts = client.get("/api/facets").json()["data"]
        browse = client.get("/api/browse", params={"session": "poster session 1 east", "sort": "title"})
        day_hits = client.get(
            "/api/search", params={"q": "trajectories", "day": "2026-07-15", "mode": "bm25"}
        )
        page = client.get("/", params={"day": "2026-07-14"}).text
        client.cookies.set("paperscope_lang", "zh")
        page_zh = client.get("/").text
    assert [(v["value"], v["count"]) for v in counts["session"]] == [
        ("Oral 1A Efficient Models", 1),
        ("Oral 1B Representation Learning", 1),
        ("Poster Session 1 East", 3),
        ("Poster Session 2 West", 1),
        ("Poster Session 3 East", 1),
        ("Oral 3C Data-Centric ML", 1),
        ("Poster Session 4 West", 1),
    ]
    assert counts["day"] == [
        {"value": "2026-07-14", "label": "2026-07-14", "count": 4},
        {"value": "2026-07-15", "label": "2026-07-15", "count": 2},
    ]
    assert [h["label"] for h in browse.json()["data"]["hits"]] == sorted(
        TITLES[k] for k in ("echidna", "platypus", "quokka")
    )
    assert {h["paper_id"] for h in day_hits.json()["data"]} == {ids["koala"], ids["dingo"]}
    # The browsed library of day 1: the day is an active filter, the sessions of its 4 papers are counted.
    assert _section(page, "day") == "Day at the conference 2026-07-14 ×"
    assert _section(page, "session") == (
        "Session Oral 1A Efficient Models 1 Oral 1B Representation Learning 1 Poster Session 1 East 3"
        " Poster Session 2 West 1"
    )
    assert _section(page_zh, "day") == "会议日期 2026-07-14 4 2026-07-15 2"
    assert _section(page_zh, "session").startswith("报告场次 Oral 1A Efficient Models 1")
