"""The standalone map file in headless Chromium, network off: points, search, hover card, readable card."""

from __future__ import annotations

from pathlib import Path

import pytest
from topics_helpers import REPO, library_embeddings, real_embed

from paperscope import Library

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "artifacts"
ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [pytest.mark.browser, pytest.mark.model]


@pytest.fixture
def icml_map(icml_library: Library, tmp_path: Path) -> tuple[Library, Path]:
    icml_library.fit_topics(library_embeddings(icml_library, embed=real_embed))
    return icml_library, icml_library.write_map(tmp_path / "icml2026_map.html", title="ICML 2026")


def test_map_renders_searches_and_shows_cards_offline(icml_map: tuple[Library, Path]):
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} missing: apt-get install -y chromium (never `playwright install`)")
    lib, page_path = icml_map
    # The APM paper (ICML 2026 list 000, first abstract) has a phrase no other paper has.
    apm = next(p for p in lib.papers() if "analytic parameter matching" in p.clean_text.lower())
    ARTIFACTS.mkdir(exist_ok=True)
    requests: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            # bypass_csp lets Playwright evaluate its probes; the page itself forbids any fetch.
            context = browser.new_context(
                offline=True, bypass_csp=True, viewport={"width": 1400, "height": 900}
            )
            page = context.new_page()
            page.on("request", lambda r: requests.append(r.url))
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(page_path.as_uri())
            page.wait_for_function("window.paperscopeMap && window.paperscopeMap.stats.frames > 0")
            assert page.evaluate("window.paperscopeMap.stats.drawn") == len(lib) == 95
            assert page.text_content("#count") == "95 papers"
            page.screenshot(path=str(ARTIFACTS / "icml2026_map.png"))

            page.fill("#search", "analytic parameter matching")
            page.wait_for_function("window.paperscopeMap.matchCount() === 1")
            page.wait_for_function("window.paperscopeMap.stats.highlighted === 1")
            assert page.text_content("#count") == "1 match"

            pos = page.evaluate(f"window.paperscopeMap.screenPosition({apm.paper_id!r})")
            page.mouse.move(pos["x"], pos["y"])
            page.wait_for_selector("#tooltip:not([hidden])")
            assert page.evaluate("window.paperscopeMap.hovered()") == apm.paper_id
            tooltip = page.text_content("#tooltip")
            assert tooltip.startswith(f"[Label] {apm.label}")  # the ICML lists have no titles
            assert lib.paper_topics()[apm.paper_id]["topic"] in tooltip
            page.screenshot(path=str(ARTIFACTS / "icml2026_map_search_hover.png"))

            page.mouse.click(pos["x"], pos["y"])
            page.wait_for_selector("#card:not([hidden])")
            assert page.get_attribute("#card", "data-paper-id") == apm.paper_id
            card = page.text_content("#card-body")
            assert apm.paper_id in card and apm.clean_text[:80] in card
            # The card's fields read as text, as on the paper page (once raw JSON for datasets,
            # claims and area, and the venue twice).
            names = page.locator("#card-fields dt").all_text_contents()
            values = page.locator("#card-fields dd").all_text_contents()
            fields = dict(zip(names, values, strict=True))
            assert fields["Methods"] == "APM (analytic parameter matching)"
            assert fields["Datasets"] == "Flickr30k"
            assert fields["Claims"].startswith("↓ up to 65× storage reduction")
            area = apm.card.to_dict()["area"]  # the model's confidence moves with the area model
            percent = f"{round(area['confidence'] * 100)}%"
            assert fields["Area"] == f"{area['label']} (model, {percent})" and fields["Venue"] == "ICML 2026"
            shown = page.inner_text("#card")
            assert shown.count("ICML 2026") == 1
            for bad in ("[object Object]", '{"', "\\", "undefined"):
                assert bad not in shown, bad
            page.screenshot(path=str(ARTIFACTS / "icml2026_map_card.png"))

            page.keyboard.press("Escape")
            page.fill("#search", "")
            page.wait_for_function("window.paperscopeMap.stats.highlighted === 0")
            assert errors == []
        finally:
            browser.close()
    assert requests == [page_path.as_uri()]
