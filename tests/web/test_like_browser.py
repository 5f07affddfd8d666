"""Search by example in headless Chromium: the paper page's "Find similar" link, the like page
with its facets and paging, and a pasted paragraph in the search box (artifacts/like-*.png)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from browser_helpers import offline_browser, screenshot, serve, text_problems

from paperscope import Library

pytestmark = pytest.mark.browser

#: The dataset-distillation paper of the ICML lists: it has no title, so its label is derived.
LABEL = "C²R — Contrastive Curriculum for Robust Dataset Distillation"


def _ids(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.locator("#results li.result").evaluate_all("items => items.map(i => i.dataset.paperId)")


def test_find_similar_opens_a_filterable_like_page(icml_module_library: Library) -> None:
    paper_id = icml_module_library.search("dataset distillation", mode="bm25", limit=1)[0].paper_id
    paragraph = " ".join(icml_module_library.get(paper_id).clean_text.split()[:60] * 5)  # 300 words
    with serve(icml_module_library) as url, offline_browser() as browser:
        page, log = browser.new_page()
        page.set_default_timeout(20_000)
        page.goto(f"{url}/paper/{paper_id}")
        link = page.locator("#find-similar")
        assert link.inner_text() == "Find similar (with filters) →"
        screenshot(page, "like-paper")

        link.click()
        page.wait_for_load_state("load")
        assert parse_qs(urlsplit(page.url).query) == {"like": [paper_id]}
        assert page.locator("#like-head").inner_text() == f"Papers like: [Label] {LABEL}"
        # A search by example ranks the library (a paragraph has no relevance floor), less itself.
        like = icml_module_library.search_like(icml_module_library.example(paper_id), limit=200)
        assert len(like) == 94
        assert (
            page.locator("#result-count").inner_text()
            == f"{len(like)} similar papers (the paper itself left out)"
        )
        assert page.title() == f"Papers like [Label] {LABEL} · paperscope"
        ids = _ids(page)
        assert len(ids) == 20 and paper_id not in ids
        assert page.locator("textarea#q").input_value() == ""
        # The heading says what the papers are like; no notice repeats it.
        assert not [n for n in page.locator(".notice").all_inner_texts() if "papers like" in n]
        assert text_problems(page.locator("main").inner_text()) == []
        assert log.problems() == []
        screenshot(page, "like-results")

        # A facet narrows the like results and keeps `like`; so does paging.
        page.locator("aside#facets section.facet[data-facet=has_code] a.facet-value").first.click()
        page.wait_for_load_state("load")
        query = parse_qs(urlsplit(page.url).query)
        assert query["like"] == [paper_id] and "has_code" in query
        assert page.locator("#like-head").inner_text() == f"Papers like: [Label] {LABEL}"
        assert paper_id not in _ids(page)
        page.goto(f"{url}/?like={paper_id}")
        page.locator("#more").click()
        page.wait_for_load_state("load")
        assert parse_qs(urlsplit(page.url).query)["like"] == [paper_id]
        assert page.locator("#results").get_attribute("start") == "21" and paper_id not in _ids(page)

        # A pasted 300-word paragraph: the box keeps it, grows, and Enter searches.
        box = page.locator("textarea#q")
        box.fill(paragraph)
        assert box.input_value() == paragraph
        assert box.evaluate("b => b.getBoundingClientRect().height") > 60
        screenshot(page, "like-paste")
        box.press("Enter")
        page.wait_for_load_state("load")
        assert "like" not in parse_qs(urlsplit(page.url).query)
        assert _ids(page)[0] == paper_id  # its own abstract finds it first
        assert (
            page.locator("#result-count").inner_text().startswith("95 results for “Dataset distillation (DD)")
        )
        assert text_problems(page.locator("#results").inner_text()) == []
        # The heading and the tab title quote the paragraph's start, not all 300 words.
        heading = page.locator("#result-count").inner_text()
        assert heading.endswith("…”") and len(heading) < 160
        assert page.title().endswith("… · paperscope") and len(page.title()) < 100
        # A paragraph's snippets mark its informative words, never function words.
        marked = {m.lower() for m in page.locator("#results mark").all_inner_texts()}
        assert marked and not marked & {"the", "not", "they", "but", "do", "under", "while", "be"}
        assert log.problems() == []
        screenshot(page, "like-paste-results")

        # In Chinese.
        page.goto(f"{url}/lang/zh?next=/%3Flike%3D{paper_id}")
        page.wait_for_load_state("load")
        assert page.locator("#like-head").inner_text() == f"相似论文： [生成名称] {LABEL}"
        assert page.locator("#result-count").inner_text() == "共 94 篇相似论文（不含该论文本身）"
        screenshot(page, "like-results-zh")
