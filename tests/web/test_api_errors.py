"""The API's error contract at its edges: wrong methods, malformed requests, declared statuses.

A request uvicorn's parser (h11) cannot parse never reaches the app (uvicorn answers a plain 400
itself; see the docstring of :mod:`paperscope.web.app`), so these tests send what does reach it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from asgi_helpers import asgi_get
from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.web import create_app
from paperscope.web.security import CSP


@pytest.fixture
def client(icml_module_library: Library) -> Iterator[TestClient]:
    with TestClient(create_app(icml_module_library)) as test_client:
        yield test_client


def _paper_id(client: TestClient) -> str:
    return client.get("/api/browse").json()["data"]["hits"][0]["paper_id"]


def _error(response, status: int) -> str:
    """Return the message of a JSON error answer after checking its shape and security headers."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert set(body) == {"ok", "error", "status"} and body["ok"] is False and body["status"] == status
    assert response.headers["content-security-policy"] == CSP
    assert response.headers["x-content-type-options"] == "nosniff"
    return str(body["error"])


@pytest.mark.parametrize(
    ("path", "allow"),
    [
        ("/api/papers/{id}/star", "PUT, DELETE"),
        ("/api/papers/{id}/tags/to-read", "PUT, DELETE"),
        ("/api/papers/{id}", "GET"),
        ("/api/stats", "GET"),
        ("/api/ingest", "POST"),
        ("/api/topics/fit", "POST"),
        ("/api/enrich/suggestions/1", "PUT"),
    ],
)
@pytest.mark.parametrize("method", ["TRACE", "OPTIONS", "PATCH", "BREW"])
def test_a_405_lists_every_method_of_the_path_in_allow(
    client: TestClient, path: str, allow: str, method: str
) -> None:
    url = path.format(id=_paper_id(client))
    response = client.request(method, url)
    assert _error(response, 405) == f"{method} is not allowed at {url}; it takes {allow}"
    assert response.headers["allow"] == allow


def test_every_allow_header_names_the_methods_the_schema_declares(client: TestClient) -> None:
    """For each path of /openapi.json, a TRACE's Allow lists exactly the operations declared there."""
    spec = client.get("/openapi.json").json()
    for route, operations in spec["paths"].items():
        url = route.replace("{paper_id}", _paper_id(client)).replace("{suggestion_id}", "1")
        url = url.replace("{tag}", "x").replace("{job_id}", "j")
        allow = client.request("TRACE", url).headers["allow"].split(", ")
        assert sorted(allow) == sorted(m.upper() for m in operations), route


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("/api/papers/%FF%FE", "is not a paper_id"),
        ("/api/papers/%ZZ", "'%zz' is not a paper_id"),
        ("/api/search?q=x&%FF=1", "unknown query parameter: \ufffd"),
        ("/api/search?q=x&=&&=y", "unknown query parameter: ;"),
        ("/api/browse?limit=%", "limit"),
        ("/api/browse?year=%FF", "year"),
    ],
)
def test_a_malformed_url_gets_the_error_shape_and_the_headers(
    client: TestClient, url: str, fragment: str
) -> None:
    assert fragment in _error(client.get(url), 400)


@pytest.mark.parametrize(
    ("body", "content_type", "fragment"),
    [
        (b'{"body": "unclosed', "application/json", "the body is not valid JSON (Unterminated string"),
        (b"\xff\xfe\x00", "application/json", "There was an error parsing the body"),
        (b"[1, 2]", "application/json", "valid dictionary"),
        (b'{"body": "x"}', "text/plain", "valid dictionary"),
        (b"", "application/json", "body: Field required"),
    ],
)
def test_a_malformed_body_gets_the_error_shape_and_stores_nothing(
    client: TestClient, body: bytes, content_type: str, fragment: str
) -> None:
    paper_id = _paper_id(client)
    response = client.put(
        f"/api/papers/{paper_id}/note", content=body, headers={"content-type": content_type}
    )
    assert fragment in _error(response, 400)
    assert client.get(f"/api/papers/{paper_id}").json()["data"]["marks"]["note"] is None


def test_a_bad_content_length_gets_the_error_shape(client: TestClient) -> None:
    response = client.put(
        f"/api/papers/{_paper_id(client)}/note",
        content=b'{"body": "x"}',
        headers={"content-type": "application/json", "content-length": "twelve"},
    )
    assert _error(response, 400) == "a bad Content-Length header"


def test_every_operation_declares_the_statuses_of_the_whole_app(client: TestClient) -> None:
    """Statuses any route can answer (security, limits, bugs) are declared with the error model."""
    spec = client.get("/openapi.json").json()
    for route, operations in spec["paths"].items():
        for method, op in operations.items():
            for status in ("400", "401", "403", "404", "413", "414", "500", "503"):
                schema = op["responses"][status]["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ErrorResponse"}, (method, route, status)


def test_a_url_over_the_limit_is_a_declared_414(client: TestClient) -> None:
    status, headers, body = asgi_get(client.app, "/api/search", b"q=" + b"x" * (300 * 1024))
    assert (status, headers["content-security-policy"]) == (414, CSP)
    error = json.loads(body)
    assert (error["ok"], error["status"]) == (False, 414)
    assert error["error"].startswith("the request URL is 307,213 bytes, more than the 262,144")
    declared = client.get("/openapi.json").json()["paths"]["/api/search"]["get"]["responses"]
    assert declared["414"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorResponse")
