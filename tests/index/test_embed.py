from __future__ import annotations

import json

import numpy as np
import pytest

from paperscope import InputError, Library
from paperscope.index.embed import FakeEmbedder, get_embedder, register_embedder, split_evenly


def test_fake_embedder_is_deterministic_and_unit_length():
    a = FakeEmbedder().embed(["sparse attention for long documents", "sparse attention for long documents"])
    assert a.dtype == np.float32
    assert a.shape == (2, 384)
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), [1.0, 1.0], rtol=1e-6)
    assert np.array_equal(a[0], a[1])


def test_fake_embedder_gives_zero_vector_for_empty_text():
    vectors, n_chunks = FakeEmbedder().embed_documents(["", "   "])
    assert not vectors.any()
    assert n_chunks.tolist() == [0, 0]


def test_fake_embedder_shared_words_mean_higher_cosine():
    v = FakeEmbedder().embed(
        ["diffusion sampling steps", "fewer diffusion sampling steps", "auction revenue"]
    )
    assert v[0] @ v[1] > 0.8
    assert v[0] @ v[2] == 0.0


def test_long_text_is_chunked_and_counted():
    embedder = FakeEmbedder(window=4)
    _, n_chunks = embedder.embed_documents(["one two three four five six seven eight nine ten", "short text"])
    assert n_chunks.tolist() == [3, 1]


def test_split_evenly_uses_equal_windows():
    assert split_evenly(10, 4) == [(0, 3), (3, 7), (7, 10)]
    assert split_evenly(254, 254) == [(0, 254)]
    assert split_evenly(0, 254) == []


def test_unknown_embedder_names_the_valid_ones():
    with pytest.raises(
        InputError,
        match="unknown embedder 'bert'; choose one of: fake, fake-cuda, minilm, minilm-cuda, minilm-fp32, minilm-torch",
    ):
        get_embedder("bert")


def test_unchanged_papers_are_not_re_embedded(tmp_path, icml_dir):
    embedder = FakeEmbedder()
    register_embedder("counting", lambda: embedder)
    lib = Library(tmp_path / "lib.db", embedder="counting")
    lib.ingest([icml_dir])
    paper_ids, matrix = lib.embeddings()
    assert (len(paper_ids), matrix.shape, embedder.calls) == (95, (95, 384), 95)
    lib.ingest([icml_dir])
    assert lib.embeddings()[1].shape == (95, 384)
    lib.close()
    reopened = Library(tmp_path / "lib.db", embedder="counting")
    reopened.embeddings()
    assert embedder.calls == 95
    extra = tmp_path / "extra.txt"
    extra.write_text("ICML 2026 Papers\n\nWe study reward shaping for offline RL.\n", encoding="utf-8")
    reopened.ingest([extra])
    ids, _ = reopened.embeddings()
    assert (len(ids), embedder.calls) == (96, 96)
    reopened.close()


def test_ingest_gives_every_paper_a_vector_before_any_search(tmp_path, icml_dir):
    embedder = FakeEmbedder()
    register_embedder("counting-ingest", lambda: embedder)
    with Library(tmp_path / "lib.db", embedder="counting-ingest") as lib:
        report = lib.ingest([icml_dir])
        assert embedder.calls == 95
        assert report.phases["embed"]["count"] == 95
        assert (lib.stats()["vectors"], lib.stats()["missing_vectors"]) == (95, 0)
        hits = lib.search("dataset distillation", limit=3)
        assert embedder.calls == 96  # the query only
        assert lib.search_notice is None
        assert all("dense" in h.legs and not h.missing_vector for h in hits)


def test_no_embed_defers_vectors_to_the_embed_command(tmp_path, icml_dir):
    from click.testing import CliRunner

    from paperscope.cli import cli

    db = str(tmp_path / "lib.db")
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", db, "ingest", str(icml_dir), "--no-embed"]).exit_code == 0
    stats = runner.invoke(cli, ["--db", db, "stats"]).stdout
    assert (
        "vectors: 0\n" in stats
        and f"95 papers have no current vector: run `paperscope --db {db} embed`" in stats
    )
    result = runner.invoke(cli, ["--db", db, "embed"])
    assert result.exit_code == 0
    assert result.stderr.startswith("embed: 95 papers in ")
    assert "vectors: 95 (fake-bow-384)\n" in runner.invoke(cli, ["--db", db, "stats"]).stdout
    again = runner.invoke(cli, ["--db", db, "embed"])
    assert again.stderr == "embed: every paper already has a vector (95)\n"


class _SlowEmbedder(FakeEmbedder):
    """The fake embedder at a real model's pace: 20 ms a text (50 papers/s)."""

    def embed_documents(self, texts, progress=False):
        import time

        time.sleep(0.02 * len(texts))
        return super().embed_documents(texts, progress)


def _big_list(path, n):
    """Write a text list of ``n`` distinct abstracts (seeded random words; every 5th on distillation)."""
    import random

    rng = random.Random(11)
    words = [
        f"{a}{b}"
        for a in ("gra", "dif", "rew", "spa", "qua", "tok", "ker", "net")
        for b in "abcdefghijklmnop"
    ]
    abstracts = []
    for i in range(n):
        topic = "dataset distillation" if i % 5 == 0 else "graph pruning"
        abstracts.append(f"We study {topic} with {' '.join(rng.sample(words, 30))} in setting {i}.")
    path.write_text("ICML 2026 Papers\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
    return path


def test_a_search_with_5000_papers_missing_vectors_answers_from_bm25_within_2_s(tmp_path):
    import time

    from click.testing import CliRunner

    from paperscope.cli import cli

    register_embedder("slow-fake", _SlowEmbedder)
    db = str(tmp_path / "lib.db")
    runner = CliRunner()
    source = _big_list(tmp_path / "big.txt", 5000)
    ingested = runner.invoke(cli, ["--db", db, "ingest", str(source), "--no-embed", "--no-cards"])
    assert ingested.exit_code == 0
    started = time.perf_counter()
    result = runner.invoke(
        cli,
        ["--db", db, "search", "dataset distillation", "--json"],
        env={"PAPERSCOPE_EMBEDDER": "slow-fake"},
    )
    elapsed_s = time.perf_counter() - started
    assert result.exit_code == 0
    assert elapsed_s < 2.0
    assert result.stderr == (
        "note: 5,000 papers have no embedding yet, so these results are BM25 only;"
        f" run `paperscope --db {db} embed` to fill them\n"
    )
    hits = json.loads(result.stdout)
    assert len(hits) == 10
    assert all(h["missing_vector"] and set(h["legs"]) == {"bm25"} for h in hits)
    assert all("dataset distillation" in h["snippet"] for h in hits)


def test_a_few_papers_missing_vectors_are_embedded_inside_the_search(tmp_path, icml_dir):
    with Library(tmp_path / "lib.db", embedder="fake") as lib:
        lib.ingest([icml_dir])
        extra = tmp_path / "extra.txt"
        extra.write_text("ICML 2026 Papers\n\nWe study reward shaping for offline RL.\n", encoding="utf-8")
        lib.ingest([extra], embed=False)
        assert lib.stats()["missing_vectors"] == 1
        hits = lib.search("reward shaping offline", limit=3)
        assert "no embedding" not in (
            lib.search_notice or ""
        )  # the dense leg ran (a floor line may say more)
        assert lib.stats()["missing_vectors"] == 0
        assert "dense" in hits[0].legs and not hits[0].missing_vector


def test_a_second_writer_embedding_the_same_library_shares_the_work(tmp_path, icml_dir, monkeypatch) -> None:
    """Two ingests at once: what one process stored while the other embedded is not embedded twice."""
    from paperscope.index import dense
    from paperscope.store import vectors as stored

    db = tmp_path / "lib.db"
    with Library(db, embedder=FakeEmbedder()) as lib:
        lib.ingest([icml_dir], embed=False)
    monkeypatch.setattr(dense, "EMBED_BATCH", 10)
    other = Library(db, embedder=FakeEmbedder())  # the "other process": its own connection
    embedded: list[int] = []

    class _Racing(FakeEmbedder):
        def embed_documents(self, texts, progress=False):
            embedded.append(len(texts))
            if len(embedded) == 1:  # meanwhile the other writer embeds and stores everything
                other.embed()
            return super().embed_documents(texts, progress)

    with Library(db, embedder=_Racing()) as lib:
        lib.embed()
        assert lib.missing_vectors() == 0
        assert stored.count_missing_vectors(lib.store.conn, FakeEmbedder().model_id) == 0
    other.close()
    assert embedded == [10] or (len(embedded) == 1 and embedded[0] < 10), embedded


def test_minilm_fp32_without_the_onnx_extra_says_which_extra(monkeypatch: pytest.MonkeyPatch):
    from paperscope.errors import ModelUnavailable
    from paperscope.index import minilm

    monkeypatch.setattr(minilm, "onnx_runtime_installed", lambda: False)
    with pytest.raises(ModelUnavailable) as raised:
        minilm.MiniLMEmbedder(precision="fp32")
    assert str(raised.value) == (
        "minilm-fp32 needs onnxruntime and the ONNX graph (the onnx extra); run: pip install 'paperscope[onnx]'"
    )


def test_the_default_embedder_never_reaches_for_a_missing_onnxruntime(monkeypatch: pytest.MonkeyPatch):
    from paperscope.errors import ModelUnavailable
    from paperscope.index import embed, minilm

    def no_ir(*args, **kwargs):
        raise ModelUnavailable("no IR here")

    monkeypatch.setattr(minilm.MiniLMEmbedder, "__init__", no_ir)
    monkeypatch.setattr(minilm, "onnx_runtime_installed", lambda: False)
    with pytest.raises(ModelUnavailable) as raised:
        embed._minilm()
    assert str(raised.value) == "no IR here; or, for the onnxruntime fallback: pip install 'paperscope[onnx]'"


def test_cli_embed_with_minilm_fp32_and_no_onnx_extra_prints_one_line(
    tmp_path, monkeypatch: pytest.MonkeyPatch, icml_dir
):
    from click.testing import CliRunner

    from paperscope.cli import cli
    from paperscope.index import embed, minilm

    db = tmp_path / "lib.db"
    with Library(db, embedder="fake") as lib:
        lib.ingest([next(icml_dir.glob("*.txt"))])
    monkeypatch.setattr(minilm, "onnx_runtime_installed", lambda: False)
    monkeypatch.delitem(embed._CACHE, "minilm-fp32", raising=False)  # loaded by an earlier test
    monkeypatch.setenv("PAPERSCOPE_EMBEDDER", "minilm-fp32")
    result = CliRunner().invoke(cli, ["--db", str(db), "embed"])
    assert result.exit_code == 1
    assert result.output == (
        "Error: minilm-fp32 needs onnxruntime and the ONNX graph (the onnx extra);"
        " run: pip install 'paperscope[onnx]'\n"
    )


def test_an_ingest_with_nothing_new_and_nothing_missing_loads_no_model(tmp_path, icml_dir, monkeypatch):
    # Every file already in (or every file failed): the embed phase, which loads the model, is
    # left out; a paper still missing its vector is embedded as before.
    with Library(tmp_path / "lib.db", embedder="fake") as lib:
        lib.ingest([icml_dir])
        calls: list[bool] = []
        monkeypatch.setattr(Library, "embed", lambda self, **kw: calls.append(True) or 0)
        again = lib.ingest([icml_dir])
        assert (again.new, again.present, "embed" in again.phases, calls) == (0, 95, False, [])
        with lib.store.transaction() as conn:
            conn.execute("DELETE FROM embeddings WHERE rowid IN (SELECT rowid FROM embeddings LIMIT 1)")
        lib.ingest([icml_dir])
        assert calls == [True]
