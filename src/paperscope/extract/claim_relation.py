"""What a claim's number says: its relation, metric and dataset, read from the words around it.

A claim's ``relation`` is one of :data:`RELATIONS`:

- ``improves``: a gain (``8.4% accuracy improvements``, ``surpasses SOTA by 4.55%``, ``+1.6%``);
- ``reduces``: a fall (``reduces inference time by 63%``, ``a 20x reduction``, ``-31.5%``);
- ``increases``: a rise in a cost (``a 60% computational overhead``, ``10%–25% extra complexity``);
- ``speedup``: a gain in speed (``3.67× speedup``, ``30% faster training``, ``accelerating by 1.72×``);
- ``compared-with``: a share of what another system uses (``0.11% of trainable parameters``,
  ``2x the parameters``);
- ``reaches``: a level the method attains (``achieves 67% accuracy``, ``raises accuracy to 80%``).

It is decided by the cue words nearest the number, in this order: a before/after pair ("from A to
B": the direction of the change, unless a verb says which); a sign; the first four words after the number
(the noun a change is named by: "reduction", "gain", "faster", "overhead"; or "of the <cost>");
"to X" (a level); the nearest cue word among the twelve before it in the same sentence
("improves … by X"); else ``reaches``. The cue words are word stems (``reduc`` for reduce,
reduces, reduction …), not phrases per paper. Checked against 80 sentences of ICLR 2026 abstracts
that we labelled by hand before running the extractor (``evaluation/data/claim_relations.jsonl``;
``paperscope eval cards`` prints the figures).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..models import CLAIM_RELATIONS

__all__ = ["RELATIONS", "relation_of", "metric_of", "dataset_of", "sentence_bounds"]

RELATIONS = CLAIM_RELATIONS

_SPEED = ("faster", "speedup", "speed-up", "speedups", "accelerat", "speed")
_REDUCE = (
    "reduc", "decreas", "drop", "lower", "fewer", "less", "cut", "sav", "compress", "shrink", "downarrow",
    "↓", "diminish", "mitigat", "smaller", "declin", "narrow", "shorten",
)  # fmt: skip
_COST = ("overhead", "extra", "additional")  # whole words: "extrapolation" is no cost
_IMPROVE = (
    "improv", "gain", "outperform", "surpass", "boost", "increas", "higher", "better", "enhanc", "uparrow",
    "↑", "exceed", "beat", "rais", "lift", "elevat", "advantage", "doubl", "tripl",
)  # fmt: skip
_REACH = ("achiev", "reach", "attain", "scor", "obtain", "tops", "match", "record")
#: What a share "of" names when the number compares against another system's use of it.
_SHARE_RE = re.compile(
    r"^\s*(?:of|the)\s+(?:the\s+|its\s+|their\s+)?(?:[\w\-]+\s+){0,2}?"
    r"(?:computation|compute|parameters|tokens|time|budget|data|cost|memory|flops|training|size|samples)\b",
    re.IGNORECASE,
)
#: Words between a cue and its number that belong to the number ("by up to", "less than", "an average of").
_LEAD_IN = {
    "up", "to", "by", "of", "over", "about", "around", "nearly", "approximately", "roughly", "almost", "more",
    "less", "fewer", "higher", "lower", "greater", "than", "at", "least", "most", "only", "just", "an", "a",
    "the", "average", "as", "much", "even", "still",
}  # fmt: skip
_WORD_RE = re.compile(r"[A-Za-z][\w\-]*|[↓↑]")
_LEVEL_TO_RE = re.compile(
    r"(?<!\bup)\s\bto\s+(?:about\s+|around\s+|nearly\s+|over\s+|below\s+|above\s+|under\s+)?$"
)
_CLAUSE_STOP_RE = re.compile(r"\d|[,;(]|\b(?:and|while|with|but|whereas|compared|than)\b")
_SENTENCE_END_RE = re.compile(r"[.!?](?=\s+[A-Z(]|\s*$)|;")
#: Metric names a claim may name near its number (beside the metric units of ``claims``).
_METRIC_WORDS = (
    r"attack success rate|success rate|win rate|error rate|accuracy|perplexity|latency|throughput|"
    r"memory|FLOPs|recall|precision|Spearman|PLCC|SRCC|ASR|error"
)


def _cue(word: str) -> str | None:
    low = word.lower()
    if low in _COST:
        return "increases"
    for relation, stems in (("speedup", _SPEED), ("reduces", _REDUCE), ("improves", _IMPROVE)):
        if low.startswith(stems):
            return relation
    return "reaches" if low.startswith(_REACH) else None


def sentence_bounds(clean: str, start: int, end: int) -> tuple[int, int]:
    """Return ``(first, last)`` offsets of the sentence (or ``;`` clause) holding ``clean[start:end]``."""
    first = 0
    for m in _SENTENCE_END_RE.finditer(clean, 0, start):
        first = m.end()
    m = _SENTENCE_END_RE.search(clean, end)
    return first, (m.start() if m else len(clean))


def _clause_after(clean: str, end: int, last: int) -> str:
    """The words after a number up to the next number, comma, bracket or clause word."""
    stop = _CLAUSE_STOP_RE.search(clean, end, last)
    return clean[end : stop.start() if stop else last]


def relation_of(
    clean: str,
    start: int,
    end: int,
    unit: str,
    sign: str = "",
    baseline: str | None = None,
    change: bool = True,
) -> str:
    """Return the relation (one of :data:`RELATIONS`) of the claim ``clean[start:end]``.

    Args:
        clean: the clean text.
        start: offset where the claim (its number and unit) starts.
        end: offset where it ends (exclusive).
        unit: the claim's unit (``%``, ``×``, a metric name …).
        sign: ``"+"`` or ``"-"`` when the number is written signed, else "".
        baseline: the value it is compared with, else None.
        change: the baseline is the before of a before/after pair ("from A to B"), whose direction
            is the relation; False for a comparison ("B vs. A"), read like any other claim.
    """
    first, last = sentence_bounds(clean, start, end)
    before_words = _WORD_RE.findall(clean[first:start])[-12:]
    while before_words and before_words[-1].lower() in _LEAD_IN:  # "less than 1%" is a bound, not a cue
        before_words.pop()
    before_cue = next((c for c in map(_cue, reversed(before_words)) if c), None)
    if baseline is not None and change:
        if before_cue in ("improves", "reduces", "speedup"):
            return before_cue
        try:
            return (
                "improves"
                if float(clean[start:end].strip().rstrip("%×xX ").split()[0]) > float(baseline)
                else "reduces"
            )
        except (ValueError, IndexError):
            return "reaches"
    if sign == "-":
        return "reduces"
    if sign == "+":
        return "improves"
    after = _clause_after(clean, end, last)
    for word in _WORD_RE.findall(after)[:4]:
        cue = _cue(word)
        if cue and cue != "reaches":
            return cue
    if _SHARE_RE.match(after) or (unit == "×" and re.match(r"^\s*the\b", after)):
        return "compared-with"
    if _LEVEL_TO_RE.search(clean[max(first, start - 30) : start]):
        return "reaches"
    return before_cue or "reaches"


def metric_of(clean: str, start: int, end: int, unit: str, metric_units: str) -> str | None:
    """Return the metric a claim names: its unit when that is a metric, else the nearest metric word.

    Looks in the sentence after the number first (five words), then before it (six words).
    """
    if unit and unit not in ("%", "×", "pp") and re.fullmatch(metric_units, unit):
        return unit
    pattern = re.compile(
        rf"(?<![\w@-])({metric_units}|(?i:{_METRIC_WORDS}))(?![\w-])"
    )  # "IS" is a metric, "is" not
    first, last = sentence_bounds(clean, start, end)
    after = " ".join(_clause_after(clean, end, last).split()[:5])
    m = pattern.search(after)
    if m:
        return m.group(1)
    before = " ".join(clean[first:start].split()[-6:])
    found = list(pattern.finditer(before))
    return found[-1].group(1) if found else None


def dataset_of(clean: str, start: int, end: int, datasets: Sequence[str]) -> str | None:
    """Return the dataset of ``datasets`` named in the claim's sentence: nearest after it, else before."""
    if not datasets:
        return None
    first, last = sentence_bounds(clean, start, end)
    best: tuple[int, str] | None = None
    for name in datasets:
        for m in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", clean[first:last]):
            at = first + m.start()
            distance = at - end if at >= end else 10_000 + (start - at)  # after it first
            if best is None or distance < best[0]:
                best = (distance, name)
    return best[1] if best else None
