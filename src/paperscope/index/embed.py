"""Text embedders: the Protocol every embedder meets, a registry of them, and a fake for tests.

Every embedder turns texts into float32 rows of unit length, so the dot product of two rows
is their cosine similarity. Texts longer than the model's window are cut into equal windows,
embedded one by one and mean-pooled (then re-normalised); ``embed_documents`` says how many
windows each text took, so callers can record that chunking happened (case 16 of CASES.md).

Stable API for other stages::

    from paperscope.index.embed import get_embedder
    vectors = get_embedder("minilm").embed(["a text", "another"])  # float32, (2, 384)
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import logging
import os
import re
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import InputError
from .pooling import DoneCallback, normalise_rows, split_evenly

__all__ = [
    "Embedder",
    "DoneCallback",
    "EMBEDDERS",
    "DEFAULT_EMBEDDER",
    "get_embedder",
    "get_query_embedder",
    "register_embedder",
    "FakeEmbedder",
    "normalise_rows",
    "embedder_languages",
    "embedder_is_ready",
    "query_embedder_loaded",
    "embedder_model_id",
    "embedder_for_device",
    "DEVICES",
    "GPU_EMBEDDERS",
    "GPU_RATES",
    "prepare_embedder",
    "preload_embedder",
    "join_at_exit",
    "split_evenly",
    "is_mostly_non_latin",
]

#: The embedder used when none is named: all-MiniLM-L6-v2, int8 on OpenVINO (see ``minilm.py``).
DEFAULT_EMBEDDER = "minilm"


@runtime_checkable
class Embedder(Protocol):
    """What an embedder offers.

    Attributes:
        model_id: identifies the vectors (model, runtime and pooling); stored vectors are keyed by it.
        dim: the length of each vector.
        languages: ``"en"`` for an English-only model, ``"multi"`` for a multilingual one.
    """

    model_id: str
    dim: int
    languages: str

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Return float32, shape (len(texts), dim), rows L2-normalised (an empty text gives zeros)."""
        ...

    def embed_documents(
        self,
        texts: Sequence[str],
        progress: bool | Callable[[float], None] = False,
        on_done: DoneCallback | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(vectors, n_chunks)``: vectors as :meth:`embed`; int32 (len(texts),) windows per text.

        ``progress``: True for the embedder's own bar, or a callable it may call with the
        fraction done (0..1); an embedder may ignore it.
        ``on_done``: when given, called in the calling thread after each encoded batch, before
        the method returns, with ``(indices, vectors, n_chunks)`` of the texts finished by it
        (int64 (k,) into ``texts``; float32 (k, dim) and int32 (k,), the very values returned
        for them), each text once; so a caller can store them before a long call ends.
        Optional: ``ensure_vectors`` stores after the call for an embedder without it.
        """
        ...


_WORD_RE = re.compile(r"[^\W_]+")


_LETTER_RE = re.compile(r"[^\W\d_]")
# Letters outside Basic Latin, Latin-1, Latin Extended-A/B and Latin Extended Additional.
_NON_LATIN_LETTER_RE = re.compile(r"[^\W\d_A-Za-z\u00C0-\u024F\u1E00-\u1EFF]")


def is_mostly_non_latin(text: str, sample: int = 400) -> bool:
    """Return True when most letters in the first ``sample`` characters are not Latin script.

    Chinese, Cyrillic, Arabic or Greek abstracts are mostly unknown wordpieces to an
    English-only model (case 17 of CASES.md). Counted with two compiled regexes: ingest calls
    this for every new paper.
    """
    head = text[:sample]
    if head.isascii():
        return False
    letters = len(_LETTER_RE.findall(head))
    return letters > 0 and len(_NON_LATIN_LETTER_RE.findall(head)) * 2 > letters


class FakeEmbedder:
    """A deterministic, instant embedder for tests: hashed bag of words (after llm's ``EmbedDemo``).

    Each lower-cased word adds 1 to one of ``dim`` buckets chosen by its MD5, so texts sharing
    words have a high cosine and the vectors never change between runs. Texts of more than
    ``window`` words are split into equal windows that are pooled like the real model's.
    ``calls`` counts the texts embedded, so tests can check what was (not) re-embedded. Texts
    are encoded ``batch_size`` at a time, each batch handed to ``on_done`` as it is finished.
    """

    languages = "en"

    def __init__(self, dim: int = 384, window: int = 64, batch_size: int = 32):
        self.dim = dim
        self.window = window
        self.batch_size = batch_size
        self.model_id = f"fake-bow-{dim}"
        self.calls = 0

    def _vector(self, words: list[str]) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        for word in words:
            bucket = int.from_bytes(hashlib.md5(word.encode("utf-8")).digest()[:4], "little") % self.dim
            vector[bucket] += 1.0
        return vector

    def embed_documents(
        self,
        texts: Sequence[str],
        progress: bool | Callable[[float], None] = False,
        on_done: DoneCallback | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        n_chunks = np.zeros(len(texts), dtype=np.int32)
        for start in range(0, len(texts), self.batch_size):
            end = min(start + self.batch_size, len(texts))
            self.calls += end - start
            for i in range(start, end):
                words = _WORD_RE.findall(texts[i].lower())
                if not words:
                    continue
                windows = split_evenly(len(words), self.window)
                chunks = [normalise_rows(self._vector(words[a:b])[None, :])[0] for a, b in windows]
                out[i] = np.mean(chunks, axis=0)
                n_chunks[i] = len(windows)
            out[start:end] = normalise_rows(out[start:end])
            if on_done is not None:
                on_done(
                    np.arange(start, end, dtype=np.int64), out[start:end].copy(), n_chunks[start:end].copy()
                )
        return out, n_chunks

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        return self.embed_documents(texts, progress)[0]


def _minilm() -> Embedder:
    from ..errors import ModelUnavailable
    from .minilm import ONNX_INSTALL, MiniLMEmbedder, onnx_runtime_installed

    try:
        return MiniLMEmbedder(precision="int8", runtime="openvino")
    except ModelUnavailable as exc:
        # No shipped IR (a source tree) and the calibrate extra or the bundled calibration
        # abstracts are missing: onnxruntime's dynamic int8 still works (about 3x slower here,
        # README), with vectors of its own model_id, when the onnx extra is installed.
        if not onnx_runtime_installed():
            raise ModelUnavailable(f"{exc}; or, for the onnxruntime fallback: {ONNX_INSTALL}") from None
        logging.getLogger(__name__).warning("%s; using onnxruntime dynamic int8 instead", exc)
        return MiniLMEmbedder(precision="int8", runtime="onnxruntime")


def _minilm_is_ready() -> bool:
    from .minilm import openvino_model_is_prepared

    if not _openvino_installed():
        return True  # the onnxruntime fallback quantises in seconds
    return openvino_model_is_prepared()


def _prepare_minilm(progress: bool) -> None:
    from ..errors import ModelUnavailable
    from .minilm import prepare_openvino_model

    try:
        prepare_openvino_model(progress=progress)
    except ModelUnavailable:
        pass  # loading falls back to onnxruntime, with its own warning


def _minilm_fp32() -> Embedder:
    from .minilm import MiniLMEmbedder

    return MiniLMEmbedder(precision="fp32")


def _minilm_cuda() -> Embedder:
    from .torch_minilm import TorchMiniLMEmbedder

    return TorchMiniLMEmbedder(device="cuda")


def _minilm_torch() -> Embedder:
    from .torch_minilm import TorchMiniLMEmbedder

    return TorchMiniLMEmbedder(device="cpu")


#: Short name → factory. ``minilm`` is all-MiniLM-L6-v2 (static int8 on OpenVINO, else dynamic
#: int8 on onnxruntime), ``minilm-fp32`` the same model unquantised (on onnxruntime: the ``onnx``
#: extra), ``minilm-cuda`` the same weights on torch on a CUDA device in fp16 (``--device cuda``:
#: the ``gpu`` extra), ``minilm-torch`` that code path on the CPU in fp32, ``fake`` the test embedder.
EMBEDDERS: dict[str, Callable[[], Embedder]] = {
    "minilm": _minilm,
    "minilm-fp32": _minilm_fp32,
    "minilm-cuda": _minilm_cuda,
    "minilm-torch": _minilm_torch,
    "fake": FakeEmbedder,
    "fake-cuda": FakeEmbedder,
}
#: Embedders that run on a GPU: ``build --engine ray`` gives each of their actors one GPU
#: (``num_gpus=1``). ``fake-cuda`` is the fake embedder standing in for one in tests: its
#: vectors are ``fake``'s, and the actor it runs in holds a GPU of the cluster's resources.
GPU_EMBEDDERS = frozenset({"minilm-cuda", "fake-cuda"})
#: Planning rates of the GPU embedders in abstracts/s per GPU (the plan ``build`` prints):
#: ``minilm-cuda`` end to end on one H200 with 16 tokenising cores (issue 28's measurement).
GPU_RATES = {"minilm-cuda": 8_000.0, "fake-cuda": 8_000.0}
#: ``--device`` values (``embed``, ``ingest``, ``build``).
DEVICES = ("auto", "cpu", "cuda")

#: Name → (is its one-off model preparation done?, do it now with or without progress lines).
#: Embedders missing here need no preparation (the fake one, the fp32 reference).
PREPARATION: dict[str, tuple[Callable[[], bool], Callable[[bool], None]]] = {
    "minilm": (_minilm_is_ready, _prepare_minilm),
}

#: Languages of the registered models, known without loading them (``"en"`` or ``"multi"``).
LANGUAGES: dict[str, str] = {
    "minilm": "en",
    "minilm-fp32": "en",
    "minilm-cuda": "en",
    "minilm-torch": "en",
    "fake": "en",
    "fake-cuda": "en",
}

_CACHE: dict[str, Embedder] = {}
#: Name → the embedder of its queries (:func:`get_query_embedder`), loaded once per process.
_QUERY_CACHE: dict[str, Embedder] = {}
_LOADING = threading.RLock()
#: Embedders whose preparation was seen done in this process (it is never undone while it runs).
_READY: set[str] = set()


def embedder_languages(name: str) -> str:
    """Return ``"en"`` or ``"multi"`` for a registered embedder, loading it only if not listed."""
    return LANGUAGES.get(name) or get_embedder(name).languages


def _openvino_installed() -> bool:
    """Return True when the default int8 runtime can run: OpenVINO, and the shipped IR or NNCF to make one."""
    from importlib.util import find_spec

    from .minilm import packaged_openvino_model

    if find_spec("openvino") is None:
        return False
    return packaged_openvino_model() is not None or find_spec("nncf") is not None


def embedder_model_id(name: str) -> str:
    """Return the ``model_id`` that ``get_embedder(name)`` would store, without loading the model.

    Raises:
        InputError: ``name`` is not registered.
    """
    from .minilm import minilm_model_id, torch_model_id

    known = {
        "minilm": lambda: minilm_model_id("int8", "openvino" if _openvino_installed() else "onnxruntime"),
        "minilm-fp32": lambda: minilm_model_id("fp32", "onnxruntime"),
        "minilm-cuda": lambda: torch_model_id("fp16"),
        "minilm-torch": lambda: torch_model_id("fp32"),
    }
    if name in _CACHE or name not in known:
        return get_embedder(name).model_id
    return known[name]()


def embedder_for_device(name: str, device: str) -> str:
    """Return the embedder that runs ``name``'s model on ``device`` (``auto``, ``cpu`` or ``cuda``).

    ``cuda`` is all-MiniLM-L6-v2 on torch (``minilm-cuda``, fp16); ``cpu`` the default int8
    model for the MiniLM embedders; ``auto`` is ``cuda`` for the default embedder when torch is
    installed and sees a CUDA device (that check imports torch, ~1-2 s, only when torch is
    installed), else ``name`` unchanged. Other embedders (``fake``) run where they run.

    Raises:
        InputError: ``device`` is unknown, or ``cuda`` was asked of an embedder without a GPU path.
    """
    if device not in DEVICES:
        raise InputError(f"unknown device {device!r}; choose one of: {', '.join(DEVICES)}")
    minilms = ("minilm", "minilm-cuda", "minilm-torch")
    if device == "cpu":
        return {"minilm-cuda": "minilm", "fake-cuda": "fake"}.get(name, name)
    if device == "cuda":
        if name in ("fake", "fake-cuda"):
            return "fake-cuda"
        if name not in minilms:
            raise InputError(f"--device cuda runs all-MiniLM-L6-v2; the embedder {name!r} has no GPU path")
        return "minilm-cuda"
    if name == "minilm":
        from .torch_minilm import cuda_available

        if cuda_available():
            return "minilm-cuda"
    return name


def embedder_is_ready(name: str) -> bool:
    """Return True when ``name`` can embed a query without a one-off preparation first.

    False means loading it would first make its int8 model (about a minute): a search then
    answers from BM25 and says to run ``paperscope embed`` instead of waiting silently.
    """
    if name in _CACHE or name in _READY or name not in PREPARATION:
        return True
    if PREPARATION[name][0]():
        _READY.add(name)
        return True
    return False


def query_embedder_loaded(name: str) -> bool:
    """Return True when :func:`get_query_embedder` has ``name``'s query embedder loaded already."""
    return name in _QUERY_CACHE


def prepare_embedder(name: str, progress: bool = False) -> None:
    """Make ``name``'s one-off model files now (int8 calibration), showing it when ``progress``.

    A no-op for embedders that need none or are already prepared.
    """
    if name in PREPARATION and not PREPARATION[name][0]():
        PREPARATION[name][1](progress)


def register_embedder(name: str, factory: Callable[[], Embedder]) -> None:
    """Add (or replace) an embedder factory under ``name``; the next ``get_embedder(name)`` uses it."""
    EMBEDDERS[name] = factory
    _CACHE.pop(name, None)
    _QUERY_CACHE.pop(name, None)


def get_embedder(name: str = DEFAULT_EMBEDDER) -> Embedder:
    """Return the embedder registered under ``name``, loading it once per process.

    Raises:
        InputError: ``name`` is not registered (the message lists the valid names).
        ModelUnavailable: the model's package or runtime is not installed.
    """
    if name not in EMBEDDERS:
        raise InputError(f"unknown embedder {name!r}; choose one of: {', '.join(sorted(EMBEDDERS))}")
    with _LOADING:  # a preloading thread and a search may ask at once: load once
        if name not in _CACHE:
            _CACHE[name] = EMBEDDERS[name]()
        return _CACHE[name]


def get_query_embedder(name: str = DEFAULT_EMBEDDER) -> Embedder:
    """Return the embedder that embeds a query for the vectors of ``name``, loading it once per process.

    For the default model (``minilm`` on OpenVINO with the shipped IR) that is the same IR run
    by numpy (:class:`paperscope.index.query_model.ProgramEmbedder`: same model id, cosine to
    OpenVINO's vectors >= 0.9995), which a fresh process loads in milliseconds instead of the
    ~0.2 s of OpenVINO's import and first inference; its program is made on first use (needs
    OpenVINO, once per machine and release). A query longer than
    :data:`paperscope.index.query_model.MAX_WORDPIECES` wordpieces is embedded by OpenVINO
    (loaded then), where it is faster. Every other embedder, and ``minilm`` when
    ``$PAPERSCOPE_QUERY_MODEL`` is ``openvino`` or the program cannot be had, embeds its own
    queries (:func:`get_embedder`), and so does a web server (``minilm.PARALLEL_QUERIES``), whose
    OpenVINO model is loaded once and serves concurrent searches faster.

    Raises:
        InputError: as :func:`get_embedder`, or ``$PAPERSCOPE_QUERY_MODEL`` is neither value.
        ModelUnavailable: as :func:`get_embedder`.
    """
    setting = (os.environ.get("PAPERSCOPE_QUERY_MODEL") or "numpy").strip().lower()
    if setting not in ("numpy", "openvino"):
        raise InputError(f"PAPERSCOPE_QUERY_MODEL must be numpy or openvino, not {setting!r}")
    with _LOADING:
        if name not in _QUERY_CACHE:
            embedder: Embedder | None = None
            if (
                EMBEDDERS.get(name) is _minilm
                and setting == "numpy"
                and not _serving()
                and _openvino_installed()
            ):
                from ..config import cache_dir
                from .query_model import load_program_embedder

                embedder = load_program_embedder(cache_dir(), fallback=lambda: get_embedder(name))
            _QUERY_CACHE[name] = embedder if embedder is not None else get_embedder(name)
        return _QUERY_CACHE[name]


def _serving() -> bool:
    """True in a web server (``minilm.PARALLEL_QUERIES``): its loaded OpenVINO model embeds queries.

    The numpy program runs ~350 small operations per query, each taking the GIL: with 50
    requests at once a server answered 55 searches/s with it against 84/s with OpenVINO
    (ICLR 2026, ``bench/serve_load.py --mix search=1``, same run), and its paced p99 went
    from 0.24 s to 8.7 s. A server pays OpenVINO's load once, not per search.
    """
    import sys

    minilm = sys.modules.get(f"{__package__}.minilm")
    return bool(minilm is not None and getattr(minilm, "PARALLEL_QUERIES", False))


def preload_embedder(name: str, query: bool = False) -> threading.Thread | None:
    """Start loading ``name`` on a daemon thread (a fresh CLI search starts it first thing).

    ``query``: load the embedder of its queries (:func:`get_query_embedder`), as a search needs,
    and embed one tiny text with it, so its weights are paged in off the search's critical path.
    Nothing is started when the embedder would first need its one-off preparation (a search
    then answers from BM25) or is already loaded. Errors are left for the caller's own
    :func:`get_embedder` call to raise with its message.

    Returns:
        The thread, or None when nothing was started.
    """
    loaded = _QUERY_CACHE if query else _CACHE
    if name in loaded or name not in EMBEDDERS or not embedder_is_ready(name):
        return None

    def load() -> None:
        with contextlib.suppress(Exception):
            if query:
                get_query_embedder(name).embed(["a"])
                return
            embedder = get_embedder(name)
            prime = getattr(embedder, "prime_query_path", None)
            if prime is not None:  # the first inference's set-up, off the search's critical path
                prime()

    thread = threading.Thread(target=load, name=f"paperscope-load-{name}", daemon=True)
    thread.start()
    join_at_exit(thread)
    return thread


#: Seconds the interpreter waits at exit for a model still loading (it takes about 0.3 s).
EXIT_WAIT_S = 60.0


#: Model-loading threads still to wait for at exit (a server's searches start many; done ones drop out).
_LOADERS: weakref.WeakSet[threading.Thread] = weakref.WeakSet()


def join_at_exit(thread: threading.Thread) -> None:
    """Wait for ``thread`` (at most ``EXIT_WAIT_S``) before the interpreter exits.

    A daemon thread still inside native model code (OpenVINO's compile) when the interpreter
    finalises aborted the process ("terminate called without an active exception", exit status
    134): a search that never needed the model it preloaded (a library without vectors, answered
    by BM25) exited that way after printing its results.
    """
    _LOADERS.add(thread)


@atexit.register
def _join_loaders() -> None:
    for thread in list(_LOADERS):
        thread.join(EXIT_WAIT_S)
