"""JSON API: one success envelope, one error shape, bug cases 1, 3 and 5 over HTTP."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from asgi_helpers import asgi_get
from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.web import create_app

F1 = (
    "ICML 2026 Papers\n\n"
    "We present APM, an adaptive pruning method that reaches a 9.6$\\times$ speedup on CIFAR-10 while "
    "keeping state-of-the-art accuracy. Code: https://github.com/acme/apm.\n\n"
    "We revisit loss::mse style objectives and don't-care labels for sequence tagging.\n"
)
CASE1_QUERIES = ["CIFAR-10", "state-of-the-art", "9.6x", "C$^2$R", "don't", "loss::mse", '"', "(", "*"]
CASE1_QUERIES += ["AND", "NOT", "zqxjv", "the of and", "$\\", "%", "_", "100%", "' OR '1'='1"]
CASE1_QUERIES += ['x"; DROP TABLE papers; --']


@pytest.fixture
def client(tmp_path: Path):
    path = tmp_path / "f1.txt"
    path.write_text(F1, encoding="utf-8")
    lib = Library(tmp_path / "web.db")
    lib.ingest([path])
    with TestClient(create_app(lib)) as test_client:
        yield test_client
    lib.close()


def _apm_id(client: TestClient) -> str:
    return client.get("/api/search", params={"q": "CIFAR-10"}).json()["data"][0]["paper_id"]


@pytest.mark.parametrize("query", CASE1_QUERIES)
def test_every_query_is_200_with_a_list(client: TestClient, query: str) -> None:
    response = client.get("/api/search", params={"q": query})
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True and isinstance(body["data"], list)


def test_apm_ranks_first_and_junk_queries_are_empty(client: TestClient) -> None:
    apm = _apm_id(client)
    for query in ["CIFAR-10", "state-of-the-art"]:
        assert client.get("/api/search", params={"q": query}).json()["data"][0]["paper_id"] == apm
    for query in ["zqxjv", "the of and", "%", "_"]:
        assert client.get("/api/search", params={"q": query}).json()["data"] == []


@pytest.mark.parametrize("params", [{}, {"q": ""}, {"q": "   "}, {"q": " ", "like": ""}])
def test_an_empty_query_finds_nothing_and_says_why(client: TestClient, params: dict) -> None:
    """Every parameter may be left out (the schema says so): an empty search is [] with a notice."""
    body = client.get("/api/search", params=params).json()
    assert body == {
        "ok": True,
        "data": [],
        "notice": "empty query: type some words to search for (or like=PAPER_ID)",
    }


def test_an_empty_query_still_checks_the_other_parameters(client: TestClient) -> None:
    assert "search mode" in _error_shape(client.get("/api/search", params={"mode": "fuzzy"}), 400)
    assert "contribution type" in _error_shape(
        client.get("/api/search", params={"contribution": "poem"}), 400
    )
    assert "is not a date" in _error_shape(client.get("/api/search", params={"day": "AAA"}), 400)
    assert "no topic 7" in _error_shape(client.get("/api/search", params={"topic": "7"}), 404)


@pytest.mark.parametrize(
    ("params", "status", "fragment"),
    [
        ({"q": "pruning", "limit": "abc"}, 400, "limit"),
        ({"q": "pruning", "limit": "-1"}, 400, "limit"),
        ({"q": "pruning", "limit": "100000"}, 400, "limit"),
        ({"q": "pruning", "mode": "fuzzy"}, 400, "search mode"),
        ({"q": "pruning", "contribution": "poem"}, 400, "contribution type"),
    ],
)
def test_bad_input_is_400_with_the_error_shape(
    client: TestClient, params, status: int, fragment: str
) -> None:
    response = client.get("/api/search", params=params)
    assert response.status_code == status
    body = response.json()
    assert set(body) == {"ok", "error", "status"} and body["ok"] is False and body["status"] == status
    assert fragment in body["error"]


def test_tables_intact_after_injection_attempts(client: TestClient) -> None:
    for query in CASE1_QUERIES:
        client.get("/api/search", params={"q": query})
    assert client.get("/api/stats").json()["data"]["papers"] == 2


def test_unknown_paper_and_route_use_the_error_shape(client: TestClient) -> None:
    missing = client.get("/api/papers/abcdef123456")
    assert missing.status_code == 404 and missing.json()["ok"] is False
    nowhere = client.get("/api/nowhere")
    assert nowhere.status_code == 404 and set(nowhere.json()) == {"ok", "error", "status"}


def test_marks_roundtrip(client: TestClient) -> None:
    apm = _apm_id(client)
    assert client.put(f"/api/papers/{apm}/star").json()["data"]["starred"] is True
    assert client.put(f"/api/papers/{apm}/tags/to-read").json()["data"]["tags"] == ["to-read"]
    assert client.put(f"/api/papers/{apm}/note", json={"body": "R&D <1%"}).json()["data"]["note"] == "R&D <1%"
    assert client.delete(f"/api/papers/{apm}/tags/to-read").json()["data"]["tags"] == []
    assert client.delete(f"/api/papers/{apm}/star").json()["data"] == {
        "starred": False,
        "tags": [],
        "note": "R&D <1%",
        "triage": None,
    }


def test_case5_entities_decoded_once_in_api_and_page(tmp_path: Path) -> None:
    path = tmp_path / "f5.txt"
    path.write_text(
        "Q&amp;A over Graphs with R&amp;D Priors: our error drops to &lt;1% and accuracy stays &gt; 90%.\n",
        encoding="utf-8",
    )
    lib = Library(tmp_path / "f5.db")
    lib.ingest([path])
    with TestClient(create_app(lib)) as client:
        (paper,) = client.get("/api/search", params={"q": "graphs"}).json()["data"]
        shown = client.get(f"/api/papers/{paper['paper_id']}").json()["data"]
        assert "Q&A over Graphs with R&D Priors" in shown["clean_text"]
        assert "<1%" in shown["clean_text"] and "> 90%" in shown["clean_text"]
        raw = client.get(f"/api/papers/{paper['paper_id']}").text
        assert "&amp;" not in raw and json.loads(raw)["data"]["clean_text"].count("&") == 2
    lib.close()


def test_index_page_and_static_assets_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and '<script src="/static/app.js">' in page.text
    assert client.get("/static/app.js").status_code == 200
    # No remote URL anywhere in the script (it only fetches this server's own /api).
    assert re.search(r"(https?:)?//[a-z0-9]", client.get("/static/app.js").text.replace("// ", "")) is None


def test_topics_and_map_page(tmp_path: Path, icml_dir: Path) -> None:
    lib = Library(tmp_path / "map.db")
    lib.ingest([icml_dir])
    with TestClient(create_app(lib)) as client:
        # A GET never fits (or changes) anything: before a fit there are no topics and no map.
        assert client.get("/api/topics").json() == {"ok": True, "data": [], "stale": True}
        missing = client.get("/map")
        assert missing.status_code == 404 and "paperscope topics" in missing.json()["error"]
        assert lib.topics() == []
        fitted = client.post("/api/topics/fit").json()
        listed = client.get("/api/topics").json()["data"]
        assert fitted["data"] == listed and fitted["stale"] is False
        broad = [t for t in listed if t["level"] == 0]
        assert sum(t["size"] for t in broad) == 95
        page = client.get("/map")
        assert page.status_code == 200 and "<canvas" in page.text
        assert "https://" not in page.text.split("<script", 1)[0]
    lib.close()


def test_search_filters_and_mode_reach_the_library(client: TestClient) -> None:
    apm = _apm_id(client)
    for params in ({"dataset": "cifar-10"}, {"has_code": "true"}, {"mode": "bm25"}):
        data = client.get("/api/search", params={"q": "pruning speedup", **params}).json()["data"]
        assert [h["paper_id"] for h in data] == [apm]
    assert set(data[0]["legs"]) == {"bm25"}
    for params in ({"dataset": "CIFAR-100"}, {"venue": "NeurIPS"}):
        assert client.get("/api/search", params={"q": "pruning speedup", **params}).json()["data"] == []
    # A filter keeps exactly the unfiltered hits that pass it (here a dense-only hit).
    everything = client.get("/api/search", params={"q": "pruning speedup"}).json()["data"]
    no_code = client.get("/api/search", params={"q": "pruning speedup", "has_code": "false"}).json()["data"]
    assert [h["paper_id"] for h in no_code] == [h["paper_id"] for h in everything if h["paper_id"] != apm]


def test_an_out_of_range_year_is_a_400_and_serve_get_never_prints_a_traceback(tmp_path, icml_dir):
    from click.testing import CliRunner

    from paperscope.cli import cli

    db = str(tmp_path / "lib.db")
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", db, "ingest", str(icml_dir), "--no-embed"]).exit_code == 0
    result = runner.invoke(
        cli, ["--db", db, "serve", "--get", "/api/search?q=pruning&year=99999999999999999999"]
    )
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {
        "ok": False,
        "error": "year must be a whole number from 1 to 9999, got 99999999999999999999",
        "status": 400,
    }
    cli_result = runner.invoke(cli, ["--db", db, "search", "pruning", "--year", "99999999999999999999"])
    assert cli_result.exit_code == 1
    assert (
        cli_result.stderr == "Error: year must be a whole number from 1 to 9999, got 99999999999999999999\n"
    )


# -- the envelope, the schema and every endpoint ----------------------------------------------


def _asgi_get(app, path: str, query: bytes) -> tuple[int, dict, float]:
    """GET ``path?query`` straight through the ASGI app (httpx refuses URLs over 64 kB)."""
    import time

    started = time.perf_counter()
    status, _, body = asgi_get(app, path, query)
    return status, json.loads(body), time.perf_counter() - started


def _error_shape(response, status: int) -> str:
    body = response.json()
    assert response.status_code == status, body
    assert set(body) == {"ok", "error", "status"} and body["ok"] is False and body["status"] == status
    return body["error"]


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"q": "pruning", "limit": "abc"}, "limit: Input should be a valid integer"),
        ({"q": "pruning", "limit": "-1"}, "limit must be an integer from 1 to 1000, got -1"),
        ({"q": "pruning", "limit": str(10**9)}, "limit must be an integer from 1 to 1000, got 1000000000"),
        ({"q": "pruning", "limit": "1e3"}, "limit: Input should be a valid integer"),
        ({"q": "pruning", "year": "99999999999999999999"}, "year must be a whole number from 1 to 9999"),
        ({"q": "pruning", "year": "-3"}, "year must be a whole number from 1 to 9999, got -3"),
        ({"q": "pruning", "topic": "99999999999999999999"}, "topic: Input should be less than or equal to"),
        ({"q": "pruning", "offset": "-1"}, "offset: Input should be greater than or equal to 0"),
        ({"q": "pruning", "has_code": "maybe"}, "has_code: Input should be a valid boolean"),
        ({"q": "pruning", "yaer": "2026"}, "unknown query parameter: yaer; this route takes: area,"),
        ({"q": "pruning", "yaer": "1", "veneu": "x"}, "unknown query parameters: veneu, yaer;"),
    ],
)
def test_bad_numbers_and_unknown_filters_are_400(client: TestClient, params, fragment: str) -> None:
    assert fragment in _error_shape(client.get("/api/search", params=params), 400)


def test_an_unknown_topic_is_a_404_on_every_filtered_route(client: TestClient) -> None:
    """As in /api/queue: the filter names a topic that does not exist."""
    for route in ("/api/search?q=pruning", "/api/browse", "/api/facets", "/api/facets?q=pruning"):
        assert _error_shape(client.get(f"{route}{'&' if '?' in route else '?'}topic=7"), 404) == (
            "no topic 7; `paperscope topics` lists them"
        ), route


def test_a_search_page_past_the_1000th_hit_is_cut_with_a_notice(client: TestClient) -> None:
    """A search ranks its best 1,000 hits; a page reaching past them stops there and says so."""
    body = client.get("/api/search", params={"q": "pruning", "offset": "995", "limit": "10"}).json()
    assert (
        body["data"] == [] and body["notice"] == "a search ranks its best 1,000 hits: this page stops there"
    )
    first = client.get("/api/search", params={"q": "pruning", "offset": "0", "limit": "1000"}).json()
    assert first["data"][0]["paper_id"] == _apm_id(client) and first["notice"] is None


def test_unknown_parameters_are_refused_on_every_read_route(client: TestClient) -> None:
    for path in ("/api/stats", "/api/browse", "/api/facets", "/api/marks", "/api/tags", "/api/export"):
        error = _error_shape(client.get(path, params={"bogus": "1"}), 400)
        assert error.startswith("unknown query parameter: bogus"), path


def test_a_100_kb_query_is_cut_with_a_notice_and_answers_quickly(client: TestClient) -> None:
    from urllib.parse import quote

    query = ("pruning CIFAR-10 speedup " * 4200)[:100_000]
    status, body, elapsed_s = _asgi_get(client.app, "/api/search", f"q={quote(query)}".encode())
    assert status == 200 and body["ok"] is True
    assert body["notice"].startswith("only the first 20,000 characters of the query were read")
    assert "(80,001 more were not)" in body["notice"]
    assert body["data"][0]["paper_id"] == _apm_id(client)
    assert elapsed_s < 5  # generous on a loaded 2-core machine; uncut it would tokenise 100 kB
    # A Chinese query of 21,000 characters (no spaces; 189 kB URL-encoded, under MAX_URL_BYTES)
    # is cut by characters too.
    status, body, _ = _asgi_get(client.app, "/api/search", f"q={quote('剪枝' * 10_500)}".encode())
    assert status == 200 and "characters" in body["notice"]


def test_a_lone_surrogate_in_a_note_is_a_400_and_stores_nothing(client: TestClient) -> None:
    apm = _apm_id(client)
    response = client.put(
        f"/api/papers/{apm}/note",
        content=b'{"body": "\\ud800"}',
        headers={"content-type": "application/json"},
    )
    assert _error_shape(response, 400).startswith("body: ")
    assert client.get(f"/api/papers/{apm}").json()["data"]["marks"]["note"] is None
    for bad in (b"{", b'{"body": 3}', b"[]", b'{"note": "x"}'):
        response = client.put(
            f"/api/papers/{apm}/note", content=bad, headers={"content-type": "application/json"}
        )
        _error_shape(response, 400)


def test_a_body_over_the_limit_is_a_413_on_any_route(client: TestClient) -> None:
    apm = _apm_id(client)
    big = json.dumps({"body": "x" * (1024 * 1024)}).encode()
    declared = client.put(
        f"/api/papers/{apm}/note", content=big, headers={"content-type": "application/json"}
    )
    streamed = client.put(
        f"/api/papers/{apm}/note",
        content=iter([big[:1000], big[1000:]]),
        headers={"content-type": "application/json"},
    )
    star = client.put(f"/api/papers/{apm}/star", content=b"x" * (1024 * 1024 + 1))
    for response in (declared, streamed, star):
        assert _error_shape(response, 413) == "the request body is larger than the limit of 1 MiB"
    assert client.get(f"/api/papers/{apm}").json()["data"]["marks"] == {
        "starred": False,
        "tags": [],
        "note": None,
        "triage": None,
    }


def test_hits_carry_the_card_metadata_and_no_local_path(client: TestClient, tmp_path: Path) -> None:
    from paperscope.models import Hit

    response = client.get("/api/search", params={"q": "pruning speedup"})
    (hit, *_) = response.json()["data"]
    assert set(hit) == set(Hit(paper_id="x", score=0, rank=1, label="x").to_dict())
    assert (hit["venue"], hit["year"], hit["has_code"]) == ("ICML", 2026, True)
    assert hit["links"] == {"code": "https://github.com/acme/apm"}
    assert hit["sources"] == [{"path": "f1.txt", "line": 3, "format": "text-list"}]
    for path in ("/api/search?q=pruning", f"/api/papers/{hit['paper_id']}", "/api/stats", "/api/browse"):
        assert str(tmp_path) not in client.get(path).text, path
    assert client.get("/api/stats").json()["data"]["db"] == "web.db"


def test_browse_pages_the_library_in_order(client: TestClient) -> None:
    first = client.get("/api/browse", params={"sort": "added", "limit": 1}).json()["data"]
    second = client.get("/api/browse", params={"sort": "added", "limit": 1, "offset": 1}).json()["data"]
    assert (first["total"], first["offset"], second["offset"]) == (2, 0, 1)
    assert [h["rank"] for h in first["hits"] + second["hits"]] == [1, 2]
    assert first["hits"][0]["paper_id"] != second["hits"][0]["paper_id"]
    coded = client.get("/api/browse", params={"has_code": "true"}).json()["data"]
    assert coded["total"] == 1 and coded["hits"][0]["paper_id"] == _apm_id(client)
    assert "unknown sort 'size'" in _error_shape(client.get("/api/browse", params={"sort": "size"}), 400)


def test_facets_count_the_result_set(client: TestClient) -> None:
    apm = _apm_id(client)
    everything = client.get("/api/facets").json()
    assert everything["data"]["venue"] == [{"value": "ICML", "label": "ICML", "count": 2}]
    assert {v["value"]: v["count"] for v in everything["data"]["has_code"]} == {"true": 1, "false": 1}
    queried = client.get("/api/facets", params={"q": "CIFAR-10", "mode": "bm25"}).json()["data"]
    assert queried["dataset"] == [{"value": "CIFAR-10", "label": "CIFAR-10", "count": 1}]
    client.put(f"/api/papers/{apm}/tags/to-read")
    tagged = client.get("/api/facets", params={"tag": "to-read"}).json()["data"]
    assert tagged["tag"] == [{"value": "to-read", "label": "to-read", "count": 1}]


def test_triage_reading_list_and_tags(client: TestClient) -> None:
    apm = _apm_id(client)
    other = next(
        h["paper_id"] for h in client.get("/api/browse").json()["data"]["hits"] if h["paper_id"] != apm
    )
    assert client.put(f"/api/papers/{apm}/triage", json={"state": "keep"}).json()["data"]["triage"] == "keep"
    bad = client.put(f"/api/papers/{apm}/triage", json={"state": "later"})
    assert "state: Input should be 'unseen', 'skimmed', 'maybe', 'keep' or 'reject'" in _error_shape(bad, 400)
    skimmed = client.put(f"/api/papers/{other}/triage", json={"state": "skimmed"}).json()["data"]
    assert skimmed["triage"] == "skimmed"
    assert (
        client.put(f"/api/papers/{other}/triage", json={"state": "unseen"}).json()["data"]["triage"] is None
    )
    client.put(f"/api/papers/{other}/star")
    client.put(f"/api/papers/{other}/tags/graphs")
    client.put(f"/api/papers/{apm}/tags/Graphs")

    def listed(**params: str) -> list[str]:
        return [item["paper"]["paper_id"] for item in client.get("/api/marks", params=params).json()["data"]]

    assert listed(kind="starred") == [other]
    assert listed(kind="triaged") == [apm]
    assert set(listed(kind="tagged")) == {apm, other} and set(listed()) == {apm, other}
    assert listed(kind="noted") == []
    item = client.get("/api/marks", params={"kind": "starred"}).json()["data"][0]
    assert set(item) == {"paper", "marks", "topic"} and item["marks"]["tags"] == ["graphs"]
    assert "kind: Input should be" in _error_shape(client.get("/api/marks", params={"kind": "liked"}), 400)
    assert client.get("/api/tags").json()["data"] == [{"tag": "graphs", "count": 2}]
    assert client.put(f"/api/papers/{apm}/triage", json={"state": None}).json()["data"]["triage"] is None
    assert _error_shape(client.put("/api/papers/abcdef123456/triage", json={"state": "keep"}), 404)


@pytest.mark.parametrize(
    ("fmt", "media", "ext"),
    [
        ("jsonl", "application/x-ndjson", "jsonl"),
        ("csv", "text/csv", "csv"),
        ("bibtex", "application/x-bibtex", "bib"),
        ("markdown", "text/markdown", "md"),
    ],
)
def test_export_is_an_attachment_of_the_right_type(
    client: TestClient, tmp_path: Path, fmt, media, ext
) -> None:
    apm = _apm_id(client)
    client.put(f"/api/papers/{apm}/star")
    everything = client.get("/api/export", params={"format": fmt})
    starred = client.get("/api/export", params={"format": fmt, "starred": "1"})
    for response in (everything, starred):
        assert response.status_code == 200
        assert response.headers["content-type"] == f"{media}; charset=utf-8"
        assert response.headers["content-disposition"].startswith('attachment; filename="paperscope-')
        assert response.headers["content-disposition"].endswith(f'.{ext}"')
        assert str(tmp_path) not in response.text
    assert "-starred." in starred.headers["content-disposition"]
    assert apm in starred.text or fmt in ("bibtex", "markdown")
    assert len(starred.content) < len(everything.content)


def test_export_of_an_unknown_format_is_a_400(client: TestClient) -> None:
    error = _error_shape(client.get("/api/export", params={"format": "docx"}), 400)
    assert error.startswith("unknown export format 'docx'; choose one of: jsonl, csv, bibtex, markdown")


def test_related_and_recommend(client: TestClient) -> None:
    apm = _apm_id(client)
    related = client.get(f"/api/related/{apm}").json()
    assert [h["paper_id"] for h in related["data"]] != [apm] and apm not in [
        h["paper_id"] for h in related["data"]
    ]
    assert _error_shape(client.get("/api/related/abcdef123456"), 404)
    assert "no paper is starred" in _error_shape(client.get("/api/recommend"), 409)
    assert _error_shape(client.get("/api/recommend?tag=nobody"), 409).startswith(
        "no paper is tagged 'nobody'"
    )
    client.put(f"/api/papers/{apm}/star")
    recommended = client.get("/api/recommend").json()["data"]
    assert apm not in [h["paper_id"] for h in recommended] and len(recommended) == 1
    # The explanation survives the response model: the kept paper it is closest to, by its label
    # as shown ("[Label] …": the ICML papers have no title).
    assert recommended[0]["like"] == [client.app.state.library.get(apm).display_label]
    assert recommended[0]["like"][0].startswith("[Label] APM")
    assert related["data"][0]["like"] == []


def test_recommend_never_embeds_inside_a_request(tmp_path: Path) -> None:
    path = tmp_path / "f1.txt"
    path.write_text(F1, encoding="utf-8")
    lib = Library(tmp_path / "lazy.db")
    lib.ingest([path], embed=False)
    with TestClient(create_app(lib)) as client:
        apm = _apm_id(client)
        client.put(f"/api/papers/{apm}/star")
        error = _error_shape(client.get("/api/recommend"), 503)
        assert error.startswith("2 papers have no embedding yet")
        hybrid = client.get("/api/search", params={"q": "pruning"}).json()
        assert "no embedding yet" in hybrid["notice"]
    assert lib.missing_vectors() == 2
    lib.close()


def _conforms(value, schema: dict, spec: dict, where: str = "$") -> None:
    """Assert ``value`` fits the OpenAPI ``schema``: types, required and declared keys (a small checker)."""
    if "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    if "anyOf" in schema:
        errors = []
        for option in schema["anyOf"]:
            try:
                _conforms(value, option, spec, where)
                return
            except AssertionError as exc:
                errors.append(str(exc))
        raise AssertionError(f"{where}: fits no option: {errors}")
    if "const" in schema:
        assert value == schema["const"], where
    if "enum" in schema:
        assert value in schema["enum"], where
    kind = schema.get("type")
    types = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "null": type(None)}
    if kind == "object":
        assert isinstance(value, dict), where
        props = schema.get("properties", {})
        assert set(schema.get("required", [])) <= set(value), (where, schema.get("required"), list(value))
        if props:
            assert set(value) <= set(props), (where, set(value) - set(props))
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            sub = props.get(key, extra if isinstance(extra, dict) else {})
            _conforms(item, sub, spec, f"{where}.{key}")
    elif kind == "array":
        assert isinstance(value, list), where
        for i, item in enumerate(value):
            _conforms(item, schema.get("items", {}), spec, f"{where}[{i}]")
    elif kind in types:
        assert isinstance(value, types[kind]) and not (kind in ("integer", "number") and value is True), where


def test_every_answer_matches_the_openapi_schema(client: TestClient) -> None:
    """Each route's body fits the schema /openapi.json declares for its status, keys included."""
    apm = _apm_id(client)
    client.put(f"/api/papers/{apm}/star")
    client.put(f"/api/papers/{apm}/tags/to-read")
    client.put(f"/api/papers/{apm}/triage", json={"state": "maybe"})
    job = client.post("/api/ingest", params={"name": "again.txt"}, content=F1.encode()).json()["data"]
    client.app.state.jobs.wait(job["job_id"])
    spec = client.get("/openapi.json").json()
    calls = [
        ("get", "/api/search", "/api/search?q=pruning", 200),
        ("get", "/api/search", "/api/search?q=", 200),
        ("get", "/api/search", "/api/search?q=x&like=zz", 400),
        ("get", "/api/search", "/api/search?q=x&limit=abc", 400),
        ("get", "/api/browse", "/api/browse", 200),
        ("get", "/api/facets", "/api/facets?q=pruning", 200),
        ("get", "/api/related/{paper_id}", f"/api/related/{apm}", 200),
        ("get", "/api/recommend", "/api/recommend", 200),
        ("get", "/api/papers/{paper_id}", f"/api/papers/{apm}", 200),
        ("get", "/api/papers/{paper_id}", "/api/papers/abcdef123456", 404),
        ("get", "/api/stats", "/api/stats", 200),
        ("get", "/api/ready", "/api/ready", 200),
        ("put", "/api/papers/{paper_id}/star", f"/api/papers/{apm}/star", 200),
        ("delete", "/api/papers/{paper_id}/tags/{tag}", f"/api/papers/{apm}/tags/none", 200),
        ("get", "/api/marks", "/api/marks", 200),
        ("get", "/api/tags", "/api/tags", 200),
        ("get", "/api/schedule", "/api/schedule?state=maybe", 200),
        ("get", "/api/schedule", "/api/schedule?state=kept", 400),
        ("get", "/api/ingest/{job_id}", f"/api/ingest/{job['job_id']}", 200),
        ("get", "/api/ingest/{job_id}", "/api/ingest/nope", 404),
        ("post", "/api/ingest", "/api/ingest?name=..", 400),
    ]
    for method, route, url, status in calls:
        response = client.request(method, url, content=b"x" if method == "post" else None)
        assert response.status_code == status, url
        declared = spec["paths"][route][method]["responses"][str(status)]
        schema = declared["content"]["application/json"]["schema"]
        if status >= 400:
            assert schema["$ref"].endswith("/ErrorResponse"), url
        _conforms(response.json(), schema, spec, url)
    # Every route of this API declares the error shape for its failures.
    for route, methods in spec["paths"].items():
        for method, op in methods.items():
            if route.startswith("/api/") and not route.startswith(("/api/topics", "/api/map")):
                for status in ("400", "401", "403", "404", "413", "414", "500", "503"):
                    ref = op["responses"][status]["content"]["application/json"]["schema"]["$ref"]
                    assert ref.endswith("/ErrorResponse"), (route, method, status)


def test_the_schema_lives_at_openapi_json_and_docs_run_no_script(client: TestClient) -> None:
    spec = client.get("/openapi.json")
    assert spec.status_code == 200 and spec.json()["info"]["title"] == "paperscope"
    # Validation errors are 400s in the error shape: the schema promises no 422 anywhere.
    assert '"422"' not in spec.text and "HTTPValidationError" not in spec.text
    assert _error_shape(client.get("/api/openapi.json"), 404)
    docs = client.get("/api/docs")
    assert docs.status_code == 200 and docs.headers["content-type"].startswith("text/html")
    assert "<script" not in docs.text and "/api/search" in docs.text and "/api/ingest" in docs.text


def test_the_response_models_drop_nothing_the_library_returns(client: TestClient) -> None:
    """Answers go through pydantic models, which would drop a new key silently: compare with the library."""
    lib = client.app.state.library
    apm = _apm_id(client)
    client.put(f"/api/papers/{apm}/star")
    hit = client.get("/api/search", params={"q": "pruning"}).json()["data"][0]
    assert set(hit) == set(lib.search("pruning")[0].to_dict())
    assert isinstance(hit["legs"]["bm25"]["rank"], int) and isinstance(hit["legs"]["bm25"]["score"], float)
    paper = client.get(f"/api/papers/{apm}").json()["data"]
    assert paper == {
        **json.loads(json.dumps(lib.get(apm).to_dict())),
        "marks": lib.marks(apm),
        "attached": [],
    }
    assert set(client.get("/api/stats").json()["data"]) == set(lib.stats())
    (item,) = client.get("/api/marks").json()["data"]
    (expected,) = lib.reading_list()
    assert item == json.loads(json.dumps({**expected, "paper": expected["paper"].to_dict()}))
    assert client.get(f"/api/related/{apm}").json()["data"] == json.loads(
        json.dumps([h.to_dict() for h in lib.related(apm)])
    )


def test_a_missing_model_is_a_503_and_bm25_still_answers(client: TestClient, monkeypatch) -> None:
    from paperscope.errors import ModelUnavailable

    def unavailable(self, *args, **kwargs):
        raise ModelUnavailable("onnxruntime is not installed; run: pip install onnxruntime")

    monkeypatch.setattr(Library, "search", unavailable)
    error = _error_shape(client.get("/api/search", params={"q": "pruning", "mode": "dense"}), 503)
    assert error == "onnxruntime is not installed; run: pip install onnxruntime"


def test_a_wrong_method_and_a_wrong_route_use_the_error_shape(client: TestClient) -> None:
    wrong = client.get("/api/papers/abcdef123456/star")
    assert (
        _error_shape(wrong, 405)
        == "GET is not allowed at /api/papers/abcdef123456/star; it takes PUT, DELETE"
    )
    assert wrong.headers["allow"] == "PUT, DELETE"
    assert (
        _error_shape(client.post("/api/search?q=x"), 405)
        == "POST is not allowed at /api/search; it takes GET"
    )
    assert _error_shape(client.get("/api/no/such/route"), 404) == "Not Found"
