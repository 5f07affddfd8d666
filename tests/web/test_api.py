"""JSON API: one success envelope, one error shape, bug cases 1, 3 and 5 over HTTP."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
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


@pytest.mark.parametrize(
    ("params", "status", "fragment"),
    [
        ({"q": ""}, 400, "empty query"),
        ({"q": "   "}, 400, "empty query"),
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
