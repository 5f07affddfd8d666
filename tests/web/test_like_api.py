"""Search by example over HTTP: ``GET /api/search?like=PAPER_ID``, ``/api/facets?like=`` and the page ``/?like=``."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.web import create_app


@pytest.fixture(scope="module")
def client(icml_module_library: Library):
    with TestClient(create_app(icml_module_library)) as test_client:
        yield test_client


def _paper(client: TestClient) -> dict:
    hit = client.get("/api/search", params={"q": "dataset distillation", "mode": "bm25"}).json()["data"][0]
    return client.get(f"/api/papers/{hit['paper_id']}").json()["data"]


def test_like_returns_hits_without_the_paper_and_a_notice(client):
    paper = _paper(client)
    body = client.get("/api/search", params={"like": paper["paper_id"][:8], "limit": 5}).json()
    assert body["ok"] is True
    ids = [h["paper_id"] for h in body["data"]]
    assert len(ids) == 5 and paper["paper_id"] not in ids
    # The paper has no title: its label is derived, and marked so ("[Label]").
    assert paper["label"] == "C²R — Contrastive Curriculum for Robust Dataset Distillation"
    assert body["notice"].splitlines()[0] == f"papers like [Label] {paper['label']}"
    # The same ranking as a search by the paper's text with it excluded, paged like q.
    page = client.get("/api/search", params={"like": paper["paper_id"], "limit": 2, "offset": 2}).json()
    assert [h["paper_id"] for h in page["data"]] == ids[2:4] and page["data"][0]["rank"] == 3


def test_like_keeps_filters_and_facets(client):
    paper_id = _paper(client)["paper_id"]
    none = client.get("/api/search", params={"like": paper_id, "venue": "NeurIPS"}).json()
    assert none["data"] == [] and none["notice"].startswith("papers like ")
    facets = client.get("/api/facets", params={"like": paper_id}).json()
    assert facets["ok"] is True and facets["notice"].startswith("papers like ")
    # The facets count the papers the like search returns, never the paper itself.
    hits = client.get("/api/search", params={"like": paper_id, "limit": 100}).json()["data"]
    assert len(hits) == 94 and paper_id not in {h["paper_id"] for h in hits}
    assert facets["data"]["venue"] == [{"value": "ICML", "label": "ICML", "count": len(hits)}]


@pytest.mark.parametrize(
    ("params", "status", "fragment"),
    [
        ({"like": "abcdef123456"}, 404, "no paper with paper_id 'abcdef123456'"),
        ({"like": "../../etc/passwd"}, 400, "is not a paper_id"),
        ({"like": "README.md"}, 400, "is not a paper_id"),
        ({"like": "abcd", "q": "pruning"}, 404, "no paper with paper_id 'abcd'"),
    ],
)
def test_like_errors_have_the_api_error_shape(client, params, status, fragment):
    response = client.get("/api/search", params=params)
    body = response.json()
    assert response.status_code == status
    assert set(body) == {"ok", "error", "status"} and body["status"] == status
    assert fragment in body["error"]


def test_q_and_like_together_are_a_400_once_like_names_a_paper(client):
    """A rule between two parameters (OpenAPI cannot state it): checked after like is found."""
    paper_id = _paper(client)["paper_id"]
    response = client.get("/api/search", params={"like": paper_id, "q": "pruning"})
    assert response.status_code == 400
    assert (
        response.json()["error"] == "give q or like, not both: like ranks by a paper's text, q by your words"
    )


@pytest.mark.parametrize(
    ("query", "status", "fragment"),
    [
        ("like=abcdef123456", 404, "no paper with paper_id 'abcdef123456'"),
        ("like=..%2F..%2Fetc%2Fpasswd", 400, "is not a paper_id"),
        ("like=abcd&q=pruning", 400, "give a query or like, not both"),
    ],
)
def test_like_page_errors_are_pages(client, query, status, fragment):
    from browser_helpers import visible_text

    response = client.get(f"/?{query}")
    assert response.status_code == status and response.headers["content-type"].startswith("text/html")
    assert fragment in visible_text(response.text)
