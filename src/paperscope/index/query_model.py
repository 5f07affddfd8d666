"""The shipped int8 model run by numpy alone: a query's vector without importing OpenVINO.

A fresh ``paperscope search`` spent about 0.2 s of its 0.6 s on OpenVINO for one query of a few
wordpieces: importing it, reading the compiled model from its cache and setting up the first
inference. This module runs the *same* IR (the int8 graph in ``data/minilm-int8``) with numpy:

- :func:`export_program` (needs openvino; run once per machine and release by the first search,
  :func:`load_program_embedder`) reads the IR, folds every subgraph that depends on no input
  (the int8 weights times their scales become float32 matrices), writes a *program*: the
  remaining operations in topological order as JSON and their constants in one binary file,
  and checks its output for a probe against OpenVINO's;
- :class:`QueryProgram` memory-maps that file and interprets the program with numpy: about 35
  operation types of the OpenVINO opset (semantics as the opset specification gives them,
  docs.openvino.ai "Operation Specifications"), FakeQuantize included. So the arithmetic is the
  int8 model's own (every activation is quantised where the graph quantises it): cosine to
  OpenVINO's vectors of the same texts min 0.9995, mean 0.9998 (OpenVINO's int8 kernels round
  differently in places), against 0.9987 without the FakeQuantize steps. The vectors are
  stored and cached under the default embedder's model id.

Each window runs alone, without padding; texts over :data:`MAX_WORDPIECES` go to OpenVINO. The
weights are paged in from the page cache on first use (45 MB of matrices, a few ms).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import mmap
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "MAX_WORDPIECES",
    "PROGRAM_VERSION",
    "ProgramEmbedder",
    "QueryProgram",
    "export_program",
    "hidden_states",
    "load_program_embedder",
    "program_dir",
]

#: Texts of more wordpieces than this (all windows together) go to the fallback embedder
#: (OpenVINO) when there is one: numpy takes about 57 ms for 64 wordpieces on one core of this
#: machine and ~0.25 s for a full window of 256, which OpenVINO runs in ~20 ms once loaded.
MAX_WORDPIECES = 64
#: Bumped when the program format or an operation's meaning here changes: older programs are remade.
PROGRAM_VERSION = "1"

_DTYPES = {
    "f32": np.float32,
    "f16": np.float16,
    "i64": np.int64,
    "i32": np.int32,
    "i8": np.int8,
    "u8": np.uint8,
    "boolean": np.bool_,
}


def program_dir(model_xml: Path, cache: Path) -> Path:
    """Return the folder of the program made from ``model_xml`` (keyed by its content and our version).

    The key is a SHA-256 of :data:`PROGRAM_VERSION` and the IR's content: the SHA-256 of its
    files that the shipped IR's ``manifest.json`` lists (so two installs of one release share one
    program), else the files' sizes and modification times. A new IR gets a new program.
    """
    parts = [PROGRAM_VERSION]
    try:
        files = json.loads((model_xml.parent / "manifest.json").read_text(encoding="utf-8"))["files"]
        parts += [f"{name}:{files[name]}" for name in (model_xml.name, model_xml.with_suffix(".bin").name)]
    except (OSError, ValueError, KeyError, TypeError):
        for path in (model_xml, model_xml.with_suffix(".bin")):
            stat = path.stat()
            parts.append(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}")
    digest = hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]
    return cache / "models" / f"query-program-{digest}"


#: A temporary program folder older than this is a killed export's: removed by the next export.
_ABANDONED_S = 600.0


# -- the interpreter ------------------------------------------------------------------------


def _erf(x: np.ndarray) -> np.ndarray:
    """The error function of a float32 array: Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7).

    numpy has no erf and scipy.special costs a fresh process more than the whole query.
    Computed in float64: in float32 the ``1 - poly * exp(-a*a)`` cancels near 0 (5e-7).
    """
    wide = x.astype(np.float64)
    sign = np.sign(wide)
    a = np.abs(wide)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return (sign * (1.0 - poly * np.exp(-a * a))).astype(x.dtype, copy=False)


def _fake_quantize(
    x: np.ndarray, lo: np.ndarray, hi: np.ndarray, out_lo: np.ndarray, out_hi: np.ndarray, levels: int
) -> np.ndarray:
    steps = levels - 1
    q = np.rint((np.clip(x, lo, hi) - lo) / (hi - lo) * steps)
    return (q / steps * (out_hi - out_lo) + out_lo).astype(np.float32, copy=False)


def _scalar(x: np.ndarray) -> Any:
    """The one value of a scalar or one-element array (the opset allows either)."""
    return np.asarray(x).reshape(-1)[0].item()


def _slice(
    x: np.ndarray, start: np.ndarray, stop: np.ndarray, step: np.ndarray, axes: np.ndarray | None
) -> np.ndarray:
    index = [slice(None)] * x.ndim
    axes_list = range(len(start)) if axes is None else axes.tolist()
    for k, axis in enumerate(axes_list):
        index[int(axis)] = slice(int(start[k]), int(stop[k]), int(step[k]))
    return x[tuple(index)]


def _reshape(x: np.ndarray, shape: np.ndarray, special_zero: bool) -> np.ndarray:
    dims = [int(d) for d in shape.reshape(-1)]
    if special_zero:
        dims = [x.shape[k] if d == 0 else d for k, d in enumerate(dims)]
    return x.reshape(dims)


def _unsqueeze(x: np.ndarray, axes: np.ndarray) -> np.ndarray:
    rank = x.ndim + axes.size
    for axis in sorted(int(a) % rank for a in axes.reshape(-1)):
        x = np.expand_dims(x, axis)
    return x


def _squeeze(x: np.ndarray, axes: np.ndarray | None = None) -> np.ndarray:
    if axes is None:
        return np.squeeze(x)
    return np.squeeze(x, axis=tuple(int(a) % x.ndim for a in axes.reshape(-1)))


def _mvn(x: np.ndarray, axes: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    axis = tuple(int(a) % x.ndim for a in axes.reshape(-1))
    centred = x - x.mean(axis=axis, keepdims=True)
    if not attrs["normalize_variance"]:
        return centred
    var = (centred * centred).mean(axis=axis, keepdims=True)
    eps = np.float32(attrs["eps"])
    if attrs["eps_mode"].upper() == "INSIDE_SQRT":
        return centred / np.sqrt(var + eps)
    return centred / (np.sqrt(var) + eps)


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _matmul(a: np.ndarray, b: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    if attrs["transpose_a"]:
        a = np.swapaxes(a, -1, -2)
    if attrs["transpose_b"]:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


def _broadcast(x: np.ndarray, shape: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    target = tuple(int(d) for d in shape.reshape(-1))
    if attrs.get("mode", "numpy") == "bidirectional":
        target = np.broadcast_shapes(x.shape, target)
    return np.broadcast_to(x, target)


def _gather_nd(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    if int(attrs.get("batch_dims", 0)) != 0:
        raise NotImplementedError("GatherND with batch_dims")
    return data[tuple(np.moveaxis(indices, -1, 0))]


def _gather(data: np.ndarray, indices: np.ndarray, axis: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    if int(attrs.get("batch_dims", 0)) != 0:
        raise NotImplementedError("Gather with batch_dims")
    return np.take(data, indices, axis=int(_scalar(axis)))


_OPS: dict[str, Callable[..., np.ndarray]] = {
    "Add": lambda a, b, _: a + b,
    "Subtract": lambda a, b, _: a - b,
    "Multiply": lambda a, b, _: a * b,
    "Divide": lambda a, b, _: a / b,
    "Maximum": lambda a, b, _: np.maximum(a, b),
    "Minimum": lambda a, b, _: np.minimum(a, b),
    "GreaterEqual": lambda a, b, _: a >= b,
    "Greater": lambda a, b, _: a > b,
    "Less": lambda a, b, _: a < b,
    "Equal": lambda a, b, _: a == b,
    "LogicalAnd": lambda a, b, _: np.logical_and(a, b),
    "LogicalNot": lambda a, _: np.logical_not(a),
    "Select": lambda c, a, b, _: np.where(c, a, b),
    "Convert": lambda x, attrs: x.astype(_DTYPES[attrs["destination_type"]]),
    "ShapeOf": lambda x, attrs: np.array(x.shape, dtype=_DTYPES[attrs.get("output_type", "i64")]),
    "Gather": _gather,
    "GatherND": _gather_nd,
    "Slice": lambda x, start, stop, step, *rest: _slice(
        x, start, stop, step, rest[0] if len(rest) > 1 else None
    ),
    "Concat": lambda *args: np.concatenate([np.atleast_1d(a) for a in args[:-1]], axis=int(args[-1]["axis"])),
    "Reshape": lambda x, shape, attrs: _reshape(x, shape, bool(attrs["special_zero"])),
    "Transpose": lambda x, order, _: np.transpose(x, [int(k) for k in order] or None),
    "Squeeze": lambda x, *rest: _squeeze(x, rest[0] if len(rest) > 1 else None),
    "Unsqueeze": lambda x, axes, _: _unsqueeze(x, axes),
    "Range": lambda start, stop, step, attrs: np.arange(
        _scalar(start), _scalar(stop), _scalar(step), dtype=_DTYPES[attrs.get("output_type", "i64")]
    ),
    "Broadcast": lambda x, shape, *rest: _broadcast(x, shape, rest[-1]),
    "MVN": lambda x, axes, attrs: _mvn(x, axes, attrs),
    "FakeQuantize": lambda x, lo, hi, olo, ohi, attrs: _fake_quantize(
        x, lo, hi, olo, ohi, int(attrs["levels"])
    ),
    "MatMul": _matmul,
    "Softmax": lambda x, attrs: _softmax(x, int(attrs["axis"])),
    "Gelu": lambda x, attrs: _gelu(x, attrs),
    "Sqrt": lambda x, _: np.sqrt(x),
    "Exp": lambda x, _: np.exp(x),
    "Tanh": lambda x, _: np.tanh(x),
}


def _gelu(x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    if str(attrs.get("approximation_mode", "ERF")).upper() == "TANH":
        return (
            0.5
            * x
            * (1.0 + np.tanh(np.float32(math.sqrt(2.0 / math.pi)) * (x + np.float32(0.044715) * x**3)))
        )
    return 0.5 * x * (1.0 + _erf(x * np.float32(1.0 / math.sqrt(2.0))))


def _run_op(kind: str, inputs: list[np.ndarray], attrs: dict[str, Any]) -> np.ndarray:
    op = _OPS.get(kind)
    if op is None:
        raise NotImplementedError(f"operation {kind}")
    return np.asarray(op(*inputs, attrs))


class QueryProgram:
    """A program written by :func:`export_program`, run with numpy.

    Args:
        folder: the program's folder (``program.json`` and ``constants.bin``).

    Raises:
        OSError: the files cannot be read. ValueError: they are not a program of this version.
    """

    def __init__(self, folder: Path):
        spec = json.loads((folder / "program.json").read_text(encoding="utf-8"))
        if not isinstance(spec, dict) or spec.get("version") != PROGRAM_VERSION:
            raise ValueError(f"{folder / 'program.json'} is not a query program of version {PROGRAM_VERSION}")
        with open(folder / "constants.bin", "rb") as handle:
            stat = os.fstat(handle.fileno())
            # Any write after the program was made (a damaged or half-copied cache) moves these.
            if [stat.st_size, stat.st_mtime_ns] != spec.get("constants_file"):
                raise ValueError(f"{folder / 'constants.bin'} is not the file its program was made with")
            self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if stat.st_size else b""
        self.constants = [
            np.frombuffer(
                self._map, dtype=np.dtype(c["dtype"]), count=math.prod(c["shape"]), offset=c["offset"]
            ).reshape(c["shape"])
            for c in spec["constants"]
        ]
        self.steps: list[dict[str, Any]] = spec["steps"]
        self.parameters: list[str] = spec["parameters"]
        self.output: list[Any] = spec["output"]

    def run(self, feed: dict[str, np.ndarray]) -> np.ndarray:
        """Return the model's output (last hidden states, float32 (batch, tokens, 384)) for ``feed``.

        ``feed`` maps each parameter name (``input_ids``, ``attention_mask``, ``token_type_ids``)
        to an int64 array (batch, tokens).
        """
        values: list[np.ndarray] = []

        def value(ref: list[Any]) -> np.ndarray:
            kind, key = ref
            if kind == "c":
                return self.constants[key]
            if kind == "p":
                return feed[key]
            return values[key]

        for step in self.steps:
            values.append(_run_op(step["op"], [value(r) for r in step["inputs"]], step["attrs"]))
        return value(self.output)


# -- making a program from the IR (needs openvino) --------------------------------------------


def export_program(model_xml: Path, folder: Path) -> Path:
    """Write the numpy program of the OpenVINO IR ``model_xml`` into ``folder``; return ``folder``.

    Every operation whose inputs are all constant is evaluated here (with this module's
    interpreter) and stored as a constant; the rest become the program's steps. Written into a
    temporary folder that is renamed into place, so a reader never sees half a program.

    Raises:
        ModelUnavailable: openvino cannot be imported.
        NotImplementedError: the IR holds an operation this interpreter does not know.
        OSError: the folder cannot be written.
    """
    from .minilm import import_openvino_runtime

    openvino = import_openvino_runtime()
    model = openvino.Core().read_model(str(model_xml))
    constants: list[np.ndarray] = []
    steps: list[dict[str, Any]] = []
    refs: dict[Any, list[Any]] = {}  # an op's output -> ("c", k) | ("p", name) | ("v", step)
    output: list[Any] | None = None

    def key_of(port: Any) -> Any:
        return (port.get_node().get_name(), port.get_index())  # get_name: unique per node

    for op in model.get_ordered_ops():
        kind = op.get_type_name()
        name = op.get_name()
        if kind == "Constant":
            refs[(name, 0)] = ["k", np.array(op.get_data())]
            continue
        if kind == "Parameter":
            refs[(name, 0)] = ["p", op.output(0).get_any_name()]
            continue
        sources = [refs[key_of(port.get_source_output())] for port in op.inputs()]
        if kind == "Result":
            output = sources[0]
            continue
        if op.get_output_size() != 1:
            raise NotImplementedError(f"operation {kind} with {op.get_output_size()} outputs")
        attrs = {
            k: (v if isinstance(v, (bool, int, float, str, list)) else str(v))
            for k, v in op.get_attributes().items()
        }
        if all(ref[0] == "k" for ref in sources):
            refs[(name, 0)] = ["k", _run_op(kind, [ref[1] for ref in sources], attrs)]
            continue
        steps.append({"op": kind, "inputs": sources, "attrs": attrs})
        refs[(name, 0)] = ["v", len(steps) - 1]
    if output is None:
        raise NotImplementedError("an IR without a Result")

    # Constants still referenced become numbered entries of constants.bin (8-byte aligned).
    index: dict[int, int] = {}

    def number(ref: list[Any]) -> list[Any]:
        if ref[0] != "k":
            return ref
        array = np.ascontiguousarray(ref[1])
        if id(array) not in index:
            index[id(array)] = len(constants)
            constants.append(array)
        return ["c", index[id(array)]]

    for step in steps:
        step["inputs"] = [number(r) for r in step["inputs"]]
    output = number(output)
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".query-program-", dir=folder.parent))
    table = []
    offset = 0
    with open(work / "constants.bin", "wb") as handle:
        for array in constants:
            pad = (-offset) % 8
            handle.write(b"\0" * pad)
            offset += pad
            table.append({"dtype": array.dtype.str, "shape": list(array.shape), "offset": offset})
            handle.write(array.tobytes())
            offset += array.nbytes
    parameters = [p.get_any_name() for p in model.inputs]
    stat = (work / "constants.bin").stat()
    spec = {
        "version": PROGRAM_VERSION,
        "parameters": parameters,
        "constants": table,
        "constants_file": [stat.st_size, stat.st_mtime_ns],
        "steps": steps,
        "output": output,
    }
    (work / "program.json").write_text(json.dumps(spec), encoding="utf-8")
    _check_against_openvino(openvino, model, QueryProgram(work))
    work.chmod(0o755)  # mkdtemp's 0o700 would hide it from the other users of a shared cache
    try:
        os.replace(work, folder)
    except OSError:
        if not (folder / "program.json").is_file():  # another process did not win the race
            raise
        shutil.rmtree(work, ignore_errors=True)
    for stale in folder.parent.glob("query-program-*"):  # of an earlier release or IR: 87 MB each
        if stale != folder:
            shutil.rmtree(stale, ignore_errors=True)
    now = time.time()
    for abandoned in folder.parent.glob(".query-program-*"):  # of an export killed part-way
        with contextlib.suppress(OSError):
            if now - abandoned.stat().st_mtime > _ABANDONED_S:
                shutil.rmtree(abandoned, ignore_errors=True)
    return folder


#: The probe :func:`export_program` runs both ways: [CLS], five wordpiece ids, [SEP].
_PROBE = np.array([[101, 20288, 3086, 2005, 2146, 5491, 102]], dtype=np.int64)


def _check_against_openvino(openvino: Any, model: Any, program: QueryProgram) -> None:
    """Raise ValueError unless the program's output for a probe is OpenVINO's (pooled cosine >= 0.999).

    Guards against an IR whose operations this interpreter reads otherwise than OpenVINO does.
    """
    feed = {
        "input_ids": _PROBE,
        "attention_mask": np.ones_like(_PROBE),
        "token_type_ids": np.zeros_like(_PROBE),
    }
    feed = {k: v for k, v in feed.items() if k in program.parameters}
    compiled = openvino.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    want = np.asarray(compiled(feed)[0])[0].mean(axis=0)
    got = program.run(feed)[0].mean(axis=0)
    cosine = float(want @ got / (np.linalg.norm(want) * np.linalg.norm(got) or 1.0))
    if not cosine >= 0.999:
        raise ValueError(f"the numpy program gives another vector than OpenVINO (cosine {cosine:.4f})")


def hidden_states(program: QueryProgram, windows: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Run each int64 wordpiece window alone (no padding); return float32 (tokens, 384) per window."""
    out = []
    for window in windows:
        ids = np.asarray(window, dtype=np.int64)[None, :]
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        feed = {k: v for k, v in feed.items() if k in program.parameters}
        hidden = program.run(feed)
        if hidden.dtype != np.float32 or hidden.shape != (1, ids.shape[1], 384):
            raise ValueError(
                f"the query program gave {hidden.dtype} {hidden.shape}, not float32 (1, {ids.shape[1]}, 384)"
            )
        out.append(hidden[0])
    return out


class ProgramEmbedder:
    """The default model's query side: the shipped int8 IR run by :class:`QueryProgram`.

    It meets the :class:`paperscope.index.embed.Embedder` protocol with the default embedder's
    ``model_id``, tokenizer, windows and pooling (masked mean per window, unit windows averaged
    per text), so its vectors stand for that model's: cosine to OpenVINO's own vectors of the
    same texts is at least 0.9995 (mean 0.9998; ``tests/index/test_query_model.py``). It is
    meant for queries: each window runs alone, about 7-16 ms for a query of 7-23 wordpieces on
    one core of this 2-core machine, against ~0.2 s to import and set up OpenVINO in a fresh
    process.

    Args:
        program: the loaded program. tokenizer: the model's ``tokenizers.Tokenizer``.
        model_id: the id of the default embedder's vectors (``minilm_model_id("int8", "openvino")``).
    """

    dim = 384
    languages = "en"

    def __init__(
        self,
        program: QueryProgram,
        tokenizer: Any,
        model_id: str,
        fallback: Callable[[], Any] | None = None,
        folder: Path | None = None,
    ):
        self.program = program
        #: The program's folder: removed when the program fails, so the next process remakes it.
        self.folder = folder
        self._failed = False
        self.tokenizer = tokenizer
        self.model_id = model_id
        self._fallback = fallback

    def embed_documents(
        self,
        texts: Sequence[str],
        progress: bool | Callable[[float], None] = False,
        on_done: Any = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Return float32 (n, 384) unit rows and int32 (n,) windows per text (zeros, 0 for an empty text).

        ``progress`` is ignored (a query takes milliseconds); ``on_done`` gets every text at the end.
        """
        from .minilm import text_windows
        from .pooling import normalise_rows, pool_windows

        windows, owner_list = text_windows(self.tokenizer, texts)
        if self._fallback is not None and sum(len(w) for w in windows) > MAX_WORDPIECES:
            return self._fallback().embed_documents(texts)
        if self._failed and self._fallback is not None:
            return self._fallback().embed_documents(texts)
        rows = np.zeros((len(windows), self.dim), dtype=np.float32)
        try:
            with np.errstate(over="raise", invalid="raise"):  # a damaged weight: an error, not a wrong vector
                for k, hidden in enumerate(hidden_states(self.program, windows)):
                    rows[k] = hidden.mean(axis=0)
        except Exception as exc:  # a damaged program: OpenVINO answers, the next search remakes it
            if self._fallback is None or self.folder is None:
                raise
            import logging

            logging.getLogger(__name__).warning(
                "the query program failed (%s); OpenVINO embeds the queries (the next search makes it again)",
                exc,
            )
            self._failed = True  # once per process: every later query goes to OpenVINO
            _remove(self.folder)
            return self._fallback().embed_documents(texts)
        vectors, counts = pool_windows(
            normalise_rows(rows),
            np.asarray(owner_list, dtype=np.int64),
            np.arange(len(texts), dtype=np.int64),
        )
        if on_done is not None:
            on_done(np.arange(len(texts), dtype=np.int64), vectors, counts)
        return vectors, counts

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Return float32, shape (len(texts), 384), rows L2-normalised."""
        return self.embed_documents(texts)[0]


def _remove(path: Path) -> None:
    """Delete a program folder (or whatever stands at its path); never raises."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()


def load_program_embedder(cache: Path, fallback: Callable[[], Any] | None = None) -> ProgramEmbedder | None:
    """Return the query embedder of the shipped IR, making its program under ``cache`` first if needed.

    ``fallback`` returns the embedder (OpenVINO's) that embeds texts longer than
    :data:`MAX_WORDPIECES`; it is called only for such a text.

    Making it (once per machine and release: :func:`export_program`, about 0.25 s plus
    OpenVINO's import) needs openvino; reading it needs numpy alone. None when this install has
    no shipped IR, or the program cannot be made or read (no openvino, a read-only cache, an
    operation this interpreter lacks): the caller then embeds queries with OpenVINO as before.
    """
    from .minilm import _tokenizer_file, load_tokenizer, minilm_model_id, packaged_openvino_model

    model_xml = packaged_openvino_model()
    if model_xml is None:
        return None
    folder = program_dir(model_xml, cache)
    try:
        try:
            program = QueryProgram(folder)
        except Exception:  # absent, or left damaged: made again
            _remove(folder)
            program = QueryProgram(export_program(model_xml, folder))
        tokenizer = load_tokenizer(_tokenizer_file())
    except Exception as exc:  # any failure leaves queries to OpenVINO; never a failed search
        import logging

        logging.getLogger(__name__).debug("no numpy query program (%s): queries use OpenVINO", exc)
        return None
    return ProgramEmbedder(program, tokenizer, minilm_model_id("int8", "openvino"), fallback, folder)
