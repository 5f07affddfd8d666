"""/schedule in headless Chromium, in English and 中文: every field's visible text, the clashes, the day links.

The library is :mod:`schedule_program`'s six kept papers enriched from an ICML-2026-shaped
program (Seoul time). Screenshots: artifacts/schedule-en.png and artifacts/schedule-zh.png.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser_helpers import offline_browser, screenshot, serve, text_problems
from schedule_program import TITLES, planned_library

from paperscope import Library

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Library, dict[str, str]]]:
    lib, ids = planned_library(tmp_path_factory.mktemp("plan"))
    yield lib, ids
    lib.close()


def _texts(page, selector: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [t.strip() for t in page.locator(selector).all_inner_texts()]


def _session(page, name: str):  # type: ignore[no-untyped-def]
    return page.locator(".schedule-session", has=page.locator(".session-name", has_text=name))


#: What each language shows, field by field (day 1 and day 2 of the plan).
EXPECTED = {
    "en": {
        "h1": "Your plan at the conference",
        "summary": "Papers: 6 · sessions: 9 · clashes: 2",
        "choices": ["All with a session", "Kept", "Maybe", "Starred"],
        "days": ["All days", "Tue 14 Jul", "Wed 15 Jul"],
        "headings": ["Tuesday 14 July 2026", "Wednesday 15 July 2026"],
        "download": "Download calendar (.ics)",
        "kinds": ["Oral", "Oral", "Poster", "Poster", "Poster", "Oral", "Poster"],
        "badge": "Clash",
        "clash": "Clashes with: {}",
        "link": "paper page",
        "nav": "Plan",
    },
    "zh": {
        "h1": "我的会议日程",
        "summary": "6 篇论文，9 场报告，2 处时间冲突。",
        "choices": ["所有有场次的论文", "已保留", "待定", "已收藏"],
        "days": ["全部日期", "7月14日 星期二", "7月15日 星期三"],
        "headings": ["2026年7月14日 星期二", "2026年7月15日 星期三"],
        "download": "下载日历 (.ics)",
        "kinds": ["口头报告", "口头报告", "海报", "海报", "海报", "口头报告", "海报"],
        "badge": "时间冲突",
        "clash": "冲突论文：{}",
        "link": "论文页面",
        "nav": "日程",
    },
}


def test_schedule_page_in_english_and_chinese(planned: tuple[Library, dict[str, str]]) -> None:
    lib, ids = planned
    with serve(lib) as url, offline_browser() as browser:
        page, log = browser.new_page()
        page.set_default_timeout(20_000)
        for lang, want in EXPECTED.items():
            page.goto(f"{url}/lang/{lang}?next=/schedule")
            page.wait_for_selector(f"html[lang={'zh-Hans' if lang == 'zh' else 'en'}]")
            page.wait_for_load_state("load")
            assert log.problems() == [], log.problems()
            assert page.locator("nav#nav a[data-nav=schedule]").inner_text() == want["nav"]
            assert page.locator("nav#nav a[aria-current=page]").get_attribute("data-nav") == "schedule"
            assert page.locator("h1").inner_text() == want["h1"]
            assert page.locator("#schedule-summary").inner_text() == want["summary"]
            assert _texts(page, ".toolbar .seg a[data-choice]") == want["choices"]
            assert _texts(page, ".schedule-days a") == want["days"]
            assert _texts(page, ".schedule-day h2") == want["headings"]
            assert page.locator("#schedule-ics").inner_text() == want["download"]
            assert page.locator("#schedule-ics").get_attribute("href") == "/api/export?format=ics"
            # Sessions in time order: the two 10:00 orals, poster sessions 1 and 2; day 2: poster 3, oral 3C, poster 4.
            assert _texts(page, ".session-name") == [
                "Oral 1A Efficient Models",
                "Oral 1B Representation Learning",
                "Poster Session 1 East",
                "Poster Session 2 West",
                "Poster Session 3 East",
                "Oral 3C Data-Centric ML",
                "Poster Session 4 West",
            ]
            assert _texts(page, ".schedule-session .chip.kind") == want["kinds"]
            assert _texts(page, ".schedule-time") == [
                "10:00–10:15", "10:00–10:15", "11:00–13:30", "16:30–19:00", "09:30–12:00", "10:00–10:15", "14:00–16:30",
            ]  # fmt: skip
            assert set(_texts(page, ".schedule-zone")) == {"Asia/Seoul (UTC+09:00)"}
            oral = _session(page, "Oral 1A Efficient Models")
            assert oral.locator(".clash-badge").inner_text() == want["badge"]
            assert oral.locator(".schedule-paper").inner_text() == TITLES["quokka"]
            assert oral.locator(".clash-note").inner_text() == want["clash"].format(TITLES["wombat"])
            assert oral.locator(".schedule-link").inner_text() == want["link"]
            assert (
                oral.locator(".schedule-link").get_attribute("href")
                == "https://openreview.net/forum?id=quokka2026"
            )
            hall = _session(page, "Poster Session 1 East")
            assert hall.locator(".clash-badge").count() == 0 and hall.locator(".clash-note").count() == 0
            assert sorted(_texts(hall, ".schedule-paper")) == sorted(
                TITLES[k] for k in ("quokka", "platypus", "echidna")
            )
            assert _texts(_session(page, "Poster Session 3 East"), ".clash-note") == [
                want["clash"].format(TITLES["dingo"])
            ]
            assert page.locator(".schedule-session.has-clash").count() == 4
            assert text_problems(page.locator("main").inner_text()) == []
            screenshot(page, f"schedule-{lang}")

        # One day: the day link keeps the papers chosen; the paper link opens the paper.
        page.click(".toolbar .seg a[data-choice=keep]")
        page.wait_for_url("**/schedule?state=keep")
        page.click(".schedule-days a[data-day='2026-07-15']")
        page.wait_for_url("**/schedule?state=keep&day=2026-07-15")
        assert _texts(page, ".schedule-day h2") == ["2026年7月15日 星期三"]
        assert page.locator("#schedule-summary").inner_text() == "2 篇论文，3 场报告，1 处时间冲突。"
        assert page.locator("#schedule-ics").get_attribute("href") == "/api/export?format=ics&state=keep"
        page.click(f".schedule-papers li[data-paper-id='{ids['dingo']}'] a.schedule-paper >> nth=0")
        page.wait_for_url(f"**/paper/{ids['dingo']}")
        # The paper page lists its sessions, each a link to that day of the plan.
        assert _texts(page, "#main .paper-meta a.paper-slot") == [
            "口头报告 · 7月15日 星期三 10:00–10:15 (UTC+09:00) · Oral 3C Data-Centric ML",
            "海报 · 7月15日 星期三 14:00–16:30 (UTC+09:00) · Poster Session 4 West",
        ]
        assert page.locator("a.paper-slot").first.get_attribute("href") == "/schedule?day=2026-07-15"
        assert _texts(page, "li.attached") == [
            "标题, 作者, 录用结果, 领域, 链接, 编号来自会议日程 program.csv 第 8 行（自动匹配）"
        ]
        screenshot(page, "schedule-paper-zh")
        assert log.problems() == [], log.problems()
