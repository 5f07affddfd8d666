"""``GET /api/ready``: a worker says 503 until its start-up warm-up is done, then 200.

``serve`` warms each worker on a thread (search indexes, the map's payload gzipped, the page
templates); a load balancer or a benchmark asks here before it sends traffic.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.web import create_app
from paperscope.web.pages import common

LIST = "ICML 2026 Papers\n\nWe study sparse attention for long documents and show gains.\n"


def _library(tmp_path: Path) -> Library:
    path = tmp_path / "list.txt"
    path.write_text(LIST, encoding="utf-8")
    lib = Library(tmp_path / "ready.db")
    lib.ingest([path])
    return lib


def test_a_worker_is_not_ready_until_its_warm_up_is_done(tmp_path: Path, monkeypatch):
    lib = _library(tmp_path)
    release, compiled = threading.Event(), []
    real = common.warm_templates

    def slow_templates() -> int:
        release.wait(30)
        compiled.append(real())
        return compiled[-1]

    monkeypatch.setattr("paperscope.web.app.warm_templates", slow_templates)
    app = create_app(lib, warm_map=True)
    with TestClient(app) as client:
        waiting = client.get("/api/ready")
        assert waiting.status_code == 503
        assert waiting.json() == {
            "ok": False,
            "error": "this worker is still warming up (search indexes, map, pages); try again in a moment",
            "status": 503,
        }
        assert client.get("/api/stats").status_code == 200  # it answers meanwhile
        release.set()
        deadline = time.monotonic() + 30
        while (reply := client.get("/api/ready")).status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert reply.status_code == 200
        data = reply.json()["data"]
        assert data["ready"] is True and data["warm_s"] > 0
        assert compiled and compiled[0] >= 5  # every page template was compiled
        assert getattr(app.state, "map_cache", None) is None  # no topics yet: no map to build
    lib.close()


def test_an_app_built_without_a_warm_up_is_ready_at_once(tmp_path: Path):
    lib = _library(tmp_path)
    with TestClient(create_app(lib)) as client:
        reply = client.get("/api/ready")
        assert reply.status_code == 200
        assert reply.json()["data"] == {"ready": True, "warm_s": None}
        assert client.get("/api/ready?x=1").status_code == 400  # unknown parameters are refused
    lib.close()
