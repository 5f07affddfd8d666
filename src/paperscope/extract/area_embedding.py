"""The embedding block of the area model: a linear SVM over a paper's TF-IDF features and its embedding.

The paper's vector (384-d MiniLM in the bundled model) is passed in by the caller that has it;
``extract`` never computes or loads embeddings itself. When it is given, the block replaces the
text model: a second one-vs-rest linear SVM over the text model's own (pruned, normalised)
TF-IDF features plus the L2-normalised vector scaled by ``EMBEDDING_WEIGHT``, trained on the same
papers (and their abstract-only copies). Its decision values become probabilities with the text
model's softmax temperature. Papers without a vector keep the text model unchanged.

The block records the ``model_id`` of the embedder it was trained on; a vector of any other
embedding model (the fake embedder of the tests, another sentence model) is ignored and the text
model answers alone. Runtime variants of the same model and pooling count as the same model
(:func:`same_embedding_model`).

Constants were chosen by 5-fold cross-validation on the train part (80%, seed 0) of the ICLR
2026 area split, never on its held-out 20% (accuracy, title+keywords+abstract / abstract only,
on TF-IDF features fitted per fold): the text SVM alone 0.663 / 0.622; the previous
product of experts (text probabilities × embedding logistic regression ** 0.5) 0.666 / 0.637;
the joint SVM with weight 0.35 and C 0.3 0.673 / 0.639 (weight 0.5: 0.671 / 0.643; C 0.15 and
0.5 lower). Adding the embedding regression's or a 20-nearest-neighbour vote's log-probabilities
to the joint SVM moved accuracy by at most +0.001, so neither is shipped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..model_ids import compatible_model_ids

if TYPE_CHECKING:
    from scipy.sparse import spmatrix

__all__ = [
    "EMBEDDING_C",
    "EMBEDDING_WEIGHT",
    "EmbeddingBlock",
    "same_embedding_model",
    "train_embedding_block",
]

#: Scale of the unit vector beside the unit TF-IDF field blocks in the joint SVM (5-fold CV, train part).
EMBEDDING_WEIGHT = 0.35
#: The joint SVM's regularisation constant C (5-fold CV, train part; the text SVM's is 0.3 too).
EMBEDDING_C = 0.3


def same_embedding_model(trained: str, given: str | None) -> bool:
    """Return True when vectors of ``given`` may be fed to a block trained on ``trained``.

    Model ids read ``name/runtime-quantisation/pooling`` (``all-MiniLM-L6-v2/ov-int8-static/
    w256-mean``); the name and the pooling must match, the runtime may differ (int8 and fp32
    vectors of one model differ by far less than the classes do).
    """
    return bool(given) and compatible_model_ids(trained, given or "")


@dataclass
class EmbeddingBlock:
    """The joint linear SVM for papers with a vector of ``model_id``.

    Attributes:
        model_id: the embedder the block was trained on.
        coef: float32, shape (n_classes, dim): the weights of the (scaled) vector.
        intercept: float32, shape (n_classes,).
        text_coef: float32, shape (n_classes, n_features): the weights of the text model's features.
        weight: the scale of the unit vector (``EMBEDDING_WEIGHT`` at training).

    """

    model_id: str
    coef: np.ndarray
    intercept: np.ndarray
    text_coef: np.ndarray
    weight: float = EMBEDDING_WEIGHT

    def accepts(self, model_id: str | None, vector: np.ndarray | None) -> bool:
        """Return True when ``vector`` (of embedder ``model_id``) fits this block."""
        return (
            vector is not None
            and same_embedding_model(self.model_id, model_id)
            and np.shape(vector) == (self.coef.shape[1],)
        )

    def decision(self, indices: np.ndarray, values: np.ndarray, vector: np.ndarray) -> np.ndarray:
        """Return the decision values of one paper, shape (n_classes,).

        ``indices``/``values`` are the paper's sparse text features (:meth:`AreaModel.features`),
        ``vector`` its embedding (normalised here).
        """
        v = np.asarray(vector, dtype=np.float32)
        v = v * (self.weight / max(float(np.linalg.norm(v)), 1e-12))
        z = self.coef @ v + self.intercept
        if len(indices):
            z = z + self.text_coef[:, indices] @ values
        return z

    def proba(
        self, indices: np.ndarray, values: np.ndarray, vector: np.ndarray, temperature: float
    ) -> np.ndarray:
        """Return class probabilities: softmax of :meth:`decision` / ``temperature`` (sums to 1)."""
        z = self.decision(indices, values, vector) / temperature
        z = np.exp(z - z.max())
        return z / z.sum()

    def arrays(self) -> dict[str, np.ndarray]:
        """Return the arrays :class:`AreaModel.save` writes (``emb_*``)."""
        return {
            "emb_model_id": np.frombuffer(self.model_id.encode("utf-8"), dtype=np.uint8),
            "emb_coef": self.coef.astype(np.float16),
            "emb_intercept": self.intercept.astype(np.float32),
            "emb_text_coef": self.text_coef.astype(np.float16),
            "emb_weight": np.asarray([self.weight], dtype=np.float32),
        }

    @classmethod
    def from_arrays(cls, data: Mapping[str, np.ndarray]) -> EmbeddingBlock | None:
        """Return the block stored by :meth:`arrays`, or None when the file has none.

        A file from before the joint SVM (no ``emb_text_coef``) has no usable block either.
        """
        if "emb_text_coef" not in data:
            return None
        return cls(
            data["emb_model_id"].tobytes().decode("utf-8"),
            data["emb_coef"].astype(np.float32),
            data["emb_intercept"].astype(np.float32),
            data["emb_text_coef"].astype(np.float32),
            float(data["emb_weight"][0]),
        )


def train_embedding_block(
    text_features: spmatrix,
    vectors: np.ndarray,
    labels: Sequence[str],
    classes: Sequence[str],
    model_id: str,
    c: float = EMBEDDING_C,
    weight: float = EMBEDDING_WEIGHT,
    seed: int = 0,
) -> EmbeddingBlock:
    """Fit the joint SVM on papers' text features (n, n_features), their ``vectors`` (n, dim) and ``labels``.

    ``text_features`` rows are the text model's features of each paper
    (:func:`paperscope.extract.area_train.feature_matrix`); ``classes`` is the text model's
    class order, and every class must occur in ``labels``.

    Raises:
        ValueError: a class of ``classes`` has no training row.

    """
    from scipy.sparse import csr_matrix, hstack
    from sklearn.svm import LinearSVC

    x = np.asarray(vectors, dtype=np.float32)
    x = x * (weight / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12))
    n_text = text_features.shape[1]
    joint = hstack([text_features, csr_matrix(x)]).tocsr()
    svm = LinearSVC(C=c, random_state=seed).fit(joint, list(labels))
    if len(svm.classes_) == 2:  # scikit-learn keeps one row for two classes
        raise ValueError("the area model needs three or more classes")
    order = [list(svm.classes_).index(k) for k in classes]  # ValueError when a class is missing
    coef = svm.coef_[order].astype(np.float32)
    return EmbeddingBlock(
        model_id, coef[:, n_text:], svm.intercept_[order].astype(np.float32), coef[:, :n_text], weight
    )
