"""How likely a numeric claim is a result of this paper, not a setting or a number of prior work.

A logistic score over a few named features of the claim's sentence (:data:`WEIGHTS`). The
weights are set by hand from the cards_gold guideline's definition of a claim (a result of this
paper, never a setting, a hyper-parameter range or related work's number), not fitted: with
38 dev claims a fitted model would learn the dev half. Only the show threshold
(:data:`.confidence.SHOW_THRESHOLDS`) is tuned on the dev half.
"""

from __future__ import annotations

import math
import re

from .claim_relation import sentence_bounds

__all__ = ["WEIGHTS", "claim_confidence", "claim_features"]

#: Feature weights of the logistic score (``bias`` is the intercept); each feature is 0 or 1
#: except ``position`` (the claim's offset over the abstract's length, 0 to 1).
WEIGHTS: dict[str, float] = {
    "bias": 0.0,
    "result_cue": 1.5,  # a verb or noun of a result in the sentence: outperforms, improves, achieves
    "result_unit": 0.5,  # %, pp, ×, or a metric name (not a time, a count or a number in words)
    "word_number": -1.5,  # "doubling", "an order of magnitude": no value to check
    "own_work": 0.5,  # "we", "our", "the proposed …" in the sentence
    "prior_work": -2.5,  # "previous", "existing", "prior", "et al.", "[12]", with no own-work cue
    "baseline_value": -3.0,  # "over the state-of-the-art method, NEFTune (64.69%)": the compared method's number
    "setting": -2.5,  # "with 10% of the data", "ranging from", "set to", "λ =", "budget", "learning rate"
    "first_sentence": -1.0,  # the opening sentence states the problem
    "position": 1.0,
}
_RESULT_RE = re.compile(
    r"\b(?:outperform|improv|reduc|achiev|surpass|gain|boost|speed|faster|accelerat|reach|attain|exceed"
    r"|beat|yield|higher|lower|better|fewer|cut|sav|increas|decreas|lift|record|deliver|score)",
    re.IGNORECASE,
)
_OWN_RE = re.compile(r"\b(?:we|our|ours|the proposed|this (?:paper|work|method|approach))\b", re.IGNORECASE)
_PRIOR_RE = re.compile(
    r"\b(?:previous|prior|existing|earlier|current|conventional|typically|commonly"
    r"|et al)\b|\[\d",
    re.IGNORECASE,
)
_SETTING_BEFORE_RE = re.compile(
    r"(?:\bwith(?:\s+only)?|\busing(?:\s+only)?|\bat|\branging\s+from|\bset\s+to|\bbudgets?\s+(?:of|to)"
    r"|\bratios?\s+(?:of)?|\brates?\s+(?:of)?|\bλ|=|\bfrom|\bbetween|\bkeep(?:ing)?|\bretain(?:ing)?)"
    r"\s*(?:only\s+|just\s+)?$",
    re.IGNORECASE,
)
_SETTING_AFTER_RE = re.compile(
    r"^\s*(?:of\s+(?:the\s+)?(?:training\s+)?(?:data|labels?|labeled|samples|examples|annotations|budget))\b",
    re.IGNORECASE,
)
# The number in parentheses after what a result is compared with: "over X (64.69%)", "than Y (31.2".
_BASELINE_PAREN_RE = re.compile(
    r"\b(?:over|than|compared\s+(?:to|with)|versus|vs\.?|relative\s+to)\s+(?![\d<>~≈])[^.;()\d]{0,50}\(\s*$",
    re.IGNORECASE,
)
_RESULT_UNITS = {"%", "pp", "×"}


def claim_features(clean: str, start: int, end: int, unit: str, relation: str) -> dict[str, float]:
    """Return the named features of the claim at ``clean[start:end]`` (keys of :data:`WEIGHTS` but ``bias``)."""
    first, last = sentence_bounds(clean, start, end)
    sentence = clean[first:last]
    before = clean[max(first, start - 24) : start]
    own = bool(_OWN_RE.search(sentence))
    return {
        "result_cue": float(
            bool(_RESULT_RE.search(sentence)) or relation in ("improves", "reduces", "speedup")
        ),
        "result_unit": float(unit in _RESULT_UNITS or (bool(unit) and unit[0].isalpha() and unit != "s")),
        "word_number": float(not any(ch.isdigit() for ch in clean[start:end])),
        "own_work": float(own),
        "prior_work": float(bool(_PRIOR_RE.search(sentence)) and not own and relation != "improves"),
        "setting": float(
            bool(_SETTING_BEFORE_RE.search(before) or _SETTING_AFTER_RE.match(clean[end : end + 40]))
        ),
        "baseline_value": float(bool(_BASELINE_PAREN_RE.search(clean, max(first, start - 80), start))),
        "first_sentence": float(first == 0 and len(clean) > last + 1),
        "position": start / max(1, len(clean)),
    }


def claim_confidence(clean: str, start: int, end: int, unit: str, relation: str) -> float:
    """Return the probability-like confidence (0 to 1, 4 decimals) that the claim is a result of the paper.

    Args:
        clean: the abstract's clean text.
        start: offset of the claim's first character in ``clean``.
        end: end offset (exclusive).
        unit: the claim's unit (``%``, ``×``, a metric name, "" for a number in words).
        relation: the claim's relation (:data:`.claim_relation.RELATIONS`).
    """
    features = claim_features(clean, start, end, unit, relation)
    z = WEIGHTS["bias"] + sum(WEIGHTS[name] * value for name, value in features.items())
    return round(1.0 / (1.0 + math.exp(-z)), 4)
