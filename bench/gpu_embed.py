"""The GPU embedder (issue 28 item 1): abstracts/s, cosine to the fp32 reference, retrieval both ways.

Usage: PYTHONPATH=src python bench/gpu_embed.py [--device auto|cpu|cuda] [--precision fp16]
       [--papers 4302] [--batch 512] [--retrieval]

Needs the gpu and onnx extras (torch, on a GPU machine a CUDA build; onnxruntime for the fp32
reference) and ../shared/data beside the checkout. Prints:

* **tokenisation** alone: texts/s of ``tokenizers``' ``encode_batch`` (its threads) into windows;
* **end to end**: abstracts/s and windows/s of ``TorchMiniLMEmbedder.embed_documents`` on the
  ICLR 2026 abstracts (tokenising the next chunk while the device embeds this one), after one
  warm-up chunk; on CUDA also the peak GPU memory;
* **cosine to the fp32 reference** (``minilm-fp32``, onnxruntime on the CPU) and to the CPU
  library's int8 vectors (``minilm``), min and mean, on ``--ref-papers`` of the same abstracts;
* with ``--retrieval``: SciFact and the ICLR title set (``paperscope eval``'s tasks) on a
  library embedded by this embedder, searched with its own query vectors and with the CPU
  int8 model's (the library's vectors are kept under their own model id; queries of another
  runtime of the same model are accepted, ``Library._model_id``), beside the CPU-built library.

The load average is printed first: measure on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import ICLR_DIR, load_iclr2026  # noqa: E402
from paperscope.index.embed import get_embedder  # noqa: E402
from paperscope.index.minilm import onnx_runtime_installed, text_windows  # noqa: E402
from paperscope.index.torch_minilm import TorchMiniLMEmbedder  # noqa: E402


def _cosines(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    rows = (np.linalg.norm(a, axis=1) > 0) & (np.linalg.norm(b, axis=1) > 0)
    cos = (a[rows] * b[rows]).sum(axis=1)
    return float(cos.min()), float(cos.mean())


def _retrieval(embedder_name: str) -> None:
    from paperscope.evaluation.retrieval import format_retrieval_eval, run_retrieval_eval

    tasks = ["scifact", "iclr-title"]
    with tempfile.TemporaryDirectory(prefix="paperscope-gpu-eval-") as tmp:
        rows = []
        for label, workdir, name in (
            (f"documents and queries: {embedder_name}", Path(tmp) / "gpu", embedder_name),
            (f"documents: {embedder_name}, queries: minilm (CPU int8)", Path(tmp) / "gpu", "minilm"),
            ("documents and queries: minilm (CPU int8)", Path(tmp) / "cpu", "minilm"),
        ):
            started = time.perf_counter()
            results = run_retrieval_eval(
                tasks, modes=("dense", "hybrid"), workdir=workdir, embedder=name, progress=True
            )
            rows.append((label, results, time.perf_counter() - started))
        for label, results, seconds in rows:
            print(f"\n== {label} ({seconds:.0f} s)")
            print(format_retrieval_eval(results))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--precision", default=None, choices=("fp16", "bf16", "fp32"))
    parser.add_argument(
        "--papers", type=int, default=4302, help="ICLR 2026 abstracts to embed (at most 4,302)"
    )
    parser.add_argument("--ref-papers", type=int, default=200, help="abstracts compared with the references")
    parser.add_argument("--batch", type=int, default=None, help="windows per forward pass")
    parser.add_argument("--retrieval", action="store_true", help="also SciFact and ICLR titles both ways")
    args = parser.parse_args()

    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}; {os.cpu_count()} CPUs")
    if not ICLR_DIR.is_dir():
        sys.exit(f"{ICLR_DIR}: not found; this bench reads ../shared/data beside the checkout")
    if not onnx_runtime_installed():
        sys.exit("the fp32 reference (minilm-fp32) needs the onnx extra: pip install 'paperscope[gpu,onnx]'")
    _, texts, _ = load_iclr2026()
    texts = texts[: args.papers]
    started = time.perf_counter()
    embedder = TorchMiniLMEmbedder(device=args.device, precision=args.precision, batch_size=args.batch)
    import torch

    device_name = (
        torch.cuda.get_device_name()
        if embedder.device == "cuda"
        else f"CPU, {torch.get_num_threads()} threads"
    )
    print(
        f"torch {torch.__version__} on {embedder.device} ({device_name}), {embedder.precision},"
        f" batch {embedder.batch_size} windows; model id {embedder.model_id}; loaded in {time.perf_counter() - started:.1f} s"
    )

    started = time.perf_counter()
    windows, _ = text_windows(embedder.tokenizer, texts)
    token_s = time.perf_counter() - started
    print(
        f"tokenisation: {len(texts):,} texts, {len(windows):,} windows in {token_s:.2f} s: {len(texts) / token_s:,.0f} texts/s"
    )

    embedder.embed(texts[: min(256, len(texts))])  # warm-up: kernels, allocator
    if embedder.device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    started = time.perf_counter()
    vectors, n_chunks = embedder.embed_documents(texts)
    if embedder.device == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - started
    peak = (
        f"; peak GPU memory {torch.cuda.max_memory_allocated() / 2**30:.2f} GiB"
        if embedder.device == "cuda"
        else ""
    )
    print(
        f"end to end: {len(texts):,} abstracts ({int(n_chunks.sum()):,} windows) in {seconds:.1f} s:"
        f" {len(texts) / seconds:,.1f} abstracts/s, {n_chunks.sum() / seconds:,.1f} windows/s{peak}"
    )

    sample = texts[: args.ref_papers]
    ours = vectors[: len(sample)]
    for name, label in (
        ("minilm-fp32", "fp32 reference (onnxruntime)"),
        ("minilm", "CPU library's int8 (OpenVINO)"),
    ):
        least, mean = _cosines(ours, get_embedder(name).embed(sample))
        print(f"cosine to the {label}, {len(sample)} abstracts: min {least:.5f}, mean {mean:.5f}")

    if args.retrieval:
        _retrieval("minilm-cuda" if embedder.device == "cuda" else "minilm-torch")


if __name__ == "__main__":
    main()
