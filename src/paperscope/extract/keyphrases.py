"""Keyphrases: noun-phrase candidates of an abstract ranked by a small trained model.

**Candidates**: :func:`~paperscope.extract.keyphrase_candidates.candidates` (1–3-word
noun-phrase-like n-grams between punctuation and function words, no tagger), grouped by
:func:`phrase_key`, the matching rule of the keyphrase evaluation.

**Features** (:data:`FEATURES`; one row per distinct key): where the phrase first occurs (share
of the abstract before it, in the first sentence, in a "we study/address/tackle …" clause or
defined as "phrase (ABBR)"), how often it occurs and how often its last word does, its length in
words, capitals and digits, whether it reads as a task (last word ``learning``, ``detection``,
``generation`` …), how rare it is in the library (document frequency over 15,998 abstracts of
``../shared/data``: airas-papers-db and the ICLR 2026 train split), and how often it, its last
word and its first word are author keywords in the ICLR 2026 train split (the *prior*; see
``scripts/train_keyphrases.py``).

**Ranker**: logistic regression over the standardised features, positives are the candidates
whose key equals an author keyword's key. The weights, the standardisation and the tables ship
in ``data/keyphrase_model.npz``; scoring is numpy (about 1 ms an abstract; ranking only the
task phrases, as the card does, about 0.45 ms).

Figures (``paperscope eval cards --silver``, 2026-12-01; micro P/R/F1@5 against ICLR 2026
author keywords, exact match after :func:`phrase_key`): cross-validation on the 2,142 train
papers 0.217 / 0.297 / **0.251**; the 2,160 *test* papers, scored once at the end: ranker
0.220 / 0.297 / **0.253**, YAKE 0.076, TF-IDF 0.086 in the same run. The largest standardised
weights: last-word prior +0.71, library rarity (log idf) +0.64, first-word prior +0.60,
frequency in the abstract +0.47, unseen in the library -0.46, one word -0.34, position -0.32.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Container
from dataclasses import dataclass
from importlib import resources

import numpy as np

from ._spans import split_sentences
from .keyphrase_candidates import FUNCTION_WORDS, TASK_HEADS, Candidate, candidates, phrase_key

__all__ = [
    "FEATURES",
    "FUNCTION_WORDS",
    "Candidate",
    "Keyphrase",
    "KeyphraseModel",
    "TASK_HEADS",
    "candidates",
    "feature_matrix",
    "extract_keyphrases",
    "is_task_phrase",
    "load_model",
    "phrase_key",
]

_MODEL_FILE = "keyphrase_model.npz"

FEATURES = (
    "first_pos",
    "log_tf",
    "log_head_tf",
    "one_word",
    "three_words",
    "log_idf",
    "unseen_in_library",
    "in_first_sentence",
    "in_cue_clause",
    "defined_abbrev",
    "has_capital",
    "all_caps",
    "has_digit",
    "has_hyphen",
    "task_head",
    "ing_first",
    "in_longer_tf",
    "prior_kw",
    "prior_rate",
    "prior_head",
    "prior_first",
)

_ABBREV_RE = re.compile(r"\s*\([A-Z][\w\-]*\)")
_CUE_RE = re.compile(
    r"\b(?:we|this\s+(?:paper|work))\s+(?:study|studies|address|addresses|tackle|tackles|consider|"
    r"considers|investigate|investigates|focus\s+on|explore|explores|examine|examines)\b[^.;]{0,120}"
    r"|\b(?:problem|task|challenge)s?\s+of\b[^.;]{0,80}",
)


@dataclass(frozen=True)
class Keyphrase:
    """A ranked keyphrase: its text as written, its span in the clean text, the model's score and its key."""

    text: str
    start: int
    end: int
    score: float
    key: str

    def to_dict(self) -> dict[str, object]:
        return {"text": self.text, "start": self.start, "end": self.end}


@dataclass(frozen=True)
class KeyphraseModel:
    """The shipped ranker: weights over standardised :data:`FEATURES` and the lookup tables.

    Attributes:
        weights: float64 (n_features,); ``bias``: the intercept; ``mean`` and ``scale``: the
            standardisation (float64, n_features).
        library_df: document frequency of a key over ``n_library`` abstracts (keys seen 3+ times).
        prior: ``key -> (kw_count, candidate_count)`` on the train split: papers whose author
            keywords hold the key, and papers where it is a candidate.
        head_prior / first_prior: ``word -> log rate`` of a candidate ending / starting with the
            word being an author keyword (smoothed, train split).
    """

    weights: np.ndarray
    bias: float
    mean: np.ndarray
    scale: np.ndarray
    library_df: dict[str, int]
    n_library: int
    prior: dict[str, tuple[int, int]]
    head_prior: dict[str, float]
    first_prior: dict[str, float]
    default_word_prior: float

    def score(self, rows: np.ndarray) -> np.ndarray:
        """Return the log-odds of each feature row (float64, shape (n_rows,))."""
        return ((rows - self.mean) / self.scale) @ self.weights + self.bias


def _tables(names: np.ndarray, values: np.ndarray) -> dict[str, float]:
    return {str(k): float(v) for k, v in zip(names.tolist(), values.tolist(), strict=True)}


@functools.cache
def load_model() -> KeyphraseModel:
    """Load ``data/keyphrase_model.npz`` (built by ``scripts/train_keyphrases.py``); cached.

    Raises:
        FileNotFoundError: the package was installed without its data files.
    """
    ref = resources.files("paperscope.extract").joinpath("data", _MODEL_FILE)
    with ref.open("rb") as fh, np.load(fh, allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    return model_from_arrays(data)


def model_from_arrays(data: dict[str, np.ndarray]) -> KeyphraseModel:
    """Return the :class:`KeyphraseModel` of the arrays ``scripts/train_keyphrases.py`` saves."""
    return KeyphraseModel(
        weights=data["weights"].astype(np.float64),
        bias=float(data["bias"]),
        mean=data["mean"].astype(np.float64),
        scale=data["scale"].astype(np.float64),
        library_df={
            str(k): int(v) for k, v in zip(data["df_keys"].tolist(), data["df_counts"].tolist(), strict=True)
        },
        n_library=int(data["n_library"]),
        prior={
            str(k): (int(a), int(b))
            for k, a, b in zip(
                data["prior_keys"].tolist(),
                data["prior_kw"].tolist(),
                data["prior_cand"].tolist(),
                strict=True,
            )
        },
        head_prior=_tables(data["head_words"], data["head_rates"]),
        first_prior=_tables(data["first_words"], data["first_rates"]),
        default_word_prior=float(data["default_word_prior"]),
    )


def _cue_spans(clean: str) -> list[tuple[int, int]]:
    probe = clean.lower()
    if not any(w in probe for w in ("we ", "this paper", "this work", "problem", "task", "challenge")):
        return []
    # On the lower-cased text (offsets equal unless a letter's lower case is longer): a
    # case-sensitive pattern is several times faster than an IGNORECASE one.
    text = probe if len(probe) == len(clean) else clean
    return [m.span() for m in _CUE_RE.finditer(text)]


def feature_matrix(clean: str, cands: list[Candidate], model: KeyphraseModel) -> np.ndarray:
    """Return the float64 feature rows (n_candidates, len(FEATURES)) of ``cands`` in ``clean``."""
    n_chars = max(len(clean), 1)
    sentences = split_sentences(clean)
    first_end = sentences[0].end if sentences else n_chars
    cues = _cue_spans(clean)
    heads: dict[str, int] = {}
    for c in cands:
        heads[c.words[-1]] = heads.get(c.words[-1], 0) + c.count
    log_n = math.log(model.n_library + 1)
    library_df, prior = model.library_df, model.prior
    head_prior, first_prior, default = model.head_prior, model.first_prior, model.default_word_prior
    rows = []
    for c in cands:
        n = len(c.words)
        df = library_df.get(c.key)
        kw, cand = prior.get(c.key, (0, 0))
        start = c.start
        rows.append(
            (
                start / n_chars,
                math.log1p(c.count),
                math.log1p(heads[c.words[-1]]),
                n == 1,
                n == 3,
                log_n - math.log((df or 2) + 1),
                df is None,
                start < first_end,
                bool(cues) and any(s <= start < e for s, e in cues),
                clean.startswith(" (", c.end) and bool(_ABBREV_RE.match(clean, c.end)),
                c.capital,
                c.all_caps,
                c.digit,
                c.hyphen,
                c.words[-1] in TASK_HEADS,
                n > 1 and c.words[0].endswith("ing"),
                math.log1p(c.longer),
                math.log1p(kw),
                (kw + 0.1) / (cand + 1.0),
                head_prior.get(c.words[-1], default),
                first_prior.get(c.words[0], default),
            )
        )
    return np.array(rows, dtype=np.float64).reshape(len(cands), len(FEATURES))


def extract_keyphrases(
    clean: str, k: int = 10, model: KeyphraseModel | None = None, last_words: Container[str] | None = None
) -> list[Keyphrase]:
    """Return the ``k`` best keyphrases of ``clean`` (best first), each with its first span.

    Args:
        clean: the clean text of an abstract (``Paper.clean_text``).
        k: phrases to return at most.
        model: the ranker; the shipped one (:func:`load_model`) when None.
        last_words: rank only the candidates whose last word is in it (``TASK_HEADS``: the task
            phrases, in the order the full ranking gives them, about 4x faster).

    Returns:
        :class:`Keyphrase` values; ``clean[start:end] == text`` for each.
    """
    model = load_model() if model is None else model
    cands = candidates(clean, last_words)
    if not cands:
        return []
    scores = model.score(feature_matrix(clean, cands, model))
    order = np.lexsort((np.arange(len(cands)), -scores))[:k]
    return [
        Keyphrase(cands[i].text, cands[i].start, cands[i].end, float(scores[i]), cands[i].key) for i in order
    ]


def is_task_phrase(key: str) -> bool:
    """Return True when a phrase key reads as a task or problem: its last word is in :data:`TASK_HEADS`."""
    return key.rsplit(" ", 1)[-1] in TASK_HEADS
