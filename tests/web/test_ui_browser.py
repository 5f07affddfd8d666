"""The web app as a researcher uses it, in headless Chromium with the network cut to 127.0.0.1.

One flow over the 95 ICML 2026 papers (topics fitted, the fake embedder): search, narrow by a
facet, open a paper, read its card (readable values that match the stored card, a dataset
lighting its span in the abstract), follow a related paper, star and tag it, find it in the
reading list, export BibTeX from the page, switch the interface to Chinese, open the map and
click a point, upload a small list and search one of its papers. Each page must load with no
console error, no page error and no failed same-origin request, and is saved as
artifacts/flow-*.png.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import bibtexparser
import pytest
from browser_helpers import offline_browser, screenshot, serve, text_problems

from paperscope import Library
from paperscope.confidence import shown_card
from paperscope.web import present

pytestmark = pytest.mark.browser

QUERY = "dataset distillation"
TAG = "to-read"
#: A tiny list of our own, in the ICML text-list format (a header line, abstracts between blank lines).
UPLOAD_LIST = """TinyWS 2026 Papers

We introduce quokkaformer, a transformer whose attention heads are pruned by a learned lattice of gates. Quokkaformer keeps 97% of the accuracy of its dense parent on ImageNet while running 2.1 times faster on a laptop CPU.

Wombat sampling draws minibatches for contrastive pretraining from a burrow-shaped curriculum over cluster centroids. On CIFAR-10 wombat sampling halves the number of steps to a given linear-probe accuracy.
"""
UPLOAD_QUERY = "quokkaformer lattice gates"
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def flow_library(tmp_path_factory: pytest.TempPathFactory, icml_dir: Path) -> Iterator[Library]:
    lib = Library(tmp_path_factory.mktemp("flow") / "flow.db")
    lib.ingest([icml_dir])
    lib.fit_topics()
    yield lib
    lib.close()


def _wait_ok(page, log, where: str) -> None:  # type: ignore[no-untyped-def]
    """Let the page settle, then fail with ``where`` on any console, page or request problem."""
    page.wait_for_load_state("load")
    assert log.problems() == [], f"{where}: {log.problems()}"


def _visible(page, selector: str = "body") -> str:  # type: ignore[no-untyped-def]
    return page.locator(selector).inner_text()


def _values(page, field: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [v.strip() for v in page.locator(f"#card-fields dd[data-field={field}] .value").all_inner_texts()]


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


def test_research_flow_in_the_browser(flow_library: Library, tmp_path: Path) -> None:
    lib = flow_library
    with serve(lib) as url, offline_browser() as browser:
        page, log = browser.new_page()
        page.set_default_timeout(20_000)

        # 1. Search.
        page.goto(url + "/")
        _wait_ok(page, log, "home")
        page.fill("#q", QUERY)
        page.press("#q", "Enter")
        page.wait_for_selector("ol#results > li.result")
        _wait_ok(page, log, "search")
        results = page.locator("ol#results > li.result")
        first_ids = [results.nth(i).get_attribute("data-paper-id") for i in range(results.count())]
        expected = [h.paper_id for h in lib.search(QUERY, limit=len(first_ids))]
        assert first_ids[0] == expected[0]
        assert page.locator("li.result").first.locator("a.result-title").get_attribute("href") == (
            f"/paper/{first_ids[0]}"
        )
        assert page.locator("li.result .snippet mark").count() > 0
        assert text_problems(_visible(page, "ol#results")) == []
        screenshot(page, "flow-search")

        # 2. Narrow by the dataset facet: the link adds the filter, the active filter shows.
        facet = page.locator("aside#facets section.facet[data-facet=dataset] a.facet-value").first
        dataset = facet.get_attribute("data-value")
        facet_count = int(facet.locator(".count").inner_text())
        with page.expect_navigation():
            facet.click()
        _wait_ok(page, log, "facet")
        assert parse_qs(urlsplit(page.url).query)["dataset"] == [dataset]
        assert page.locator("aside#facets a.facet-active").count() >= 1
        narrowed = page.locator("ol#results > li.result")
        assert 0 < narrowed.count() <= facet_count
        screenshot(page, "flow-facet")

        # 3. Open a paper whose dataset is highlighted in its abstract (a span no other overlaps).
        def has_dataset_span(pid: str) -> bool:
            fields = present.card_fields(lib.get(pid))
            return any(p.span is not None for f in fields if f.name == "datasets" for p in f.pieces)

        paper_id = next(
            pid
            for pid in (narrowed.nth(i).get_attribute("data-paper-id") for i in range(narrowed.count()))
            if has_dataset_span(pid)
        )
        with page.expect_navigation():
            page.click(f"li.result[data-paper-id='{paper_id}'] a.result-title")
        page.wait_for_selector("h1#paper-title")
        _wait_ok(page, log, "paper page")
        assert urlsplit(page.url).path == f"/paper/{paper_id}"
        paper = lib.get(paper_id)
        whole = paper.card.to_dict()
        card = shown_card(whole)  # the page shows the confident items only (issue 27)
        assert page.inner_text("h1#paper-title").strip() == paper.display_label  # "[Label] …"

        # 4. Every card field reads as text, as stored.
        for part in ("main", "#card-fields", "#abstract"):
            assert text_problems(_visible(page, part)) == [], part
        assert _visible(page, "#abstract").strip() == paper.clean_text.strip()
        assert _values(page, "datasets") == _unique([d["name"] for d in card["datasets"]])
        if card.get("tasks"):
            assert _values(page, "tasks") == _unique([t["text"] for t in card["tasks"]])
        if card.get("methods"):
            shown = _values(page, "methods")
            assert [s.split(" (")[0] for s in shown] == _unique([m["name"] for m in card["methods"]])
        hidden = {m["name"] for m in whole.get("methods", [])} - {m["name"] for m in card["methods"]}
        assert not hidden & {s.split(" (")[0] for s in _values(page, "methods")}
        if card.get("contribution_types"):
            assert len(_values(page, "contribution")) == len(
                _unique([c["type"] for c in card["contribution_types"]])
            )
        if card.get("claims"):
            claims = _values(page, "claims")
            assert claims and all(str(c["value"]) in " ".join(claims) for c in card["claims"])
        if card.get("area") and card["area"].get("label"):
            assert _values(page, "area")[0].startswith(card["area"]["label"])
        assert (
            page.locator("#sources li").first.inner_text().startswith(Path(paper.sources[0].path).name + ":")
        )

        # 5. Hovering a dataset lights its span in the abstract.
        ref = page.locator("#card-fields dd[data-field=datasets] [data-span-ref]").first
        number = ref.get_attribute("data-span-ref")
        span = page.locator(f"#abstract span.span[data-span='{number}']")
        assert span.get_attribute("data-field") == "dataset"
        assert "lit" not in (span.get_attribute("class") or "").split()
        ref.hover()
        page.wait_for_function(
            "(n) => document.querySelector(`#abstract span[data-span=\"${n}\"]`).classList.contains('lit')",
            arg=number,
        )
        name = ref.inner_text().strip()
        entry = next(d for d in card["datasets"] if d["name"] == name)
        assert span.inner_text() == paper.clean_text[entry["start"] : entry["end"]]
        screenshot(page, "flow-paper")
        page.mouse.move(0, 0)

        # 6. Follow a related paper.
        related = page.locator("ol#related li[data-paper-id]")
        assert related.count() > 0
        other_id = related.first.get_attribute("data-paper-id")
        assert other_id != paper_id
        assert related.first.locator(".shared-terms").count() in (0, 1)
        with page.expect_navigation():
            related.first.locator(f"a[href='/paper/{other_id}']").click()
        page.wait_for_selector("h1#paper-title")
        _wait_ok(page, log, "related paper")
        assert page.inner_text("h1#paper-title").strip() == lib.get(other_id).display_label

        # 7. Star and tag it: the page shows it and the library has it.
        assert page.get_attribute("button#star", "aria-pressed") == "false"
        page.click("button#star")
        page.wait_for_selector("button#star[aria-pressed=true]")
        page.fill("form#tag-form input[name=tag]", TAG)
        page.press("form#tag-form input[name=tag]", "Enter")
        page.wait_for_selector(f"#tags .tag[data-tag='{TAG}']")
        assert page.locator(f"#tags .tag[data-tag='{TAG}'] button.untag").count() == 1
        _wait_ok(page, log, "marks")
        marks = lib.marks(other_id)
        assert marks["starred"] is True and TAG in marks["tags"]
        assert page.inner_text("#mark-status").strip()
        screenshot(page, "flow-marked")

        # 8. The reading list shows it.
        with page.expect_navigation():
            page.click("nav#nav a[data-nav=library]")
        page.wait_for_selector("#reading-list")
        _wait_ok(page, log, "reading list")
        assert page.locator(f"#reading-list section.group li[data-paper-id='{other_id}']").count() >= 1
        with page.expect_navigation():
            page.click("a[data-group-by=tag]")
        assert (
            page.locator(
                f"#reading-list section.group[data-group='{TAG}'] li[data-paper-id='{other_id}']"
            ).count()
            == 1
        )
        assert text_problems(_visible(page, "main")) == []
        screenshot(page, "flow-library")

        # 9. Export BibTeX from the page: a download that parses and holds the paper.
        with page.expect_download() as download_info:
            page.click("a.export[data-format=bibtex]")
        saved = tmp_path / "export.bib"
        download_info.value.save_as(saved)
        bib = bibtexparser.parse_string(saved.read_text(encoding="utf-8"))
        assert not bib.failed_blocks
        titles = [str(e.fields_dict["title"].value) for e in bib.entries if "title" in e.fields_dict]
        wanted = lib.get(other_id)
        assert any(
            wanted.label.lower().replace(" ", "")
            in t.lower().replace("{", "").replace("}", "").replace(" ", "")
            for t in titles
        ), titles
        _wait_ok(page, log, "export")

        # 10. Switch to 中文: the page and its nav are in Chinese.
        english_nav = page.locator("nav#nav a[data-nav=search]").inner_text()
        with page.expect_navigation():
            page.click("a[data-lang=zh]")
        page.wait_for_selector("html[lang=zh-Hans]")
        _wait_ok(page, log, "中文")
        chinese_nav = page.locator("nav#nav a[data-nav=search]").inner_text()
        assert chinese_nav != english_nav and CJK.search(chinese_nav)
        assert all(CJK.search(t) for t in page.locator("nav#nav a").all_inner_texts())
        assert urlsplit(page.url).path == "/library"
        screenshot(page, "flow-zh")
        page.goto(url + f"/paper/{paper_id}")
        page.wait_for_selector("html[lang=zh-Hans]")
        _wait_ok(page, log, "中文 paper page")
        assert text_problems(_visible(page, "main")) == []
        screenshot(page, "flow-paper-zh")
        with page.expect_navigation():
            page.click("a[data-lang=en]")
        page.wait_for_selector("html[lang=en]")

        # 11. Open the map from the nav, click a point, land on its paper page.
        with page.expect_navigation():
            page.click("nav#nav a[data-nav=map]")
        page.wait_for_function("() => window.paperscopeMap && window.paperscopeMap.stats.frames > 0")
        _wait_ok(page, log, "map")
        screenshot(page, "flow-map")
        target = page.evaluate(
            """() => {
                const m = window.paperscopeMap, all = m.ids().map((id) => [id, m.screenPoint(id)]);
                let best = null, bestD = -1;
                for (const [id, p] of all) {
                  let d = Infinity;
                  for (const [other, q] of all) if (other !== id) d = Math.min(d, Math.hypot(p.x - q.x, p.y - q.y));
                  if (d > bestD) { best = id; bestD = d; }
                }
                return best;
            }"""
        )
        box = page.locator("canvas#map").bounding_box()
        point = page.evaluate("(id) => window.paperscopeMap.screenPoint(id)", target)
        x, y = box["x"] + point["x"], box["y"] + point["y"]
        page.mouse.move(x, y)
        page.wait_for_function(f"() => window.paperscopeMap.hovered() === {target!r}")
        with page.expect_navigation():
            page.mouse.click(x, y)
        page.wait_for_selector("h1#paper-title")
        _wait_ok(page, log, "paper from the map")
        assert urlsplit(page.url).path == f"/paper/{target}"

        # 12. Upload a small list on /ingest; its papers are searchable at once.
        upload = tmp_path / "tiny_workshop.txt"
        upload.write_text(UPLOAD_LIST, encoding="utf-8")
        with page.expect_navigation():
            page.click("nav#nav a[data-nav=ingest]")
        _wait_ok(page, log, "ingest page")
        page.set_input_files("input#files", str(upload))
        page.click("button#upload")
        page.wait_for_selector("#report:not([hidden])", timeout=120_000)
        _wait_ok(page, log, "ingest report")
        new_links = page.locator("#new-papers a[href^='/paper/']")
        assert new_links.count() == 2
        rows = page.locator("#report-files tr").all_inner_texts()
        assert any(upload.name in r for r in rows), rows
        assert text_problems(_visible(page, "main")) == []
        screenshot(page, "flow-ingest")
        new_ids = {
            link.split("/paper/")[1] for link in (new_links.nth(i).get_attribute("href") for i in range(2))
        }
        page.fill("#q", UPLOAD_QUERY)
        with page.expect_navigation():
            page.press("#q", "Enter")
        page.wait_for_selector("ol#results > li.result")
        _wait_ok(page, log, "search of the upload")
        assert page.locator("ol#results > li.result").first.get_attribute("data-paper-id") in new_ids
        screenshot(page, "flow-search-upload")


def test_an_upload_that_cannot_be_read_says_why_under_its_own_name(
    flow_library: Library, tmp_path: Path
) -> None:
    binary = tmp_path / "scan.dat"
    binary.write_bytes(b"\x00\x01\x02binary\x00" * 100)
    with serve(flow_library) as url, offline_browser() as browser:
        page, log = browser.new_page()
        page.goto(url + "/ingest")
        page.set_input_files("input#files", str(binary))
        page.click("button#upload")
        page.wait_for_selector("#report:not([hidden])", timeout=60_000)
        rows = page.locator("#report-files tr").all_inner_texts()
        assert any(r.startswith("scan.dat") for r in rows), rows  # the chosen name, not the stored copy's
        reason = page.locator("#skips li.file-error").inner_text()
        assert reason.startswith("Not read: scan") and "binary" in reason.lower(), reason
        assert "could not be read" in page.locator("#progress-text").inner_text()
        assert page.locator("#new-papers").inner_text().strip() == "No new papers."
        assert log.console_errors == [] and log.page_errors == []
        screenshot(page, "flow-ingest-failed")


def test_records_kept_apart_on_a_shared_doi_are_listed_on_the_ingest_page(
    flow_library: Library, tmp_path: Path
) -> None:
    volume = tmp_path / "proceedings.csv"
    volume.write_text(
        "title,abstract,doi\n"
        '"Burrow Curricula","We order contrastive minibatches by a burrow-shaped curriculum over'
        ' cluster centroids and halve pretraining steps.",10.5555/3600000\n'
        '"Lattice Gates","We prune transformer attention heads with a learned lattice of gates and keep'
        ' accuracy on ImageNet.",10.5555/3600000\n',
        encoding="utf-8",
    )
    with serve(flow_library) as url, offline_browser() as browser:
        page, log = browser.new_page()
        page.goto(url + "/ingest")
        page.set_input_files("input#files", str(volume))
        page.click("button#upload")
        page.wait_for_selector("#report:not([hidden])", timeout=60_000)
        rows = page.locator("#report-files tr").all_inner_texts()
        assert any(r.split("\t")[:3] == ["proceedings.csv", "2", "2"] for r in rows), rows
        assert page.locator("#conflicts-box").is_visible()
        items = page.locator("#conflicts li").all_inner_texts()
        assert len(items) == 1, items
        assert items[0].startswith("proceedings.csv, line 3: kept as its own paper: its doi 10.5555/3600000")
        assert "“Burrow Curricula”" in items[0]
        assert text_problems(_visible(page, "#report")) == []
        assert log.console_errors == [] and log.page_errors == []
        screenshot(page, "ingest-conflicts")


def test_the_html_reading_list_reads_well_grouped_by_topic_and_escapes_paper_text(
    flow_library: Library, tmp_path: Path
) -> None:
    from paperscope.triage.html_out import NO_TOPIC

    hits = flow_library.search(QUERY, limit=3, mode="dense")  # dense ranks every paper: 3 hits
    marked = {h.paper_id for h in hits}
    text = "".join(flow_library.export("html", paper_ids=sorted(marked)))
    assert text.startswith("<!DOCTYPE html>") and "<script" not in text.lower()
    topics = flow_library.paper_topics(marked)
    with offline_browser() as browser:
        page, log = browser.new_page()
        page.set_content(text)
        visible = _visible(page)
        assert log.blocked == [] and log.problems() == []  # nothing loaded from anywhere
        assert text_problems(visible) == []
        assert visible.startswith("Reading list\n\n3 papers in")
        assert NO_TOPIC not in visible  # every paper of the fitted library has a topic
        sections = page.locator("section h2").all_inner_texts()
        names = {t["topic"] for t in topics.values() if t}
        assert {s.rsplit(" (", 1)[0] for s in sections} <= names | {NO_TOPIC} and sections
        for hit in hits:
            article = page.locator(f"article#p-{hit.paper_id}")
            assert article.count() == 1
            title = article.locator("h3").inner_text()
            assert title == hit.display_label
            assert "ICML · 2026" in article.locator(".meta").inner_text()
        assert page.locator("article dl dt").all_inner_texts()[:1] in (["Code"], ["Methods"], ["Tasks"])
        screenshot(page, "export-html")
