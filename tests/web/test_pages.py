"""The server-rendered pages in process: text, escaping, facets, errors as HTML, the language switch."""

from __future__ import annotations

import re
from html import escape, unescape
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from browser_helpers import visible_text as _text
from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.errors import ModelUnavailable
from paperscope.library import MAX_QUERY_CHARS, cut_query
from paperscope.triage.export import EXPORT_FORMATS
from paperscope.web import create_app, i18n
from paperscope.web.pages.lang import safe_next
from paperscope.web.present import abstract_segments, area_text, card_fields, claim_text, highlight

HOSTILE = (
    "ICML 2026 Papers\n\n"
    "We present XSSNet, a <script>alert('x')</script> method for Q&A over graphs with R&D priors that "
    "reaches a 3.5$\\times$ speedup on CIFAR-10 and $\\mathcal{O}(n)$ memory. "
    "Code: https://github.com/acme/xssnet.\n"
)
PAGES = ["/", "/?q=dataset+distillation", "/topics", "/library", "/ingest"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, icml_dir: Path):
    """The ICML 2026 lists plus one hostile record, served in process; yields (client, lib, hostile id)."""
    root = tmp_path_factory.mktemp("pages")
    hostile = root / "hostile.txt"
    hostile.write_text(HOSTILE, encoding="utf-8")
    lib = Library(root / "pages.db")
    lib.ingest([icml_dir, hostile])
    hostile_id = lib.search("XSSNet", mode="bm25", limit=1)[0].paper_id
    with TestClient(create_app(lib)) as client:
        yield client, lib, hostile_id
    lib.close()


pytestmark = pytest.mark.usefixtures("strict_catalogue")


def _hrefs(html: str, css_class: str) -> list[str]:
    return [unescape(h) for h in re.findall(rf'<a class="{css_class}" href="([^"]+)"', html)]


def _result_ids(html: str) -> list[str]:
    return re.findall(r'<li class="result" data-paper-id="([0-9a-f]+)"', html)


def test_every_page_is_html_with_its_own_text(site) -> None:
    client, lib, _ = site
    paper = next(iter(lib.papers()))
    expected = {
        "/": ["96 of 96 papers", "Refine", "Sort by"],
        "/?q=dataset+distillation": ["results for “dataset distillation”", "Show on the map"],
        f"/paper/{paper.paper_id}": [paper.label, "Abstract", "Related papers", "Save note", "Sources"],
        "/topics": ["Topics", "No topics yet"],
        "/library": ["Reading list", "Marked papers: 0", "BibTeX"],
        "/ingest": ["Add paper lists", "Upload and ingest"],
    }
    for url, texts in expected.items():
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.headers["content-type"].startswith("text/html")
        assert '<html lang="en">' in response.text
        for part in (
            'nav id="nav"',
            'data-nav="map"',
            'data-lang="zh"',
            'id="keys-help"',
            'id="search-form"',
        ):
            assert part in response.text, (url, part)
        shown = _text(response.text)
        for text in texts:
            assert text in shown, (url, text)


def test_hostile_abstract_is_escaped_on_the_paper_page_and_in_results(site) -> None:
    client, _, hostile_id = site
    page = client.get(f"/paper/{hostile_id}").text
    assert "<script>alert" not in page and "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in page
    assert "Q&amp;A over graphs with R&amp;D priors" in page
    assert "$" not in _text(page) and "\\times" not in page and "3.5× speedup" in _text(page)
    results = client.get("/", params={"q": "XSSNet script", "mode": "bm25"}).text
    assert _result_ids(results)[0] == hostile_id
    assert "<script>alert" not in results and "&lt;<mark>script</mark>&gt;" in results
    # Only our own scripts, loaded from /static, are on any page.
    assert re.findall(r"<script[^>]*>", page) == [
        f'<script src="/static/{name}.js">' for name in ("app", "keys", "marks", "spans")
    ]


def test_card_fields_read_as_text_and_every_span_ref_has_its_span(site) -> None:
    client, lib, _ = site
    apm = lib.search("analytic parameter matching", mode="bm25", limit=1)[0].paper_id
    page = client.get(f"/paper/{apm}").text
    fields = page[
        page.index('<dl id="card-fields"') : page.index("</dl>", page.index('<dl id="card-fields"'))
    ]
    shown = _text(fields)
    for text in [
        "APM (analytic parameter matching)",
        "Flickr30k",
        "65× storage reduction",
        "cross-modal retrieval",
    ]:
        assert text in shown
    area = lib.get(apm).card.to_dict()["area"]  # the model's confidence moves with the area model
    assert f"{area['label']} (model, {round(area['confidence'] * 100)}%)" in shown
    assert "[object Object]" not in page and "{" not in shown and "'" not in shown
    refs = re.findall(r'data-span-ref="(\d+)"', page)
    spans = re.findall(r'<span class="span" data-span="(\d+)" data-field="(\w+)">', page)
    assert len(refs) >= 6 and set(refs) == {k for k, _ in spans}
    assert {"method", "dataset", "claim", "task"} <= {field for _, field in spans}
    flickr = re.search(r'data-span-ref="(\d+)">Flickr30k<', page).group(1)
    assert f'<span class="span" data-span="{flickr}" data-field="dataset">Flickr30k</span>' in page


def test_facet_counts_are_those_of_the_result_set(site) -> None:
    client, lib, _ = site
    page = client.get("/", params={"q": "model", "mode": "bm25"}).text
    ids = [h.paper_id for h in lib.search("model", mode="bm25", limit=200)]
    counts = lib.facet_counts(ids)
    for facet in ("venue", "dataset", "contribution", "area"):
        section = re.search(rf'data-facet="{facet}">(.*?)</section>', page, re.S).group(1)
        shown = re.findall(
            r'data-value="([^"]*)" title="[^"]*"><span class="facet-label">[^<]*</span> <span class="count">(\d+)',
            section,
        )
        assert [(unescape(v), int(n)) for v, n in shown] == [(v["value"], v["count"]) for v in counts[facet]]


def test_a_facet_link_adds_its_filter_and_the_active_filter_removes_it(site) -> None:
    client, lib, _ = site
    page = client.get("/", params={"q": "model", "mode": "bm25"}).text
    section = re.search(r'data-facet="contribution">(.*?)</section>', page, re.S).group(1)
    href, value, count = re.search(
        r'<a class="facet-value" href="([^"]+)" data-value="([^"]+)" title.*?<span class="count">(\d+)',
        section,
    ).groups()
    params = dict(parse_qsl(urlsplit(unescape(href)).query))
    assert params == {"q": "model", "mode": "bm25", "contribution": value}
    filtered = client.get(unescape(href)).text
    assert f"{count} results for" in _text(filtered)
    expected = {h.paper_id for h in lib.search("model", mode="bm25", limit=200, contribution=value)}
    assert set(_result_ids(filtered)) <= expected and len(expected) == int(count)
    active = re.search(r'<a class="facet-active" href="([^"]+)" data-value="([^"]+)"', filtered)
    assert active.group(2) == value
    assert dict(parse_qsl(urlsplit(unescape(active.group(1))).query)) == {"q": "model", "mode": "bm25"}


def test_browse_sorts_and_pages_with_more(site) -> None:
    client, lib, _ = site
    first = client.get("/", params={"sort": "title"}).text
    assert '<select id="sort" name="sort"' in first and '<option value="title" selected>' in first
    _, expected = lib.browse(sort="title", limit=40)
    assert _result_ids(first) == [h.paper_id for h in expected[:20]]
    more = re.search(r'<a id="more" rel="next" href="([^"]+)"', first).group(1)
    assert dict(parse_qsl(urlsplit(unescape(more)).query)) == {"sort": "title", "offset": "20"}
    assert _result_ids(client.get(unescape(more)).text) == [h.paper_id for h in expected[20:40]]
    last = client.get("/", params={"sort": "title", "offset": "80"}).text
    assert len(_result_ids(last)) == 16 and 'id="more"' not in last and 'id="prev"' in last


def test_result_cards_show_links_chips_and_marks(site) -> None:
    client, lib, hostile_id = site
    lib.star(hostile_id)
    lib.tag(hostile_id, "to-read")
    try:
        page = client.get("/", params={"q": "XSSNet", "mode": "bm25"}).text
        card = page[page.index(f'data-paper-id="{hostile_id}"') :].split("</li>", 1)[0]
        assert 'class="star" aria-pressed="true"' in card
        assert '<a data-link="code" href="https://github.com/acme/xssnet"' in card
        assert '<span class="result-meta">ICML · 2026</span>' in card
        assert re.search(r'<span class="tag" data-tag="to-read">', card) and 'class="tag-form"' in card
        marks = re.search(r'data-facet="marks">(.*?)</section>', page, re.S).group(1)
        assert "Starred" in _text(marks) and "to-read" in _text(marks)
        shelf = client.get("/library").text
        assert re.search(rf'<li data-paper-id="{hostile_id}">', shelf) and 'data-group="to-read"' in shelf
        exports = re.findall(r'<a class="export button" data-format="([\w-]+)" href="([^"]+)"', shelf)
        assert [f for f, _ in exports] == list(EXPORT_FORMATS)
        assert all(unescape(h) == f"/api/export?format={f}&starred=1" for f, h in exports)
        bibtex = client.get(unescape(dict(exports)["bibtex"]))
        assert bibtex.status_code == 200 and "attachment" in bibtex.headers["content-disposition"]
        assert bibtex.text.count("@") == 1 and "XSSNet" in bibtex.text
        by_topic = client.get("/library", params={"group": "topic"}).text
        assert 'data-group="-"' in by_topic and "No topic" in _text(by_topic)
    finally:
        lib.star(hostile_id, False)
        lib.untag(hostile_id, "to-read")


def test_unknown_paper_is_a_404_page_with_a_way_back(site) -> None:
    client, _, _ = site
    response = client.get("/paper/abcdef123456")
    assert response.status_code == 404 and response.headers["content-type"].startswith("text/html")
    assert "404 · Not found" in _text(response.text) and '<a href="/" id="back-home">' in response.text


def test_an_unknown_page_opened_in_a_browser_is_the_html_404_and_json_for_clients(site) -> None:
    client, _, _ = site
    page = client.get("/no-such-page", headers={"Accept": "text/html,application/xhtml+xml"})
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "/no-such-page" in _text(page.text) and '<a href="/" id="back-home">' in page.text
    api = client.get("/api/no-such-route", headers={"Accept": "text/html"})
    assert api.status_code == 404 and api.json()["ok"] is False
    assert client.get("/no-such-page").json() == {"ok": False, "error": "Not Found", "status": 404}


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"year": "abc"}, "year must be a whole number from 1 to 9999"),
        ({"year": "99999999999999999999"}, "year must be a whole number"),
        ({"limit": "-1"}, "limit must be a whole number from 1 to 100"),
        ({"offset": "x"}, "offset must be a whole number"),
        ({"has_code": "maybe"}, "has_code must be 1 or 0"),
        ({"mode": "magic", "q": "x"}, "mode must be one of hybrid, bm25, dense"),
        ({"sort": "size"}, "sort must be one of added, title, year, venue"),
        ({"q": "model", "contribution": "poem"}, "unknown contribution type 'poem'"),
        ({"topic": "7"}, "no topic 7"),
    ],
)
def test_bad_query_values_are_a_400_page(site, params: dict[str, str], fragment: str) -> None:
    client, _, _ = site
    response = client.get("/", params=params)
    assert response.status_code == 400 and response.headers["content-type"].startswith("text/html")
    assert "400 · Bad request" in _text(response.text) and fragment in _text(response.text)


def test_bad_values_on_the_other_pages_are_400_pages(site) -> None:
    client, _, _ = site
    for url, fragment in [
        ("/library?kind=odd", "kind must be one of"),
        ("/lang/fr", "unknown language 'fr'"),
    ]:
        response = client.get(url)
        assert response.status_code == 400 and fragment in _text(response.text)


def test_an_overlong_query_is_cut_with_a_notice_and_its_links_carry_the_cut_query(site) -> None:
    client, _, _ = site
    words = " ".join(f"model{i}" for i in range(5000))
    response = client.get("/", params={"q": words, "mode": "bm25"})
    assert response.status_code == 200
    text = _text(response.text)
    assert "characters of the query were read" in text and "query terms were dropped" in text
    kept, _ = cut_query(words)
    assert len(kept) <= MAX_QUERY_CHARS < len(words)
    assert f'spellcheck="false">{kept}</textarea>' in response.text  # the search box holds it
    # The page carries the cut query, not the 45 kB asked: a few copies of it at most (box and links).
    assert len(response.text) < len(words) + 12 * MAX_QUERY_CHARS


def test_chinese_query_finds_papers(site) -> None:
    client, _, _ = site
    page = client.get("/", params={"q": "数据集蒸馏", "mode": "bm25"}).text
    assert "results for “数据集蒸馏”" in _text(page) and len(_result_ids(page)) >= 1
    assert ">数据集蒸馏</textarea>" in page


def test_language_cookie_switches_every_page_to_chinese(site) -> None:
    client, lib, hostile_id = site
    switch = client.get("/lang/zh", params={"next": "/topics?x=1"}, follow_redirects=False)
    assert switch.status_code == 303 and switch.headers["location"] == "/topics?x=1"
    assert "paperscope_lang=zh" in switch.headers["set-cookie"]
    try:
        for url in [*PAGES, f"/paper/{hostile_id}", "/paper/abcdef123456"]:
            page = client.get(url).text
            assert '<html lang="zh-Hans">' in page, url
            shown = _text(page)
            assert "搜索" in shown and "阅读清单" in shown and "按 ? 查看快捷键" in shown, url
            assert "Reading list" not in shown and "Search" not in shown.replace("paperscope", ""), url
        assert "篇论文" in _text(client.get("/").text)
        facets = client.get("/", params={"q": "model", "mode": "bm25"}).text
        contribution = re.search(r'data-facet="contribution">(.*?)</section>', facets, re.S).group(1)
        assert (
            "贡献类型" in _text(contribution)
            and "方法" in _text(contribution)
            and "method" not in _text(contribution)
        )
    finally:
        client.cookies.clear()
    assert '<html lang="en">' in client.get("/").text


def test_catalogues_have_the_same_keys_and_chinese_text() -> None:
    assert set(i18n.EN) == set(i18n.ZH)
    same = [k for k in i18n.EN if i18n.EN[k] == i18n.ZH[k]]
    # Names that read the same in both languages (product and format names).
    assert set(same) <= {"app_name", "mode_bm25", "link_openreview", "link_arxiv", "link_pdf", "link_doi"} | {
        k for k in i18n.EN if k.startswith("format_")
    }
    for key, text in i18n.EN.items():
        assert re.findall(r"{\w+}", text) == re.findall(r"{\w+}", i18n.ZH[key]) or sorted(
            re.findall(r"{\w+}", text)
        ) == sorted(re.findall(r"{\w+}", i18n.ZH[key])), key


def test_no_page_shows_an_absolute_path(site, icml_dir: Path) -> None:
    client, lib, hostile_id = site
    folder = str(icml_dir.resolve())
    for url in [*PAGES, f"/paper/{hostile_id}", f"/paper/{next(iter(lib.papers())).paper_id}", "/paper/zz"]:
        page = client.get(url).text
        assert folder not in page and str(Path.home()) not in page and "/tmp/" not in page, url
    assert "hostile.txt:3" in _text(client.get(f"/paper/{hostile_id}").text)


def test_related_papers_failing_leaves_the_page_with_a_note(site, monkeypatch: pytest.MonkeyPatch) -> None:
    client, _, hostile_id = site

    def no_model(self, paper_id: str, limit: int = 10):
        raise ModelUnavailable("the embedding model is not installed")

    monkeypatch.setattr(Library, "related", no_model)
    response = client.get(f"/paper/{hostile_id}")
    assert response.status_code == 200
    assert "Related papers are not available right now. (the embedding model is not installed)" in _text(
        response.text
    )


def test_related_papers_show_their_shared_words(site) -> None:
    client, lib, _ = site
    apm = lib.search("analytic parameter matching", mode="bm25", limit=1)[0].paper_id
    page = client.get(f"/paper/{apm}").text
    related = lib.related(apm, limit=10)
    assert re.findall(r'<li data-paper-id="([0-9a-f]+)"><a href="/paper/\1">', page) == [
        h.paper_id for h in related
    ]
    assert related[0].terms and "shared words: " + " ".join(related[0].terms[:8]) in _text(page)


def test_language_switch_never_redirects_off_the_site() -> None:
    for value in ["//evil.example/", "https://evil.example/", "/\\evil.example", "", None, "/a\r\nb"]:
        assert safe_next(value) == "/"
    assert safe_next("/paper/abc?x=1") == "/paper/abc?x=1"


class _Card:
    def __init__(self, data: dict):
        self.data = data

    def to_dict(self) -> dict:
        return self.data


class _Paper:
    def __init__(self, text: str, card: dict, keywords: list[str] | None = None):
        self.clean_text, self.card, self.keywords = text, _Card(card), keywords or []


def test_overlapping_spans_are_skipped_and_lose_their_reference() -> None:
    text = "We train ResNet-50 on ImageNet-1k for image classification."
    paper = _Paper(
        text,
        {
            "methods": [{"name": "ResNet-50", "start": 9, "end": 18}],
            "datasets": [
                {"name": "ImageNet-1k", "start": 22, "end": 33},
                {"name": "Net-1k", "start": 27, "end": 33},
                {"name": "bad", "start": 50, "end": 999},
            ],
            "tasks": [{"text": "image classification", "start": 38, "end": 58}],
        },
    )
    segments = abstract_segments(paper)
    assert "".join(s.text for s in segments) == text
    assert [(s.text, s.field) for s in segments if s.span is not None] == [
        ("ResNet-50", "method"),
        ("ImageNet-1k", "dataset"),
        ("image classification", "task"),
    ]
    datasets = next(f for f in card_fields(paper) if f.name == "datasets")
    assert [(p.text, p.span is not None) for p in datasets.pieces] == [
        ("ImageNet-1k", True),
        ("Net-1k", False),
        ("bad", False),
    ]


def test_highlight_escapes_text_and_marks_whole_words() -> None:
    out = str(highlight("<b>Graph</b> & graphs: GRAPH-based", ["graph"]))
    assert out == "&lt;b&gt;<mark>Graph</mark>&lt;/b&gt; &amp; graphs: <mark>GRAPH</mark>-based"
    assert str(highlight("a < b", [])) == "a &lt; b"


def test_claims_and_areas_read_as_a_person_writes_them() -> None:
    assert claim_text({"value": "65", "unit": "×", "what": "storage reduction"}) == "65× storage reduction"
    assert claim_text({"value": "12.8", "unit": "IR@1", "what": "on Flickr30k"}) == "12.8 IR@1 on Flickr30k"
    assert (
        claim_text({"value": "3", "unit": "%", "what": "fewer errors", "relation": "up to"})
        == "up to 3% fewer errors"
    )  # a card written before relations: its "relation" was the bound
    assert (
        claim_text(
            {
                "value": "64.0",
                "unit": "%",
                "what": "translation accuracy",
                "relation": "improves",
                "baseline": "57.5",
            }
        )
        == "↑64.0% translation accuracy (from 57.5%)"
    )
    assert (
        claim_text(
            {
                "value": "63",
                "unit": "%",
                "what": "inference time",
                "relation": "reduces",
                "bound": "<",
                "dataset": "Jetson",
            }
        )
        == "↓<63% inference time on Jetson"
    )
    assert claim_text(
        {"value": "91.5", "unit": "%", "what": "accuracy", "relation": "reaches", "baseline": "42.7"}
    ) == ("91.5% accuracy (vs. 42.7%)")
    assert area_text({"label": "vision", "confidence": 0.492, "source": "model"}) == "vision (model, 49%)"
    assert area_text(None) == ""


def test_fitted_topics_show_on_the_topics_search_and_paper_pages(tmp_path: Path, icml_dir: Path) -> None:
    lib = Library(tmp_path / "topics.db")
    lib.ingest([icml_dir])
    lib.fit_topics()
    broad = [t for t in lib.topics(level=0) if not t.is_unassigned]
    with TestClient(create_app(lib)) as client:
        page = client.get("/topics").text
        shown = re.findall(r'<li class="topic" data-topic-id="(\d+)">', page)
        assert sorted(shown) == sorted(str(t.topic_id) for t in broad)
        biggest = max(broad, key=lambda t: t.size)
        assert shown[0] == str(biggest.topic_id)
        card = page[page.index(f'data-topic-id="{biggest.topic_id}"') :].split("</li>\n", 1)[0]
        assert f'<a class="topic-name" href="/?topic={biggest.topic_id}">{escape(biggest.name)}</a>' in card
        assert f'<span class="topic-size" title="papers">{biggest.size}</span>' in card
        reps = re.findall(r'<li><a href="/paper/([0-9a-f]+)">', card)
        assert reps == biggest.representative_ids[: len(reps)] and len(reps) >= 1
        filtered = client.get("/", params={"topic": biggest.topic_id}).text
        assert f"{biggest.size} of 95 papers" in _text(filtered)
        assert f'<a class="chip topic" href="/?topic={biggest.topic_id}"' in filtered
        topic_facet = re.search(r'data-facet="topic">(.*?)</section>', filtered, re.S).group(1)
        assert 'class="facet-active"' in topic_facet
        paper = client.get(f"/paper/{reps[0]}").text
        assert f'<p id="paper-topic"><a href="/?topic={biggest.topic_id}">' in paper
        # The map helper's page in the site's template: the same nav, with Map as the current entry.
        live = client.get("/map", params={"q": "graph"}).text
        assert '<a data-nav="map" href="/map" aria-current="page">' in live and 'id="keys-help"' in live
    lib.close()


def test_an_empty_library_has_every_page_with_what_to_do_next(tmp_path: Path) -> None:
    lib = Library(tmp_path / "empty.db")
    with TestClient(create_app(lib)) as client:
        for url, text in [
            ("/", "The library is empty. Add paper lists on the Ingest page."),
            ("/?q=graph", "No papers match."),
            ("/topics", "No topics yet."),
            ("/library", "Nothing here yet."),
            ("/ingest", "Upload and ingest"),
        ]:
            response = client.get(url)
            assert response.status_code == 200 and text in _text(response.text), url
    lib.close()


@pytest.mark.parametrize(
    ("url", "total"), [("/?offset=500", 96), ("/?q=dataset+distillation&mode=bm25&offset=400", None)]
)
def test_a_page_past_the_last_result_says_so_and_links_back(site, url: str, total: int | None) -> None:
    """An old link or a hand-made offset past the end is not "no papers match": it says how many do."""
    client, lib, _ = site
    if total is None:
        total = len(lib.search("dataset distillation", mode="bm25", limit=1000))
    html = client.get(url).text
    assert _result_ids(html) == []
    assert "No papers match" not in html
    text = re.sub(r"<[^>]+>", " ", re.search(r'<p class="empty" id="past-end">(.*?)</p>', html).group(1))
    assert (
        " ".join(text.split())
        == f"This page is past the last result: {total} papers match. Back to the first page"
    )
    back = unescape(re.search(r'id="past-end">[^<]*<a href="([^"]+)"', html).group(1))
    assert "offset" not in back and _result_ids(client.get(back).text)
    previous = unescape(re.search(r'<a id="prev" rel="prev" href="([^"]+)"', html).group(1))
    last_offset = (total - 1) // 20 * 20  # the last page with results (20 a page)
    assert (f"offset={last_offset}" in previous) if last_offset else ("offset" not in previous)
    assert 0 < len(_result_ids(client.get(previous).text)) <= 20
    client.get("/lang/zh")
    try:
        assert f"此页已超出最后一条结果：共有 {total} 篇论文符合。" in client.get(url).text
    finally:
        client.cookies.clear()


def test_a_search_nothing_matches_has_no_previous_page(site) -> None:
    client, _, _ = site
    for url in ("/?q=zzzxqj&mode=bm25&offset=40", "/?venue=NeurIPS&offset=40"):
        html = client.get(url).text
        assert "No papers match" in html and 'id="prev"' not in html and 'id="past-end"' not in html, url
