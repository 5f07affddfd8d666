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

import hashlib
import logging
import re
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import InputError

__all__ = [
    "Embedder",
    "EMBEDDERS",
    "DEFAULT_EMBEDDER",
    "get_embedder",
    "register_embedder",
    "FakeEmbedder",
    "normalise_rows",
    "embedder_languages",
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

    def embed_documents(self, texts: Sequence[str], progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(vectors, n_chunks)``: vectors as :meth:`embed`; int32 (len(texts),) windows per text."""
        ...


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """Return float32 ``matrix`` with each row scaled to unit L2 norm (all-zero rows stay zero)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms == 0, 1, norms)).astype(np.float32)


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
    ``calls`` counts the texts embedded, so tests can check what was (not) re-embedded.
    """

    languages = "en"

    def __init__(self, dim: int = 384, window: int = 64):
        self.dim = dim
        self.window = window
        self.model_id = f"fake-bow-{dim}"
        self.calls = 0

    def _vector(self, words: list[str]) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        for word in words:
            bucket = int.from_bytes(hashlib.md5(word.encode("utf-8")).digest()[:4], "little") % self.dim
            vector[bucket] += 1.0
        return vector

    def embed_documents(self, texts: Sequence[str], progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
        self.calls += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        n_chunks = np.zeros(len(texts), dtype=np.int32)
        for i, text in enumerate(texts):
            words = _WORD_RE.findall(text.lower())
            if not words:
                continue
            windows = split_evenly(len(words), self.window)
            chunks = [normalise_rows(self._vector(words[a:b])[None, :])[0] for a, b in windows]
            out[i] = np.mean(chunks, axis=0)
            n_chunks[i] = len(windows)
        return normalise_rows(out), n_chunks

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        return self.embed_documents(texts, progress)[0]


def split_evenly(n_tokens: int, window: int) -> list[tuple[int, int]]:
    """Return ``(start, end)`` spans that cover ``n_tokens`` in the fewest windows of equal size.

    Equal windows (rather than full windows and a short tail) give each chunk the same weight
    when chunk vectors are averaged. ``split_evenly(10, 4)`` is ``[(0, 3), (3, 7), (7, 10)]``.
    """
    if n_tokens <= 0:
        return []
    count = -(-n_tokens // window)
    bounds = [round(i * n_tokens / count) for i in range(count + 1)]
    return list(zip(bounds[:-1], bounds[1:], strict=True))


def _minilm() -> Embedder:
    from ..errors import ModelUnavailable
    from .minilm import MiniLMEmbedder

    try:
        return MiniLMEmbedder(precision="int8", runtime="openvino")
    except ModelUnavailable as exc:
        # The OpenVINO extras or the bundled calibration abstracts are missing: onnxruntime's
        # dynamic int8 still works (about 3x slower here, README), with vectors of its own model_id.
        logging.getLogger(__name__).warning("%s; using onnxruntime dynamic int8 instead", exc)
        return MiniLMEmbedder(precision="int8", runtime="onnxruntime")


def _minilm_fp32() -> Embedder:
    from .minilm import MiniLMEmbedder

    return MiniLMEmbedder(precision="fp32")


#: Short name → factory. ``minilm`` is all-MiniLM-L6-v2 (static int8 on OpenVINO, else dynamic
#: int8 on onnxruntime), ``minilm-fp32`` the same model unquantised, ``fake`` the test embedder.
EMBEDDERS: dict[str, Callable[[], Embedder]] = {
    "minilm": _minilm,
    "minilm-fp32": _minilm_fp32,
    "fake": FakeEmbedder,
}

#: Languages of the registered models, known without loading them (``"en"`` or ``"multi"``).
LANGUAGES: dict[str, str] = {"minilm": "en", "minilm-fp32": "en", "fake": "en"}

_CACHE: dict[str, Embedder] = {}


def embedder_languages(name: str) -> str:
    """Return ``"en"`` or ``"multi"`` for a registered embedder, loading it only if not listed."""
    return LANGUAGES.get(name) or get_embedder(name).languages


def register_embedder(name: str, factory: Callable[[], Embedder]) -> None:
    """Add (or replace) an embedder factory under ``name``; the next ``get_embedder(name)`` uses it."""
    EMBEDDERS[name] = factory
    _CACHE.pop(name, None)


def get_embedder(name: str = DEFAULT_EMBEDDER) -> Embedder:
    """Return the embedder registered under ``name``, loading it once per process.

    Raises:
        InputError: ``name`` is not registered (the message lists the valid names).
        ModelUnavailable: the model's package or runtime is not installed.
    """
    if name not in EMBEDDERS:
        raise InputError(f"unknown embedder {name!r}; choose one of: {', '.join(sorted(EMBEDDERS))}")
    if name not in _CACHE:
        _CACHE[name] = EMBEDDERS[name]()
    return _CACHE[name]
