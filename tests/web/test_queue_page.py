"""The triage queue page ``/queue`` and ``GET /api/queue`` (issue 14), with TestClient and in Chromium."""

from __future__ import annotations

import re
from html import unescape

import pytest
from browser_helpers import BAD_TEXT, RAW_LATEX, offline_browser, serve
from browser_helpers import visible_text as _text
from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.web import create_app

pytestmark = pytest.mark.usefixtures("strict_catalogue")


def _current(html: str) -> str:
    return re.search(r'id="queue-paper" data-paper-id="([0-9a-f]+)"', html)[1]  # type: ignore[index]


def test_the_page_shows_progress_the_paper_its_keys_and_what_follows(unmarked: Library) -> None:
    expected = unmarked.queue(order="topic", limit=6)
    with TestClient(create_app(unmarked)) as client:
        html = client.get("/queue").text
        shown = _text(html)
        first = expected.items[0]
        assert _current(html) == first.hit.paper_id
        paper = unmarked.get(first.hit.paper_id)
        for text in (
            "Triage queue",
            "0 of 95 seen",
            "By recommendation",
            "Topic by topic",
            "Nothing is kept or starred yet, so the queue goes topic by topic.",
            paper.display_label,  # "[Label] …": the ICML lists have no titles
            "1 skimmed 2 maybe 3 keep 4 reject s skip u undo",
            "Card",
            "Abstract",
            paper.clean_text[:80],
            "Up next",
            *[item.hit.display_label for item in expected.items[1:]],
        ):
            assert text in shown, text
        assert first.topic["topic"] in shown
        assert not any(bad in shown for bad in BAD_TEXT) and not RAW_LATEX.search(shown)
        unmarked.set_triage(first.hit.paper_id, "keep")
        after = client.get("/queue").text
        assert _current(after) != first.hit.paper_id
        assert "1 of 95 seen" in _text(after) and "keep 1" in _text(after)
        assert f"like {paper.display_label}" in _text(after)  # why next: the kept paper it is like
        assert "Nothing is kept or starred yet" not in _text(after)
        client.cookies.set("paperscope_lang", "zh")
        zh = _text(client.get("/queue").text)
        assert "筛选队列" in zh and "已看 1 / 95" in zh and "保留" in zh


def test_skip_and_undo_urls(unmarked: Library) -> None:
    order = [i.hit.paper_id for i in unmarked.queue(order="topic", limit=3).items]
    with TestClient(create_app(unmarked)) as client:
        html = client.get("/queue", params={"order": "topic"}).text
        skip = unescape(re.search(r'id="queue-skip" href="([^"]+)"', html)[1])  # type: ignore[index]
        assert _current(client.get(skip).text) == order[1]
        unmarked.set_triage(order[0], "reject")
        back = client.get(
            "/queue", params={"order": "topic", "paper": order[0], "prev": order[0], "was": "unseen"}
        )
        assert _current(back.text) == order[0] and 'data-was="unseen"' in back.text
        assert client.get("/queue", params={"order": "sideways"}).status_code == 400
        assert client.get("/queue", params={"topic": "9999"}).status_code == 404
        assert client.get("/queue", params={"skip": ",".join(["abcd"] * 501)}).status_code == 400


def test_when_everything_is_seen_the_page_says_so(unmarked: Library) -> None:
    for paper in unmarked.papers():
        unmarked.set_triage(paper.paper_id, "skimmed")
    with TestClient(create_app(unmarked)) as client:
        shown = _text(client.get("/queue").text)
    assert "Nothing left unseen here." in shown and "95 of 95 seen" in shown and "skimmed 95" in shown


def test_the_api_answers_the_library_s_queue(unmarked: Library) -> None:
    with TestClient(create_app(unmarked)) as client:
        body = client.get("/api/queue", params={"limit": 3, "order": "topic"}).json()
        assert body["ok"] and body["data"]["progress"] == "0 of 95 seen"
        expected = unmarked.queue(order="topic", limit=3).to_dict()
        assert body["data"] == {**expected, "items": [dict(i) for i in expected["items"]]}
        fallback = client.get("/api/queue").json()
        assert fallback["data"]["ordered_by"] == "topic" and "kept or starred" in fallback["notice"]
        assert client.get("/api/queue", params={"limit": 101}).status_code == 400
        assert client.get("/api/queue", params={"skip": "zz"}).status_code == 400


@pytest.mark.browser
def test_keys_mark_show_the_next_skip_and_undo_in_chromium(unmarked: Library) -> None:
    order = [i.hit.paper_id for i in unmarked.queue(order="topic", limit=3).items]
    with serve(unmarked) as url, offline_browser() as browser:
        page, log = browser.new_page()
        page.goto(f"{url}/queue?order=topic")
        page.wait_for_load_state("load")
        shown = page.locator("main").inner_text()
        assert "0 of 95 seen" in shown and not any(bad in shown for bad in BAD_TEXT)
        page.keyboard.press("3")  # keep: saved, then the next paper
        page.wait_for_selector(f"#queue-paper[data-paper-id='{order[1]}']")
        page.wait_for_load_state("load")
        assert unmarked.marks(order[0])["triage"] == "keep"
        assert "1 of 95 seen" in page.locator("#queue-count").inner_text()
        page.keyboard.press("u")  # undo: the kept paper is unseen again and shown again
        page.wait_for_selector(f"#queue-paper[data-paper-id='{order[0]}']")
        page.wait_for_load_state("load")
        assert unmarked.marks(order[0])["triage"] is None
        page.keyboard.press("s")  # skip: not marked, not starred
        page.wait_for_selector(f"#queue-paper:not([data-paper-id='{order[0]}'])")
        page.wait_for_load_state("load")
        assert unmarked.marks(order[0]) == {"starred": False, "tags": [], "note": None, "triage": None}
        skipped_to = page.locator("#queue-paper").get_attribute("data-paper-id")
        page.keyboard.press("4")  # reject, skip, oops: u still undoes the reject after the skip
        page.wait_for_selector(f"#queue-paper:not([data-paper-id='{skipped_to}'])")
        page.wait_for_load_state("load")
        assert unmarked.marks(skipped_to)["triage"] == "reject"
        page.keyboard.press("s")
        page.wait_for_selector("#queue-undo:not([disabled])")
        page.wait_for_load_state("load")
        page.keyboard.press("u")
        page.wait_for_selector(f"#queue-paper[data-paper-id='{skipped_to}']")
        page.wait_for_load_state("load")
        assert unmarked.marks(skipped_to)["triage"] is None
        page.locator("button.queue-mark[data-state='reject']").click()
        page.wait_for_selector("#queue-count:has-text('1 of 95 seen')")
        page.wait_for_load_state("load")
        text = page.locator("main").inner_text()
        assert not any(bad in text for bad in BAD_TEXT) and not RAW_LATEX.search(text)
        assert log.problems() == []


def test_the_reading_list_filters_by_state_and_exports_what_was_kept(unmarked: Library) -> None:
    ids = [p.paper_id for p in unmarked.papers()][:3]
    unmarked.set_triage(ids[0], "keep")
    unmarked.set_triage(ids[1], "keep")
    unmarked.set_triage(ids[2], "reject")
    with TestClient(create_app(unmarked)) as client:
        page = client.get("/library").text
        shown = _text(page)
        # Nothing starred: a note, not buttons that download empty files; the kept papers' own row.
        assert "No paper is starred yet, so there is nothing starred to export." in shown
        assert "the 2 kept papers:" in shown and "keep 2" in shown and "reject 1" in shown
        kept = unescape(re.search(r'class="export-kept button" data-format="bibtex" href="([^"]+)"', page)[1])  # type: ignore[index]
        assert "state=keep" in kept
        assert client.get(kept).text.count("@inproceedings{") == 2
        only = client.get("/library", params={"kind": "triaged", "state": "keep"}).text
        listed = set(re.findall(r'<li data-paper-id="([0-9a-f]+)"', only))
        assert listed == {ids[0], ids[1]}
        assert "Export the papers marked “keep”:" in _text(only)
        ris = unescape(re.search(r'class="export button" data-format="ris" href="([^"]+)"', only)[1])  # type: ignore[index]
        assert client.get(ris).text.count("TY  - ") == 2
        assert client.get("/library", params={"state": "loved"}).status_code == 400
