"""The learned method-name scorer: a logistic regression over :data:`.method_features.FEATURES`.

Two data files under ``extract/data/``, written by ``scripts/train_method_model.py`` (fixed
seed, so the same data gives the same files):

* ``method_model.npz``: ``features`` (names, in order), ``mean`` and ``scale`` (standardisation),
  ``coef`` (2 x features: keep and rank models), ``intercept`` (2), ``threshold`` (a name is kept
  when its keep probability is at least this) and ``version``; scoring is a numpy dot product,
  no scikit-learn at card time;
* ``method_rarity.json.gz``: the library-rarity table, ``{"n_docs", "min_df", "df", "lower_df"}``:
  how many abstracts of ``../shared/data`` contain each candidate-like token (df >= ``min_df``),
  and how many hold each word in lower case (for capitalised words such as ``Hubble``).
"""

from __future__ import annotations

import functools
import gzip
import json
from dataclasses import dataclass
from importlib import resources

import numpy as np

from .method_features import FEATURES
from .method_lexicon import LEXICON_FEATURES

__all__ = [
    "MODEL_VERSION",
    "NAME_FEATURES",
    "MethodModel",
    "NameModel",
    "Rarity",
    "load_model",
    "load_name_model",
    "load_rarity",
    "name_columns",
]

#: Bumped when the features or the file layout change (the file must carry the same version).
MODEL_VERSION = 1


@dataclass(frozen=True)
class Rarity:
    """Document frequencies of candidate-like tokens in the reference corpus."""

    n_docs: int
    min_df: int
    df: dict[str, int]
    lower_df: dict[str, int]

    def share(self, token: str) -> float:
        """Return the share of the corpus's abstracts that contain ``token`` (0 below ``min_df``)."""
        return self.df.get(token, 0) / max(1, self.n_docs)


@dataclass(frozen=True)
class MethodModel:
    """Two standardised logistic regressions over the same features, ``sigmoid(((x - mean) / scale) @ coef.T + intercept)``.

    Row 0 of ``coef`` (the *keep* model) says whether a candidate is a name the paper gives its
    own work; a candidate is kept when its probability reaches ``threshold``. Row 1 (the *rank*
    model) says whether it is the paper's main name (the title's name of the silver labels); the
    kept names are ordered by it, and the first is the primary name.
    """

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    threshold: float
    version: int

    def proba(self, x: np.ndarray) -> np.ndarray:
        """Return ``(len(x), 2)`` probabilities (keep, rank) for rows of ``x`` in ``FEATURES`` columns."""
        z = ((x - self.mean) / self.scale) @ self.coef.T + self.intercept
        return 1.0 / (1.0 + np.exp(-z))

    def save(self, path: object) -> None:
        """Write the model as ``.npz`` (see the module docstring)."""
        np.savez_compressed(
            path,  # type: ignore[arg-type]
            features=np.array(self.features),
            mean=self.mean,
            scale=self.scale,
            coef=self.coef,
            intercept=self.intercept,
            threshold=np.array(self.threshold),
            version=np.array(self.version),
        )


def _data(name: str):  # noqa: ANN202 - an importlib Traversable
    return resources.files("paperscope.extract").joinpath("data", name)


@functools.cache
def load_model() -> MethodModel:
    """Return the bundled model (cached).

    Raises:
        ValueError: the file's features or version differ from this code's (retrain with
            ``scripts/train_method_model.py``).
    """
    with _data("method_model.npz").open("rb") as fh, np.load(fh) as z:
        model = MethodModel(
            tuple(str(f) for f in z["features"]),
            z["mean"].astype(float),
            z["scale"].astype(float),
            z["coef"].astype(float),
            z["intercept"].astype(float),
            float(z["threshold"]),
            int(z["version"]),
        )
    if model.features != FEATURES or model.version != MODEL_VERSION or model.coef.shape != (2, len(FEATURES)):
        raise ValueError(
            "extract/data/method_model.npz does not match the feature code "
            f"(version {model.version}, want {MODEL_VERSION}); run scripts/train_method_model.py"
        )
    return model


@functools.cache
def load_rarity() -> Rarity:
    """Return the bundled library-rarity table (cached)."""
    with _data("method_rarity.json.gz").open("rb") as fh:
        body = json.loads(gzip.decompress(fh.read()).decode("utf-8"))
    return Rarity(int(body["n_docs"]), int(body["min_df"]), body["df"], body["lower_df"])


#: Columns of the name model: the keep model's features, its logit, the name lexicon's columns.
NAME_FEATURES = (*FEATURES, "keep_logit", "in_url", *LEXICON_FEATURES)


def name_columns(
    x: np.ndarray, keep: MethodModel, in_url: np.ndarray, lexicon_columns: np.ndarray
) -> np.ndarray:
    """Return the ``(n, len(NAME_FEATURES))`` rows of the name model.

    Args:
        x: the candidates' keep-model rows, ``(n, len(FEATURES))``.
        keep: the keep model; its logit (row 0) is one column.
        in_url: :func:`.method_features.url_share` of the candidates.
        lexicon_columns: :func:`.method_lexicon.lexicon_features` of the candidates' names.
    """
    logit = ((x - keep.mean) / keep.scale) @ keep.coef[0] + keep.intercept[0]
    return np.hstack([x, logit[:, None], in_url[:, None], lexicon_columns])


@dataclass(frozen=True)
class NameModel:
    """One standardised logistic regression: is a candidate a proper name the abstract uses or introduces?

    The labels are those of ``evaluation/data/cards_gold`` (GUIDELINE.md: methods, models,
    metrics, benchmarks and datasets, the paper's own and the ones it names); the probability is
    a name's ``confidence``. A candidate enters the card from ``floor`` up (pages show it from
    :data:`paperscope.confidence.SHOW_THRESHOLDS` up).
    """

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    floor: float
    version: int

    def proba(self, x: np.ndarray) -> np.ndarray:
        """Return ``(len(x),)`` probabilities for rows of ``x`` in ``NAME_FEATURES`` columns."""
        return 1.0 / (1.0 + np.exp(-(((x - self.mean) / self.scale) @ self.coef + self.intercept)))

    def save(self, path: object) -> None:
        """Write the model as ``.npz`` (the attributes, one array each)."""
        np.savez_compressed(
            path,  # type: ignore[arg-type]
            features=np.array(self.features),
            mean=self.mean,
            scale=self.scale,
            coef=self.coef,
            intercept=np.array(self.intercept),
            floor=np.array(self.floor),
            version=np.array(self.version),
        )


@functools.cache
def load_name_model() -> NameModel:
    """Return the bundled name model (``method_name_model.npz``, cached).

    Raises:
        ValueError: the file's features or version differ from this code's (retrain with
            ``scripts/train_method_name_model.py``).
    """
    with _data("method_name_model.npz").open("rb") as fh, np.load(fh) as z:
        model = NameModel(
            tuple(str(f) for f in z["features"]),
            z["mean"].astype(float),
            z["scale"].astype(float),
            z["coef"].astype(float),
            float(z["intercept"]),
            float(z["floor"]),
            int(z["version"]),
        )
    if model.features != NAME_FEATURES or model.version != MODEL_VERSION:
        raise ValueError(
            "extract/data/method_name_model.npz does not match the feature code "
            f"(version {model.version}, want {MODEL_VERSION}); run scripts/train_method_name_model.py"
        )
    return model
