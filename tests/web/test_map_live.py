"""The server's live /map: page shell under the strict CSP, /api/map with an ETag, assets, browser.

The browser test drives Debian's Chromium through Playwright with every request that is not
to 127.0.0.1 aborted: load ``/map?q=...``, the highlighted points are the library search's
hits, the card panel reads as text, a click on a point opens ``/paper/ID``.
"""

from __future__ import annotations

import gzip
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from browser_helpers import ARTIFACTS, offline_browser, serve, text_problems
from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.web import create_app, security

QUERY = "diffusion"  # a word about a dozen of the 95 ICML papers use, and the hostile one
#: A paper whose text is markup and script: every surface of the map must show it as text.
HOSTILE = {
    "title": '<img src=x onerror="window.pwned=1"> </script><script>window.pwned=2</script> & "q"',
    "abstract": (
        "We study diffusion models whose samples contain <b>markup</b>, </script><script>window.pwned=3"
        "</script> and <img src=x onerror=window.pwned=4> tags, & ampersands, to check that a reader"
        " sees them as text everywhere: titles, tooltips, cards and links of the topic map page."
    ),
    "url": "javascript:window.pwned=5",
}


@pytest.fixture(scope="module")
def fitted(tmp_path_factory: pytest.TempPathFactory, icml_dir: Path) -> Iterator[Library]:
    """The 95 ICML 2026 papers and a hostile one, topics fitted (the fake embedder), for this module."""
    folder = tmp_path_factory.mktemp("map")
    hostile = folder / "hostile.jsonl"
    hostile.write_text(json.dumps(HOSTILE) + "\n", encoding="utf-8")
    lib = Library(folder / "icml.db")
    lib.ingest([icml_dir, hostile])
    lib.fit_topics()
    yield lib
    lib.close()


@pytest.fixture
def client(fitted: Library) -> TestClient:
    return TestClient(create_app(fitted))


def test_map_before_the_first_fit_is_a_404_that_says_what_to_run(icml_library: Library):
    client = TestClient(create_app(icml_library))
    page = client.get("/map", headers={"Accept": "text/html"})
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "paperscope topics" in page.text and 'id="nav"' in page.text and "map.js" not in page.text
    for path in ("/map", "/api/map"):
        reply = client.get(path, headers={"Accept": "application/json"})
        assert reply.status_code == 404
        body = reply.json()
        assert body["ok"] is False and body["status"] == 404 and "paperscope topics" in body["error"]
    assert icml_library.topics() == []  # a GET never fits


def _assert_map_shell(page: str) -> None:
    """The page has the site nav, the map's controls, external script and style, nothing inline."""
    scripts = re.findall(r"<script\b[^>]*>", page)
    assert any(re.search(r'\bsrc="/map/assets/map\.js\?v=\w+"', s) for s in scripts)
    assert all(re.search(r'\bsrc="/', s) for s in scripts)
    assert not any(body.strip() for body in re.findall(r"<script\b[^>]*>(.*?)</script>", page, re.S))
    assert "<style" not in page and not re.search(r"\sstyle=", page)
    assert not re.search(r"\son[a-z]+=", page)
    assert 'href="/map/assets/map.css?v=' in page
    assert "<b>" not in page and 'data-map-src="/api/map"' in page and 'data-mode="bm25"' in page
    assert re.search(r'data-query="a (&quot;|&#34;)quoted(&quot;|&#34;) &lt;b&gt;query&lt;/b&gt;"', page)
    for key in ("search", "topics", "map", "library", "ingest"):
        assert f'data-nav="{key}"' in page
    assert 'id="nav"' in page and 'id="search-form"' in page and 'id="q"' in page and 'id="mode"' in page
    assert 'data-lang="zh"' in page and 'href="/lang/zh?next=/map' in page.replace("%2F", "/")
    for part in ('id="map"', 'id="search"', 'id="count"', 'id="card"', 'id="legend"'):
        assert part in page


def test_map_page_is_a_shell_with_external_assets_only(client: TestClient):
    reply = client.get("/map", params={"q": 'a "quoted" <b>query</b>', "mode": "bm25"})
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/html")
    _assert_map_shell(reply.text)
    client.cookies.set("paperscope_lang", "zh")
    zh = client.get("/map").text
    assert '<html lang="zh-Hans">' in zh and ">地图<" in zh


def test_map_page_without_the_site_template_is_the_plain_shell(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
):
    from jinja2 import TemplateNotFound

    from paperscope.web.pages import common

    def missing(*args: object, **kwargs: object) -> None:
        raise TemplateNotFound("map.html")

    monkeypatch.setattr(common, "render", missing)
    page = client.get("/map", params={"q": 'a "quoted" <b>query</b>', "mode": "bm25"}).text
    _assert_map_shell(page)
    assert "/static/" not in page  # the shell carries its own nav style (map.css)


def test_map_csp_is_the_strict_one(client: TestClient):
    assert not hasattr(security, "MAP_CSP")
    for path in ("/map", "/api/map", "/map/assets/map.js"):
        csp = client.get(path).headers["content-security-policy"]
        assert csp == security.CSP and "unsafe-inline" not in csp and "unsafe-eval" not in csp


def test_api_map_is_cached_by_etag_and_gzipped(client: TestClient, fitted: Library):
    first = client.get("/api/map")
    assert first.status_code == 200 and first.headers["content-type"] == "application/json"
    etag = first.headers["etag"]
    assert etag.startswith('"map-') and first.headers["cache-control"] == "no-cache"
    payload = first.json()["data"]
    assert payload["papers"]["paper_id"] and len(payload["papers"]["paper_id"]) == len(fitted) == 96
    assert {"x", "y", "label", "card", "keywords", "decision"} <= set(payload["papers"])
    assert all(len(a) <= 201 for a in payload["papers"]["abstract"])  # snippets: the card links the page
    assert all(isinstance(c.get("area", ""), str) for c in payload["papers"]["card"])  # as text
    assert all(not {"venue", "year", "label"} & set(c) for c in payload["papers"]["card"])
    assert "/work/" not in first.text  # no local paths
    again = client.get("/api/map", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    raw = client.get("/api/map", headers={"Accept-Encoding": "identity"})
    assert raw.headers.get("content-encoding") is None and raw.json() == first.json()
    # httpx decodes gzip itself; the stream shows what went over the wire.
    with client.stream("GET", "/api/map", headers={"Accept-Encoding": "gzip"}) as zipped:
        body = b"".join(zipped.iter_raw())
        assert zipped.headers["content-encoding"] == "gzip" and len(body) < len(raw.content) / 2
    assert json.loads(gzip.decompress(body)) == first.json()
    fitted.star(payload["papers"]["paper_id"][0])  # marks are not in the payload: same ETag
    assert client.get("/api/map").headers["etag"] == etag


def test_warm_map_cache_builds_the_payload_before_any_request(fitted: Library, icml_library: Library):
    from paperscope.web.api.topics import warm_map_cache

    app = create_app(fitted)
    assert warm_map_cache(app) is True and app.state.map_cache.body
    etag = app.state.map_cache.etag
    assert TestClient(app).get("/api/map").headers["etag"] == etag
    assert warm_map_cache(create_app(icml_library)) is False  # no topics yet: nothing to build


def test_api_map_etag_changes_with_a_refit(client: TestClient, fitted: Library):
    etag = client.get("/api/map").headers["etag"]
    assert client.post("/api/topics/fit", params={"refit": "true"}).json()["action"] == "refit"
    assert client.get("/api/map", headers={"If-None-Match": etag}).status_code == 200
    assert client.get("/api/map").headers["etag"] != etag


def test_topics_and_map_routes_declare_their_answers_in_openapi(client: TestClient):
    spec = client.get("/openapi.json").json()
    for route, method in (("/api/topics", "get"), ("/api/topics/fit", "post"), ("/api/map", "get")):
        responses = spec["paths"][route][method]["responses"]
        for status in ("400", "404", "500", "503"):
            assert responses[status]["content"]["application/json"]["schema"]["$ref"].endswith(
                "/ErrorResponse"
            )
        assert "$ref" in json.dumps(responses["200"]["content"]["application/json"]["schema"])
    assert "304" in spec["paths"]["/api/map"]["get"]["responses"]
    topics = client.get("/api/topics").json()
    assert topics["ok"] is True and topics["stale"] is False
    assert {"topic_id", "name", "level", "size", "representative_ids", "x", "y"} <= set(topics["data"][0])
    wrong = client.get("/api/map", params={"colour": "venue"})
    assert wrong.status_code == 400 and "colour" in wrong.json()["error"]


@pytest.mark.parametrize(
    "name",
    [
        "map.html",
        "html.py",
        "__init__.py",
        "..%2Fhtml.py",
        "%2e%2e%2f__init__.py",
        "MAP.JS",
        "map.js%00",
        "static",
    ],
)
def test_map_assets_serve_a_fixed_list_only(client: TestClient, name: str):
    reply = client.get(f"/map/assets/{name}")
    assert reply.status_code == 404
    assert reply.json()["ok"] is False and "def " not in reply.text


def test_map_assets_serve_the_script_and_style(client: TestClient):
    js = client.get("/map/assets/map.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert "paperscopeMap" in js.text and ".innerHTML" not in js.text and "insertAdjacentHTML" not in js.text
    css = client.get("/map/assets/map.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert client.get("/map/assets/../map/html.py").status_code == 404


# ---- the browser ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(fitted: Library) -> Iterator[str]:
    with serve(fitted) as url:
        yield url


def _isolated(page, ids: list[str]) -> str:  # type: ignore[no-untyped-def]
    """Return the id among ``ids`` whose point is farthest from any other point on screen."""
    return page.evaluate(
        """(ids) => {
            const m = window.paperscopeMap, all = m.ids().map((id) => [id, m.screenPoint(id)]);
            let best = null, bestD = -1;
            for (const id of ids) {
              const p = m.screenPoint(id);
              let d = Infinity;
              for (const [other, q] of all) if (other !== id) d = Math.min(d, Math.hypot(p.x - q.x, p.y - q.y));
              if (d > bestD) { best = id; bestD = d; }
            }
            return best;
        }""",
        ids,
    )


def _page_point(page, paper_id: str) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    box = page.locator("canvas#map").bounding_box()
    point = page.evaluate("(id) => window.paperscopeMap.screenPoint(id)", paper_id)
    return box["x"] + point["x"], box["y"] + point["y"]


@pytest.mark.browser
def test_live_map_highlights_the_search_hits_and_opens_papers(server: str, fitted: Library):
    import httpx

    hits = httpx.get(f"{server}/api/search", params={"q": QUERY, "limit": 200, "mode": "bm25"}).json()["data"]
    hit_ids = [h["paper_id"] for h in hits]
    assert 1 < len(hit_ids) < len(fitted)
    apm = next(p for p in fitted.papers() if "analytic parameter matching" in p.clean_text.lower())
    with offline_browser() as browser:
        page, log = browser.new_page(viewport=(1400, 900))
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        reply = page.goto(f"{server}/map?q={QUERY}&mode=bm25")
        assert reply is not None and reply.ok
        assert "unsafe-inline" not in reply.headers["content-security-policy"]
        # Function predicates: a string would be eval'd in the page, which its CSP forbids.
        page.wait_for_function(
            "() => window.paperscopeMap && window.paperscopeMap.stats.frames > 0"
            " && window.paperscopeMap.stats.hits !== null && !window.paperscopeMap.stats.searching"
        )
        page.wait_for_function(f"() => window.paperscopeMap.stats.highlighted === {len(hit_ids)}")
        assert page.evaluate("window.paperscopeMap.stats.hits") == len(hit_ids)
        assert sorted(page.evaluate("window.paperscopeMap.highlightedIds()")) == sorted(hit_ids)
        assert page.evaluate("window.paperscopeMap.stats.drawn") == len(fitted) == 96
        assert page.text_content("#count") == f"{len(hit_ids)} hits"  # under the cap of 200
        assert page.input_value("#search") == QUERY
        assert page.locator("nav#nav a[data-nav=map]").count() == 1
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "page-map.png"))

        # The nav's mode switch is the map search's mode: hybrid adds the close dense matches.
        page.select_option("#mode", "hybrid")
        page.wait_for_function("() => new URL(location.href).searchParams.get('mode') === 'hybrid'")
        page.wait_for_function("() => !window.paperscopeMap.stats.searching")
        hybrid = httpx.get(f"{server}/api/search", params={"q": QUERY, "limit": 200, "mode": "hybrid"}).json()
        assert page.evaluate("window.paperscopeMap.stats.hits") == len(hybrid["data"]) >= len(hit_ids)
        assert set(hit_ids) <= {h["paper_id"] for h in hybrid["data"]}
        page.select_option("#mode", "bm25")
        page.wait_for_function("() => new URL(location.href).searchParams.get('mode') === 'bm25'")
        page.wait_for_function(
            f"() => !window.paperscopeMap.stats.searching && window.paperscopeMap.stats.hits === {len(hit_ids)}"
        )
        assert page.text_content("#count") == f"{len(hit_ids)} hits"

        # Shift-click opens the card panel: readable fields, as on the paper page.
        x, y = _page_point(page, apm.paper_id)
        page.keyboard.down("Shift")
        page.mouse.click(x, y)
        page.keyboard.up("Shift")
        page.wait_for_selector("#card:not([hidden])")
        assert page.get_attribute("#card", "data-paper-id") == apm.paper_id
        names = page.locator("#card-fields dt").all_text_contents()
        fields = dict(zip(names, page.locator("#card-fields dd").all_text_contents(), strict=True))
        assert fields["Methods"] == "APM (analytic parameter matching)"
        assert "Flickr30k" in fields["Datasets"] and "multi-modal dataset distillation" in fields["Tasks"]
        assert fields["Claims"].startswith("↓ up to 65× storage reduction; 9.6× faster distillation")
        assert fields["Contribution"] == "method"
        assert re.fullmatch(r".+ \(model, \d+%\)", fields["Area"]), fields["Area"]
        assert fields["Venue"] == "ICML 2026" and fields["Paper ID"] == apm.paper_id
        card_text = page.inner_text("#card")
        assert card_text.count("ICML 2026") == 1
        assert text_problems(card_text) == [] and "\\" not in card_text and "undefined" not in card_text
        assert page.get_attribute("#card-open", "href") == f"/paper/{apm.paper_id}"
        page.screenshot(path=str(ARTIFACTS / "page-map-card.png"))
        page.keyboard.press("Escape")

        # The hostile paper (a hit too) reads as text in its tooltip and card; nothing of it runs.
        bad = next(p for p in fitted.papers() if p.title and "onerror" in p.title)
        assert bad.paper_id in hit_ids
        x, y = _page_point(page, bad.paper_id)
        page.mouse.move(x, y)
        page.wait_for_selector("#tooltip:not([hidden])")
        assert bad.title in page.inner_text("#tooltip") and "<script>" in bad.title
        page.keyboard.down("Shift")
        page.mouse.click(x, y)
        page.keyboard.up("Shift")
        page.wait_for_function(f"() => document.getElementById('card').dataset.paperId === {bad.paper_id!r}")
        assert page.inner_text("#card h2") == bad.title
        assert page.locator("#card img, #card script, #card b, #tooltip img").count() == 0
        hrefs = page.eval_on_selector_all("#card a", "(links) => links.map((a) => a.getAttribute('href'))")
        assert all(h.startswith(("https://", "http://", "/paper/")) for h in hrefs), hrefs
        assert page.evaluate("window.pwned") is None and dialogs == []
        page.keyboard.press("Escape")

        # A plain click on a point opens its paper page.
        target = _isolated(page, hit_ids)
        x, y = _page_point(page, target)
        page.mouse.move(x, y)
        page.wait_for_function(f"() => window.paperscopeMap.hovered() === {target!r}")
        assert log.problems() == []
        with page.expect_navigation() as nav:
            page.mouse.click(x, y)
        assert urlsplit(page.url).path == f"/paper/{target}"
        assert nav.value is not None and nav.value.ok
        page.wait_for_selector("#paper-title")
        assert log.problems() == []


def test_a_served_app_warms_the_map_as_it_starts(fitted: Library):
    app = create_app(fitted, warm_map=True)
    with TestClient(app) as client:  # the lifespan starts the warm-up thread
        deadline = time.monotonic() + 30
        while getattr(app.state, "map_cache", None) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert app.state.map_cache.body
        assert app.state.ready.wait(30)
        assert app.state.map_cache.gzipped  # a browser asks for gzip: compressed before it asks
        assert client.get("/api/map").headers["etag"] == app.state.map_cache.etag
    assert getattr(create_app(fitted).state, "map_cache", None) is None  # off unless asked for
