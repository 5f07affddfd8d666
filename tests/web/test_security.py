"""Safe by default: headers on every response, same-origin writes, Host checks, a token off loopback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.cli import cli
from paperscope.web import create_app
from paperscope.web.security import CSP, TOKEN_COOKIE

LIST = "ICML 2026 Papers\n\nWe present APM, an adaptive pruning method with a 9.6x speedup on CIFAR-10.\n"


@pytest.fixture
def lib(tmp_path: Path):
    path = tmp_path / "one.txt"
    path.write_text(LIST, encoding="utf-8")
    library = Library(tmp_path / "web.db")
    library.ingest([path], embed=False)
    yield library
    library.close()


def _paper_id(lib: Library) -> str:
    return next(lib.papers()).paper_id


def test_every_response_carries_the_security_headers(lib: Library) -> None:
    with TestClient(create_app(lib)) as client:
        for path, policy in (
            ("/", CSP),
            ("/api/search?q=pruning", CSP),
            ("/api/nothing", CSP),
            ("/map", CSP),
            ("/api/docs", CSP),
            ("/openapi.json", CSP),
            ("/static/app.js", CSP),
        ):
            response = client.get(path)
            assert response.headers["content-security-policy"] == policy, path
            assert response.headers["x-content-type-options"] == "nosniff"
            assert response.headers["referrer-policy"] == "no-referrer"
    assert "'unsafe-inline'" not in CSP and "script-src 'self';" in CSP
    assert "'unsafe-eval'" not in CSP and "http" not in CSP and "style-src 'self';" in CSP


def test_a_write_from_another_origin_is_refused_and_changes_nothing(lib: Library) -> None:
    pid = _paper_id(lib)
    with TestClient(create_app(lib)) as client:
        refused = client.put(f"/api/papers/{pid}/star", headers={"Origin": "https://evil.example"})
        assert (refused.status_code, refused.json()) == (
            403,
            {
                "ok": False,
                "error": "cross-site request refused: its Origin is not this server",
                "status": 403,
            },
        )
        assert lib.marks(pid)["starred"] is False
        same = client.put(f"/api/papers/{pid}/star", headers={"Origin": "http://testserver"})
        assert same.status_code == 200 and lib.marks(pid)["starred"] is True


def test_an_unknown_host_is_refused_when_the_hosts_are_known(lib: Library) -> None:
    app = create_app(lib, allowed_hosts={"127.0.0.1", "localhost"})
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        assert client.get("/api/search?q=pruning").status_code == 200
    with TestClient(app, base_url="http://rebound.example:8765") as client:  # DNS rebinding
        response = client.get("/api/search?q=pruning")
        assert (response.status_code, response.json()["error"]) == (
            403,
            "host 'rebound.example:8765' is not served here",
        )


def test_with_a_token_every_request_needs_it(lib: Library) -> None:
    with TestClient(create_app(lib, token="s3cret")) as client:
        bare = client.get("/api/search?q=pruning")
        assert bare.status_code == 401 and bare.json()["ok"] is False
        assert (
            client.get("/api/search?q=pruning", headers={"Authorization": "Bearer wrong"}).status_code == 401
        )
        assert (
            client.get("/api/search?q=pruning", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        )
        opened = client.get("/?token=s3cret", follow_redirects=False)
        assert opened.status_code == 303 and opened.cookies.get(TOKEN_COOKIE) == "s3cret"
        client.cookies.set(TOKEN_COOKIE, "s3cret")
        assert client.get("/api/search?q=pruning").status_code == 200


def test_serve_refuses_a_non_loopback_host_without_a_token(lib: Library) -> None:
    result = CliRunner().invoke(
        cli, ["--db", str(lib.store.path), "serve", "--host", "0.0.0.0"], env={"PAPERSCOPE_TOKEN": ""}
    )
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: --host 0.0.0.0: refusing to serve beyond this machine without --token (or PAPERSCOPE_TOKEN)\n"
    )


@pytest.mark.parametrize(
    "path",
    [
        "/static/../app.py",
        "/static/%2e%2e/app.py",
        "/static/%2E%2E/%2E%2E/pyproject.toml",
        "/static/..%2fapp.py",
        "/static/%2e%2e%2fapp.py",
        "/static/..%5capp.py",
        "/static/%5c..%5c..%5capp.py",
        "/static/..\\app.py",
        "/static/%252e%252e/app.py",
        "/static//etc/passwd",
        "/static/%2fetc%2fpasswd",
        "/static/....//app.py",
        "/static/app.js%00.txt",
        "/map/assets/../../app.py",
        "/map/assets/%2e%2e%2fapp.py",
    ],
)
def test_path_traversal_on_static_routes_never_serves_a_file_outside(lib: Library, path: str) -> None:
    secret = (Path(__file__).parents[2] / "src" / "paperscope" / "web" / "app.py").read_text(encoding="utf-8")
    with TestClient(create_app(lib)) as client:
        response = client.get(path)
        assert response.status_code in (400, 404), (path, response.status_code)
        assert "def create_app" not in response.text and "root:" not in response.text
        assert response.text != secret
        assert response.headers["x-content-type-options"] == "nosniff"


def test_static_files_are_served_with_the_headers(lib: Library) -> None:
    with TestClient(create_app(lib)) as client:
        response = client.get("/static/app.js")
        assert response.status_code == 200 and response.headers["content-security-policy"] == CSP


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/api/ingest?name=x.txt", LIST),
        ("post", "/api/topics/fit", ""),
        ("put", "/api/papers/{pid}/note", '{"body": "pwned"}'),
        ("put", "/api/papers/{pid}/triage", '{"state": "reject"}'),
        ("put", "/api/papers/{pid}/tags/pwned", ""),
        ("delete", "/api/papers/{pid}/star", ""),
    ],
)
def test_every_write_from_another_origin_is_refused(lib: Library, tmp_path: Path, method, path, body) -> None:
    pid = _paper_id(lib)
    before = lib.marks(pid)
    with TestClient(create_app(lib)) as client:
        for origin in (
            "https://evil.example",
            "http://testserver.evil.example",
            "null",
            "http://127.0.0.1:9",
        ):
            response = client.request(
                method,
                path.format(pid=pid),
                content=body.encode(),
                headers={"Origin": origin, "content-type": "application/json"},
            )
            assert response.status_code == 403, origin
            assert response.json()["error"] == "cross-site request refused: its Origin is not this server"
    assert lib.marks(pid) == before and len(lib) == 1 and lib.topics() == []
    assert not (tmp_path / "web.uploads").exists()


def test_a_token_guards_the_api_schema_and_uploads_too(lib: Library, tmp_path: Path) -> None:
    with TestClient(create_app(lib, token="s3cret")) as client:
        for method, path in (
            ("get", "/openapi.json"),
            ("get", "/api/docs"),
            ("post", "/api/ingest?name=a.txt"),
        ):
            response = client.request(method, path, content=LIST.encode() if method == "post" else None)
            assert response.status_code == 401 and response.json()["status"] == 401, path
        assert not (tmp_path / "web.uploads").exists()
        authorised = client.get("/openapi.json", headers={"Authorization": "Bearer s3cret"})
        assert authorised.status_code == 200


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.7", "example.org"])
def test_serve_refuses_every_non_loopback_host_without_a_token(lib: Library, host: str) -> None:
    result = CliRunner().invoke(
        cli, ["--db", str(lib.store.path), "serve", "--host", host], env={"PAPERSCOPE_TOKEN": ""}
    )
    assert result.exit_code == 1
    assert "refusing to serve beyond this machine without --token" in result.stderr


def test_a_get_changes_nothing(lib: Library) -> None:
    """Every read route leaves the library as it was (a cross-site GET cannot change it)."""
    pid = _paper_id(lib)
    with TestClient(create_app(lib)) as client:
        before = (lib.stats(), lib.marks(pid), lib.topics())
        for path in (
            "/api/search?q=pruning",
            "/api/browse",
            "/api/facets?q=pruning",
            f"/api/related/{pid}",
            "/api/recommend",
            f"/api/papers/{pid}",
            "/api/stats",
            "/api/marks",
            "/api/tags",
            "/api/export?format=csv",
            "/api/topics",
            "/api/ingest/unknown",
            f"/api/papers/{pid}/star",
        ):
            assert client.get(path).status_code in (200, 400, 404, 405, 503), path
        assert (lib.stats(), lib.marks(pid), lib.topics()) == before
