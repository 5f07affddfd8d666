"""The ingest page's report names its new papers by label, 50 of them, then one line for the rest.

An upload of 120 papers listed 120 bare paper ids (a fresh-user trial saw a wall of 300 hex ids).
Screenshot: artifacts/ingest-many.png.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_helpers import offline_browser, screenshot, serve, text_problems

from paperscope import Library

pytestmark = pytest.mark.browser

NEW = 120
SHOWN = 50  # ingest.js LABELS_SHOWN


def test_an_upload_of_many_papers_lists_fifty_labels_and_links_the_rest(tmp_path: Path) -> None:
    upload = tmp_path / "many.csv"
    rows = [
        f'"Study {i} of sparse routing in mixture model number {i}","We analyse routing variant {i} '
        f'with {i} experts on benchmark q{i}z, and report its accuracy and cost."'
        for i in range(NEW)
    ]
    upload.write_text("title,abstract\n" + "\n".join(rows) + "\n", encoding="utf-8")
    with (
        Library(tmp_path / "lib.db", embedder="fake") as lib,
        serve(lib) as base,
        offline_browser() as browser,
    ):
        page, log = browser.new_page()
        page.goto(f"{base}/ingest")
        page.set_input_files("input#files", str(upload))
        page.click("button#upload")
        page.wait_for_selector("#report:not([hidden])", timeout=120_000)
        links = page.locator("#new-papers a[href^='/paper/']")
        assert links.count() == SHOWN
        # Each link reads its paper's title once its label has come (no bare hex id is left).
        page.wait_for_function(
            "() => [...document.querySelectorAll(\"#new-papers a[href^='/paper/']\")]"
            ".every(a => a.textContent.startsWith('Study '))",
            timeout=30_000,
        )
        more = page.locator("#new-papers a.more-new")
        assert more.inner_text() == f"… and {NEW - SHOWN} more new papers: the library list, newest first"
        assert more.get_attribute("href") == "/?sort=added"
        assert text_problems(page.locator("main").inner_text()) == []
        assert log.problems() == [], log.problems()
        screenshot(page, "ingest-many")
        with page.expect_navigation():
            more.click()
        assert page.locator("li.result").count() > 0
