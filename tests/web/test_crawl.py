"""Crawl: the page of every ICML 2026 paper and of 200 ICLR 2026 papers loads cleanly in Chromium.

One library holds the 95 ICML 2026 papers and the 4,302 ICLR 2026 papers of
../shared/data/iclr2026-primary-area (cards and fake-embedder vectors, so related papers are
shown); one browser opens ``/paper/ID`` of each ICML paper and of 200 ICLR papers drawn with a
fixed seed, with every request that is not to 127.0.0.1 aborted. Each page must have no console
error, no page error and no failed same-origin request, and its visible text no printed object
or JSON (``[object Object]``, ``{"``) and, in the abstract and card, no raw LaTeX (the card's
keywords are left out of that check while they are shown as stored: see
``test_keywords_read_without_latex``). Every problem of every page is reported at once, and written
to artifacts/crawl-problems.json.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from browser_helpers import ARTIFACTS, offline_browser, screenshot, serve, text_problems

from paperscope import Library
from paperscope.web import present

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ICLR_SAMPLE = 200
SEED = 2026


def _keywords_shown_raw() -> bool:
    """Whether the paper page shows keywords as stored, LaTeX and all (requests-browser.md item 3)."""
    paper = SimpleNamespace(clean_text="", card=None, keywords=["$k$-median"])
    return any("$" in p.text for f in present.card_fields(paper) if f.name == "keywords" for p in f.pieces)


KEYWORDS_RAW = _keywords_shown_raw()


@pytest.fixture(scope="module")
def crawl_library(
    tmp_path_factory: pytest.TempPathFactory, icml_dir: Path, shared_data: Path
) -> Iterator[Library]:
    lib = Library(tmp_path_factory.mktemp("crawl") / "crawl.db")
    lib.ingest([icml_dir, shared_data / "iclr2026-primary-area"])
    yield lib
    lib.close()


def _paper_ids(lib: Library) -> tuple[list[str], list[str]]:
    """Return (every ICML 2026 paper_id, ICLR_SAMPLE ICLR 2026 paper_ids drawn with SEED)."""
    icml, iclr = set(), set()
    for paper in lib.papers():
        names = {Path(s.path).name for s in paper.sources}
        if any(n.startswith("primary_area__") for n in names):
            iclr.add(paper.paper_id)
        else:
            icml.add(paper.paper_id)
    return sorted(icml), random.Random(SEED).sample(sorted(iclr), ICLR_SAMPLE)


def test_every_paper_page_loads_without_errors(crawl_library: Library) -> None:
    icml, iclr = _paper_ids(crawl_library)
    assert len(icml) == 95 and len(iclr) == ICLR_SAMPLE
    problems: dict[str, list[str]] = {}
    with serve(crawl_library) as url, offline_browser() as browser:
        page, log = browser.new_page()
        page.set_default_timeout(30_000)
        for paper_id in icml + iclr:
            log.clear()
            response = page.goto(f"{url}/paper/{paper_id}", wait_until="load")
            found = [] if response is not None and response.ok else [f"HTTP {response and response.status}"]
            page.wait_for_selector("h1#paper-title")
            found += log.problems()
            found += text_problems(page.locator("main").inner_text(), latex=False)
            card = "#card-fields dd:not([data-field=keywords])" if KEYWORDS_RAW else "#card-fields dd"
            readable = [page.locator("#abstract").inner_text(), *page.locator(card).all_inner_texts()]
            found += text_problems("\n".join(readable))
            if page.locator("ol#related li[data-paper-id]").count() == 0:
                found.append("no related papers")
            if found:
                problems[paper_id] = found
        screenshot(page, "crawl-last-paper")
    report = ARTIFACTS / "crawl-problems.json"
    report.write_text(json.dumps(problems, indent=1, ensure_ascii=False), encoding="utf-8")
    assert problems == {}, f"{len(problems)} of {len(icml) + len(iclr)} pages: {problems}"


@pytest.mark.xfail(
    KEYWORDS_RAW, reason="keywords are shown raw ($k$-median): requests-browser.md item 3", strict=True
)
def test_keywords_read_without_latex() -> None:
    assert not _keywords_shown_raw()
