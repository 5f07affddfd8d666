"""The learned pair score: a logistic regression per mode over :mod:`.pair_features`' rows.

One data file, ``enrich/data/pair_model.json``, written by ``scripts/train_pair_model.py`` from
the ICLR 2026 CSVs (the same data gives the same bytes): per mode (``"bm25"``, ``"hybrid"``)
the feature names in order, ``mean`` and ``scale`` (standardisation), ``coef`` and
``intercept``, and ``floor``, the probability a pair needs to be attached, chosen on the dev
split; plus the split and the figures it was chosen with. Scoring is a numpy dot product: no
scikit-learn at enrich time.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from ..errors import ModelUnavailable
from .pair_features import features_of

__all__ = ["PAIR_MODEL_VERSION", "PairModel", "load_pair_model"]

#: Bumped when the features or the file layout change (the file must carry the same version).
PAIR_MODEL_VERSION = 1


@dataclass(frozen=True)
class PairModel:
    """A standardised logistic regression, ``sigmoid(((x - mean) / scale) @ coef + intercept)``.

    Attributes:
        mode: ``"bm25"`` or ``"hybrid"``.
        features: the column names of the rows it reads, in order.
        mean, scale: float64, shape (n_features,).
        coef: float64, shape (n_features,): weights of the standardised features.
        intercept: the bias.
        floor: probability (0-1) a pair needs to be attached.

    """

    mode: str
    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    floor: float

    def proba(self, x: np.ndarray) -> np.ndarray:
        """Return the probability that each row of ``x`` (float64, (n_pairs, n_features)) is a right pair."""
        z = ((x - self.mean) / self.scale) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -60, 60)))

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON shape of one mode in ``pair_model.json`` (floats rounded to 8 digits)."""
        return {
            "features": list(self.features),
            "mean": [round(float(v), 8) for v in self.mean],
            "scale": [round(float(v), 8) for v in self.scale],
            "coef": [round(float(v), 8) for v in self.coef],
            "intercept": round(float(self.intercept), 8),
            "floor": round(float(self.floor), 8),
        }

    @classmethod
    def from_dict(cls, mode: str, data: dict[str, Any]) -> PairModel:
        """Rebuild a mode's model from :meth:`to_dict`."""
        return cls(
            mode,
            tuple(data["features"]),
            np.asarray(data["mean"], dtype=np.float64),
            np.asarray(data["scale"], dtype=np.float64),
            np.asarray(data["coef"], dtype=np.float64),
            float(data["intercept"]),
            float(data["floor"]),
        )


def model_path() -> Any:  # noqa: ANN401 - an importlib Traversable
    """Return the bundled model file (``enrich/data/pair_model.json``)."""
    return resources.files("paperscope.enrich").joinpath("data", "pair_model.json")


@functools.cache
def load_pair_model(mode: str) -> PairModel:
    """Return the bundled pair model of ``mode`` (cached).

    Raises:
        ModelUnavailable: the file lacks the mode, or its version or features differ from this
            code's (retrain with ``scripts/train_pair_model.py``).
    """
    body = json.loads(model_path().read_text(encoding="utf-8"))
    data = body.get("models", {}).get(mode)
    if (
        body.get("version") != PAIR_MODEL_VERSION
        or data is None
        or tuple(data["features"]) != features_of(mode)
    ):
        raise ModelUnavailable(
            f"enrich/data/pair_model.json has no current {mode!r} pair model (version"
            f" {body.get('version')}, want {PAIR_MODEL_VERSION}); run scripts/train_pair_model.py"
        )
    return PairModel.from_dict(mode, data)
