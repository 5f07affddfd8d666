"""Primary area: one of the 21 ICLR 2026 areas, with a confidence.

How the two parts are combined:

* **Seen areas (12).** A linear SVM (Crammer–Singer-free one-vs-rest ``LinearSVC``, scikit-learn)
  over TF-IDF features of three fields: abstract (word 1–2-grams), title (1–2-grams) and keywords
  (whole phrases and words), each L2-normalised and weighted (``FIELD_WEIGHTS``). It is trained on
  the OpenReview labels of ``shared/data/iclr2026-primary-area`` by :func:`train_area_model` and
  shipped as ``data/area_model.npz`` (vocabulary, idf, float16 weights). Decision values become
  probabilities by a softmax whose temperature is fitted on a held-out fifth at training time.
* **Unseen areas (9).** A lexicon per area (``data/areas.txt``, written by us: "hypergraph",
  "causal discovery", "robotic manipulation" …) gives a zero-shot score: the weighted count of
  distinct terms present. The best unseen area replaces the model's answer when its score reaches
  ``ZERO_SHOT_MIN_SCORE`` and beats the model's confidence rule (see :func:`predict_area`).
* **Embedding (optional).** When the caller passes the paper's vector of the embedder the model
  was trained with, a second linear model over it (:mod:`.area_embedding`) is fused with the text
  model's probabilities; without one (or with a vector of another model) the text model answers
  alone. Cards are built before vectors exist, so the card's area is text-only at first and
  ``Library.refine_areas`` re-predicts it once the paper has a vector.
* **Source label.** A record that carries its own area (``Paper.source_area``) keeps it, with
  confidence 1.0.

Papers with no title or keywords (the ICML text lists) are classified from the abstract alone;
the model is trained on papers both with and without those fields for that reason.
"""

from __future__ import annotations

import functools
import io
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from .area_embedding import EmbeddingBlock

__all__ = [
    "AREAS",
    "AreaModel",
    "AreaPrediction",
    "FIELD_WEIGHTS",
    "ZERO_SHOT_MIN_SCORE",
    "analyze",
    "lexicon_scores",
    "load_area_model",
    "predict_area",
    "train_area_model",
]

#: Weight of each field's L2-normalised TF-IDF block (abstract, title, keyword phrases, keyword words).
FIELD_WEIGHTS = (1.0, 0.5, 0.5, 0.5)
#: An unseen area needs at least this lexicon score (weighted distinct terms) to be chosen.
ZERO_SHOT_MIN_SCORE = 6.0
#: ... and the model's own top probability must be below this, unless the score is twice the minimum.
ZERO_SHOT_MAX_MODEL_CONFIDENCE = 0.6
_FIELDS = ("abstract", "title", "kw_phrases", "kw_words")
_TOKEN_RE = re.compile(r"(?u)\b\w\w+\b")


@dataclass
class AreaPrediction:
    """An area label, its confidence in [0, 1], and where it came from (``source``/``model``/``lexicon``).

    ``embedding`` is the model id of the vector that was fused in, None for the text model alone.
    """

    label: str
    confidence: float
    source: str
    embedding: str | None = None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "label": self.label,
            "confidence": round(self.confidence, 3),
            "source": self.source,
        }
        if self.embedding:
            out["embedding"] = self.embedding
        return out


@functools.cache
def _area_lexicons() -> tuple[tuple[str, ...], dict[str, list[tuple[str, re.Pattern[str], float]]]]:
    """Return the 21 areas and, per area, its terms as (literal probe, pattern, weight)."""
    body = resources.files("paperscope.extract").joinpath("data", "areas.txt").read_text(encoding="utf-8")
    areas: list[str] = []
    lexicons: dict[str, list[tuple[str, re.Pattern[str], float]]] = {}
    for line in body.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        area, _, terms = line.partition("\t")
        areas.append(area)
        compiled = []
        for term in (t.strip() for t in terms.split(";")):
            if not term:
                continue
            term, _, weight = term.partition(":")
            prefix = term.endswith("*")
            stem = term.rstrip("*")
            body_re = re.escape(stem).replace(r"\ ", r"[\s-]+")
            pattern = rf"(?<![\w-]){body_re}" + (r"" if prefix else r"(?![\w-])")
            # The probe (first word, lower-cased) is a cheap substring test before the regex runs.
            probe = re.split(r"[^\w]", stem.lower())[0]
            compiled.append((probe, re.compile(pattern, re.IGNORECASE), float(weight or 1)))
        lexicons[area] = compiled
    return tuple(areas), lexicons


def _areas() -> tuple[str, ...]:
    return _area_lexicons()[0]


AREAS: tuple[str, ...] = _areas()


def lexicon_scores(text: str, areas: Iterable[str] | None = None) -> dict[str, float]:
    """Return the zero-shot score of each area: the summed weights of its distinct terms in ``text``."""
    _, lexicons = _area_lexicons()
    # Probes are word starts: " gene" is not a probe hit inside "generate".
    lowered = " " + re.sub(r"[^\w\s]", " ", text.lower())
    out = {}
    for area in areas if areas is not None else AREAS:
        out[area] = sum(
            weight
            for probe, pattern, weight in lexicons.get(area, [])
            if " " + probe in lowered and pattern.search(text)
        )
    return out


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
        for f, (field, text) in enumerate(zip(_FIELDS, texts, strict=True)):
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
            for f in range(len(_FIELDS)):
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


def predict_area(
    abstract: str,
    title: str = "",
    keywords: str = "",
    source_area: str | None = None,
    model: AreaModel | None = None,
    embedding: np.ndarray | None = None,
    embedding_model: str | None = None,
) -> AreaPrediction:
    """Return the primary area of a paper.

    Args:
        abstract: the clean abstract.
        title: the clean title, when the source has one.
        keywords: comma- or semicolon-separated keywords, when the source has them.
        source_area: the area the source itself gives; kept as is (confidence 1.0).
        model: the classifier; the bundled one by default.
        embedding: the paper's vector, when the caller has one (float, shape (dim,)).
        embedding_model: the ``model_id`` of the embedder that made ``embedding``; the vector is
            used only when the model's embedding block was trained on that model.

    Returns:
        An :class:`AreaPrediction`; ``source`` tells whether the label came from the record,
        the trained model, or the zero-shot lexicon; ``embedding`` names the vector's model
        when it was fused in.

    """
    if source_area:
        return AreaPrediction(source_area, 1.0, "source")
    model = model or load_area_model()
    proba = model.proba(abstract, title, keywords)
    block = model.embedding
    used = block is not None and block.accepts(embedding_model, embedding)
    if used:
        proba = block.fuse(proba, embedding)  # type: ignore[union-attr,arg-type]
    fused = embedding_model if used else None
    best = int(proba.argmax())
    label, confidence = model.classes[best], float(proba[best])
    unseen = [a for a in AREAS if a not in model.classes and lexicon_scores_nonempty(a)]
    scores = lexicon_scores(f"{title}. {keywords}. {abstract}", unseen)
    if scores:
        area, score = max(scores.items(), key=lambda kv: kv[1])
        strong = score >= 2 * ZERO_SHOT_MIN_SCORE
        if score >= ZERO_SHOT_MIN_SCORE and (strong or confidence < ZERO_SHOT_MAX_MODEL_CONFIDENCE):
            zero_shot_confidence = 1.0 - math.exp(-score / ZERO_SHOT_MIN_SCORE)
            return AreaPrediction(area, zero_shot_confidence, "lexicon", fused)
    return AreaPrediction(label, confidence, "model", fused)


def lexicon_scores_nonempty(area: str) -> bool:
    """Return True when ``area`` has a lexicon (``other topics …`` has none and is never chosen)."""
    return bool(_area_lexicons()[1].get(area))


def train_area_model(
    papers: Sequence[tuple[str, str, str, str]],
    seed: int = 0,
    c: float = 0.3,
    abstract_only_copies: bool = True,
    max_features: int = 20000,
) -> AreaModel:
    """Train the area classifier (needs scikit-learn, pinned in pyproject).

    Args:
        papers: ``(abstract, title, keywords, area)`` tuples of clean text.
        seed: seed of the fifth held out to fit the softmax temperature.
        c: the SVM's regularisation constant C.
        abstract_only_copies: also train on each paper's abstract alone (as text lists give it).
        max_features: keep this many features (largest weight norms; see :meth:`AreaModel.prune`),
            which keeps the shipped file under 1 MB without losing held-out accuracy.

    Returns:
        The trained :class:`AreaModel` (fitted on all ``papers``; the temperature on a held-out fifth).

    """
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer
    from sklearn.model_selection import train_test_split
    from sklearn.svm import LinearSVC

    stop = frozenset(ENGLISH_STOP_WORDS)
    # Each paper also appears as its abstract alone, as the text lists give it.
    rows = list(papers)
    if abstract_only_copies:
        rows += [(a, "", "", y) for a, _, k, y in papers if k]
    labels = np.array([r[3] for r in rows])

    def fit(subset: Sequence[tuple[str, str, str, str]]) -> tuple[AreaModel, object]:
        vectorizers, blocks = [], []
        for f, field in enumerate(_FIELDS):
            texts = [r[2] if f >= 2 else r[f] for r in subset]
            vec = TfidfVectorizer(
                analyzer=functools.partial(analyze, field, stop_words=stop),
                sublinear_tf=True,
                min_df=2 if field == "abstract" else 1,
                dtype=np.float32,
            )
            blocks.append(vec.fit_transform(texts) * FIELD_WEIGHTS[f])
            vectorizers.append(vec)
        from scipy.sparse import hstack

        x = hstack(blocks).tocsr()
        svm = LinearSVC(C=c, random_state=seed).fit(x, np.array([r[3] for r in subset]))
        model = AreaModel(
            [v.vocabulary_ for v in vectorizers],
            [v.idf_.astype(np.float32) for v in vectorizers],
            svm.coef_.astype(np.float32),
            svm.intercept_.astype(np.float32),
            list(svm.classes_),
            stop,
        )
        return model, svm

    train_idx, held_idx = train_test_split(
        np.arange(len(rows)), test_size=0.2, stratify=labels, random_state=seed
    )
    probe, _ = fit([rows[i] for i in train_idx])
    probe = probe.prune(max_features)
    decisions = np.stack([probe.decision(*_fields(rows[i])) for i in held_idx])
    gold = np.array([probe.classes.index(rows[i][3]) for i in held_idx])
    best_t, best_nll = 1.0, float("inf")
    for t in (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 1.0):
        z = decisions / t
        z = z - z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        nll = -float(logp[np.arange(len(gold)), gold].mean())
        if nll < best_nll:
            best_t, best_nll = t, nll
    model, _ = fit(rows)
    model.temperature = best_t
    return model.prune(max_features)


def _fields(row: tuple[str, str, str, str]) -> tuple[str, str, str]:
    return row[0], row[1], row[2]
