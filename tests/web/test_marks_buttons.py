"""The paper page's triage buttons (issue 14): one per state, keys 0-4, in headless Chromium."""

from __future__ import annotations

import re

import pytest
from browser_helpers import offline_browser, serve
from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.web.app import create_app

STATES = ("unseen", "skimmed", "maybe", "keep", "reject")


@pytest.fixture(scope="module")
def library(icml_module_library: Library) -> Library:
    return icml_module_library


def _pressed(html: str) -> dict[str, str]:
    buttons = re.findall(r'<button[^>]*class="triage-state"[^>]*>', html)
    return {
        re.search(r'data-state="(\w+)"', b)[1]: re.search(r'aria-pressed="(\w+)"', b)[1]  # type: ignore[index]
        for b in buttons
    }


def test_the_page_has_one_button_per_state_and_presses_the_current_one(library: Library) -> None:
    pid = next(iter(library.papers())).paper_id
    with TestClient(create_app(library)) as client:
        assert _pressed(client.get(f"/paper/{pid}").text) == {
            s: "true" if s == "unseen" else "false" for s in STATES
        }
        library.set_triage(pid, "skimmed")
        assert _pressed(client.get(f"/paper/{pid}").text)["skimmed"] == "true"
        client.cookies.set("paperscope_lang", "zh")
        zh = client.get(f"/paper/{pid}").text
        client.cookies.clear()
        assert "已浏览" in zh and "未看" in zh
    library.set_triage(pid, None)


@pytest.mark.browser
def test_keys_and_clicks_set_the_state_and_typing_in_a_field_does_not(library: Library) -> None:
    pid = list(library.papers())[1].paper_id
    with serve(library) as url, offline_browser() as browser:
        page, log = browser.new_page()
        page.goto(f"{url}/paper/{pid}")
        page.wait_for_load_state("load")

        def shown() -> str:
            page.wait_for_function("document.getElementById('mark-status').textContent !== 'Saving…'")
            return page.locator("#triage button[aria-pressed=true]").get_attribute("data-state")

        page.keyboard.press("3")
        page.wait_for_selector("#triage button[data-state=keep][aria-pressed=true]")
        assert library.marks(pid)["triage"] == "keep" and shown() == "keep"
        page.click("#triage button[data-state=skimmed]")
        page.wait_for_selector("#triage button[data-state=skimmed][aria-pressed=true]")
        assert library.marks(pid)["triage"] == "skimmed"
        page.fill("#tag-form input[name=tag]", "")
        page.focus("#tag-form input[name=tag]")
        page.keyboard.type("43")
        page.wait_for_timeout(300)
        assert library.marks(pid)["triage"] == "skimmed"  # letters typed into the tag field
        page.focus("body")
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("0")
        page.wait_for_selector("#triage button[data-state=unseen][aria-pressed=true]")
        assert library.marks(pid)["triage"] is None
        assert log.problems() == [], "\n".join(log.problems())
