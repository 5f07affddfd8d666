"""Primary area: one of the 21 ICLR 2026 areas, with a confidence.

How the two parts are combined:

Each job has its module: the text model's features, inference and file in :mod:`.area_model`,
its training in :mod:`.area_train`, the zero-shot lexicons in :mod:`.area_lexicon`, the
embedding block in :mod:`.area_embedding`; this module combines them and keeps the public names.

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
  was trained with, a joint linear SVM over the same TF-IDF features plus the vector
  (:mod:`.area_embedding`) answers instead of the text model; without one (or with a vector of
  another model) the text model answers alone. Cards are built before vectors exist, so the
  card's area is text-only at first and ``Library.refine_areas`` re-predicts it once the paper
  has a vector.
* **Source label.** A record that carries its own area (``Paper.source_area``) keeps it, with
  confidence 1.0.

Papers with no title or keywords (the ICML text lists) are classified from the abstract alone;
the model is trained on papers both with and without those fields for that reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .area_lexicon import AREAS, lexicon_scores, lexicon_scores_nonempty
from .area_model import FIELD_WEIGHTS, AreaModel, analyze, load_area_model
from .area_train import train_area_model

__all__ = [
    "AREAS",
    "AreaModel",
    "AreaPrediction",
    "FIELD_WEIGHTS",
    "ZERO_SHOT_MIN_SCORE",
    "analyze",
    "lexicon_scores",
    "lexicon_scores_nonempty",
    "load_area_model",
    "predict_area",
    "train_area_model",
]

#: An unseen area needs at least this lexicon score (weighted distinct terms) to be chosen.
ZERO_SHOT_MIN_SCORE = 6.0
#: ... and the model's own top probability must be below this, unless the score is twice the minimum.
ZERO_SHOT_MAX_MODEL_CONFIDENCE = 0.6


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
    block = model.embedding
    used = block is not None and block.accepts(embedding_model, embedding)
    if used:
        idx, vals = model.features(abstract, title, keywords)
        proba = block.proba(idx, vals, embedding, model.temperature)  # type: ignore[union-attr,arg-type]
    else:
        proba = model.proba(abstract, title, keywords)
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
