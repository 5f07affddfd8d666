"""The text part of the area model: TF-IDF features of a paper's fields and a linear classifier.

A linear SVM over TF-IDF features of three fields: abstract (word 1–2-grams), title (1–2-grams)
and keywords (whole phrases and words), each L2-normalised and weighted (``FIELD_WEIGHTS``). It
is trained by :func:`paperscope.extract.area_train.train_area_model` and shipped as
``data/area_model.npz`` (vocabulary, idf, float16 weights, and the optional embedding block of
:mod:`.area_embedding`). Inference needs numpy only.
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import numpy as np

from .area_embedding import EmbeddingBlock

__all__ = ["FIELDS", "FIELD_WEIGHTS", "AreaModel", "analyze", "load_area_model"]

#: Weight of each field's L2-normalised TF-IDF block (abstract, title, keyword phrases, keyword words).
FIELD_WEIGHTS = (1.0, 0.5, 0.5, 0.5)
FIELDS = ("abstract", "title", "kw_phrases", "kw_words")
_TOKEN_RE = re.compile(r"(?u)\b\w\w+\b")


def analyze(field: str, text: str, stop_words: frozenset[str]) -> list[str]:
    """Return the features of one field of a paper (the analyzer shared by training and inference).

    ``abstract`` and ``title``: lower-cased word tokens (two or more word characters, as
    scikit-learn's default token pattern) without stop words, plus their bigrams.
    ``kw_phrases``: each comma- or semicolon-separated keyword phrase; ``kw_words``: keyword tokens.
    """
    if not text:
        return []
    if field == "kw_phrases":
        return [p.strip().lower() for p in re.split(r"[,;]", text) if p.strip()]
    tokens = [t for t in _TOKEN_RE.findall(text.lower()) if t not in stop_words]
    if field == "kw_words":
        return tokens
    return tokens + [f"{a} {b}" for a, b in zip(tokens, tokens[1:], strict=False)]


class AreaModel:
    """A trained linear area classifier over TF-IDF features (numpy only at inference).

    Attributes:
        classes: area labels, shape (n_classes,).
        coef: float32, shape (n_classes, n_features): one weight row per area.
        intercept: float32, shape (n_classes,).
        temperature: softmax temperature turning decision values into probabilities.
        embedding: the optional embedding block (:class:`.area_embedding.EmbeddingBlock`).

    """

    def __init__(
        self,
        vocabularies: Sequence[dict[str, int]],
        idfs: Sequence[np.ndarray],
        coef: np.ndarray,
        intercept: np.ndarray,
        classes: Sequence[str],
        stop_words: frozenset[str],
        temperature: float = 1.0,
        embedding: EmbeddingBlock | None = None,
    ):
        self.vocabularies = list(vocabularies)
        self.idfs = list(idfs)
        self.offsets = np.cumsum([0] + [len(v) for v in self.vocabularies])
        self.coef = coef.astype(np.float32)
        self.intercept = intercept.astype(np.float32)
        self.classes = [str(c) for c in classes]
        self.stop_words = stop_words
        self.temperature = temperature
        self.embedding = embedding

    def features(self, abstract: str, title: str = "", keywords: str = "") -> tuple[np.ndarray, np.ndarray]:
        """Return the (indices, values) of a paper's sparse feature vector (float32 values)."""
        texts = (abstract, title, keywords, keywords)
        indices: list[int] = []
        values: list[float] = []
        for f, (field, text) in enumerate(zip(FIELDS, texts, strict=True)):
            counts: dict[int, int] = {}
            vocab = self.vocabularies[f]
            for token in analyze(field, text, self.stop_words):
                j = vocab.get(token)
                if j is not None:
                    counts[j] = counts.get(j, 0) + 1
            if not counts:
                continue
            idx = np.fromiter(counts.keys(), dtype=np.int64)
            tf = np.fromiter(counts.values(), dtype=np.float32)
            vals = (1.0 + np.log(tf)) * self.idfs[f][idx]  # sublinear tf × idf (scikit-learn's smooth idf)
            vals *= FIELD_WEIGHTS[f] / max(float(np.linalg.norm(vals)), 1e-12)
            indices.extend((idx + self.offsets[f]).tolist())
            values.extend(vals.tolist())
        return np.asarray(indices, dtype=np.int64), np.asarray(values, dtype=np.float32)

    def decision(self, abstract: str, title: str = "", keywords: str = "") -> np.ndarray:
        """Return the decision value of each class, float32, shape (n_classes,)."""
        idx, vals = self.features(abstract, title, keywords)
        return self.coef[:, idx] @ vals + self.intercept if len(idx) else self.intercept.copy()

    def proba(self, abstract: str, title: str = "", keywords: str = "") -> np.ndarray:
        """Return class probabilities (softmax of decision values / temperature), shape (n_classes,)."""
        z = self.decision(abstract, title, keywords) / self.temperature
        z = np.exp(z - z.max())
        return z / z.sum()

    def prune(self, max_features: int) -> AreaModel:
        """Return a copy that keeps the ``max_features`` features with the largest weight norm.

        Dropped features are rare n-grams with near-zero weights; field vectors are normalised over
        the kept features only, so pruning changes scores slightly (measured in ``evaluation.cards``).
        """
        norms = np.linalg.norm(self.coef, axis=0)
        keep = np.sort(np.argsort(-norms, kind="stable")[:max_features])
        vocabularies, idfs = [], []
        for f, vocab in enumerate(self.vocabularies):
            lo, hi = self.offsets[f], self.offsets[f + 1]
            local = keep[(keep >= lo) & (keep < hi)] - lo
            by_index = {i: w for w, i in vocab.items()}
            vocabularies.append({by_index[int(i)]: n for n, i in enumerate(local)})
            idfs.append(self.idfs[f][local])
        return AreaModel(
            vocabularies,
            idfs,
            self.coef[:, keep],
            self.intercept,
            self.classes,
            self.stop_words,
            self.temperature,
            self.embedding,
        )

    def save(self, path: Path) -> None:
        """Write the model to ``path`` (``.npz``, compressed), through a temp file renamed into place."""
        arrays: dict[str, np.ndarray] = {
            "coef": self.coef.astype(np.float16),
            "intercept": self.intercept,
            "classes": _pack(self.classes),
            "stop_words": _pack(sorted(self.stop_words)),
            "temperature": np.asarray([self.temperature], dtype=np.float32),
        }
        for f, (vocab, idf) in enumerate(zip(self.vocabularies, self.idfs, strict=True)):
            arrays[f"vocab{f}"] = _pack(sorted(vocab, key=vocab.__getitem__))
            arrays[f"idf{f}"] = idf.astype(np.float16)
        if self.embedding is not None:
            arrays.update(self.embedding.arrays())
        tmp = path.with_suffix(".tmp.npz")
        buf = io.BytesIO()
        np.savez_compressed(buf, **arrays)
        tmp.write_bytes(buf.getvalue())
        tmp.replace(path)

    @classmethod
    def load(cls, source: Path | io.BytesIO) -> AreaModel:
        """Read a model written by :meth:`save`."""
        with np.load(source) as data:
            vocabularies = []
            idfs = []
            for f in range(len(FIELDS)):
                words = _unpack(data[f"vocab{f}"])
                vocabularies.append({w: i for i, w in enumerate(words)})
                idfs.append(data[f"idf{f}"].astype(np.float32))
            return cls(
                vocabularies,
                idfs,
                data["coef"].astype(np.float32),
                data["intercept"],
                _unpack(data["classes"]),
                frozenset(_unpack(data["stop_words"])),
                float(data["temperature"][0]),
                EmbeddingBlock.from_arrays(data),
            )


def _pack(words: Sequence[str]) -> np.ndarray:
    return np.frombuffer("\n".join(words).encode("utf-8"), dtype=np.uint8)


def _unpack(array: np.ndarray) -> list[str]:
    text = array.tobytes().decode("utf-8")
    return text.split("\n") if text else []


@functools.cache
def load_area_model() -> AreaModel:
    """Return the bundled area model (``data/area_model.npz``), loaded once per process.

    Raises:
        FileNotFoundError: the package was installed without its data files.

    """
    blob = resources.files("paperscope.extract").joinpath("data", "area_model.npz").read_bytes()
    return AreaModel.load(io.BytesIO(blob))
