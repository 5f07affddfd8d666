r"""Numeric claims: the explicit results an abstract reports, as ``{value, unit, what}`` with a span.

Read from the clean text, where LaTeX is already Unicode and entities are decoded once, so
``9.6$\times$`` arrives as ``9.6×`` and ``&lt;1%`` as ``<1%`` (bugs/CASES.md cases 5 and 6).

A claim is a number with a result unit: a factor (``65×``, ``94x``, ``1.3X``), a percentage
(``3.28%``, ``<1%``, ``> 90%``), percentage points (``2.1 pp``, ``4 points``, a signed gain after a name: ``REIN (+1.2)``),
or a value next to a named metric (``12.8 IR@1``, ``a gFID of 3.2``, ``+13% mIoU``, ``54 FPS``;
two numbers may share one: ``24.06 and 51.01 accuracy``). Plain counts without such a unit
(``100,000 images``, ``370M parameters``, ``64 training epochs``) are sizes or settings, not
results, and are left out; so are percentages that set a budget rather than report one
(``top-5%``, ``p < 0.05``, ``at 50% sparsity``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .claim_confidence import claim_confidence
from .claim_relation import dataset_of, metric_of, relation_of

__all__ = ["Claim", "extract_claims", "METRIC_UNITS"]

#: Metric names whose values count as results when written next to a number (``12.8 IR@1``).
METRIC_UNITS = (
    r"[A-Z]{1,3}@\d+|[Pp]ass@\d+|[Rr]ecall@\d+|[Hh]it(?:s)?@\d+|nDCG@\d+|NDCG@\d+|MRR@\d+|(?i:mIoU)|mAP|AP50|AP|"
    r"[gr]?FID|FVD|IS|BLEU|ROUGE(?:-[L12])?|METEOR|CIDEr|SPICE|PSNR|SSIM|LPIPS|AUROC|AUC|AUPRC|F1|EM|WER|CER|"
    r"dB|BPD|bpd|PPL|perplexity|Elo|ELO|FPS|accuracy"
)
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_REL = r"(?:[<>≤≥~≈]|&lt;|&gt;)"
# Each pattern starts at the digit (fast to scan); a bound written before it ("<1%") is read apart.
_FACTOR_RE = re.compile(rf"(?<![\w.\-])({_NUM})\s?([×xX])(?![\w²³]|\s?\d)")
_REL_BEFORE_RE = re.compile(rf"({_REL})\s?$")
_SPREAD_RE = re.compile(rf"\s?±\s?(?:{_NUM})")
# A sign only where it is no range's dash: "1%-6%" is a range, "-31.5%" a fall.
_PERCENT_RE = re.compile(
    rf"(?<![\w.])((?:(?<![\d%×])[+\-−])?)({_NUM})\s*(%|(?:absolute\s+)?percentage points|percent|pp\b|(?:absolute\s+)?points\b)"
)
# The baseline of a before/after pair is not a result of the paper: "from 12.0% to 24.7%",
# "19.6% → 57.1%", "(71.56% vs. 31.83%)" (the number after "vs.").
_BASELINE_AFTER_RE = re.compile(rf"^\s*(?:to|→|->|⟶)\s*{_REL}?\s*\d")
_BASELINE_BEFORE_RE = re.compile(r"(?:\bvs\.?|\bversus|\bcompared\s+to)\s*$")
# The before half of a pair, just before the after value: "from 12.0% to ", "19.6% → ", "from around 50% to below ".
_FROM_TO_RE = re.compile(
    rf"(\bfrom\s+(?:around\s+|about\s+|approximately\s+|roughly\s+|~\s?)?)?({_NUM})\s?(?:%|×|[xX]|points|pp)?\s?"
    rf"(to|→|->|⟶)\s*(?:below\s+|above\s+|over\s+|under\s+|nearly\s+|about\s+|around\s+|~\s?)?{_REL}?\s?$"
)
# The low end of a range, just before its high end: "4–", "10%–", "2.35x to ", "12.2% to " (no "from").
_RANGE_LEFT_RE = re.compile(rf"(?<![\w.])({_NUM})\s?(?:%|×|[xX]|points|pp)?\s?(?:–|—|-|to)\s?$")
# A baseline written after the value: "91.5% vs. 42.7%", "67% (vs. 40%".
_VS_AFTER_RE = re.compile(rf"[^;%×]{{0,50}}?\(?\b(?:vs\.?|versus)\s*({_NUM})")
# The earlier values of a slash list sharing one unit: "18/13/" before "53%".
_SLASH_LIST_RE = re.compile(rf"(?<![\w./])(?:(?:{_NUM})/)+$")
# A number in words: "more than double", "doubling", "twice as fast", "halves" (not "a double dissociation").
_WORD_FACTOR_RE = re.compile(
    r"(?<!\ba )(?<!\bthe )\b(?:(?:more than|nearly|almost|over)\s+)?"
    r"(?:doubl(?:es|ed|ing)|double(?=\s+(?:the|its|their)\b)|twice|tripl(?:es|ed|ing)|halv(?:es|ed|ing)"
    r"|an order of magnitude)\b(?!-)",
    re.IGNORECASE,
)
_WORD_FACTOR_PROBES = ("doubl", "twice", "tripl", "halv", "order of magnitude")
_DIGIT_RE = re.compile(r"\d")
# Never a number inside a name: "perplexity at 64K tokens on PG-19".
# A lower-case word may name which variant of the metric: "53.9 box AP and 46.8 mask AP".
_METRIC_AFTER_RE = re.compile(
    rf"(?<![\w.\-@])({_NUM})\s+(?:(?!(?:and|or|of|the|in|on|at|to|for|with|by|vs|than|times)\b)([a-z]{{2,8}})\s+)?"
    rf"({METRIC_UNITS})(?![\w])"
)
# A factor in words: "4.5 times faster", "293.3 times fewer tokens", "a 3-fold reduction" (not "5-fold cross-validation").
_TIMES_RE = re.compile(
    rf"(?<![\w.\-])({_NUM})(?:\s*-\s*fold|\s+times)(?=\s+(?:fewer|more|less|faster|slower|higher|lower|smaller"
    r"|larger|better|greater|cheaper|speed-?ups?|speed|acceleration|compression|reduction|decrease|increase"
    r"|improvement|gains?|surge|compared|over)\b)",
    re.IGNORECASE,
)
# The first of two numbers that share a metric: "achieving only 24.06 and 51.01 accuracy".
_SHARED_UNIT_RE = re.compile(rf"(?<![\w.])({_NUM})\s*(?:,|and|or|,\s*and)\s*$")
# A signed gain in parentheses after a name: "methods like REIN (+1.2) and SoMA (+0.5)".
_PAREN_GAIN_RE = re.compile(rf"(?<=[\w)])\s\(\+\s?({_NUM})\)")
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
# A bound in words before the number (guideline of evaluation/data/cards_gold), as the guideline writes it.
_WORD_BOUND_RE = re.compile(
    r"(?<![\w-])(up to|as much as|more than|greater than|higher than|over|exceeding|above|at least|at most"
    r"|no more than|within|less than|fewer than|lower than|under|below|about|around|approximately|nearly"
    r"|almost|roughly|~)\s*$",
    re.IGNORECASE,
)
_WORD_BOUNDS = {
    "as much as": "up to",
    "over": "more than",
    "greater than": "more than",
    "higher than": "more than",
    "fewer than": "less than",
    "lower than": "less than",
    "exceeding": "more than",
    "above": "more than",
    "no more than": "at most",
    "within": "at most",
    "under": "less than",
    "below": "less than",
    "around": "about",
    "approximately": "about",
    "nearly": "about",
    "almost": "about",
    "roughly": "about",
    "~": "about",
}
# "within an accuracy loss of 1%", "within a factor of 2": a bound some words before the number.
_WITHIN_OF_RE = re.compile(r"(?<![\w-])within\s+(?:[\w-]+\s+){1,4}of\s*$", re.IGNORECASE)


def _word_bound(clean: str, start: int) -> str:
    """Return the bound written in words just before ``clean[start]`` (guideline words), or ""."""
    if w := _WORD_BOUND_RE.search(clean, max(0, start - 16), start):
        return _WORD_BOUNDS.get(w.group(1).lower(), w.group(1).lower())
    if "within" in clean[max(0, start - 48) : start].lower() and _WITHIN_OF_RE.search(
        clean, max(0, start - 48), start
    ):
        return "at most"
    return ""


# Between two numbers of one coordinated list: "up to 50% and 40%", "gains of 3.6%, 6.1%".
_LIST_GAP_RE = re.compile(r"\s*(?:,|,?\s*and|,?\s*or)\s*")
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
    """One numeric result: value as written, unit, what it measures, what it says, and its span.

    Attributes:
        value: the number as written, without thousands separators (``"1.60"``, ``"65"``); a range
            as ``"4–7"``; a number in words as written (``"more than double"``).
        unit: ``×`` for factors, ``%``, ``pp``, the metric name (``IR@1``, ``gFID``), or "" for a
            number in words.
        what: a short phrase on what the number measures (``"faster distillation"``).
        start: offset of the claim's first character in the clean text.
        end: end offset (exclusive).
        bound: ``<``, ``>``, ``≤``, ``≥`` or ``~`` written before the value, or the words of the
            cards_gold guideline (``up to``, ``more than``, ``at least``, ``at most``,
            ``less than``, ``about``) for a bound in words; "" when unbounded. A bound governs
            the later numbers of its coordinated list ("up to 50% and 40%").
        relation: what the number says (:data:`claim_relation.RELATIONS`: improves, reduces,
            increases, reaches, speedup, compared-with).
        baseline: the value it is compared with when the sentence gives one ("from 12.0% to
            24.7%": 12.0; "91.5% vs. 42.7%": 42.7), else None.
        metric: the metric named by the unit or next to the number (``accuracy``, ``FID``), else None.
        dataset: the card's dataset named in the same sentence, nearest after the number, else None.
        confidence: how likely it is a result of this paper (0 to 1,
            :func:`.claim_confidence.claim_confidence`); pages show it from
            :data:`.confidence.SHOW_THRESHOLDS` ``["claims"]`` up.
    """

    value: str
    unit: str
    what: str
    start: int
    end: int
    bound: str = ""
    relation: str = "reaches"
    baseline: str | None = None
    metric: str | None = None
    dataset: str | None = None
    confidence: float = 1.0

    def to_dict(self) -> dict[str, object]:
        return {
            "value": self.value,
            "unit": self.unit,
            "what": self.what,
            "start": self.start,
            "end": self.end,
            "bound": self.bound,
            "relation": self.relation,
            "baseline": self.baseline,
            "metric": self.metric,
            "dataset": self.dataset,
            "confidence": self.confidence,
        }


_LEAD_IN_RE = re.compile(
    r"\s*(?<![\w.])(?:up to|by|of|to|over|under|reaching|reaches|achieving|achieves|with|only|as much as|an average"
    r"|average|a|an|the|e\.g\.,?|i\.e\.,?|nearly|about|around|approximately|roughly|almost|more than"
    r"|less than|at least|at most)\s*$",
    re.IGNORECASE,
)
#: Pronouns and verbs that open a phrase before a number and say nothing of what it measures.
_LEAD_VERBS = {
    "achieving",
    "achieves",
    "reaching",
    "reaches",
    "enabling",
    "enables",
    "can",
    "induce",
    "yielding",
    "it",
    "they",
    "this",
    "we",
    "which",
}


#: Verbs of a change, between the one who changes and what changes.
_VERB_RE = re.compile(
    r"(?:reduc|decreas|improv|increas|boost|lower|rais|cut|enhanc|accelerat|surpass|outperform)(?:es|ed|ing|e|s)?"
)


def _what(clean: str, start: int, end: int) -> str:
    """Return what a number measures: the words after it, else the words before it."""
    after = clean[end : end + 80]
    after = re.sub(r"^\s*(?:of\s+(?:the\s+)?)?", "", after) if after.lstrip().startswith("of ") else after
    stop = _STOP_AFTER.search(after)
    words = (after[: stop.start()] if stop else after).split()[:5]
    if words and words[0].lower() not in _FUNCTION_WORDS:
        return " ".join(words).strip(" -")
    before = clean[max(0, start - 80) : start]
    # Earlier numbers of the same list go: "24.06 and 51.01 accuracy", "12.8 IR@1 and 17.8 TR@1".
    before = re.sub(
        r"(?:\s*\d[\d.,]*\s?(?:%|×|[A-Za-z]+@\d+|[A-Za-z]{1,6})?\s*(?:and|or|,))+\s*$", "", before.rstrip()
    )
    before = re.sub(r"\s*(?:from\s+)?[\d.,]+\s?%?\s*(?:→|->|to)\s*$", "", before)  # "GSM8K: 19.6% → 57.1%"
    # Lead-in words between the phrase and the number go, however many: "achieving average gains
    # of over 10%", "usage by as much as 82.5%", "reaching a gFID of 3.2", "tasks, e.g., 12.8 IR@1".
    while True:
        shorter = _LEAD_IN_RE.sub("", before.rstrip()).rstrip(" ,;:")
        if shorter == before:
            break
        before = shorter
    before = re.sub(r"\s*[(:]$", "", before)  # "(71.56% vs. 31.83%)", "GSM8K: …": the words before
    stops = list(re.finditer(r"[,;:()]|\.\s|\b(?:and|while|which|that|where)\b", before))
    phrase = before[stops[-1].end() :] if stops else before
    words = phrase.split()[-5:]
    verbs = [i for i, w in enumerate(words[:-1]) if _VERB_RE.fullmatch(w)]
    if verbs:  # "NEO reduces inference time by 63%": what it changes, not who changes it
        words = words[verbs[-1] + 1 :]
    while words and (words[0].lower() in _FUNCTION_WORDS or words[0].lower() in _LEAD_VERBS):
        words.pop(0)
    if words:
        return " ".join(words).strip(" -—")
    rest = re.sub(r"^\s*\(?(?:vs\.?|versus)\s*[\d.,]+\s?%?\s*", "", clean[end : end + 80])
    tail = re.split(r"[,;.()\[\]:]", rest, maxsplit=1)[0].split()[:6]
    return " ".join(tail).strip(" -—")


def _value(raw: str) -> str:
    return raw.replace(",", "")


def extract_claims(clean: str, datasets: Sequence[str] = ()) -> list[Claim]:
    """Return the numeric results of ``clean`` in text order (one per number and unit).

    Args:
        clean: the clean text of an abstract.
        datasets: the dataset names the card found in it (each claim names the one in its sentence).

    Returns:
        A list of :class:`Claim` with its relation, baseline, metric and dataset; a number is
        reported once even when two patterns match it, and a range ("4–7%") once.
    """
    claims: list[Claim] = []
    taken: list[tuple[int, int]] = []
    signs: dict[int, str] = {}
    shares: dict[int, int] = {}

    def add(value: str, unit: str, start: int, end: int, bound: str = "") -> None:
        if any(s < end and start < e for s, e in taken):
            return
        taken.append((start, end))
        bound = bound or _word_bound(clean, start)  # the span stays on the number
        claims.append(Claim(_value(value), unit, _what(clean, start, end), start, end, bound))

    def bound_of(start: int) -> tuple[str, int]:
        m = _REL_BEFORE_RE.search(clean, max(0, start - 6), start)
        if not m:
            return "", start
        return m.group(1).replace("&lt;", "<").replace("&gt;", ">"), m.start()

    # "2.1±0.3 FID": the spread is masked (offsets kept) so the value read is 2.1, not 0.3.
    scan = _SPREAD_RE.sub(lambda m: " " * len(m.group(0)), clean) if "±" in clean else clean
    # Cheap substring pre-tests: each pattern below is a full scan of the abstract.
    digits = _DIGIT_RE.search(scan) is not None
    lowered = scan.lower()
    for m in _FACTOR_RE.finditer(scan) if digits else ():
        rel, start = bound_of(m.start())
        add(m.group(1), "×", start, m.end(), rel)
    for m in _TIMES_RE.finditer(scan) if digits and ("times" in lowered or "fold" in lowered) else ():
        rel, start = bound_of(m.start())
        add(m.group(1), "×", start, m.end(), rel)
    percent = digits and ("%" in scan or "percent" in lowered or "pp" in lowered or "points" in lowered)
    for m in _PERCENT_RE.finditer(scan) if percent else ():
        if _SETTING_BEFORE_RE.search(clean[max(0, m.start() - 20) : m.start()]):
            continue
        if _SETTING_AFTER_RE.match(clean[m.end() :]):
            continue
        if _BASELINE_AFTER_RE.match(clean[m.end() : m.end() + 12]) or _BASELINE_BEFORE_RE.search(
            clean[max(0, m.start() - 12) : m.start()]
        ):
            continue  # a baseline (or a range's first number): read with the number it goes with
        rel, start = bound_of(m.start())
        unit = "%" if m.group(3) in ("%", "percent") else "pp"  # "40 absolute points" is 40 pp
        listed = _SLASH_LIST_RE.search(clean, max(0, start - 40), start)
        if listed:  # "18/13/53%": each value of the list has the unit
            at = listed.start()
            for part in listed.group(0).split("/")[:-1]:
                add(part, unit, at, at + len(part))
                shares[at] = start  # reads as the list's last value does: "an average 18/13/53% ASR drop"
                at += len(part) + 1
        add(m.group(2), unit, start, m.end(), rel)
        signs[start] = "-" if m.group(1) in ("-", "−") else m.group(1)
    if " per " in clean:
        for m in _TIME_PER_RE.finditer(scan):
            add(m.group(1), _TIME_UNITS.get(m.group(2), m.group(2)), m.start(), m.end())
    if "context" in clean:
        for m in _CONTEXT_RE.finditer(scan):
            add(m.group(1), f"{m.group(2)} tokens", m.start(1), m.end())
    for m in _METRIC_AFTER_RE.finditer(scan) if digits else ():
        if m.group(2) and not m.group(3)[:1].isupper():
            continue  # "5 test accuracy": a word before a lower-case metric is no variant of it
        unit = f"{m.group(2)} {m.group(3)}" if m.group(2) else m.group(3)
        add(m.group(1), unit, m.start(), m.end())
        first = _SHARED_UNIT_RE.search(clean, max(0, m.start() - 20), m.start())
        if first:
            add(first.group(1), unit, first.start(1), first.end(1))
    if "(+" in clean:
        for m in _PAREN_GAIN_RE.finditer(clean):
            add(m.group(1), "pp", m.start(1) - 1, m.end(1))
            signs[m.start(1) - 1] = "+"
            name = re.search(r"(\S+)\s*$", clean[max(0, m.start() - 40) : m.start()])
            if name and claims[-1].start == m.start(1) - 1:
                claims[-1].what = f"gain for {name.group(1)}"
    for m in _METRIC_BEFORE_RE.finditer(scan) if digits else ():
        add(m.group(2), m.group(1), m.start(), m.end())
    for m in _WORD_FACTOR_RE.finditer(scan) if any(w in lowered for w in _WORD_FACTOR_PROBES) else ():
        add(m.group(0), "", m.start(), m.end())
    claims, changes = _ranges_and_baselines(clean, sorted(claims, key=lambda c: c.start))
    for prev, claim in zip(claims, claims[1:], strict=False):
        if prev.bound and not claim.bound and _LIST_GAP_RE.fullmatch(clean, prev.end, claim.start):
            claim.bound = prev.bound
    for claim in claims:
        claim.relation = relation_of(
            clean,
            claim.start,
            claim.end,
            claim.unit,
            signs.get(claim.start, ""),
            claim.baseline,
            change=claim.start in changes,
        )
        claim.metric = metric_of(clean, claim.start, claim.end, claim.unit, METRIC_UNITS)
        claim.dataset = dataset_of(clean, claim.start, claim.end, datasets)
    by_start = {c.start: c for c in claims}
    for member, last in shares.items():
        if member in by_start and last in by_start:
            head, tail = by_start[member], by_start[last]
            head.relation, head.metric, head.what = tail.relation, tail.metric, tail.what
    for claim in claims:
        claim.confidence = claim_confidence(clean, claim.start, claim.end, claim.unit, claim.relation)
    return claims


def _ranges_and_baselines(clean: str, claims: list[Claim]) -> tuple[list[Claim], set[int]]:
    """Merge ranges ("4–7%", "2.35x to 2.72x") into one claim and attach baselines.

    Returns the claims and the starts of those whose baseline is the before of a change.
    """
    out: list[Claim] = []
    changes: set[int] = set()
    for claim in claims:
        head = clean[max(0, claim.start - 32) : claim.start]
        pair = _FROM_TO_RE.search(head)
        if pair and (pair.group(1) or pair.group(3) in ("→", "->", "⟶")):
            claim.baseline = _value(pair.group(2))
            changes.add(claim.start)
        else:
            span = _RANGE_LEFT_RE.search(head)
            if span:
                low_start = claim.start - len(head) + span.start(1)
                if out and out[-1].start >= low_start and out[-1].unit == claim.unit:
                    out.pop()  # "10%–25%": the low end was read as a claim of its own
                claim.value = f"{_value(span.group(1))}–{claim.value}"
                claim.start = low_start
                claim.bound = claim.bound or _word_bound(clean, low_start)  # "around 42–43%"
                claim.what = _what(clean, claim.start, claim.end)
        tail = _VS_AFTER_RE.match(clean, claim.end)
        if claim.baseline is None and tail and not any(claim.end < c.start < tail.end(1) for c in claims):
            claim.baseline = _value(tail.group(1))
        out.append(claim)
    return out, changes


#: The mark a claim's text starts with for each relation (none for a level, a speed-up or a share).
