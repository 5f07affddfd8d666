from __future__ import annotations

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
    with pytest.raises(InputError, match="unknown embedder 'bert'; choose one of: fake, minilm, minilm-fp32"):
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


def test_a_long_first_embedding_says_so_on_stderr_when_no_bar_is_shown(
    tmp_path, icml_dir, monkeypatch, capsys
):
    from paperscope.index import dense

    with Library(tmp_path / "lib.db", embedder="fake") as lib:
        lib.ingest([icml_dir])
        capsys.readouterr()
        monkeypatch.setattr(dense, "NOTICE_AT", 95)
        lib.dense_index(progress=False)
        err = capsys.readouterr().err
        assert (
            err
            == f"embedding 95 papers with {lib.embedder.model_id} before the first dense search (once; vectors are stored in the library)\n"
        )
        lib.dense_index(progress=False)
        assert capsys.readouterr().err == ""
