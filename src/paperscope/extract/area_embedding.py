"""The embedding block of the area model: a linear classifier over a paper's embedding.

The paper's vector (384-d MiniLM in the bundled model) is passed in by the caller that has it;
``extract`` never computes or loads embeddings itself. A multinomial logistic regression over
the L2-normalised vector gives calibrated log-probabilities that are added, with weight
``EMBEDDING_WEIGHT``, to the text model's (a product of experts):
``p ∝ p_text · p_embedding ** EMBEDDING_WEIGHT``.

The block records the ``model_id`` of the embedder it was trained on; a vector of any other
embedding model (the fake embedder of the tests, another sentence model) is ignored and the text
model answers alone. Runtime variants of the same model and pooling count as the same model
(:func:`same_embedding_model`).

Constants were chosen by 5-fold cross-validation on the train part (80%, seed 0) of the ICLR
2026 area split, never on its held-out 20%: fusion of the calibrated probabilities (C 10,
weight 0.5: accuracy 0.654 → 0.664 title+keywords+abstract, 0.620 → 0.636 abstract only) was
as good as adding the vector to the SVM's features (weight 0.5: 0.663 → 0.670 and 0.622 → 0.644
without the softmax and lexicon steps) and keeps the text model unchanged for papers without a
vector. C 0.3/1/3/30 and weights 0.25–2 scored lower or within 0.003.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "EMBEDDING_C",
    "EMBEDDING_WEIGHT",
    "EmbeddingBlock",
    "same_embedding_model",
    "train_embedding_block",
]

#: Weight of the embedding block's log-probabilities beside the text model's (5-fold CV, train part).
EMBEDDING_WEIGHT = 0.5
#: Inverse regularisation of the embedding block's logistic regression (5-fold CV, train part).
EMBEDDING_C = 10.0


def same_embedding_model(trained: str, given: str | None) -> bool:
    """Return True when vectors of ``given`` may be fed to a block trained on ``trained``.

    Model ids read ``name/runtime-quantisation/pooling`` (``all-MiniLM-L6-v2/ov-int8-static/
    w256-mean``); the name and the pooling must match, the runtime may differ (int8 and fp32
    vectors of one model differ by far less than the classes do).
    """
    if not given:
        return False
    a, b = trained.split("/"), given.split("/")
    return a[0] == b[0] and a[-1] == b[-1] and len(a) == len(b)


@dataclass
class EmbeddingBlock:
    """A linear classifier over embeddings of ``model_id``: ``coef`` (n_classes, dim), ``intercept``."""

    model_id: str
    coef: np.ndarray
    intercept: np.ndarray
    weight: float = EMBEDDING_WEIGHT

    def accepts(self, model_id: str | None, vector: np.ndarray | None) -> bool:
        """Return True when ``vector`` (of embedder ``model_id``) fits this block."""
        return (
            vector is not None
            and same_embedding_model(self.model_id, model_id)
            and np.shape(vector) == (self.coef.shape[1],)
        )

    def log_proba(self, vector: np.ndarray) -> np.ndarray:
        """Return the class log-probabilities of one vector, shape (n_classes,)."""
        v = np.asarray(vector, dtype=np.float32)
        v = v / max(float(np.linalg.norm(v)), 1e-12)
        z = self.coef @ v + self.intercept
        z = z - z.max()
        return z - np.log(np.exp(z).sum())

    def fuse(self, text_proba: np.ndarray, vector: np.ndarray) -> np.ndarray:
        """Return ``text_proba`` combined with this block's probabilities of ``vector`` (sums to 1)."""
        z = np.log(np.maximum(text_proba, 1e-12)) + self.weight * self.log_proba(vector)
        z = np.exp(z - z.max())
        return z / z.sum()

    def arrays(self) -> dict[str, np.ndarray]:
        """Return the arrays :class:`AreaModel.save` writes (``emb_*``)."""
        return {
            "emb_model_id": np.frombuffer(self.model_id.encode("utf-8"), dtype=np.uint8),
            "emb_coef": self.coef.astype(np.float16),
            "emb_intercept": self.intercept.astype(np.float32),
            "emb_weight": np.asarray([self.weight], dtype=np.float32),
        }

    @classmethod
    def from_arrays(cls, data: Mapping[str, np.ndarray]) -> EmbeddingBlock | None:
        """Return the block stored by :meth:`arrays`, or None when the file has none."""
        if "emb_coef" not in data:
            return None
        return cls(
            data["emb_model_id"].tobytes().decode("utf-8"),
            data["emb_coef"].astype(np.float32),
            data["emb_intercept"].astype(np.float32),
            float(data["emb_weight"][0]),
        )


def train_embedding_block(
    vectors: np.ndarray, labels: Sequence[str], classes: Sequence[str], model_id: str, c: float = EMBEDDING_C
) -> EmbeddingBlock:
    """Fit the block on ``vectors`` (n, dim) of embedder ``model_id`` with area ``labels``.

    ``classes`` is the text model's class order; every class must occur in ``labels``.

    Raises:
        ValueError: a class of ``classes`` has no training vector.

    """
    from sklearn.linear_model import LogisticRegression

    x = np.asarray(vectors, dtype=np.float32)
    x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    lr = LogisticRegression(C=c, max_iter=3000).fit(x, list(labels))
    order = [list(lr.classes_).index(k) for k in classes]  # ValueError when a class is missing
    return EmbeddingBlock(
        model_id, lr.coef_[order].astype(np.float32), lr.intercept_[order].astype(np.float32)
    )
