"""Topic key phrases from the papers' keyphrases: c-TF-IDF over each paper's ranked keyphrases.

The plain c-TF-IDF labeller (:class:`paperscope.topics.label.CTfidfLabeller`) counts every 1-
and 2-word n-gram of the text, so a topic's best terms are often single words ("graph,
prediction, features"). Here each paper contributes its :data:`PER_PAPER` best keyphrases from
the trained ranker (:func:`paperscope.extract.keyphrases.extract_keyphrases`, trained to predict
author keywords), once each, and c-TF-IDF (Grootendorst, 2022, eq. 1; :func:`~.label.ctfidf`)
weighs those phrases per topic, so names read "speculative decoding, draft models".

A keyphrase is kept only when every word is a content word by the plain labeller's rules (no
stop word, boilerplate or LaTeX residue) and it is not made of generic words alone
("models") or ends in a hyphenated modifier ("training-free"); phrases are lower-cased like the
plain labeller's, so :func:`~.label.name_topic` drops "rl" after "reinforcement learning". Texts with CJK characters, which the ranker does not read, fall back to the
plain labeller's candidate phrases.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from ..extract.keyphrases import extract_keyphrases
from .label import GENERIC_WORDS, LABELLERS, CTfidfLabeller, _content_word, candidate_phrases

__all__ = ["KeyphraseLabeller", "PER_PAPER", "paper_phrases"]

#: Keyphrases a paper contributes (its ranked best): five is the F1@5 the ranker is scored at,
#: three more keep small topics from running out of phrases.
PER_PAPER = 8
_CJK_RE = re.compile(r"[\u3400-\u9fff]")


#: Hyphenated modifiers that end a candidate but not a name ("training-free", "physics-based").
_MODIFIER_ENDS = ("-free", "-based", "-aware", "-like", "-specific", "-driven", "-guided", "-level")


def _clean_phrase(text: str) -> bool:
    words = text.split()
    return (
        all(_content_word(w) == w for w in words)
        and not all(w in GENERIC_WORDS for w in words)
        and not words[-1].endswith(_MODIFIER_ENDS)
    )


def paper_phrases(text: str, per_paper: int = PER_PAPER) -> list[str]:
    """Return the distinct label phrases one paper contributes (best first; see the module docstring)."""
    if _CJK_RE.search(text):
        return list(dict.fromkeys(candidate_phrases(text)))
    out: list[str] = []
    for k in extract_keyphrases(text, 3 * per_paper):
        shown = k.text.lower()  # as the plain labeller: name_topic folds "rl" into "reinforcement learning"
        if _clean_phrase(shown) and shown not in out:
            out.append(shown)
            if len(out) == per_paper:
                break
    return out


class KeyphraseLabeller(CTfidfLabeller):
    """Key phrases by c-TF-IDF over each paper's ranked keyphrases (:func:`paper_phrases`).

    ``key_phrases`` is the plain labeller's (c-TF-IDF of the phrase counts, ties by phrase).

    Args:
        per_paper: keyphrases a paper contributes.
        min_count: a phrase must come from at least this many papers to be a label; lowered to
            1 for corpora of fewer than 50 documents (case 12 of the bug cases).
    """

    def __init__(self, per_paper: int = PER_PAPER, min_count: int = 2):
        super().__init__(min_count=min_count)
        self.per_paper = per_paper

    def fit(self, docs: Sequence[str]) -> None:
        phrases = [paper_phrases(d, self.per_paper) for d in docs]
        df = Counter(p for ps in phrases for p in ps)
        min_df = self.min_count if len(docs) >= 50 else 1
        vocab = sorted(p for p, n in df.items() if n >= min_df)
        index = {p: i for i, p in enumerate(vocab)}
        pairs = [(r, index[p]) for r, ps in enumerate(phrases) for p in ps if p in index]
        rows = np.array([r for r, _ in pairs], dtype=np.int64)
        cols = np.array([c for _, c in pairs], dtype=np.int64)
        self._doc_terms = sparse.csr_matrix(
            (np.ones(len(pairs), dtype=np.int64), (rows, cols)), shape=(len(docs), len(vocab))
        )
        self._vocab = np.array(vocab, dtype=object)


LABELLERS["keyphrases"] = KeyphraseLabeller
