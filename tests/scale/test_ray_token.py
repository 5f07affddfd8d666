"""Joining a token-authenticated Ray cluster by ``HOST:PORT`` and ``ray://HOST:PORT`` (issue 28 item 4).

A two-node cluster on 127.0.0.1 is started with ``RAY_AUTH_MODE=token`` and a token of this test
(Ray's default for ``ray start`` since 2.52 makes one too), with the Ray Client server on its own
port. The driver (this process) is given only ``RAY_AUTH_TOKEN``, as a user who copied the token
would be: ``build`` must join by the GCS address and by ``ray://`` and build what the local
engine builds. Stopped as in ``test_ray_engine.py`` (only this cluster's processes).
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperscope.scale.build import run_build

ray = pytest.importorskip(
    "ray", reason="the ray engine's tests need the ray extra: pip install 'paperscope[ray]'"
)
pytest.importorskip("grpc", reason="ray:// needs Ray Client: pip install 'paperscope[ray]'")

from .test_ray_engine import _MARK, _START_TIMEOUT_S, _free_port, _tear_down, assert_same_shards  # noqa: E402

pytestmark = [
    pytest.mark.ray,
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::FutureWarning"),
]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "icml2026"


@pytest.fixture(scope="module")
def token_cluster() -> Iterator[tuple[str, str, str]]:
    """Yield ``(gcs address, ray:// address, token)`` of a two-node token-authenticated cluster."""
    temp_dir = tempfile.mkdtemp(prefix="ps-rtok-", dir="/tmp")
    token = secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=token, RAY_USAGE_STATS_ENABLED="0", **{_MARK: temp_dir})
    ray_cli = str(Path(sys.executable).with_name("ray"))
    port, client_port = _free_port(), _free_port()
    address = f"127.0.0.1:{port}"
    common = ["--num-cpus=1", "--node-ip-address=127.0.0.1", "--disable-usage-stats"]
    try:
        subprocess.run(
            [ray_cli, "start", "--head", f"--port={port}", f"--ray-client-server-port={client_port}",
             "--include-dashboard=false", f"--temp-dir={temp_dir}", *common],
            env=env, check=True, capture_output=True, timeout=_START_TIMEOUT_S,
        )  # fmt: skip
        subprocess.run(
            [ray_cli, "start", f"--address={address}", *common],
            env=env, check=True, capture_output=True, timeout=_START_TIMEOUT_S,
        )  # fmt: skip
        yield address, f"ray://127.0.0.1:{client_port}", token
    finally:
        _tear_down(temp_dir)


@pytest.mark.parametrize("how", ["gcs", "client"])
def test_a_token_cluster_is_joined_with_the_token_alone(
    token_cluster: tuple[str, str, str], how: str, tmp_path: Path
) -> None:
    """``paperscope build`` in a fresh process (Ray reads the auth mode when imported) with the token alone."""
    gcs, client, token = token_cluster
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("RAY_")
    }  # no RAY_AUTH_MODE, no RAY_ADDRESS
    env.update(RAY_AUTH_TOKEN=token, PAPERSCOPE_EMBEDDER="fake")
    sources = [str(p) for p in sorted(EXAMPLES.glob("*.txt"))[:2]]
    address = gcs if how == "gcs" else client
    done = subprocess.run(
        [sys.executable, "-m", "paperscope", "build", *sources, "--out", str(tmp_path / "ray"),
         "--engine", "ray", "--address", address, "--json"],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["plan"].startswith("plan: 2 embedding actors on the CPUs of 2 nodes")
    assert report["devices"] == ["CPU"] and len(report["nodes"]) >= 1
    assert "Traceback" not in done.stderr
    local = run_build(sources, tmp_path / "local")
    assert (report["read"], report["papers"]) == (local.read, local.papers)
    assert_same_shards(local.built, tmp_path / "ray", tmp_path / "local", vectors=False)
