"""A generated label says it is one, in headless Chromium, in English and in Chinese (issue 23).

A library of one title-less ICML 2026 list and one titled CSV paper: the paper page heading and
the search results read "[Label] …" (English) or "[生成名称] …" (Chinese) before a generated
label, and nothing before a real title. Screenshots: artifacts/label-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import offline_browser, screenshot, serve, text_problems

from paperscope import Library
from paperscope.models import LABEL_MARKER
from paperscope.web import i18n

pytestmark = pytest.mark.browser

QUERY = "dataset distillation"
#: The title of the paper in the ``titled_csv`` fixture (tests/conftest.py).
TITLE = "Distilling Datasets into a Handful of Synthetic Images"
#: The marker each language shows before a generated label.
MARKERS = {"en": LABEL_MARKER, "zh": i18n.ZH["label_marker"]}


@pytest.fixture(scope="module")
def marker_library(
    tmp_path_factory: pytest.TempPathFactory, icml_dir: Path, titled_csv: tuple[Path, str]
) -> Iterator[Library]:
    folder = tmp_path_factory.mktemp("marker")
    assert titled_csv[1] == TITLE
    lib = Library(folder / "marker.db")
    lib.ingest([icml_dir / "000_9f997565051fc2a1.txt", titled_csv[0]])
    yield lib
    lib.close()


def _open(page, url: str, log) -> None:  # type: ignore[no-untyped-def]
    page.goto(url)
    page.wait_for_load_state("load")
    assert log.problems() == [], log.problems()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_heading_and_results_mark_a_generated_label(marker_library: Library, lang: str) -> None:
    lib = marker_library
    hits = lib.search(QUERY, mode="bm25", limit=10)
    generated = next(h for h in hits if h.title_source == "generated")
    titled = next(h for h in hits if h.title_source == "source")
    assert titled.title == TITLE and generated.title is None
    marker = MARKERS[lang]
    with serve(lib) as base, offline_browser() as browser:
        page, log = browser.new_page()
        _open(page, f"{base}/lang/{lang}?next=/", log)

        # Search results: the generated label has the marker before it, the title has none.
        _open(page, f"{base}/?q={QUERY.replace(' ', '+')}&mode=bm25", log)
        shown = {
            row.get_attribute("data-paper-id"): row.locator("a.result-title").inner_text().strip()
            for row in page.locator("li.result").all()
        }
        assert shown[generated.paper_id] == f"{marker} {generated.label}"
        assert shown[titled.paper_id] == TITLE
        assert sum(text.startswith(marker) for text in shown.values()) == len(shown) - 1
        assert text_problems(page.locator("main").inner_text()) == []
        screenshot(page, f"label-search-{lang}")

        # The paper page of the title-less paper: heading, tooltip and tab title carry the marker.
        _open(page, f"{base}/paper/{generated.paper_id}", log)
        assert page.inner_text("h1#paper-title").strip() == f"{marker} {generated.label}"
        badge = page.locator("h1#paper-title .label-marker")
        assert badge.inner_text() == marker and badge.is_visible()
        assert badge.get_attribute("title") == i18n.CATALOGUE[lang]["label_marker_help"]
        assert page.title().startswith(f"{marker} {generated.label}")
        assert text_problems(page.locator("main").inner_text()) == []
        screenshot(page, f"label-paper-{lang}")

        # The titled paper's heading is its title alone.
        _open(page, f"{base}/paper/{titled.paper_id}", log)
        assert page.inner_text("h1#paper-title").strip() == TITLE
        assert page.locator("h1#paper-title .label-marker").count() == 0
