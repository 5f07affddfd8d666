"""Area with the paper's embedding: the fused predictor, the model's embedder check, card refinement."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse import csr_matrix

from paperscope.extract.area import AreaModel, load_area_model, predict_area
from paperscope.extract.area_embedding import EmbeddingBlock, same_embedding_model, train_embedding_block
from paperscope.extract.area_train import block_rows, feature_matrix
from paperscope.index.embed import FakeEmbedder
from paperscope.library import Library

# Reads as reinforcement learning and as optimization: the text model hesitates between them.
AMBIGUOUS = (
    "We study the convergence of stochastic gradient methods for policy optimization. We prove a "
    "linear rate for a natural policy gradient step under a smoothness assumption and confirm it on "
    "control benchmarks."
)
LIST = """ICML 2026 test list

Offline reinforcement learning learns a policy from a fixed dataset of transitions. Our actor-critic
algorithm constrains the policy to the behaviour policy and improves the return on D4RL tasks.

We introduce a diffusion model for image generation that samples in four steps with a distilled
denoiser and reaches an FID of 2.1 on ImageNet 256.

A benchmark of 4,000 questions tests whether language models can plan multi-step tool use; the best
model solves 41% of the tasks.
"""


def _toward(model: AreaModel, label: str) -> np.ndarray:
    """A unit vector the bundled embedding block reads as ``label`` (its weight row)."""
    row = model.embedding.coef[model.classes.index(label)]
    return row / np.linalg.norm(row)


def test_bundled_model_records_its_embedder():
    block = load_area_model().embedding
    assert block is not None
    assert block.model_id.startswith("all-MiniLM-L6-v2/") and block.model_id.endswith("/w256-mean")
    assert block.coef.shape == (12, 384)
    # The joint SVM weighs the text model's own features: one column per feature of the text model.
    assert block.text_coef.shape == load_area_model().coef.shape


def test_embedding_moves_the_area_and_is_recorded():
    model = load_area_model()
    model_id = model.embedding.model_id
    text_only = predict_area(AMBIGUOUS)
    assert (text_only.label, text_only.embedding) == ("reinforcement learning", None)
    assert "embedding" not in text_only.to_dict()
    # A vector that reads as optimization turns the hesitant text model; one that agrees with it
    # makes it surer.
    turned = predict_area(AMBIGUOUS, embedding=_toward(model, "optimization"), embedding_model=model_id)
    assert (turned.label, turned.source, turned.embedding) == ("optimization", "model", model_id)
    assert turned.to_dict()["embedding"] == model_id
    agreed = predict_area(
        AMBIGUOUS, embedding=_toward(model, "reinforcement learning"), embedding_model=model_id
    )
    assert agreed.label == "reinforcement learning" and agreed.confidence > text_only.confidence


def test_vectors_of_another_model_or_shape_are_ignored():
    model = load_area_model()
    text_only = predict_area(AMBIGUOUS)
    vector = _toward(model, "optimization")
    for model_id, vec in (
        ("fake-bow-384", vector),  # the tests' embedder
        ("bge-small-en-v1.5/onnx-fp32/cls", vector),  # another model
        (model.embedding.model_id, vector[:100]),  # wrong dimension
        (None, vector),  # no model named
    ):
        got = predict_area(AMBIGUOUS, embedding=vec, embedding_model=model_id)
        assert got == text_only


def test_same_embedding_model_allows_runtime_variants_only():
    trained = "all-MiniLM-L6-v2/ov-int8-static/w256-mean"
    assert same_embedding_model(trained, "all-MiniLM-L6-v2/onnx-fp32/w256-mean")
    assert not same_embedding_model(trained, "all-MiniLM-L6-v2/onnx-fp32/w128-mean")
    assert not same_embedding_model(trained, "fake-bow-384")
    assert not same_embedding_model(trained, "")


def test_block_round_trips_through_the_model_file(tmp_path: Path):
    model = load_area_model()
    path = tmp_path / "area.npz"
    model.save(path)
    again = AreaModel.load(path)
    assert again.embedding.model_id == model.embedding.model_id
    np.testing.assert_allclose(again.embedding.coef, model.embedding.coef)
    vec = _toward(model, "reinforcement learning")
    assert predict_area(AMBIGUOUS, model=again, embedding=vec, embedding_model=model.embedding.model_id) == (
        predict_area(AMBIGUOUS, embedding=vec, embedding_model=model.embedding.model_id)
    )
    # A file without the block (trained text-only) loads with none and predicts from text.
    model.embedding, saved = None, model.embedding
    try:
        model.save(path)
    finally:
        model.embedding = saved
    bare = AreaModel.load(path)
    assert bare.embedding is None
    assert (
        predict_area(AMBIGUOUS, model=bare, embedding=vec, embedding_model=saved.model_id).embedding is None
    )


def test_train_block_keeps_the_text_model_class_order():
    rng = np.random.default_rng(0)
    centers = {"b": np.eye(8)[0], "a": np.eye(8)[1], "c": np.eye(8)[2]}
    labels = [k for k in centers for _ in range(20)]
    x = np.stack([centers[k] + 0.1 * rng.standard_normal(8) for k in labels])
    text = csr_matrix(rng.random((len(labels), 5)).astype(np.float32))  # text features that carry no class
    block = train_embedding_block(text, x, labels, ["c", "a", "b"], "m/x/mean")
    assert (
        isinstance(block, EmbeddingBlock) and block.coef.shape == (3, 8) and block.text_coef.shape == (3, 5)
    )
    assert (
        int(block.decision(np.array([], dtype=np.int64), np.array([], np.float32), centers["a"]).argmax())
        == 1
    )
    with pytest.raises(ValueError):
        train_embedding_block(text, x, labels, ["a", "b", "c", "d"], "m/x/mean")


def test_feature_matrix_rows_are_the_features_used_at_prediction():
    model = load_area_model()
    rows = [
        (AMBIGUOUS, "Policy gradient convergence", "reinforcement learning, optimization"),
        (AMBIGUOUS, "", ""),
    ]
    m = feature_matrix(model, rows)
    assert m.shape == (2, model.coef.shape[1])
    for n, row in enumerate(rows):
        idx, vals = model.features(*row)
        dense = np.zeros(m.shape[1], np.float32)
        dense[idx] = vals
        np.testing.assert_allclose(m[n].toarray()[0], dense, rtol=1e-6)


def test_block_rows_add_the_abstract_only_copies():
    papers = [("a1", "t1", "k1", "x"), ("a2", "t2", "", "y")]
    rows, x, labels = block_rows(papers, np.eye(2, dtype=np.float32))
    assert rows == [("a1", "t1", "k1"), ("a2", "t2", ""), ("a1", "", "")]
    assert labels == ["x", "y", "x"]
    np.testing.assert_array_equal(x[2], [1, 0])


def test_a_model_file_from_before_the_joint_block_has_no_block(tmp_path: Path):
    model = load_area_model()
    path = tmp_path / "area.npz"
    model.save(path)
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files if k != "emb_text_coef"}
    np.savez_compressed(path, **arrays)
    assert AreaModel.load(path).embedding is None


def _areas(lib: Library) -> dict[str, dict]:
    return {p.paper_id: p.card.extra["area"] for p in lib.papers()}


def test_fake_embedder_library_keeps_text_only_areas(tmp_path: Path):
    lib_list = tmp_path / "list.txt"
    lib_list.write_text(LIST, encoding="utf-8")
    with Library(tmp_path / "lib.db") as lib:  # PAPERSCOPE_EMBEDDER=fake (conftest)
        lib.ingest([lib_list])
        areas = _areas(lib)
        assert len(areas) == 3 and all(a["label"] and a["source"] == "model" for a in areas.values())
        assert not any("embedding" in a for a in areas.values())
        assert lib.refine_areas() == 0


def test_refinement_updates_only_the_area(tmp_path: Path):
    block = load_area_model().embedding
    embedder = FakeEmbedder(dim=384)
    embedder.model_id = block.model_id  # stands in for MiniLM: same id, so its vectors are used
    lib_list = tmp_path / "list.txt"
    lib_list.write_text(LIST, encoding="utf-8")
    with Library(tmp_path / "lib.db", embedder=embedder) as lib:
        lib.ingest([lib_list], embed=False)
        before = {pid: json.loads(d) for pid, d in lib.store.conn.execute("SELECT paper_id, data FROM cards")}
        assert not any("embedding" in c["area"] for c in before.values())
        lib.embed()  # embeds, then refines the areas
        after = {pid: json.loads(d) for pid, d in lib.store.conn.execute("SELECT paper_id, data FROM cards")}
        for pid, card in after.items():
            assert card["area"]["embedding"] == block.model_id
            assert {k: v for k, v in card.items() if k != "area"} == {
                k: v for k, v in before[pid].items() if k != "area"
            }
        facets = dict(lib.store.conn.execute("SELECT paper_id, label FROM card_facets WHERE facet = 'area'"))
        assert facets == {pid: c["area"]["label"] for pid, c in after.items()}
        assert lib.refine_areas() == 0  # each card once
        # Cards rebuilt while the vectors exist get the fused area straight away.
        lib.build_cards(rebuild=True)
        assert _areas(lib) == {pid: c["area"] for pid, c in after.items()}
