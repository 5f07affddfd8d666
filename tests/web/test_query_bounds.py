"""Case 23: pasted pages as queries are cut before any work, and over-size requests get the JSON error shape.

These run against a real ``paperscope serve`` process, so uvicorn's request-line limit is the
one the product configures. How long the cut queries take (0.5 s warm at most, and a short
query sent alongside not delayed) is measured by ``bench/query_bounds.py``.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator

import httpx
import pytest
from browser_helpers import free_port

from paperscope import Library
from paperscope.library import MAX_QUERY_TERMS
from paperscope.web.security import MAX_URL_BYTES


@pytest.fixture(scope="module")
def server(tmp_path_factory, icml_dir) -> Iterator[tuple[str, list[str]]]:
    """Serve a library of the five example lists; yield its URL and the library's abstract words."""
    folder = tmp_path_factory.mktemp("bounds")
    db = folder / "library.db"
    with Library(db, embedder="fake") as lib:
        lib.ingest([icml_dir])
        words = " ".join(p.clean_text for p in lib.papers()).split()
    port = free_port()
    env = {**os.environ, "PAPERSCOPE_EMBEDDER": "fake"}
    log = folder / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "paperscope", "--db", str(db), "serve", "--port", str(port)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(url + "/api/stats", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"serve did not start: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.2)
    try:
        yield url, words
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _get(url: str, target: str) -> tuple[int, str, dict]:
    """GET a raw request target (http.client has no URL length limit, unlike httpx)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        conn.request("GET", target)
        response = conn.getresponse()
        return response.status, response.getheader("content-type", ""), json.loads(response.read())
    finally:
        conn.close()


def _words(words: list[str], n: int) -> str:
    return " ".join(words[i % len(words)] for i in range(n))


def test_a_5000_word_query_keeps_its_rarest_terms_and_says_so(server) -> None:
    url, words = server
    response = httpx.get(url + "/api/search", params={"q": _words(words, 5000)}, timeout=30)
    body = response.json()
    assert response.status_code == 200 and body["ok"] is True
    assert body["data"], "the kept terms are real abstract words: they match papers"
    assert "query terms were dropped" in body["notice"] and str(MAX_QUERY_TERMS) in body["notice"]


def test_3000_made_up_tokens_are_bounded_and_answered(server) -> None:
    url, _words_ = server
    rng = random.Random(23)
    made_up = " ".join("".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(8)) for _ in range(3000))
    response = httpx.get(url + "/api/search", params={"q": made_up, "mode": "bm25"}, timeout=30)
    assert response.status_code == 200
    body = response.json()
    assert (
        body["data"] == []
        and "2094 of 2222 query terms were dropped" in body["notice"]
        and "20,000 characters" in body["notice"]
    )


def test_a_14000_word_url_encoded_query_is_answered_and_a_short_one_alongside_too(server) -> None:
    url, words = server
    long_query = _words(words, 14_000)
    target = "/api/search?" + urllib.parse.urlencode({"q": long_query})
    assert 16 * 1024 < len(target) < MAX_URL_BYTES  # past uvicorn's default line limit, under ours
    answers: dict[str, tuple[int, str, dict]] = {}

    def ask(name: str, path: str) -> None:
        answers[name] = _get(url, path)

    long = threading.Thread(target=ask, args=("long", target))
    long.start()
    ask("short", "/api/search?q=dataset+distillation")
    long.join()
    status, _type, body = answers["long"]
    assert status == 200 and body["data"] and "query terms were dropped" in body["notice"]
    status, _type, body = answers["short"]
    assert status == 200 and "query terms were dropped" not in (body["notice"] or "")
    assert "distillation" in body["data"][0]["snippet"].lower()


def test_a_600_kb_request_gets_the_json_error_shape(server) -> None:
    url, words = server
    target = "/api/search?" + urllib.parse.urlencode({"q": _words(words, 80_000)})[: 600 * 1024]
    status, kind, body = _get(url, target)
    assert status == 414 and kind.startswith("application/json")
    assert body["ok"] is False and body["status"] == 414 and "bytes" in body["error"]
    status, kind, body = _get(url, "/?" + urllib.parse.urlencode({"q": "x" * (600 * 1024)}))
    assert status == 414 and body["ok"] is False


def test_an_over_size_body_gets_the_json_error_shape(server) -> None:
    url, _words_ = server
    body = b"{" + b" " * (2 * 1024 * 1024) + b"}"
    response = httpx.post(
        url + "/api/marks", content=body, timeout=30, headers={"content-type": "application/json"}
    )
    assert response.status_code == 413 and response.json()["ok"] is False
    assert httpx.get(url + "/api/stats", timeout=10).json()["data"]["papers"] > 0  # still serving
