"""Query vectors shared between processes (the workers of ``serve --workers N``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paperscope.index import query_cache, search
from paperscope.index.embed import FakeEmbedder


@pytest.fixture
def shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(query_cache, "_shared_vectors", None)
    cache = query_cache.share_query_vectors(tmp_path / "qv.sqlite")
    yield cache
    monkeypatch.setattr(query_cache, "_shared_vectors", None)


def test_a_query_embedded_once_is_read_back_not_embedded_again(shared):
    embedder = FakeEmbedder()
    first = search.query_vector(embedder, "speculative decoding")
    search.clear_query_vectors()  # as another process would start: an empty LRU
    again = search.query_vector(embedder, "speculative decoding")
    assert embedder.calls == 1
    assert again.dtype == np.float32 and np.array_equal(first, again) and not again.flags.writeable
    search.query_vector(embedder, "another query")
    assert embedder.calls == 2


def test_another_process_reads_the_same_bytes(shared, tmp_path: Path):
    vector = search.query_vector(FakeEmbedder(), "graph neural networks")
    code = (
        "import sys, numpy as np; from paperscope.index.query_cache import SharedQueryVectors;"
        f"v = SharedQueryVectors(__import__('pathlib').Path({str(shared.path)!r})).get(sys.argv[1], sys.argv[2]);"
        "sys.stdout.write(v.tobytes().hex())"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, FakeEmbedder().model_id, "graph neural networks"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert bytes.fromhex(run.stdout) == vector.tobytes()


def test_without_sharing_nothing_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(query_cache, "_shared_vectors", None)
    search.query_vector(FakeEmbedder(), "a cli query")
    assert query_cache.shared() is None and not list(tmp_path.iterdir())


def test_a_file_locked_while_a_worker_starts_costs_the_cache_not_the_worker(tmp_path: Path):
    import sqlite3

    path = tmp_path / "query_vectors.sqlite"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another worker setting the file up at the same moment
    try:
        cache = query_cache.SharedQueryVectors(path)  # raised "database is locked" before
        assert cache.get("m", "q") is None
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    later = query_cache.SharedQueryVectors(path)
    later.put("m", "q", np.ones(3, dtype=np.float32))
    assert later.get("m", "q").tolist() == [1.0, 1.0, 1.0]
