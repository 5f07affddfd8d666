"""`build --engine ray` on a two-node Ray cluster on 127.0.0.1: the same library as `ingest`, and faults.

The cluster is started here (`ray start --head`, then a second node with its own resource
``node2``; one CPU each) in its own temporary folder, and stopped at the end by killing exactly
the processes whose command line names that folder (never `ray stop`, which would stop every
Ray cluster of this user on the machine); the teardown checks none is left.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperscope.library import Library
from paperscope.scale import shards
from paperscope.scale.build import run_build
from paperscope.scale.load import load_shards
from paperscope.scale.ray_engine import FAULT_ENV

from .compare import assert_same_library
from .conftest import ICLR_CSV

ray = pytest.importorskip(
    "ray", reason="the ray engine's tests need the ray extra: pip install 'paperscope[ray]'"
)
psutil = pytest.importorskip("psutil")

pytestmark = [
    pytest.mark.ray,
    pytest.mark.slow,
    # Ray's own imports warn (deprecations in its dependencies); they are not ours to fix.
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::FutureWarning"),
]

#: Lowest cosine accepted between a paper's vector built on Ray and ingest's. The issue asks for
#: 1 - 1e-5, but the shipped int8 model (OpenVINO, static) is not that stable across batches:
#: ingest's own code embedding the same 400 ICLR 2026 abstracts in two batchings (one call, or
#: shuffled calls of 150) gave cosines down to 0.99978, 16 of 400 below 1 - 1e-5 (the fp32
#: model: all within 1e-5, 3x slower). A build batches papers before dedup, ingest after it, so
#: the same spread appears here (measured: 29 of 2,094 below 1 - 1e-5, lowest 0.99980). The
#: bound is that measured spread with room; a card's area fuses the vector, so its confidence
#: may move in the third decimal (measured: 4 of 2,094 cards, by at most 0.005).
INT8_BATCHING_COSINE = 0.9995
#: Seconds a `ray start` may take on a busy 2-core machine before the test gives up.
_START_TIMEOUT_S = 180


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


#: Set in the environment of the cluster's processes, to find them again (with their command
#: lines and open files: Ray's agents start with an environment of their own).
_MARK = "PAPERSCOPE_TEST_RAY_CLUSTER"


def _ours(temp_dir: str) -> list[psutil.Process]:
    """The live processes of the test cluster: naming its folder, marked, or with a file open in it."""
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        try:
            if proc.info["status"] == psutil.STATUS_ZOMBIE or proc.pid == os.getpid():
                continue  # dead, waiting to be reaped; or this driver, which has Ray's logs open
            if (
                any(temp_dir in part for part in proc.info["cmdline"] or ())
                or proc.environ().get(_MARK) == temp_dir
                or any(f.path.startswith(temp_dir) for f in proc.open_files())
            ):
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found


def _stop(temp_dir: str) -> list[int]:
    """Kill the cluster's processes (and their children); return the pids still alive after 30 s."""
    deadline = time.monotonic() + 30
    while (procs := _ours(temp_dir)) and time.monotonic() < deadline:
        for proc in procs:
            with contextlib.suppress(psutil.NoSuchProcess):
                for child in proc.children(recursive=True):
                    child.kill()
                proc.kill()
        psutil.wait_procs(procs, timeout=5)
    return [p.pid for p in _ours(temp_dir)]


def _tear_down(temp_dir: str) -> None:
    """Leave Ray, stop the test cluster of ``temp_dir`` and check none of its processes is left."""
    if ray.is_initialized():
        ray.shutdown()
    left = _stop(temp_dir)
    shutil.rmtree(temp_dir, ignore_errors=True)
    assert not left, f"Ray processes of the test cluster still running: {left}"


def assert_same_shards(built: list[dict], here: Path, there: Path, vectors: bool = True) -> None:
    """Assert the shards of ``built`` (a report's entries) hold the same rows in ``here`` and ``there``."""
    for entry in built:
        for name in entry["shards"]:
            a = list(shards.read_shard(here / name))
            b = list(shards.read_shard(there / name))
            assert [(r["item"], r["paper"], r["card"]) for r in a] == [
                (r["item"], r["paper"], r["card"]) for r in b
            ]
            if vectors:
                assert all((x["vector"] == y["vector"]).all() for x, y in zip(a, b, strict=True))


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """Yield the address of a two-node Ray cluster on 127.0.0.1 (one CPU per node; one GPU declared on the second)."""
    temp_dir = tempfile.mkdtemp(prefix="ps-ray-", dir="/tmp")  # short: Ray's socket paths have a limit
    # Loopback only, for the test's lifetime: no token (Ray 2.60's head would make one, which the
    # second node and this driver would have to be given).
    auth = {"RAY_AUTH_MODE": "disabled"}
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env.update(auth, RAY_USAGE_STATS_ENABLED="0", **{_MARK: temp_dir})
    ray_cli = str(Path(sys.executable).with_name("ray"))
    port = _free_port()
    address = f"127.0.0.1:{port}"
    common = ["--num-cpus=1", "--node-ip-address=127.0.0.1", "--disable-usage-stats"]
    with pytest.MonkeyPatch.context() as patch:
        for key, value in auth.items():
            patch.setenv(key, value)  # the driver (this process) too
        patch.delenv("RAY_ADDRESS", raising=False)
        try:
            subprocess.run(
                [ray_cli, "start", "--head", f"--port={port}", "--include-dashboard=false",
                 f"--temp-dir={temp_dir}", *common],
                env=env, check=True, capture_output=True, timeout=_START_TIMEOUT_S,
            )  # fmt: skip
            # The second node declares one GPU (there is none): a GPU embedder's actors land there.
            subprocess.run(
                [ray_cli, "start", f"--address={address}", "--resources", json.dumps({"node2": 1}),
                 "--num-gpus=1", *common],
                env=env, check=True, capture_output=True, timeout=_START_TIMEOUT_S,
            )  # fmt: skip
            yield address
        finally:
            _tear_down(temp_dir)


@pytest.fixture(scope="module")
def about_2000_records(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three ICLR 2026 area files (1,999 records), the ICML lists and the duplicate CSV of conftest."""
    from .conftest import _rows, _write

    folder = tmp_path_factory.mktemp("records")
    area = shared_data / "iclr2026-primary-area"
    names = [
        ICLR_CSV.split("/")[1],
        "primary_area__foundation-or-frontier-models-including-llms.csv",
        "primary_area__applications-to-computer-vision-audio-language-and-other-modalities.csv",
    ]
    header, rows = _rows(shared_data / ICLR_CSV)
    dups = _write(folder / "dups.csv", header, rows[100:140] + [{**r, "title": ""} for r in rows[:10]])
    return [*(area / n for n in names), shared_data / "icml2026", dups]


@pytest.mark.model
def test_ray_build_on_two_nodes_equals_ingest(
    cluster: str, about_2000_records: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAPERSCOPE_EMBEDDER", "minilm")
    sources = [str(s) for s in about_2000_records]
    report = run_build(sources, tmp_path / "shards", engine="ray", address=cluster)
    assert report.read == 1999 + 95 + 50 and not report.failed
    assert len(report.nodes) == 2, "both nodes embedded chunks"
    with Library(tmp_path / "built.db", embedder="minilm") as lib:
        loaded = load_shards(lib, tmp_path / "shards")
        assert loaded.phases["embed"]["count"] == 0, "load embedded nothing"
    with Library(tmp_path / "ingested.db", embedder="minilm") as lib:
        ingested = lib.ingest(about_2000_records)
    assert [(f.path, f.new, f.present, f.merged) for f in loaded.files] == [
        (f.path, f.new, f.present, f.merged) for f in ingested.files
    ]
    assert loaded.merged + loaded.present > 0
    assert_same_library(
        tmp_path / "built.db", tmp_path / "ingested.db", min_cosine=INT8_BATCHING_COSINE, area_confidence=0.01
    )


def test_a_worker_killed_mid_build_loses_and_doubles_nothing(
    cluster: str, mixed_sources: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first embedding call kills its own worker process (SIGKILL); Ray restarts it and retries."""
    marker = tmp_path / "killed"
    monkeypatch.setenv(FAULT_ENV, str(marker))
    sources = [str(s) for s in mixed_sources]
    report = run_build(sources, tmp_path / "ray", engine="ray", address=cluster)
    assert marker.is_file(), "the fault hook ran"
    assert not psutil.pid_exists(int(marker.read_text())), "the killed worker is gone"
    monkeypatch.delenv(FAULT_ENV)
    local = run_build(sources, tmp_path / "local")
    assert report.read == local.read and report.papers == local.papers
    assert [e["shards"] for e in report.built] == [e["shards"] for e in local.built]
    assert not list((tmp_path / "ray").glob(".*.tmp"))
    assert_same_shards(local.built, tmp_path / "ray", tmp_path / "local")


def test_a_gpu_embedder_runs_on_gpu_actors_and_builds_what_the_cpu_does(
    cluster: str, mixed_sources: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``build --device cuda`` on Ray: one actor per GPU of the cluster, holding it; the same shards.

    ``fake-cuda`` stands in for the GPU embedder (the fake embedder's vectors; no GPU is used),
    and the cluster's second node declares one GPU: the actor must be placed there and hold it.
    """
    sources = [str(s) for s in mixed_sources]
    report = run_build(
        sources, tmp_path / "gpu", engine="ray", address=cluster, embedder="fake-cuda", progress=True
    )
    assert report.plan.startswith("plan: 1 embedding actor with one GPU each (fake-cuda);")
    assert "on 2 CPUs of 2 nodes" in report.plan and report.plan in capsys.readouterr().err
    assert report.devices == {"GPU 0"}, "every chunk was embedded by the actor holding the GPU"
    assert len(report.nodes) == 1, "the GPU node's actor, only"
    local = run_build(sources, tmp_path / "cpu", embedder="fake")
    assert (report.read, report.papers) == (local.read, local.papers)
    assert_same_shards(local.built, tmp_path / "gpu", tmp_path / "cpu")
