"""``paperscope serve --workers 2``: one library, two processes, jobs and papers seen by both.

A real server (a child process of the console entry point, the fake embedder) on a free
127.0.0.1 port. Every request opens a new connection, so the kernel hands requests to either
worker; each answer names its worker (``X-Paperscope-Worker``). The test uploads a list through
one worker and polls until the *other* worker reports the job done and finds the new papers.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from browser_helpers import free_port

from paperscope import Library
from paperscope.web.workers import WORKER_HEADER

pytestmark = pytest.mark.slow


def _get(base: str, path: str) -> tuple[str, dict]:
    with urllib.request.urlopen(base + path, timeout=30) as reply:  # a new connection each time
        return reply.headers[WORKER_HEADER], json.loads(reply.read())


def _from_another_worker(base: str, path: str, not_worker: str, ok, timeout_s: float = 90.0) -> dict:
    """GET ``path`` until a worker other than ``not_worker`` answers with a body ``ok`` accepts."""
    deadline = time.monotonic() + timeout_s
    seen: dict[str, object] = {}
    while time.monotonic() < deadline:
        worker, body = _get(base, path)
        seen[worker] = body
        if worker != not_worker and ok(body):
            return body
        time.sleep(0.05)
    raise AssertionError(f"no other worker answered {path} as expected within {timeout_s} s: {seen}")


@pytest.fixture
def server(tmp_path: Path, icml_dir: Path):
    lists = sorted(icml_dir.glob("*.txt"))
    lib = Library(tmp_path / "lab.db")
    lib.ingest(lists[:1])
    lib.close()
    port = free_port()
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "paperscope", "--db", str(tmp_path / "lab.db"), "serve", "--workers", "2"]
        + ["--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=os.environ.copy(),
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    workers: set[str] = set()
    while len(workers) < 2 and time.monotonic() < deadline:  # both workers up and answering
        try:
            workers.add(_get(base, "/api/stats")[0])
        except OSError:
            time.sleep(0.2)
    assert len(workers) == 2, (tmp_path / "serve.log").read_text()
    yield base, lists[1], proc
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
        log.close()


def test_ingest_through_one_worker_is_seen_and_searched_through_the_other(server):
    base, second_list, proc = server
    before = _get(base, "/api/stats")[1]["data"]["papers"]
    request = urllib.request.Request(
        base + "/api/ingest?name=" + urllib.parse.quote(second_list.name),
        data=second_list.read_bytes(),
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        assert reply.status == 202
        taker = reply.headers[WORKER_HEADER]
        job_id = json.loads(reply.read())["data"]["job_id"]

    job = _from_another_worker(base, f"/api/ingest/{job_id}", taker, lambda b: b["data"]["state"] == "done")
    new_ids = job["data"]["new_paper_ids"]
    assert job["data"]["report"]["new"] == len(new_ids) > 0 and job["data"]["error"] is None
    after = _get(base, "/api/stats")[1]["data"]["papers"]
    assert after == before + len(new_ids)

    # A new paper, found by its own words through the worker that did not ingest it.
    paper = _get(base, f"/api/papers/{new_ids[0]}")[1]["data"]
    words = " ".join(paper["abstract"].split()[:12])
    query = "/api/search?" + urllib.parse.urlencode({"q": words, "mode": "bm25", "limit": 5})
    hits = _from_another_worker(base, query, taker, lambda b: bool(b["data"]))
    assert new_ids[0] in [hit["paper_id"] for hit in hits["data"]]

    # An unknown job is a 404 from every worker, not a worker's private blind spot.
    for _ in range(4):
        with pytest.raises(urllib.error.HTTPError) as missing:
            _get(base, "/api/ingest/0123456789abcdef")
        assert missing.value.code == 404
        missing.value.close()
    assert proc.poll() is None


def test_workers_refuse_an_in_memory_library(tmp_path: Path):
    run = subprocess.run(
        [sys.executable, "-m", "paperscope", "--db", ":memory:", "serve", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0 and "in-memory library cannot be shared" in run.stderr
    assert "Traceback" not in run.stderr


def _workers_of(base: str, connections: int) -> list[str]:
    """Open ``connections`` connections at once, then ask on each: the answering workers, in order."""
    import http.client

    parts = urllib.parse.urlsplit(base)
    opened = [http.client.HTTPConnection(parts.hostname, parts.port, timeout=30) for _ in range(connections)]
    try:
        for conn in opened:
            conn.connect()  # all connected before any request, as a browser's or a load test's
        workers = []
        for conn in opened:
            conn.request("GET", "/api/stats")
            reply = conn.getresponse()
            reply.read()
            workers.append(reply.headers[WORKER_HEADER])
        return workers
    finally:
        for conn in opened:
            conn.close()


def test_connections_opened_together_are_spread_over_both_workers(server):
    base, _, _ = server
    workers = _workers_of(base, 20)
    counts = {worker: workers.count(worker) for worker in set(workers)}
    # Each worker listens on its own SO_REUSEPORT socket: the kernel hashes the 20 connections
    # over both (one socket shared by both sent all 20 to the worker that woke first).
    assert len(counts) == 2 and min(counts.values()) >= 2, counts


def test_a_worker_that_dies_is_replaced(server):
    base, _, proc = server
    first = set(_workers_of(base, 20))
    assert len(first) == 2
    victim = int(sorted(first)[0])
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 90
    now: set[str] = set()
    while time.monotonic() < deadline:
        try:
            now = set(_workers_of(base, 20))
        except OSError:
            now = set()
        if len(now) == 2 and str(victim) not in now:
            break
        time.sleep(0.3)
    assert len(now) == 2 and str(victim) not in now, now
    assert proc.poll() is None


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_port_in_use_is_a_clear_error(tmp_path: Path, icml_dir: Path, workers: str):
    import socket

    lib = Library(tmp_path / "lab.db")
    lib.ingest(sorted(icml_dir.glob("*.txt"))[:1])
    lib.close()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        run = subprocess.run(
            [sys.executable, "-m", "paperscope", "--db", str(tmp_path / "lab.db"), "serve"]
            + ["--workers", workers, "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert run.returncode == 1, run.stderr  # one worker was uvicorn's status 3, after the start line
    assert f"cannot listen on 127.0.0.1:{port}" in run.stderr and "Traceback" not in run.stderr
    assert "paperscope serving" not in run.stderr


def test_ctrl_c_in_a_terminal_stops_every_process_without_a_traceback(tmp_path: Path, icml_dir: Path):
    """Ctrl-C signals the whole foreground process group: the supervisor and each worker."""
    lib = Library(tmp_path / "lab.db")
    lib.ingest(sorted(icml_dir.glob("*.txt"))[:1])
    lib.close()
    port = free_port()
    log_path = tmp_path / "serve.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "paperscope", "--db", str(tmp_path / "lab.db"), "serve"]
            + ["--workers", "2", "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, as a terminal's foreground job
        )
        try:
            base = f"http://127.0.0.1:{port}"
            workers = set()
            deadline = time.monotonic() + 60
            while len(workers) < 2 and time.monotonic() < deadline:
                try:
                    workers.add(_get(base, "/api/stats")[0])
                except OSError:
                    time.sleep(0.2)
            assert len(workers) == 2, log_path.read_text()
            os.killpg(proc.pid, signal.SIGINT)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    text = log_path.read_text()
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    assert not _listening(port)


def _same_connection_after(base: str, idle_s: float) -> tuple[str, str]:
    """Ask twice on one connection, ``idle_s`` apart; return the two answering workers."""
    import http.client

    parts = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request("GET", "/api/stats")
        first = conn.getresponse()
        first.read()
        time.sleep(idle_s)
        conn.request("GET", "/api/stats")  # on the same socket: http.client does not reconnect here
        second = conn.getresponse()
        second.read()
        return first.headers[WORKER_HEADER], second.headers[WORKER_HEADER]
    finally:
        conn.close()


def test_an_idle_keep_alive_connection_outlives_a_clients_own_idle_limit(server):
    # httpx drops idle connections after 5 s; a server that also closed them at 5 s raced it.
    base, _, _ = server
    first, second = _same_connection_after(base, 6.0)
    assert first == second


def test_workers_that_cannot_build_their_app_stop_the_server_with_status_1(tmp_path: Path):
    from paperscope.web.workers import ENV_SETTINGS

    not_a_library = tmp_path / "notes.db"
    not_a_library.write_text("these are my notes, not a paperscope library\n" * 50, encoding="utf-8")
    env = {
        **os.environ,
        ENV_SETTINGS: json.dumps({"db": str(not_a_library), "token": None, "allowed_hosts": None}),
    }
    run = subprocess.run(
        [sys.executable, "-m", "paperscope.serve_workers", "--workers", "2", "--host", "127.0.0.1"]
        + ["--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert run.returncode == 1
    assert "failed to start" in run.stderr and "stopping the server" in run.stderr


def _listening(port: int) -> bool:
    import socket

    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def test_workers_stop_when_their_supervisor_is_killed(server):
    base, _, proc = server
    workers = {int(w) for w in _workers_of(base, 20)}
    assert len(workers) == 2
    proc.kill()  # SIGKILL: the supervisor cannot stop them itself
    proc.wait(timeout=10)
    deadline = time.monotonic() + 30
    alive = set(workers)
    while alive and time.monotonic() < deadline:
        alive = {pid for pid in workers if Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid)}
        time.sleep(0.2)
    assert not alive, f"workers {alive} outlived their supervisor"
    port = urllib.parse.urlsplit(base).port
    assert not _listening(port)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().split("State:")[1].split("\n")[0].lower()
    except (OSError, IndexError):
        return "zombie"


def test_two_servers_started_together_never_share_a_port(tmp_path: Path, icml_dir: Path):
    lib = Library(tmp_path / "lab.db")
    lib.ingest(sorted(icml_dir.glob("*.txt"))[:1])
    lib.close()
    port = free_port()
    command = [sys.executable, "-m", "paperscope", "--db", str(tmp_path / "lab.db"), "serve"]
    command += ["--workers", "2", "--port", str(port)]
    procs = [subprocess.Popen(command, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        deadline = time.monotonic() + 60
        while all(p.poll() is None for p in procs) and time.monotonic() < deadline:
            time.sleep(0.2)
        refused = [p for p in procs if p.poll() is not None]
        assert len(refused) == 1 and refused[0].returncode == 1
        assert "cannot listen on" in refused[0].stderr.read()
        time.sleep(2)
        assert sum(p.poll() is None for p in procs) == 1  # the other one serves on
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
                p.wait(timeout=20)
            p.stderr.close()


@pytest.mark.parametrize(
    ("name", "value"), [("PAPERSCOPE_WEB_SEARCHES", "abc"), ("PAPERSCOPE_WEB_POOL", "0")]
)
def test_a_bad_server_setting_is_one_line_not_a_traceback(tmp_path: Path, icml_dir: Path, name, value):
    lib = Library(tmp_path / "lab.db")
    lib.ingest(sorted(icml_dir.glob("*.txt"))[:1])
    lib.close()
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "paperscope",
            "--db",
            str(tmp_path / "lab.db"),
            "serve",
            "--port",
            str(free_port()),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, name: value},
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert f"{name} must be a whole number of 1 or more, got '{value}'" in run.stderr
