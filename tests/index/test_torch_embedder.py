"""The GPU embedder's code path (torch), run on the CPU: the fp32 reference's vectors, its own model id.

Marked `model`. Skips naming the gpu extra where torch is not installed (CI's second pass has it).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paperscope.errors import InputError
from paperscope.index import embed, minilm, torch_minilm
from paperscope.index.embed import embedder_for_device, embedder_model_id, get_embedder
from paperscope.library import Library
from paperscope.model_ids import compatible_model_ids
from paperscope.store import vectors as stored_vectors

pytestmark = [
    pytest.mark.model,
    pytest.mark.skipif(
        not (torch_minilm.torch_installed() and minilm.onnx_runtime_installed()),
        reason="needs torch and the ONNX graph: pip install 'paperscope[gpu]'",
    ),
]

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "icml2026"


@pytest.fixture(scope="module")
def texts() -> list[str]:
    """24 bundled abstracts, an empty text, a short query and one text of three abstracts (several windows)."""
    abstracts = minilm.calibration_texts()
    return [*abstracts[:24], "", "speculative decoding with draft models", " ".join(abstracts[24:27])]


@pytest.fixture(scope="module")
def reference(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    return get_embedder("minilm-fp32").embed_documents(texts)


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    rows = np.linalg.norm(b, axis=1) > 0
    return (a[rows] * b[rows]).sum(axis=1)


def test_torch_vectors_equal_the_fp32_reference(texts, reference):
    vectors, n_chunks = get_embedder("minilm-torch").embed_documents(texts)
    ref_vectors, ref_chunks = reference
    assert vectors.shape == (len(texts), 384) and vectors.dtype == np.float32
    assert n_chunks.tolist() == ref_chunks.tolist()
    assert n_chunks[-1] >= 3 and n_chunks[24] == 0  # the long text took several windows; "" none
    assert not vectors[24].any()  # the empty text's vector is zeros, as the CPU model's
    assert float(_cosines(vectors, ref_vectors).min()) >= 0.9999


@pytest.mark.parametrize(("precision", "least"), [("fp16", 0.9999), ("bf16", 0.999)])
def test_half_precision_keeps_the_reference_vectors(texts, reference, precision, least):
    """fp16 (the CUDA default) at >= 0.9999 as on a GPU; bf16 has 8 bits of mantissa: >= 0.999."""
    embedder = torch_minilm.TorchMiniLMEmbedder(device="cpu", precision=precision)
    assert embedder.model_id == f"all-MiniLM-L6-v2/torch-{precision}/w256-mean"
    chosen = [0, 3, 24, 25, len(texts) - 1]
    vectors = embedder.embed([texts[i] for i in chosen])
    assert float(_cosines(vectors, reference[0][chosen]).min()) >= least


def test_model_ids_are_kept_apart_and_known_without_loading():
    ids = {name: embedder_model_id(name) for name in ("minilm", "minilm-fp32", "minilm-cuda", "minilm-torch")}
    assert ids["minilm-cuda"] == "all-MiniLM-L6-v2/torch-fp16/w256-mean"
    assert ids["minilm-torch"] == "all-MiniLM-L6-v2/torch-fp32/w256-mean"
    assert len(set(ids.values())) == 4
    assert "minilm-cuda" not in embed._CACHE  # the id came without building the model
    assert all(compatible_model_ids(ids["minilm"], other) for other in ids.values())
    assert not compatible_model_ids(ids["minilm"], "fake-bow-384")


def test_chunks_are_handed_out_once_each_with_the_returned_vectors(texts, monkeypatch):
    monkeypatch.setattr(torch_minilm, "CHUNK_TEXTS", 5)  # six chunks: tokenised while the last embeds
    seen: dict[int, np.ndarray] = {}

    def on_done(indices: np.ndarray, vectors: np.ndarray, n_chunks: np.ndarray) -> None:
        for i, row in zip(indices.tolist(), vectors, strict=True):
            assert i not in seen
            seen[i] = row

    vectors, _ = get_embedder("minilm-torch").embed_documents(texts, on_done=on_done)
    assert sorted(seen) == list(range(len(texts)))
    assert np.array_equal(np.stack([seen[i] for i in range(len(texts))]), vectors)


def test_devices_choose_the_embedder():
    assert embedder_for_device("minilm", "cpu") == "minilm"
    assert embedder_for_device("minilm-cuda", "cpu") == "minilm"
    assert embedder_for_device("minilm", "cuda") == "minilm-cuda"
    assert embedder_for_device("fake", "auto") == "fake"
    assert embedder_for_device("fake", "cuda") == "fake-cuda"  # the tests' stand-in for a GPU embedder
    assert embedder_for_device("fake-cuda", "cpu") == "fake"
    with pytest.raises(InputError, match="has no GPU path"):
        embedder_for_device("minilm-fp32", "cuda")
    with pytest.raises(InputError, match="unknown device 'tpu'"):
        embedder_for_device("minilm", "tpu")


def _gpu_less() -> bool:
    import torch

    return not torch.cuda.is_available()


def test_device_cuda_without_a_gpu_is_one_clear_line(tmp_path):
    if not _gpu_less():
        pytest.skip("this machine has a CUDA device")  # pragma: no cover
    db = tmp_path / "lib.db"
    ingest = [sys.executable, "-m", "paperscope", "--db", str(db), "ingest", str(EXAMPLES), "--no-embed"]
    subprocess.run(ingest, check=True, capture_output=True, text=True)
    done = subprocess.run(
        [sys.executable, "-m", "paperscope", "--db", str(db), "embed", "--device", "cuda"],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "PAPERSCOPE_EMBEDDER"},  # the tests' fake one
    )
    assert done.returncode == 1
    assert "sees no CUDA device" in done.stderr and "--device cpu" in done.stderr
    assert "Traceback" not in done.stderr
    with Library(db) as library:
        assert library.stats()["vectors"] == 0  # nothing half-written
    # An ingest that could not embed makes no library at all: the device is checked first.
    fresh = tmp_path / "fresh.db"
    done = subprocess.run(
        [sys.executable, "-m", "paperscope", "--db", str(fresh), "ingest", str(EXAMPLES), "--device", "cuda"],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "PAPERSCOPE_EMBEDDER"},
    )
    assert done.returncode == 1 and "sees no CUDA device" in done.stderr and "Traceback" not in done.stderr
    assert not fresh.exists()


def test_a_torch_embedded_library_is_searched_with_cpu_query_vectors(tmp_path):
    """The GPU path's library (torch vectors) opened with the CPU model: searched, never mixed."""
    db = tmp_path / "lib.db"
    files = sorted(EXAMPLES.glob("*.txt"))
    with Library(db, embedder="minilm-torch") as library:
        library.ingest(files[:1])
        torch_id = embedder_model_id("minilm-torch")
        assert stored_vectors.stored_model_ids(library.store.conn) == [torch_id]
        n_papers = len(library)
    with Library(db, embedder="minilm") as library:  # the default CPU model embeds the queries
        assert library._model_id() == torch_id
        assert library.stats()["missing_vectors"] == 0
        hits = library.search("graph neural networks", limit=5)
        # Hybrid, not BM25 alone: every paper has a vector of the library's model.
        assert library.search_notice is None or "BM25 only" not in library.search_notice
        assert hits and all("dense" in hit.legs for hit in hits[:3])
        # New papers ingested here are not embedded with another model: the report says what to run.
        report = library.ingest(files[1:2])
        assert report.new > 0
        # ... naming the command that embeds with the library's own model (here the torch path on the CPU)
        assert any("PAPERSCOPE_EMBEDDER=minilm-torch paperscope --db" in w for w in report.warnings)
        assert "PAPERSCOPE_EMBEDDER=minilm-torch" in (
            library.search("graph", limit=3) and library.search_notice or ""
        )
        assert stored_vectors.stored_model_ids(library.store.conn) == [torch_id]
        assert any("embed` with this command's --device to embed all" in w for w in report.warnings)
        with pytest.raises(InputError, match="papers have no vector: this library's vectors are of"):
            library.dense_index()  # topics, related…: no hidden re-embedding of the whole library
        # Asked to (`embed`), the CPU model embeds every paper under its own id, and the library follows it.
        assert library.embed() == len(library) > n_papers
        assert library._model_id() == embedder_model_id("minilm")
        assert library.stats()["missing_vectors"] == 0


def test_shards_built_on_the_torch_path_load_under_their_own_id(tmp_path):
    """``build --device cuda`` then ``load``: the shards' vectors are kept (not re-embedded on the CPU)."""
    if importlib.util.find_spec("pyarrow") is None:
        pytest.skip("build and load need pyarrow: pip install 'paperscope[ray]'")
    from paperscope.scale.build import run_build
    from paperscope.scale.load import load_shards

    source = sorted(EXAMPLES.glob("*.txt"))[0]
    report = run_build([str(source)], tmp_path / "shards", embedder="minilm-torch")
    assert report.papers > 0
    torch_id = embedder_model_id("minilm-torch")
    with Library(tmp_path / "lib.db", embedder="minilm") as library:
        load_shards(library, tmp_path / "shards")
        assert stored_vectors.stored_model_ids(library.store.conn) == [torch_id]
        assert library.stats()["missing_vectors"] == 0 and len(library) == report.papers
        hits = library.search("reinforcement learning", limit=3)
        assert hits and all("dense" in hit.legs for hit in hits)
