"""A fresh `paperscope search` process exits cleanly even when it never needed the model it preloaded.

A CLI search starts loading the query model on a thread at once. On a library without vectors
(`ingest --no-embed`, or an interrupted ingest) BM25 answers and the model is never awaited; the
process then exited while that thread was inside OpenVINO's native compile, and the C++ runtime
aborted it after the results were printed ("terminate called without an active exception", exit
status 134), found by a fresh-user trial.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from paperscope import Library


@pytest.mark.model
def test_a_search_of_a_library_without_vectors_exits_with_status_0(
    tmp_path: Path, icml_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paperscope.index.embed import embedder_is_ready, prepare_embedder

    monkeypatch.setenv("PAPERSCOPE_EMBEDDER", "minilm")  # the real model, preloaded by the CLI
    prepare_embedder("minilm")
    assert embedder_is_ready("minilm")
    db = tmp_path / "lib.db"
    with Library(db) as lib:
        lib.ingest([icml_dir], embed=False)
    for _ in range(3):  # the abort came at a race between exit and the load: every run failed here
        done = subprocess.run(
            [sys.executable, "-m", "paperscope", "--db", str(db), "search", "diffusion models"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert "terminate called" not in done.stderr
        assert "diffusion" in done.stdout.lower()


@pytest.mark.model
@pytest.mark.parametrize(
    "args", [["x", "--limit", "0"], ["x", "--mode", "foo"], ["--bogus"], ["数据", "--limit", "0"]]
)
def test_a_search_usage_error_exits_with_one_message_and_no_traceback(
    tmp_path: Path, args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Click exits at once while the query model (and for Chinese the segmenter) loads on a
    # thread; the thread's imports then failed to register their exit handlers and printed
    # "Exception in thread ... can't register atexit after shutdown" (a fresh-user trial).
    monkeypatch.setenv("PAPERSCOPE_EMBEDDER", "minilm")
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-m", "paperscope", "--db", str(tmp_path / "lib.db"), "search", *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2, done.stderr[-2000:]
        assert "Traceback" not in done.stderr and "Exception in thread" not in done.stderr, done.stderr
        assert done.stderr.strip().splitlines()[-1].startswith("Error:")
