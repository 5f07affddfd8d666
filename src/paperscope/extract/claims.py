r"""Numeric claims: the explicit results an abstract reports, as ``{value, unit, what}`` with a span.

Read from the clean text, where LaTeX is already Unicode and entities are decoded once, so
``9.6$\times$`` arrives as ``9.6×`` and ``&lt;1%`` as ``<1%`` (bugs/CASES.md cases 5 and 6).

A claim is a number with a result unit: a factor (``65×``, ``94x``, ``1.3X``), a percentage
(``3.28%``, ``<1%``, ``> 90%``), percentage points (``2.1 pp``, ``4 points``), or a value next to
a named metric (``12.8 IR@1``, ``a gFID of 3.2``, ``+13% mIoU``). Plain counts without such a unit
(``100,000 images``, ``370M parameters``, ``64 training epochs``) are sizes or settings, not
results, and are left out; so are percentages that set a budget rather than report one
(``top-5%``, ``p < 0.05``, ``at 50% sparsity``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Claim", "extract_claims", "METRIC_UNITS"]

#: Metric names whose values count as results when written next to a number (``12.8 IR@1``).
METRIC_UNITS = (
    r"[A-Z]{1,3}@\d+|[Pp]ass@\d+|[Rr]ecall@\d+|[Hh]it(?:s)?@\d+|nDCG@\d+|NDCG@\d+|MRR@\d+|mIoU|mAP|AP50|AP|"
    r"g?FID|FVD|IS|BLEU|ROUGE(?:-[L12])?|METEOR|CIDEr|SPICE|PSNR|SSIM|LPIPS|AUROC|AUC|AUPRC|F1|EM|WER|CER|"
    r"dB|BPD|bpd|PPL|perplexity|Elo|ELO"
)
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_REL = r"(?:[<>≤≥~≈]|&lt;|&gt;)"
# Each pattern starts at the digit (fast to scan); a bound written before it ("<1%") is read apart.
_FACTOR_RE = re.compile(rf"(?<![\w.])({_NUM})\s?([×xX])(?![\w²³]|\s?\d)")
_REL_BEFORE_RE = re.compile(rf"({_REL})\s?$")
_PERCENT_RE = re.compile(rf"(?<![\w.])([+\-−]?)({_NUM})\s?(%|percentage points|percent|pp\b|points\b)")
_METRIC_AFTER_RE = re.compile(rf"(?<![\w.])({_NUM})\s+({METRIC_UNITS})(?![\w])")
_METRIC_BEFORE_RE = re.compile(
    rf"(?<![\w@])({METRIC_UNITS})\s+(?:score\s+)?(?:of|=|:|at)\s+({_NUM})(?![\w.]\d)"
)
# A latency result: "1s per scene", "40 ms per frame" (a time per unit of work, not a budget).
_TIME_PER_RE = re.compile(
    rf"(?<![\w.])({_NUM})\s?(ms|s|sec|seconds?|min|minutes?|h|hours?)\s+per\s+"
    r"[a-z]+\b"
)
_TIME_UNITS = {
    "sec": "s",
    "second": "s",
    "seconds": "s",
    "minute": "min",
    "minutes": "min",
    "hour": "h",
    "hours": "h",
}
# A context length the method reaches: "context lengths of up to 5M tokens".
_CONTEXT_RE = re.compile(
    rf"\bcontext(?:\s+lengths?)?\s+(?:of\s+)?(?:up\s+to\s+|over\s+|beyond\s+)?({_NUM})\s?([KMB])\s+tokens\b"
)
_SETTING_BEFORE_RE = re.compile(
    r"(?:top-?|p\s?[<=]\s?|at\s+|with\s+|under\s+|rate\s+of\s+|ratio\s+of\s+|budget\s+of\s+)$", re.I
)
_SETTING_AFTER_RE = re.compile(
    r"^\s*(?:sparsity|pruning ratio|of the (?:training )?data|noise|label noise|masking)\b", re.I
)
_STOP_AFTER = re.compile(
    r"(?<![\w-])(?:while|and|with|compared|than|when|at|which|that|where|in|on|for|across|under|using|by|to|as|vs)"
    r"(?![\w-])|[,;.()\[\]:]"
)
_FUNCTION_WORDS = {
    "of",
    "the",
    "a",
    "an",
    "in",
    "on",
    "and",
    "to",
    "by",
    "with",
    "up",
    "over",
    "only",
    "while",
    "than",
}


@dataclass
class Claim:
    """One numeric result: value as written, unit, what it measures, and its span in the clean text.

    Attributes:
        value: the number as written, without thousands separators (``"1.60"``, ``"65"``).
        unit: ``×`` for factors, ``%``, ``pp``, or the metric name (``IR@1``, ``gFID``).
        what: a short phrase on what the number measures (``"faster distillation"``).
        start: offset of the claim's first character in the clean text.
        end: end offset (exclusive).
        relation: ``<``, ``>``, ``≤``, ``≥`` or ``~`` when the abstract bounds the value, else "".

    """

    value: str
    unit: str
    what: str
    start: int
    end: int
    relation: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "value": self.value,
            "unit": self.unit,
            "what": self.what,
            "start": self.start,
            "end": self.end,
            "relation": self.relation,
        }


def _what(clean: str, start: int, end: int) -> str:
    """Return what a number measures: the words after it, else the words before it."""
    after = clean[end : end + 80]
    after = re.sub(r"^\s*(?:of\s+(?:the\s+)?)?", "", after) if after.lstrip().startswith("of ") else after
    stop = _STOP_AFTER.search(after)
    words = (after[: stop.start()] if stop else after).split()[:5]
    if words and words[0].lower() not in _FUNCTION_WORDS:
        return " ".join(words).strip(" -")
    before = clean[max(0, start - 80) : start]
    before = re.sub(r"\s*(?:up to|by|of|to|over|reaching|achieving|achieves|with)\s*$", "", before.rstrip())
    stops = list(re.finditer(r"[,;:()]|\b(?:and|while|which|that|where)\b", before))
    phrase = before[stops[-1].end() :] if stops else before
    words = phrase.split()[-5:]
    while words and words[0].lower() in _FUNCTION_WORDS:
        words.pop(0)
    if words:
        return " ".join(words).strip(" -—")
    tail = re.split(r"[,;.()\[\]:]", clean[end : end + 80], maxsplit=1)[0].split()[:6]
    return " ".join(tail).strip(" -—")


def _value(raw: str) -> str:
    return raw.replace(",", "")


def extract_claims(clean: str) -> list[Claim]:
    """Return the numeric results of ``clean`` in text order (one per number and unit).

    Args:
        clean: the clean text of an abstract.

    Returns:
        A list of :class:`Claim`; a number is reported once even when two patterns match it.

    """
    claims: list[Claim] = []
    taken: list[tuple[int, int]] = []

    def add(value: str, unit: str, start: int, end: int, relation: str = "") -> None:
        if any(s < end and start < e for s, e in taken):
            return
        taken.append((start, end))
        claims.append(Claim(_value(value), unit, _what(clean, start, end), start, end, relation))

    def relation(start: int) -> tuple[str, int]:
        m = _REL_BEFORE_RE.search(clean, max(0, start - 6), start)
        if not m:
            return "", start
        return m.group(1).replace("&lt;", "<").replace("&gt;", ">"), m.start()

    for m in _FACTOR_RE.finditer(clean):
        rel, start = relation(m.start())
        add(m.group(1), "×", start, m.end(), rel)
    for m in _PERCENT_RE.finditer(clean):
        if _SETTING_BEFORE_RE.search(clean[max(0, m.start() - 20) : m.start()]):
            continue
        if _SETTING_AFTER_RE.match(clean[m.end() :]):
            continue
        rel, start = relation(m.start())
        unit = "%" if m.group(3) in ("%", "percent") else "pp"
        add(m.group(2), unit, start, m.end(), rel)
    if " per " in clean:
        for m in _TIME_PER_RE.finditer(clean):
            add(m.group(1), _TIME_UNITS.get(m.group(2), m.group(2)), m.start(), m.end())
    if "context" in clean:
        for m in _CONTEXT_RE.finditer(clean):
            add(m.group(1), f"{m.group(2)} tokens", m.start(1), m.end())
    for m in _METRIC_AFTER_RE.finditer(clean):
        add(m.group(1), m.group(2), m.start(), m.end())
    for m in _METRIC_BEFORE_RE.finditer(clean):
        add(m.group(2), m.group(1), m.start(), m.end())
    return sorted(claims, key=lambda c: c.start)
