"""The web UI in real headless Chromium (Debian's /usr/bin/chromium driven by Playwright)."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest
import uvicorn

from paperscope import Library
from paperscope.web import create_app

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def server(tmp_path: Path, icml_dir: Path):
    lib = Library(tmp_path / "ui.db")
    lib.ingest([icml_dir])
    port = _free_port()
    config = uvicorn.Config(create_app(lib), host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", lib
    srv.should_exit = True
    thread.join(timeout=10)
    lib.close()


@pytest.fixture
def page():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} missing: `make test` installs Debian's chromium")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        context = browser.new_context()
        # Offline: anything not on loopback is refused.
        context.route(
            "**/*", lambda route: route.continue_() if "127.0.0.1" in route.request.url else route.abort()
        )
        yield context.new_page()
        browser.close()


def test_search_open_card_and_star(server, page) -> None:
    url, lib = server
    page.goto(url)
    page.wait_for_selector("#stats:has-text('95 papers')")
    page.fill("#q", "dataset distillation")
    page.press("#q", "Enter")
    page.wait_for_selector("#results li")
    first = page.locator("#results li").first
    paper_id = first.get_attribute("data-paper-id")
    assert paper_id == lib.search("dataset distillation", limit=1)[0].paper_id
    first.click()
    page.wait_for_selector("#card h2")
    assert page.locator("#card h2").inner_text() == lib.get(paper_id).label
    # Every card field reads as text: names, not objects or JSON.
    card = lib.get(paper_id).card.to_dict()
    facts = page.locator("#card dl").inner_text()
    assert "[object Object]" not in facts and '{"' not in facts and "\\" not in facts
    shown = dict(
        zip(
            page.locator("#card dt").all_inner_texts(),
            page.locator("#card dd").all_inner_texts(),
            strict=True,
        )
    )
    assert shown["datasets"] == ", ".join(d["name"] for d in card["datasets"])
    assert shown["tasks"] == ", ".join(t["text"] for t in card["tasks"])
    assert shown["area"].startswith(card["area"]["label"] + " (")
    page.click("#star")
    page.wait_for_selector("#star.on")
    assert lib.marks(paper_id)["starred"] is True
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ui-search.png"), full_page=True)
