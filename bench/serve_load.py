"""Loopback load test of ``paperscope serve``: paced and saturating clients, latency per endpoint.

Usage:
    python bench/serve_load.py [--db FILE] [--duration 60] [--clients 50] [--requests 3000]
    python bench/serve_load.py --quick            # smoke run: 5 clients, 5 s, 200 requests

It starts ``paperscope --db FILE serve`` on a free 127.0.0.1 port (a child process, so the
server's RSS and CPU time are its own), waits until every worker answers ``GET /api/ready``
(each warms its indexes, map and templates on start; the seconds are printed), warms each
endpoint up untimed (the first hybrid search loads the embedding model), then runs, with one
asyncio + httpx client process that reads bodies as sent, without decompressing them:

(a) paced: ``--clients`` clients, each sending one request every ``1/--rate`` s (50 requests/s
    offered by default) for ``--duration`` s. Each client starts at a random phase so the
    requests do not arrive in bursts. Latency is measured from the request's *scheduled* send
    time (as wrk2 does), so a client held up behind its own slow previous request counts the
    wait too; the largest lag of a send behind its schedule is printed as well. When the server
    falls so far behind that a request is still unsent 10 s after the run's end, it is dropped
    (counted and printed) and the run ends, so an overloaded server cannot stretch the run;
(b) saturation: the same clients with no pause, until ``--requests`` requests are done or
    ``--time-cap`` s have passed, whichever is first. Requests/s here is the throughput at
    saturation of this machine (the client process shares it with the server).

Both runs stop by themselves. The request mix (``--mix``, weights) draws from:

- ``search``: ``GET /api/search?q=...&mode=hybrid``; ``search_page``: ``GET /?q=...`` (HTML);
  queries are real and varied: ICLR 2026 titles and keyword lists, the gold dev queries
  (English and Chinese) and Chinese problem statements of the ICLR ``explain_zh`` summaries
  (about one query in ten is Chinese);
- ``paper_page``: ``GET /paper/ID`` (HTML); ``paper_api``: ``GET /api/papers/ID``, over 500
  papers of the library drawn with a fixed seed;
- ``map``: ``GET /api/map`` (the map payload) as a browser asks for it: each client sends the
  ``ETag`` of its last full answer as ``If-None-Match`` and a 304 counts as success, so each
  client downloads the payload once per run (its first full downloads are printed as
  ``map_full``); ``map_full`` in the mix asks without ``If-None-Match``.

An endpoint that the server does not have yet (404 or 405 at the probe) is left out of the mix
with a line saying so. A request is an error when it raises (including the 30 s timeout) or
its status is not 200 (304 for a conditional map request). For each run and endpoint it prints requests, requests/s, p50/p99/max
latency (ms) and errors, then the server's RSS (VmRSS sampled every 0.25 s: start, end and
largest; VmHWM at the end), the server's CPU time per wall second, the client's, and the load
average. ``--out FILE`` writes the same report to FILE.

Library (``--db``): the given file, used as it is; without ``--db``, the library of every paper
list in ../shared/data (icml2026, iclr2026-primary-area, airas-papers-db,
papercopilot-paperlists: 21,490 papers) under /tmp/paperscope-bench/serve-load/, built with
``paperscope ingest`` (cards and embeddings, about 10 min on 2 cores) and ``paperscope topics``
the first time, reused after.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import sqlite3
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import numpy as np

from _data import CACHE_DIR
from paperscope import __version__
from paperscope.evaluation.qrels import chinese_problem_statement, read_iclr_papers
from paperscope.evaluation.retrieval import default_data_dir

#: Console script of the interpreter running the bench (.venv/bin/paperscope under the venv).
PAPERSCOPE = Path(sys.executable).parent / "paperscope"
DATA_DIR = default_data_dir()
#: The bm25s peer script (a user's alternative: bm25s behind Python's built-in HTTP server).
PEER = Path(__file__).with_name("_bm25s_peer.py")
#: The paper-list folders of ../shared/data (scifact-beir and gold are eval sets, not lists).
LIST_FOLDERS = ("icml2026", "iclr2026-primary-area", "airas-papers-db", "papercopilot-paperlists")
DEFAULT_DB = CACHE_DIR / "serve-load" / "all.db"
DEFAULT_MIX = "search=45,search_page=15,paper_page=15,paper_api=15,map=10"
REQUEST_TIMEOUT_S = 30.0
#: Seconds after the end of the paced run that a late request may still be sent.
PACED_GRACE_S = 10.0
#: Short Chinese topic queries beside the gold ones and the explain_zh statements.
CHINESE_TOPICS = (
    "扩散模型 图像生成",
    "强化学习 奖励模型",
    "大语言模型 推理 加速",
    "知识蒸馏",
    "图神经网络",
    "联邦学习 隐私",
    "多模态大模型 幻觉",
    "对抗样本 鲁棒性",
)


@dataclass
class Sample:
    latency_s: float
    ok: bool
    at_s: float = 0.0  # scheduled send time, seconds from the run's start


@dataclass
class RunResult:
    name: str
    wall_s: float = 0.0
    samples: dict[str, list[Sample]] = field(default_factory=lambda: defaultdict(list))
    error_kinds: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    max_lag_s: float = 0.0
    dropped: int = 0
    queries_sent: int = 0
    queries_distinct: int = 0
    rss_bytes: list[int] = field(default_factory=list)
    pss_bytes: list[int] = field(default_factory=list)
    hwm_bytes: int = 0
    server_cpu_s: float = 0.0
    client_cpu_s: float = 0.0
    load_before: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)
    stopped_by: str = ""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def proc_status_bytes(pid: int, key: str) -> int:
    """Return a ``/proc/PID/status`` size field (``VmRSS``, ``VmHWM``) in bytes; 0 once gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _one_cpu_s(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_pids(pid: int) -> list[int]:
    """``pid`` and its descendants (a server's worker processes), from /proc's parent ids."""
    children: dict[int, list[int]] = defaultdict(list)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children[int(fields[1])].append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        todo.extend(children.get(current, []))
    return out


def proc_cpu_s(pid: int) -> float:
    """Return the user + system CPU time (s) of process ``pid``, its threads and its descendants."""
    return sum(_one_cpu_s(p) for p in tree_pids(pid))


def tree_memory_bytes(pid: int) -> tuple[int, int]:
    """(RSS, PSS) summed over ``pid`` and its descendants, bytes.

    RSS counts a page shared by two workers (the memory-mapped indexes, the shared libraries)
    in both; PSS (``/proc/PID/smaps_rollup``) splits it between them, so the PSS sum is what the
    processes hold together.
    """
    rss = pss = 0
    for p in tree_pids(pid):
        rss += proc_status_bytes(p, "VmRSS")
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    pss += int(line.split()[1]) * 1024
                    break
        except OSError:
            pass
    return rss, pss


def build_default_library(db: Path) -> None:
    """Ingest every paper list of ../shared/data into ``db`` and fit its topics (first run only)."""
    db.parent.mkdir(parents=True, exist_ok=True)
    folders = [str(DATA_DIR / name) for name in LIST_FOLDERS]
    print(f"building {db} from {', '.join(LIST_FOLDERS)} (about 10 min on 2 cores) ...", file=sys.stderr)
    partial = db.with_suffix(".partial.db")
    for leftover in db.parent.glob(partial.name + "*"):
        leftover.unlink()
    subprocess.run([str(PAPERSCOPE), "--db", str(partial), "ingest", *folders], check=True)
    subprocess.run([str(PAPERSCOPE), "--db", str(partial), "topics"], check=True)
    for suffix in ("-wal", "-shm"):  # none after a clean close; kept beside the database if there
        side = partial.with_name(partial.name + suffix)
        if side.exists():
            side.rename(db.with_name(db.name + suffix))
    partial.rename(db)


def sample_paper_ids(db: Path, n: int, seed: int) -> list[str]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        ids = [row[0] for row in conn.execute("SELECT paper_id FROM papers ORDER BY paper_id")]
    if not ids:
        sys.exit(f"{db} holds no papers")
    return random.Random(seed).sample(ids, min(n, len(ids)))


def load_queries(seed: int) -> tuple[list[str], list[str]]:
    """Return (English queries, Chinese queries), real and varied, in a seeded order."""
    iclr = read_iclr_papers(DATA_DIR / "iclr2026-primary-area")
    english = [p.title for p in iclr[::9]] + [p.keywords.replace(",", " ") for p in iclr[4::13] if p.keywords]
    chinese = list(CHINESE_TOPICS)
    chinese += [s for s in (chinese_problem_statement(p.explain_zh) for p in iclr[2::40]) if s]
    gold = DATA_DIR / "gold" / "icml2026_queries_dev.jsonl"
    if gold.is_file():
        import json

        for line in gold.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            (chinese if row.get("lang") == "zh" else english).append(row["query"])
    rng = random.Random(seed)
    rng.shuffle(english)
    rng.shuffle(chinese)
    return [q for q in english if q.strip()], [q[:200] for q in chinese if q.strip()]


class Workload:
    """Draws requests (endpoint name, path, params) from the mix with a per-client RNG."""

    def __init__(self, mix: dict[str, float], english: list[str], chinese: list[str], paper_ids: list[str]):
        self.names = list(mix)
        self.weights = [mix[name] for name in self.names]
        self.english, self.chinese, self.paper_ids = english, chinese, paper_ids
        #: Queries drawn since the last reset (a server that caches query vectors gains on repeats).
        self.queries: list[str] = []

    def query(self, rng: random.Random) -> str:
        query = rng.choice(self.chinese if rng.random() < 0.1 else self.english)
        self.queries.append(query)
        return query

    def request(self, name: str, rng: random.Random) -> tuple[str, dict[str, str]]:
        if name == "search":
            return "/api/search", {"q": self.query(rng), "mode": "hybrid", "limit": "10"}
        if name == "peer_search":
            return "/search", {"q": self.query(rng), "k": "10"}
        if name == "search_page":
            return "/", {"q": self.query(rng), "mode": "hybrid"}
        if name == "paper_page":
            return f"/paper/{rng.choice(self.paper_ids)}", {}
        if name == "paper_api":
            return f"/api/papers/{rng.choice(self.paper_ids)}", {}
        if name in ("map", "map_full"):
            return "/api/map", {}
        raise ValueError(f"unknown endpoint {name!r}")

    def draw(self, rng: random.Random) -> tuple[str, str, dict[str, str]]:
        name = rng.choices(self.names, self.weights)[0]
        return (name, *self.request(name, rng))


async def _send(
    client: httpx.AsyncClient, path: str, params: dict[str, str], etag: str | None = None
) -> tuple[bool, str, httpx.Response | None]:
    """Send one GET and read its whole body as sent (not decompressed); return (ok, why, response).

    The body is read raw, as a browser's network thread receives it: decompressing the map's
    3.7 MB of gzip into 15 MB in this one event loop stalled all 50 clients' timers (the
    client saw a p50 of 49 ms for ``/api/papers/ID`` where curl beside it saw 2-13 ms).
    """
    headers = {"If-None-Match": etag} if etag else None
    try:
        async with client.stream("GET", path, params=params, headers=headers) as response:
            size = 0
            async for chunk in response.aiter_raw():
                size += len(chunk)
    except httpx.HTTPError as exc:
        return False, type(exc).__name__, None
    if etag and response.status_code == 304:
        return True, "", response
    if response.status_code != 200 or not size:
        return False, f"HTTP {response.status_code}", response
    return True, "", response


async def run_load(
    name: str,
    base_url: str,
    server_pid: int,
    workload: Workload,
    clients: int,
    seed: int,
    period_s: float | None,
    duration_s: float,
    max_requests: int | None,
) -> RunResult:
    """Run ``clients`` clients: paced (one request per ``period_s``) or, with None, back to back."""
    result = RunResult(name)
    result.load_before = os.getloadavg()
    workload.queries.clear()
    remaining = [max_requests if max_requests is not None else 1 << 62]
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    timeout = httpx.Timeout(REQUEST_TIMEOUT_S)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=timeout) as client:
        cpu0, client_cpu0 = proc_cpu_s(server_pid), time.process_time()
        start = time.perf_counter()
        end = start + duration_s
        stop = asyncio.Event()

        async def sample_rss() -> None:
            while not stop.is_set():
                rss, pss = tree_memory_bytes(server_pid)
                result.rss_bytes.append(rss)
                result.pss_bytes.append(pss)
                try:
                    await asyncio.wait_for(stop.wait(), 0.25)
                except TimeoutError:
                    pass

        async def one_client(index: int) -> None:
            rng = random.Random(seed * 1000 + index)
            next_at = start + (rng.random() * period_s if period_s else 0.0)
            map_etag: str | None = None
            while True:
                now = time.perf_counter()
                if period_s:
                    if next_at >= end:
                        return
                    if now > end + PACED_GRACE_S:
                        result.dropped += int((end - next_at) / period_s) + 1
                        return
                    if next_at > now:
                        await asyncio.sleep(next_at - now)
                    scheduled = next_at
                    next_at += period_s
                else:
                    if now >= end or remaining[0] <= 0:
                        return
                    remaining[0] -= 1
                    scheduled = now
                endpoint, path, params = workload.draw(rng)
                sent = time.perf_counter()
                result.max_lag_s = max(result.max_lag_s, sent - scheduled)
                etag = map_etag if endpoint == "map" else None
                ok, why, response = await _send(client, path, params, etag)
                if endpoint == "map" and ok and response is not None and response.status_code == 200:
                    map_etag = response.headers.get("etag")
                    endpoint = "map_full"
                result.samples[endpoint].append(
                    Sample(time.perf_counter() - scheduled, ok, scheduled - start)
                )
                if not ok:
                    result.error_kinds[f"{endpoint}: {why}"] += 1

        sampler = asyncio.create_task(sample_rss())
        await asyncio.gather(*(one_client(i) for i in range(clients)))
        result.wall_s = time.perf_counter() - start
        stop.set()
        await sampler
        result.server_cpu_s = proc_cpu_s(server_pid) - cpu0
        result.client_cpu_s = time.process_time() - client_cpu0
    result.hwm_bytes = sum(proc_status_bytes(p, "VmHWM") for p in tree_pids(server_pid))
    result.queries_sent, result.queries_distinct = len(workload.queries), len(set(workload.queries))
    result.load_after = os.getloadavg()
    if max_requests is not None:
        result.stopped_by = "request count" if remaining[0] <= 0 else f"time cap ({duration_s:.0f} s)"
    return result


def _mb(size_bytes: int) -> str:
    return f"{size_bytes / 1e6:.0f} MB"


def format_result(result: RunResult) -> list[str]:
    lines = [f"== {result.name} =="]
    total = sum(len(s) for s in result.samples.values())
    errors = sum(1 for s in result.samples.values() for x in s if not x.ok)
    header = f"{'endpoint':<12} {'requests':>8} {'req/s':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>6}"
    lines.append(header)
    rows = sorted(result.samples.items()) + [("ALL", [x for s in result.samples.values() for x in s])]
    for endpoint, samples in rows:
        if not samples:
            continue
        ms = np.array([x.latency_s for x in samples]) * 1000
        errs = sum(1 for x in samples if not x.ok)
        lines.append(
            f"{endpoint:<12} {len(samples):>8} {len(samples) / result.wall_s:>7.1f} "
            f"{np.percentile(ms, 50):>8.1f} {np.percentile(ms, 99):>8.1f} {ms.max():>8.1f} {errs:>6}"
        )
    rss = [r for r in result.rss_bytes if r]
    lines.append(
        f"wall {result.wall_s:.1f} s, {total} requests, {errors} errors"
        + (
            f", {result.dropped} DROPPED (unsent {PACED_GRACE_S:.0f} s after the end)"
            if result.dropped
            else ""
        )
        + (f", stopped by the {result.stopped_by}" if result.stopped_by else "")
        + f"; largest client lag behind schedule {result.max_lag_s * 1000:.1f} ms"
    )
    if rss:
        pss = [p for p in result.pss_bytes if p] or [0]
        lines.append(
            f"server RSS (all its processes): start {_mb(rss[0])}, end {_mb(rss[-1])}, largest sampled"
            f" {_mb(max(rss))}; VmHWM {_mb(result.hwm_bytes)}; PSS end {_mb(pss[-1])}, largest {_mb(max(pss))}"
        )
    lines.append(
        f"CPU per wall second: server {result.server_cpu_s / result.wall_s:.2f} cores, "
        f"client {result.client_cpu_s / result.wall_s:.2f}; load average "
        f"{result.load_before[0]:.2f} -> {result.load_after[0]:.2f}"
    )
    every = [x for s in result.samples.values() for x in s]
    if every and result.wall_s >= 20:
        step = 10.0
        parts = []
        for k in range(int(max(x.at_s for x in every) // step) + 1):
            window = [x.latency_s * 1000 for x in every if k * step <= x.at_s < (k + 1) * step]
            if window:
                parts.append(
                    f"{k * step:.0f}-{(k + 1) * step:.0f} s {np.percentile(window, 50):.0f}/{np.percentile(window, 99):.0f}"
                )
        lines.append("all endpoints p50/p99 ms by 10 s of schedule: " + ", ".join(parts))
    if result.queries_sent:
        lines.append(f"queries drawn: {result.queries_sent}, {result.queries_distinct} distinct")
    for kind, count in sorted(result.error_kinds.items()):
        lines.append(f"  error {kind}: {count}")
    return lines


def start_server(db: Path, port: int, log_path: Path, workers: int = 1) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in ("PAPERSCOPE_EMBEDDER", "PAPERSCOPE_DB")}
    log = log_path.open("w")
    return subprocess.Popen(
        [str(PAPERSCOPE), "--db", str(db), "serve", "--port", str(port), "--workers", str(workers)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )


def wait_ready(base_url: str, proc: subprocess.Popen, timeout_s: float, log_path: Path) -> float:
    started = time.perf_counter()
    while time.perf_counter() - started < timeout_s:
        if proc.poll() is not None:
            sys.exit(f"the server exited with {proc.returncode}:\n{log_path.read_text()[-2000:]}")
        try:
            if httpx.get(base_url + "/api/stats", timeout=5).status_code == 200:
                return time.perf_counter() - started
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    sys.exit(f"the server did not answer /api/stats within {timeout_s:.0f} s")


def wait_warm(base_url: str, workers: int, timeout_s: float) -> tuple[float, list[float]] | None:
    """Wait until every worker answers ``GET /api/ready`` with 200; return (seconds, warm-ups).

    Each request opens a new connection, so the kernel hands it to any worker; a worker is
    counted by its ``X-Paperscope-Worker`` header. Returns None when the server has no
    ``/api/ready`` (404: an older paperscope). Exits when not every worker is warm in time.
    """
    started = time.perf_counter()
    warm: dict[str, float] = {}
    while time.perf_counter() - started < timeout_s:
        response = httpx.get(base_url + "/api/ready", timeout=10)
        if response.status_code == 404:
            return None
        if response.status_code == 200:
            worker = response.headers.get("x-paperscope-worker", "")
            warm[worker] = float(response.json()["data"]["warm_s"] or 0.0)
            if len(warm) >= workers:
                return time.perf_counter() - started, sorted(warm.values())
        else:
            time.sleep(0.2)
    sys.exit(f"only {len(warm)} of {workers} workers were warm after {timeout_s:.0f} s")


def probe(base_url: str, workload: Workload) -> tuple[list[str], list[str]]:
    """Warm every endpoint of the mix up (untimed); return (lines, endpoints the server lacks)."""
    rng = random.Random(0)
    lines, missing = [], []
    with httpx.Client(base_url=base_url, timeout=120) as client:
        for name in workload.names:
            statuses, times = [], []
            for _ in range(3):
                path, params = workload.request(name, rng)
                t0 = time.perf_counter()
                response = client.get(path, params=params)
                times.append(time.perf_counter() - t0)
                statuses.append(response.status_code)
            size = len(response.content)
            if statuses[0] in (404, 405) and all(s == statuses[0] for s in statuses):
                missing.append(name)
                lines.append(f"probe {name}: HTTP {statuses[0]}: not served yet, LEFT OUT of the mix")
            else:
                lines.append(
                    f"probe {name}: HTTP {statuses}, first {times[0] * 1000:.0f} ms, "
                    f"then {min(times[1:]) * 1000:.0f} ms, {size / 1e3:.1f} kB"
                )
    return lines, missing


def parse_mix(text: str) -> dict[str, float]:
    mix: dict[str, float] = {}
    for part in text.split(","):
        name, _, weight = part.partition("=")
        mix[name.strip()] = float(weight or 1)
    return {name: w for name, w in mix.items() if w > 0}


def git_commit() -> str:
    try:
        repo = Path(__file__).resolve().parents[1]
        out = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(repo), "status", "--porcelain", "src"], capture_output=True, text=True
        ).stdout.strip()
        return out + (" (src/ modified)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--db", type=Path, help="library to serve (default: the ~21.5k papers of ../shared/data)"
    )
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--rate", type=float, default=1.0, help="requests per second per client in run (a)")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of run (a)")
    parser.add_argument("--requests", type=int, default=3000, help="requests of run (b)")
    parser.add_argument("--time-cap", type=float, default=120.0, help="seconds run (b) may take at most")
    parser.add_argument("--mix", default=DEFAULT_MIX, help=f"endpoint weights (default {DEFAULT_MIX})")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="smoke run: 5 clients, 5 s, 200 requests")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    parser.add_argument(
        "--workers", default="1,2", help="comma list of `serve --workers N` to run in turn (default 1,2)"
    )
    parser.add_argument("--no-peer", action="store_true", help="leave out the bm25s peer's runs")
    args = parser.parse_args()
    if args.quick:
        args.clients, args.duration, args.requests, args.time_cap = 5, 5.0, 200, 30.0

    db = args.db
    if db is None:
        db = DEFAULT_DB
        if not db.exists():
            build_default_library(db)
    elif not db.exists():
        sys.exit(f"{db} not found")
    db = db.resolve()

    report: list[str] = []

    def say(line: str = "") -> None:
        print(line, flush=True)
        report.append(line)

    english, chinese = load_queries(args.seed)
    paper_ids = sample_paper_ids(db, 500, args.seed)
    say(
        f"paperscope {__version__} (git {git_commit()}), library {db} "
        f"({len(paper_ids)} papers sampled, {len(english)} English and {len(chinese)} Chinese queries);"
        f" {os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at start"
    )
    summary: list[dict] = []
    try:
        for workers in [int(w) for w in args.workers.split(",") if w.strip()]:
            summary.append(run_paperscope(args, db, workers, english, chinese, paper_ids, say))
        if not args.no_peer:
            summary.append(run_peer(args, db, english, chinese, paper_ids, say))
    finally:
        say()
        say(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at end")
    print_summary(summary, say)
    if args.out:
        args.out.write_text("\n".join(report) + "\n", encoding="utf-8")


#: Issue 29's targets on 2 cores: the paced mix at 50 req/s, saturation of the mix and of search alone.
TARGETS = {"mix_p99_ms": 150.0, "mix_sat": 150.0, "search_sat": 250.0}


def _runs(args, base_url, pid, workload, search_only, say) -> dict:  # type: ignore[no-untyped-def]
    """Paced mix (a), saturated mix (b), saturated search alone (c); print each; return figures."""
    out: dict = {}
    paced = asyncio.run(
        run_load(
            f"(a) paced: {args.clients} clients x {args.rate:g} req/s "
            f"({args.clients * args.rate:g} req/s offered) for {args.duration:g} s",
            base_url,
            pid,
            workload,
            args.clients,
            args.seed,
            1 / args.rate,
            args.duration,
            None,
        )
    )
    for line in format_result(paced):
        say(line)
    saturated = asyncio.run(
        run_load(
            f"(b) saturation: {args.clients} clients, no pause, {args.requests} requests, cap {args.time_cap:g} s",
            base_url,
            pid,
            workload,
            args.clients,
            args.seed + 1,
            None,
            args.time_cap,
            args.requests,
        )
    )
    for line in format_result(saturated):
        say(line)
    alone = asyncio.run(
        run_load(
            f"(c) search alone, saturation: {args.clients} clients, {args.requests} requests",
            base_url,
            pid,
            search_only,
            args.clients,
            args.seed + 2,
            None,
            args.time_cap,
            args.requests,
        )
    )
    for line in format_result(alone):
        say(line)
    every = [x for r in (paced,) for s in r.samples.values() for x in s]
    out["mix_p99_ms"] = float(np.percentile([x.latency_s for x in every], 99) * 1000) if every else None
    out["errors"] = sum(
        1 for r in (paced, saturated, alone) for s in r.samples.values() for x in s if not x.ok
    )
    out["errors"] += paced.dropped
    out["mix_sat"] = sum(len(s) for s in saturated.samples.values()) / saturated.wall_s
    out["search_sat"] = sum(len(s) for s in alone.samples.values()) / alone.wall_s
    pss = [p for r in (paced, saturated, alone) for p in r.pss_bytes if p]
    rss = [p for r in (paced, saturated, alone) for p in r.rss_bytes if p]
    out["pss_max"], out["rss_max"] = (max(pss) if pss else 0), (max(rss) if rss else 0)
    return out


def run_paperscope(args, db, workers, english, chinese, paper_ids, say) -> dict:  # type: ignore[no-untyped-def]
    """Start ``paperscope serve --workers N`` and run (a), (b), (c) against it."""
    workload = Workload(parse_mix(args.mix), english, chinese, paper_ids)
    search_only = Workload({"search": 1.0}, english, chinese, paper_ids)
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    log_path = Path(CACHE_DIR) / "serve-load" / f"server-{port}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    proc = start_server(db, port, log_path, workers)
    try:
        ready_s = wait_ready(base_url, proc, 180, log_path)
        say()
        say(
            f"#### paperscope serve --workers {workers}: pid {proc.pid} on {base_url}, ready in {ready_s:.1f} s"
        )
        warm = wait_warm(base_url, workers, 180)
        if warm is None:
            say("the server has no /api/ready: the runs start after a 3 s pause")
            time.sleep(3)
        else:
            say(
                f"every worker warm {warm[0]:.1f} s after that (its own warm-up: "
                + ", ".join(f"{s:.1f} s" for s in warm[1])
                + ")"
            )
        probe_lines, missing = probe(base_url, workload)
        for line in probe_lines:
            say(line)
        for name in missing:
            workload.weights.pop(workload.names.index(name))
            workload.names.remove(name)
        if not workload.names:
            sys.exit("no endpoint of the mix is served")
        say(f"mix: {', '.join(f'{n}={w:g}' for n, w in zip(workload.names, workload.weights, strict=True))}")
        figures = _runs(args, base_url, proc.pid, workload, search_only, say)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
    return {
        "server": f"paperscope, {workers} worker{'s' if workers > 1 else ''}",
        "workers": workers,
        **figures,
    }


def run_peer(args, db, english, chinese, paper_ids, say) -> dict:  # type: ignore[no-untyped-def]
    """Serve the bm25s peer (bench/_bm25s_peer.py serve) and run search alone against it, paced and saturated."""
    folder = db.with_name(db.stem + ".bm25s")
    stamp = folder / "built_from"
    key = f"{db.stat().st_size} {db.stat().st_mtime_ns}"
    if not (stamp.is_file() and stamp.read_text() == key):
        subprocess.run([sys.executable, str(PEER), "build", str(db), str(folder)], check=True)
        stamp.write_text(key)
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, str(PEER), "serve", str(folder), str(port)])
    workload = Workload({"peer_search": 1.0}, english, chinese, paper_ids)
    try:
        deadline = time.perf_counter() + 60
        while True:
            try:
                if httpx.get(base_url + "/search", params={"q": "graph"}, timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.perf_counter() > deadline or proc.poll() is not None:
                sys.exit("the bm25s peer did not start")
            time.sleep(0.2)
        say()
        say(f"#### bm25s peer behind http.server (ThreadingHTTPServer): pid {proc.pid} on {base_url}")
        figures = _runs(args, base_url, proc.pid, workload, workload, say)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    figures["mix_sat"] = None  # the peer serves search only: its (b) is search too
    return {"server": "bm25s + http.server (search only)", "workers": 1, **figures}


def print_summary(summary: list[dict], say) -> None:  # type: ignore[no-untyped-def]
    """One row per server: (a) p99, errors, (b) and (c) req/s, memory; then the targets."""
    say()
    say("summary (issue 29 targets: (a) p99 <= 150 ms and 0 errors at 50 req/s offered; (b) >= 150 req/s;")
    say("         (c) >= 250 req/s; N workers' PSS < N x one worker's)")
    say(
        f"{'server':36} {'(a) p99 ms':>10} {'errors':>6} {'(b) req/s':>9} {'(c) req/s':>9} {'PSS MB':>7} {'RSS MB':>7}"
    )
    for row in summary:
        b = "-" if row["mix_sat"] is None else f"{row['mix_sat']:.0f}"
        p99 = "-" if row["mix_p99_ms"] is None else f"{row['mix_p99_ms']:.0f}"
        say(
            f"{row['server']:36} {p99:>10} {row['errors']:>6} {b:>9} {row['search_sat']:>9.0f}"
            f" {row['pss_max'] / 1e6:>7.0f} {row['rss_max'] / 1e6:>7.0f}"
        )
    ours = [r for r in summary if r["server"].startswith("paperscope")]
    one = next((r for r in ours if r["workers"] == 1), None)
    for row in ours:
        checks = [
            f"(a) p99 {'PASS' if row['mix_p99_ms'] is not None and row['mix_p99_ms'] <= TARGETS['mix_p99_ms'] and row['errors'] == 0 else 'FAIL'}",
            f"(b) {'PASS' if row['mix_sat'] >= TARGETS['mix_sat'] else 'FAIL'}",
            f"(c) {'PASS' if row['search_sat'] >= TARGETS['search_sat'] else 'FAIL'}",
        ]
        if one is not None and row["workers"] > 1 and one["pss_max"]:
            share = row["pss_max"] / (row["workers"] * one["pss_max"])
            checks.append(
                f"memory {share:.2f} of {row['workers']} x one worker: {'PASS' if share < 1 else 'FAIL'}"
            )
        say(f"{row['server']}: " + ", ".join(checks))


if __name__ == "__main__":
    main()
