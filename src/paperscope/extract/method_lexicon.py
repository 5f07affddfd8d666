"""Corpus evidence that a candidate is a proper name, used or coined (issue 27): the name lexicon.

A data file, ``extract/data/method_lexicon.json.gz``, written by ``scripts/train_method_name_model.py``
from the titles and abstracts of ``../shared/data`` (every paper whose normalised title is in the
hand-labelled ``cards_gold`` sets left out). Per name-shaped token (a capital or a digit, seen in
at least ``min_df`` abstracts) it holds five counts, ``[df, plural_df, title_names, defined_caps,
defined_lower]``:

* ``df``: abstracts that contain the token; ``plural_df``: abstracts that contain it with an
  ``s`` added (``LLMs``, ``GNNs``: a family is written in the plural, ``BERT`` and ``PPO`` rarely);
* ``title_names``: titles that coin it, ``"Name: subtitle"`` (``LoRA: Low-Rank Adaptation …``);
* ``defined_caps`` / ``defined_lower``: abstracts that define it as a short form with a
  capitalised long form (``Proximal Policy Optimization (PPO)``) or a lower-case one
  (``large language models (LLMs)``): a named method is spelled with capitals, a family is not.

Multi-word coined names (``Stable Diffusion``) are keyed by their whole text in ``title_names``
only. :func:`lexicon_features` turns the counts into the columns :data:`LEXICON_FEATURES` of the
name model (:mod:`.method_model`).
"""

from __future__ import annotations

import functools
import gzip
import json
import math
from dataclasses import dataclass
from importlib import resources

import numpy as np

__all__ = ["LEXICON_FEATURES", "Lexicon", "lexicon_features", "load_lexicon"]

#: The columns :func:`lexicon_features` returns, in order.
LEXICON_FEATURES = (
    "lex_log_df",
    "lex_plural_share",
    "lex_title_name",
    "lex_defined",
    "lex_defined_caps_share",
    "lex_unseen",
)


@dataclass(frozen=True)
class Lexicon:
    """The name lexicon of the module docstring.

    Attributes:
        n_docs: abstracts read.
        min_df: least ``df`` a token needs to be listed.
        counts: ``{token: [df, plural_df, title_names, defined_caps, defined_lower]}``.
        title_names: ``{multi-word name: titles that coin it}``.
    """

    n_docs: int
    min_df: int
    counts: dict[str, list[int]]
    title_names: dict[str, int]


def lexicon_features(names: list[str], lexicon: Lexicon) -> np.ndarray:
    """Return the ``(len(names), len(LEXICON_FEATURES))`` float64 columns of the names' corpus counts.

    ``lex_log_df`` is ``log(1 + df) / log(1 + n_docs)`` (0 to 1); the shares are smoothed by one
    count (``plural / (df + 1)``, ``caps / (caps + lower + 1)``), so a name seen once says little.
    A multi-word name takes the counts of its rarest listed word, and its own ``title_names``.
    """
    out = np.zeros((len(names), len(LEXICON_FEATURES)))
    log_n = math.log(lexicon.n_docs + 1)
    for i, name in enumerate(names):
        words = name.split()
        rows = [lexicon.counts[w] for w in words if w in lexicon.counts]
        row = min(rows, key=lambda r: r[0]) if rows else None
        titled = lexicon.title_names.get(name, 0) if len(words) > 1 else (row[2] if row else 0)
        if row is None:
            out[i] = (0.0, 0.0, math.log1p(titled), 0.0, 0.0, 1.0)
            continue
        df, plural, _, caps, lower = row
        out[i] = (
            math.log1p(df) / log_n,
            plural / (df + 1),
            math.log1p(titled),
            math.log1p(caps + lower),
            caps / (caps + lower + 1),
            0.0,
        )
    return out


@functools.cache
def load_lexicon() -> Lexicon:
    """Return the bundled name lexicon (cached; about 0.1 s to read)."""
    path = resources.files("paperscope.extract").joinpath("data", "method_lexicon.json.gz")
    with path.open("rb") as fh:
        body = json.loads(gzip.decompress(fh.read()).decode("utf-8"))
    return Lexicon(int(body["n_docs"]), int(body["min_df"]), body["counts"], body["title_names"])
