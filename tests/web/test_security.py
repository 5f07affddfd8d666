"""Safe by default: headers on every response, same-origin writes, Host checks, a token off loopback."""

from __future__ import annotations

import socket
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.cli import cli
from paperscope.errors import InputError
from paperscope.web import create_app
from paperscope.web.security import CSP, MIN_TOKEN_CHARS, TOKEN_COOKIE, is_loopback, new_token, resolve_host

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
        "Error: --host 0.0.0.0: refusing to serve beyond this machine without --token (or PAPERSCOPE_TOKEN)"
        " (make one with `paperscope serve --new-token`)\n"
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


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.7", "10.9.9.9", "", "::ffff:10.9.9.9"])
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


# --- loopback means loopback (issue 26, kind 1) -------------------------------------------------

#: A token as long as ``serve`` accepts (``MIN_TOKEN_CHARS``).
GOOD_TOKEN = "t" * MIN_TOKEN_CHARS


def fake_resolver(table: dict[str, list[str]]) -> Callable[..., list[tuple[Any, ...]]]:
    """A ``socket.getaddrinfo`` that knows only ``table`` (name -> addresses), as a private DNS would."""

    def resolve(host: str, port: Any, *args: Any, **kwargs: Any) -> list[tuple[Any, ...]]:
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [
            (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, 0))
            for a in table[host]
        ]

    return resolve


#: What the attack's private network resolved, and names with one loopback address among others.
NAMES = {
    "127.evil.test": ["10.9.9.9"],
    "mixed.test": ["127.0.0.1", "10.9.9.9"],
    "mixed6.test": ["::1", "fe80::1%eth0"],
    "loop.test": ["127.0.0.1", "127.0.1.1", "::1"],
    "localhost": ["127.0.0.1", "::1"],
}


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("127.evil.test", False),
        ("mixed.test", False),
        ("mixed6.test", False),
        ("loop.test", True),
        ("localhost", True),
    ],
)
def test_a_name_is_loopback_only_when_every_address_it_resolves_to_is(host: str, expected: bool) -> None:
    assert is_loopback(host, resolve=fake_resolver(NAMES)) is expected


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("127.0.0.1", True),
        ("127.255.0.9", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("128.0.0.1", False),
        ("10.9.9.9", False),
        ("::2", False),
        ("", False),
    ],
)
def test_addresses_and_localhost_resolve_for_real_without_network(host: str, expected: bool) -> None:
    assert is_loopback(host) is expected


def test_localhost_resolves_to_loopback_addresses_only() -> None:
    assert {str(a) for a in resolve_host("localhost")} <= {"127.0.0.1", "::1"}


def test_a_name_that_does_not_resolve_is_an_input_error() -> None:
    with pytest.raises(InputError) as caught:
        is_loopback("nowhere.test", resolve=fake_resolver(NAMES))
    assert str(caught.value) == (
        "nowhere.test: the name does not resolve (Name or service not known); give an IP address or a"
        " name this machine resolves"
    )


def _serve(lib: Library, *args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(
        cli, ["--db", str(lib.store.path), "serve", *args], env={"PAPERSCOPE_TOKEN": "", **(env or {})}
    )


@pytest.mark.parametrize("host", ["127.evil.test", "mixed.test", "mixed6.test"])
def test_serve_needs_a_token_for_a_name_that_resolves_beyond_loopback(
    lib: Library, host: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", fake_resolver(NAMES))
    refused = _serve(lib, "--host", host, "--get", "/api/stats")
    assert refused.exit_code == 1 and refused.stdout == ""
    assert refused.stderr == (
        f"Error: --host {host}: refusing to serve beyond this machine without --token (or PAPERSCOPE_TOKEN)"
        " (make one with `paperscope serve --new-token`)\n"
    )
    guarded = _serve(lib, "--host", host, "--get", "/api/stats", env={"PAPERSCOPE_TOKEN": GOOD_TOKEN})
    assert guarded.exit_code == 0, guarded.output
    assert '"papers": 1' in guarded.stdout


def test_serve_on_a_loopback_name_needs_no_token(lib: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", fake_resolver(NAMES))
    result = _serve(lib, "--host", "loop.test", "--get", "/api/stats")
    assert result.exit_code == 0, result.output
    assert '"papers": 1' in result.stdout


def test_serve_names_a_host_that_does_not_resolve_in_one_line(
    lib: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", fake_resolver(NAMES))
    result = _serve(lib, "--host", "nowhere.test", "--token", GOOD_TOKEN)
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: --host nowhere.test: the name does not resolve (Name or service not known); give an IP"
        " address or a name this machine resolves\n"
    )


@pytest.mark.parametrize("length", [1, 8, MIN_TOKEN_CHARS - 1])
def test_serve_refuses_a_short_token_on_any_host(lib: Library, length: int) -> None:
    message = (
        f"Error: --token: the token has {length} characters, fewer than the {MIN_TOKEN_CHARS} it needs;"
        " make one with `paperscope serve --new-token`\n"
    )
    for host in ("0.0.0.0", "127.0.0.1"):
        by_flag = _serve(lib, "--host", host, "--token", "x" * length, "--get", "/api/stats")
        assert (by_flag.exit_code, by_flag.stdout, by_flag.stderr) == (1, "", message), host
        by_env = _serve(lib, "--host", host, "--get", "/api/stats", env={"PAPERSCOPE_TOKEN": "x" * length})
        assert (by_env.exit_code, by_env.stdout, by_env.stderr) == (1, "", message), host


def test_serve_new_token_prints_a_long_random_token_that_serve_accepts(lib: Library) -> None:
    first, second = _serve(lib, "--new-token"), _serve(lib, "--new-token")
    assert first.exit_code == 0 and first.stderr == ""
    token = first.stdout.strip()
    assert first.stdout == token + "\n" and len(token) >= MIN_TOKEN_CHARS
    assert set(token) <= set(string.ascii_letters + string.digits + "-_")
    assert second.stdout.strip() != token
    served = _serve(lib, "--host", "0.0.0.0", "--token", token, "--get", "/api/stats")
    assert served.exit_code == 0, served.output
    assert '"papers": 1' in served.stdout
    with TestClient(create_app(lib, token=token)) as client:
        assert client.get("/api/stats").status_code == 401
        assert client.get("/api/stats", headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_new_token_is_43_url_safe_characters() -> None:
    tokens = {new_token() for _ in range(20)}
    assert len(tokens) == 20 and {len(t) for t in tokens} == {43}


def test_serve_binds_an_ipv6_address_written_in_brackets_without_them(
    lib: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--host [::1]`` (as URLs write it) is loopback and binds ``::1``, not the name "[::1]"."""
    import uvicorn

    bound: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: bound.update(kwargs))
    result = _serve(lib, "--host", "[::1]", "--port", "8799")
    assert result.exit_code == 0, result.output
    assert bound["host"] == "::1" and bound["port"] == 8799
    assert "at http://[::1]:8799/" in result.stderr
