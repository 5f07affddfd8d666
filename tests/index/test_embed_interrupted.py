"""Issue 26 kind 10: an interrupted ``embed`` keeps the vectors it finished; the rerun embeds the rest.

Vectors used to be committed once per embedder call of up to ``EMBED_BATCH`` (512) papers, so a
killed run kept none of a call's work. Now they are committed as the embedder finishes them,
every ``COMMIT_PAPERS`` papers or ``COMMIT_INTERVAL_S`` seconds, and when the call fails.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from paperscope import Library
from paperscope.index import vector_saver
from paperscope.index.embed import FakeEmbedder
from paperscope.index.pooling import WindowTracker, pool_windows
from paperscope.store import vectors as stored

MODEL_ID = FakeEmbedder().model_id


class _Interrupted(FakeEmbedder):
    """The fake embedder, interrupted (an exception, as Ctrl-C raises) after ``batches`` encoded batches."""

    def __init__(self, batches: int, error: type[BaseException]):
        super().__init__(batch_size=10)
        self.batches = batches
        self.error = error

    def embed_documents(self, texts, progress=False, on_done=None):
        def count(indices, vectors, n_chunks):
            if on_done is not None:
                on_done(indices, vectors, n_chunks)
            self.batches -= 1
            if self.batches == 0:
                raise self.error("interrupted")

        return super().embed_documents(texts, progress, on_done=count)


@pytest.fixture
def unembedded(tmp_path: Path, icml_dir: Path) -> Path:
    """A library of the five example lists (95 papers) without vectors."""
    db = tmp_path / "lib.db"
    with Library(db) as lib:
        lib.ingest([icml_dir], embed=False)
        assert lib.missing_vectors() == 95
    return db


def _stored(db: Path) -> dict[str, bytes]:
    with Library(db) as lib:
        rows = lib.store.conn.execute(
            "SELECT paper_id, vector FROM embeddings WHERE model_id = ?", (MODEL_ID,)
        )
        return {pid: bytes(blob) for pid, blob in rows}


@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError])
def test_an_interrupted_embed_keeps_its_finished_batches_and_the_rerun_embeds_only_the_rest(
    unembedded: Path, tmp_path: Path, icml_dir: Path, error: type[BaseException]
) -> None:
    with Library(unembedded, embedder=_Interrupted(batches=3, error=error)) as lib, pytest.raises(error):
        lib.embed()
    kept = _stored(unembedded)
    assert len(kept) == 30  # three encoded batches of 10, though the call of 95 never returned
    rerun = FakeEmbedder()
    with Library(unembedded, embedder=rerun) as lib:
        assert lib.embed() == 65
        assert lib.missing_vectors() == 0
    assert rerun.calls == 65  # only the papers without a vector went to the embedder
    whole = tmp_path / "whole.db"
    with Library(whole) as lib:
        lib.ingest([icml_dir])  # one run, never interrupted
    assert _stored(unembedded) == _stored(whole)  # the same vectors, kept ones included


_KILLED_RUN = textwrap.dedent(
    """
    import os, signal, sys
    from paperscope import Library
    from paperscope.index import vector_saver
    from paperscope.index.embed import FakeEmbedder

    vector_saver.COMMIT_INTERVAL_S = 3600.0  # commits by count only, so the count kept is exact

    class KilledAfter(FakeEmbedder):
        def embed_documents(self, texts, progress=False, on_done=None):
            seen = [0]
            def count(indices, vectors, n_chunks):
                if seen[0] == 5:  # the 6th batch is encoded: the process dies before it is stored
                    os.kill(os.getpid(), signal.SIGKILL)
                seen[0] += 1
                if on_done is not None:
                    on_done(indices, vectors, n_chunks)
            return super().embed_documents(texts, progress, on_done=count)

    with Library(sys.argv[1], embedder=KilledAfter(batch_size=16)) as lib:
        lib.embed()
    """
)


def test_a_sigkilled_embed_keeps_every_commit_before_the_kill(unembedded: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", _KILLED_RUN, str(unembedded)],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
    )
    assert run.returncode == -signal.SIGKILL, run.stderr
    # 5 batches of 16 finished: the first 64 were committed (COMMIT_PAPERS), the next 16 waited
    assert vector_saver.COMMIT_PAPERS == 64 and len(_stored(unembedded)) == 64
    rerun = FakeEmbedder()
    with Library(unembedded, embedder=rerun) as lib:
        assert lib.embed() == 31 and rerun.calls == 31 and lib.missing_vectors() == 0


def test_vectors_wait_at_most_the_commit_interval(unembedded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    commits: list[int] = []
    real = stored.save_vectors
    monkeypatch.setattr(
        stored, "save_vectors", lambda conn, model, rows: commits.append(len(rows)) or real(conn, model, rows)
    )
    monkeypatch.setattr(vector_saver, "COMMIT_INTERVAL_S", 0.0)  # every encoded batch is old enough
    with Library(unembedded, embedder=FakeEmbedder(batch_size=10)) as lib:
        lib.embed()
    assert commits == [10] * 9 + [5]
    commits.clear()
    monkeypatch.setattr(vector_saver, "COMMIT_INTERVAL_S", 3600.0)
    with Library(unembedded, embedder=FakeEmbedder(batch_size=10)) as lib:
        lib.embed(rebuild=True)
    assert commits == [70, 25]  # by count: 64 reached after the 7th batch, the rest at the end


def test_an_embedder_without_on_done_is_stored_when_its_call_ends(unembedded: Path) -> None:
    class Plain(FakeEmbedder):
        def embed_documents(self, texts, progress=False):  # a plugin written before on_done
            return super().embed_documents(texts, progress)

    with Library(unembedded, embedder=Plain()) as lib:
        assert lib.embed() == 95 and lib.missing_vectors() == 0


def test_the_window_tracker_hands_out_each_text_once_with_the_pooled_vector() -> None:
    rng = np.random.default_rng(5)
    owners = np.array([0, 0, 1, 2, 2, 2, 4, 5, 5], dtype=np.int64)  # text 3 has no window
    window_vectors = np.zeros((len(owners), 6), dtype=np.float32)
    final = rng.standard_normal((len(owners), 6)).astype(np.float32)
    handed: dict[int, tuple[np.ndarray, int]] = {}

    def on_done(texts, vectors, n_chunks):
        for row, text in enumerate(texts.tolist()):
            assert text not in handed
            handed[text] = (vectors[row], int(n_chunks[row]))

    tracker = WindowTracker(owners, 6, on_done)
    tracker.start(window_vectors)
    assert list(handed) == [3]
    for batch in ([8, 0, 3], [5, 2], [1, 4], [6, 7]):  # sorted by length, not by text
        window_vectors[batch] = final[batch]
        tracker.finished(batch, window_vectors)
    assert list(handed) == [3, 1, 0, 2, 4, 5]
    vectors, n_chunks = pool_windows(window_vectors, owners, np.arange(6, dtype=np.int64))
    for text, (vector, count) in handed.items():
        np.testing.assert_array_equal(vector, vectors[text])
        assert count == n_chunks[text]
    assert n_chunks.tolist() == [2, 1, 3, 0, 1, 2] and not vectors[3].any()
