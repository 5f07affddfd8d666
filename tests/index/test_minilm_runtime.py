"""The default MiniLM runtime (OpenVINO static int8) against the fp32 reference (marked `model`)."""

from __future__ import annotations

import logging
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest

from paperscope.errors import ModelUnavailable
from paperscope.evaluation.qrels import read_iclr_papers
from paperscope.index import embed, minilm
from paperscope.index.embed import get_embedder

pytestmark = pytest.mark.model
#: minilm-fp32 and the onnxruntime fallback need the onnx extra (dev has it).
needs_onnx = pytest.mark.skipif(
    not minilm.onnx_runtime_installed(), reason="needs the onnx extra: pip install 'paperscope[onnx]'"
)
#: Calibrating a model needs NNCF, onnx and the ONNX graph: the calibrate extra (dev has it).
needs_calibrate = pytest.mark.skipif(
    not (minilm.onnx_runtime_installed() and find_spec("nncf") is not None),
    reason="calibration needs the calibrate extra: pip install 'paperscope[calibrate]'",
)


@pytest.fixture(scope="module")
def abstracts(shared_data: Path) -> list[str]:
    """40 real ICLR 2026 abstracts; most are longer than one 254-wordpiece window."""
    papers = read_iclr_papers(shared_data / "iclr2026-primary-area")
    return [p.abstract for p in papers[::97][:40]]


def test_default_runtime_is_openvino_static_int8():
    embedder = get_embedder("minilm")
    assert (embedder.runtime, embedder.model_id) == ("openvino", "all-MiniLM-L6-v2/ov-int8-static/w256-mean")


@needs_onnx
def test_fp32_reference_runs_on_onnxruntime():
    assert get_embedder("minilm-fp32").model_id == "all-MiniLM-L6-v2/onnx-fp32/w256-mean"


@needs_onnx
def test_int8_vectors_match_fp32_on_real_abstracts(abstracts):
    int8, n_chunks = get_embedder("minilm").embed_documents(abstracts)
    fp32 = get_embedder("minilm-fp32").embed(abstracts)
    assert int8.shape == (40, 384) and int8.dtype == np.float32
    # Chunking is kept, not truncation: 15 abstracts fit one window, 24 take two, one takes four.
    assert np.bincount(n_chunks).tolist() == [0, 15, 24, 0, 1]
    cosines = (int8 * fp32).sum(axis=1)
    assert float(cosines.min()) >= 0.99
    assert float(cosines.mean()) >= 0.995


def test_vectors_do_not_depend_on_batch_neighbours(abstracts):
    embedder = get_embedder("minilm")
    first = embedder.embed(abstracts[:20])[0]
    other_neighbours = embedder.embed([abstracts[0], *abstracts[20:]])[0]
    alone = embedder.embed([abstracts[0]])[0]  # a single batch runs on the all-cores request
    np.testing.assert_array_equal(first, other_neighbours)
    np.testing.assert_array_equal(first, alone)


def _refuse_calibration(monkeypatch: pytest.MonkeyPatch) -> None:
    if find_spec("nncf") is None:
        return  # a plain install: nothing can calibrate
    import nncf

    def refuse(*args, **kwargs):
        raise AssertionError("quantised again")

    monkeypatch.setattr(nncf, "quantize", refuse)


def test_the_shipped_int8_model_runs_with_no_calibration(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("PAPERSCOPE_CACHE", str(tmp_path / "fresh-cache"))
    _refuse_calibration(monkeypatch)
    embedder = minilm.MiniLMEmbedder()
    assert embedder._ir == minilm.packaged_openvino_model() and embedder._ir is not None
    assert embedder.model_id == "all-MiniLM-L6-v2/ov-int8-static/w256-mean"
    assert embedder.embed(["Reward shaping for offline RL."]).shape == (1, 384)
    # Nothing is calibrated on this machine; OpenVINO's compiled model is cached outside the package.
    models = tmp_path / "fresh-cache" / "models"
    assert sorted(p.name for p in models.iterdir()) == ["compiled"]
    assert {p.suffix for p in (models / "compiled").iterdir()} == {".blob"}


@needs_calibrate
def test_quantised_model_is_made_once_and_reused(monkeypatch: pytest.MonkeyPatch, model_cache: Path):
    # A source tree without the shipped IR calibrates on first use, once: the same bytes as shipped.
    shipped = minilm.packaged_openvino_model()
    assert shipped is not None
    monkeypatch.setattr(minilm, "packaged_openvino_model", lambda: None)
    minilm.MiniLMEmbedder()
    made = sorted((model_cache / "models").glob("all-MiniLM-L6-v2-*-ov*-nncf*"))
    assert [sorted(p.name for p in d.iterdir()) for d in made] == [["model.bin", "model.xml"]]
    # On the CPU that built the shipped IR the weights are the same bytes (the graph's generated node
    # names, "Constant_23", follow a per-process counter, so model.xml matches only in a fresh
    # process: the script's --check); another CPU rounds the calibration's float statistics a little
    # differently, and then the two models' vectors must still agree (scripts/build_int8_model.py).
    if (made[0] / "model.bin").read_bytes() != (shipped.parent / "model.bin").read_bytes():
        texts = minilm.calibration_texts()[:40]
        ours = minilm.MiniLMEmbedder().embed(texts)
        monkeypatch.setattr(minilm, "packaged_openvino_model", lambda: shipped)
        theirs = minilm.MiniLMEmbedder().embed(texts)
        monkeypatch.setattr(minilm, "packaged_openvino_model", lambda: None)
        cosine = (ours * theirs).sum(1) / np.linalg.norm(ours, axis=1) / np.linalg.norm(theirs, axis=1)
        assert cosine.min() >= 0.999
    stamp = (made[0] / "model.bin").stat().st_mtime_ns
    _refuse_calibration(monkeypatch)
    again = minilm.MiniLMEmbedder()
    assert again.embed(["Reward shaping for offline RL."]).shape == (1, 384)
    assert (made[0] / "model.bin").stat().st_mtime_ns == stamp
    assert not list((model_cache / "models").glob("*.tmp"))


@needs_onnx
def test_drop_nan_guards_removes_only_the_softmax_guards():
    import onnx

    graph, _, _ = minilm._model_files()
    model = onnx.load(str(graph))
    ops = [n.op_type for n in model.graph.node]
    cleaned = [n.op_type for n in minilm._drop_nan_guards(model).graph.node]
    assert (ops.count("IsNaN"), ops.count("Softmax")) == (6, 6)
    assert cleaned.count("IsNaN") == 0
    assert len(ops) - len(cleaned) == 12
    assert ops.count("Where") - cleaned.count("Where") == 6


def test_calibration_texts_are_the_bundled_abstracts(icml_dir: Path, tmp_path: Path):
    texts = minilm.calibration_texts(icml_dir)
    assert len(texts) == 95
    assert texts[0].startswith("Multi-modal dataset distillation (MDD)")
    with pytest.raises(ModelUnavailable, match="no example abstracts"):
        minilm.calibration_texts(tmp_path)


@needs_onnx
def test_minilm_falls_back_to_onnxruntime_without_calibration_texts(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    def missing() -> list[str]:
        raise ModelUnavailable("examples/icml2026: no example abstracts to calibrate the int8 model with")

    monkeypatch.setattr(minilm, "calibration_texts", missing)
    monkeypatch.setattr(minilm, "packaged_openvino_model", lambda: None)  # a source tree without the IR
    with caplog.at_level(logging.WARNING):
        fallback = embed._minilm()
    assert (fallback.runtime, fallback.model_id) == ("onnxruntime", "all-MiniLM-L6-v2/onnx-int8/w256-mean")
    assert "using onnxruntime dynamic int8 instead" in caplog.text
    vector = fallback.embed(["Diffusion models generate images by denoising."])
    reference = get_embedder("minilm-fp32").embed(["Diffusion models generate images by denoising."])
    assert float(vector[0] @ reference[0]) > 0.98


def test_concurrent_queries_get_their_own_vectors():
    from concurrent.futures import ThreadPoolExecutor

    embedder = get_embedder("minilm")
    queries = [
        "dataset distillation",
        "reward shaping for offline RL",
        "protein folding",
        "auction revenue",
    ] * 3
    expected = {q: embedder.embed([q])[0] for q in queries[:4]}
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda q: embedder.embed([q])[0], queries))
    for query, vector in zip(queries, got, strict=True):
        np.testing.assert_array_equal(vector, expected[query])


def test_parallel_queries_give_the_same_vectors_as_the_all_core_request(monkeypatch: pytest.MonkeyPatch):
    from concurrent.futures import ThreadPoolExecutor

    from paperscope.index import minilm

    embedder = get_embedder("minilm")
    queries = ["dataset distillation", "reward shaping for offline RL", "protein folding", "auction revenue"]
    expected = {q: embedder.embed([q])[0] for q in queries}  # the one locked all-core request
    monkeypatch.setattr(minilm, "PARALLEL_QUERIES", True)  # what `paperscope serve` sets
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda q: embedder.embed([q])[0], queries * 3))
    for query, vector in zip(queries * 3, got, strict=True):
        np.testing.assert_array_equal(vector, expected[query])


def test_on_done_hands_out_the_returned_vectors_as_texts_finish(abstracts):
    """Issue 26: what ``ensure_vectors`` commits early is exactly what the call returns."""
    embedder = get_embedder("minilm")
    handed: list[tuple[int, np.ndarray, int]] = []

    def on_done(texts, vectors, n_chunks):
        handed.extend(zip(texts.tolist(), vectors, n_chunks.tolist(), strict=True))

    vectors, n_chunks = embedder.embed_documents(abstracts, on_done=on_done)
    assert sorted(text for text, _, _ in handed) == list(range(40))  # each text once
    assert [text for text, _, _ in handed] != list(range(40))  # in the order windows finish
    for text, vector, count in handed:
        np.testing.assert_array_equal(vector, vectors[text])
        assert count == n_chunks[text]
    np.testing.assert_array_equal(vectors, embedder.embed_documents(abstracts)[0])
