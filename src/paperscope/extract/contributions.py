"""Contribution types: what kind of thing a paper contributes, each with the span that says so.

Types (issue "Paper cards"): method, theory, benchmark, dataset, system, empirical-analysis,
metric, survey. Each is decided by cue phrases in the clean text (the first matching phrase is
the evidence span), plus the paper's own names (a name ending in "Bench" is a benchmark).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .methods import MethodName

__all__ = ["CONTRIBUTION_TYPES", "ContributionType", "extract_contribution_types"]

#: The allowed values, in display order.
CONTRIBUTION_TYPES = (
    "method",
    "theory",
    "benchmark",
    "dataset",
    "system",
    "empirical-analysis",
    "metric",
    "survey",
)

_INTRO = (
    r"\b(?:we|this\s+(?:paper|work|study)|our\s+work)\s+(?:(?:first|further|also|then|additionally|newly)\s+)?"
    r"(?:propose|introduce|present|develop|design|build|construct|release|contribute|devise|curate|create|offer"
    r"|provide)"
    r"(?:s|d|ed)?\b"
)
_INTRO_RE = re.compile(_INTRO, re.IGNORECASE)
# The object of an introduction verb ends at punctuation or where a relative clause or a
# prepositional phrase starts ("we propose a method *for* …"); head nouns are sought before it.
_OBJECT_END_RE = re.compile(r"[.;(]|\b(?:that|which|to|for|on|of|from|with|by|in)\b", re.IGNORECASE)
_OBJECT_CHARS = 60
#: Head nouns that, as the object of an introduction verb, show each type.
_INTRO_HEADS = {
    "benchmark": re.compile(r"\bbenchmark\b(?!s? (?:results|performance))", re.IGNORECASE),
    "dataset": re.compile(r"\b(?:dataset|corpus|data\s+set)\b", re.IGNORECASE),
    "metric": re.compile(r"\b(?:metrics?|measures?|scores?)\b", re.IGNORECASE),
    "system": re.compile(
        r"\b(?:system|library|toolkit|engine|compiler|kernels?|platform|serving|runtime)\b", re.IGNORECASE
    ),
    "method": re.compile(
        r"\b(?:method|framework|algorithm|approach|model|architecture|technique|strategy|mechanism"
        r"|estimator|optimi[sz]er|scheme|module|loss|pipeline|attack|defen[cs]e|solver|procedure|regulari[sz]er"
        r"|layer|policy|paradigm|formulation|sampler|family|variant|hybrid|objective|protocol|tool|modification)s?\b",
        re.IGNORECASE,
    ),
}
_RULES: dict[str, list[str]] = {
    "benchmark": [
        # A "…Bench" name, unless the paper evaluates on it ("results on the OmniDocBench").
        r"(?<!\bon )(?<!\bon the )(?<!\bacross )(?<!\busing )\b[A-Z][\w-]*Bench\b",
        r"\b(?:a|the)\s+(?:new|novel|first|comprehensive)\s+[\w\s-]{0,40}benchmark\b",
    ],
    "dataset": [
        r"\bwe\s+(?:also\s+)?(?:construct|collect|curate|release|annotate)\w*\s+(?:a|an|the)?\s*[\w\s,-]{0,50}"
        r"(?:dataset|corpus)",
        r"\b(?:a|the)\s+(?:new|novel|large-scale)\s+[\w\s,-]{0,30}(?:dataset|corpus)\b",
    ],
    "metric": [
        r"\b(?:new|novel)\s+(?:evaluation\s+)?(?:metrics?|measures?)\b",
    ],
    "system": [
        r"\bopen-source\s+(?:library|toolkit|system|framework|implementation)\b",
    ],
    "survey": [
        r"\b(?:this|we|our)\s+(?:survey|review)\b",
        r"\b(?:survey|systematic review|systematization)\s+(?:of|on)\b",
    ],
    "theory": [
        r"\b(?:we\s+)?(?:prove|proves|proven|proof)\b",
        r"\b(?:our|a|new|main)\s+theorems?\b|\btheorems?\s+\d|(?-i:Theoretically),",
        r"\btheoretical(?:ly)?\s+(?:analysis|guarantees?|results?|framework|foundation|justification|understanding)\b",
        r"\b(?:upper|lower|regret|generali[sz]ation|error|approximation)\s+bounds?\b",
        r"\b(?:convergence\s+(?:rate|guarantee|analysis)|sample\s+complexity|minimax|provabl[ey])\b",
        # "an information-theoretic measure" is a tool, not a theoretical result.
        r"\b(?:information-theoretic(?!\s+measures?)|expressive power|asymptotic\w*)\b",
        r"\b(?:worst-case|theoretical|formal|provable|finite-sample)\s+guarantees?\b|\bguarantees?\s+convergence\b",
        r"\bwe\s+(?:also\s+)?establish\s+(?:that|(?:the\s+|a\s+)?(?:[\w-]+\s+)?(?:conditions|bounds?|identifiability"
        r"|guarantees?|rates?|equivalence|connection))\b",
        r"\btheoretical\s+findings\b|\bidentifiability\b|\bcompetitive\s+ratios?\b",
    ],
    "empirical-analysis": [
        r"\b(?:we|this\s+(?:paper|work|study))\s+(?:systematically\s+|empirically\s+|further\s+)?"
        r"(?:analy[sz]e|investigate|examine|revisit|audit|quantify|study\s+(?:how|whether|why|when|what))\b",
        r"\b(?:empirical|experimental|large-scale|systematic|comprehensive)\s+(?:study|analysis|investigation|evaluation)\b",
        r"\b(?:our|these)\s+(?:analysis|findings|study)\s+(?:reveals?|shows?|highlights?|suggests?)\b",
        r"\bwe\s+(?:identify|uncover|observe)\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,3}phenomen(?:on|a)\b",
        r"\bwe\s+(?:empirically\s+)?(?:find|uncover)\s+that\b",
        # "We evaluate 24 LLMs", "three key findings": a study of many systems or stated findings.
        r"\bwe\s+(?:evaluate|benchmark|test|assess)\s+(?:\d+|a\s+(?:wide|broad)\s+range|dozens)\b",
        r"\b(?:key|main|central|three|two|four|several)\s+(?:key\s+)?findings\b",
    ],
    "method": [
        r"\bwe\s+propose\b",
        r"\bour\s+(?:method|approach|framework|algorithm|model)\b",
        r"\bour\s+(?:new|proposed|novel)\s+(?:[\w-]+\s+)?(?:methods?|approach(?:es)?|algorithms?|models?)\b",
        r"\bpropose\s+to\s+[a-z]+",
    ],
}
# Substrings (of the lower-cased text) one of which a pattern needs: each pattern is a full scan
# of the abstract, so those that rarely fire are skipped by a cheap ``in`` test first.
_PATTERN_PROBES: dict[str, tuple[str, ...]] = {
    _RULES["benchmark"][1]: ("benchmark",),
    _RULES["dataset"][0]: ("construct", "collect", "curate", "release", "annotate"),
    _RULES["dataset"][1]: ("new", "novel", "large-scale"),
    _RULES["metric"][0]: ("new", "novel"),
    _RULES["system"][0]: ("open-source",),
    _RULES["theory"][0]: ("prov", "proof"),
    _RULES["theory"][1]: ("theorem", "theoretically,"),
    _RULES["theory"][2]: ("theoretical",),
    _RULES["theory"][3]: ("bound",),
    _RULES["theory"][4]: ("convergence", "sample", "minimax", "provabl"),
    _RULES["theory"][5]: ("information-theoretic", "expressive power", "asymptotic"),
    _RULES["theory"][6]: ("guarant",),
    _RULES["theory"][7]: ("establish",),
    _RULES["theory"][8]: ("theoretical findings", "identifiability", "competitive ratio"),
    _RULES["empirical-analysis"][1]: (
        "empirical",
        "experimental",
        "large-scale",
        "systematic",
        "comprehensive",
    ),
    _RULES["empirical-analysis"][2]: ("reveal", "show", "highlight", "suggest"),
    _RULES["empirical-analysis"][3]: ("phenomen",),
    _RULES["empirical-analysis"][4]: ("find", "uncover"),
    _RULES["empirical-analysis"][5]: ("we evaluate", "we benchmark", "we test", "we assess"),
    _RULES["empirical-analysis"][6]: ("findings",),
    _RULES["method"][2]: ("our new", "our proposed", "our novel"),
    _RULES["method"][3]: ("propose to",),
}
_COMPILED = {
    t: [re.compile(p, re.IGNORECASE if t != "benchmark" else 0) for p in ps] for t, ps in _RULES.items()
}
_COMPILED["benchmark"] = [
    re.compile(p) if "Bench" in p else re.compile(p, re.IGNORECASE) for p in _RULES["benchmark"]
]
_PROBES_OF = {id(c): _PATTERN_PROBES.get(c.pattern) for cs in _COMPILED.values() for c in cs}


# Substrings (of the lower-cased text) one of which each type's patterns need: a cheap pre-test.
_PROBES = {
    "benchmark": ("bench",),
    "dataset": ("dataset", "corpus", "data set"),
    "metric": ("metric", "measure", "score"),
    "system": (
        "system",
        "librar",
        "toolkit",
        "engine",
        "compiler",
        "kernel",
        "platform",
        "serving",
        "runtime",
    ),
    "survey": ("survey", "review", "systematiz"),
    "theory": (
        "prov",
        "proof",
        "theor",
        "bound",
        "convergence",
        "complexity",
        "minimax",
        "expressive",
        "asymptotic",
        "guarant",
        "establish",
        "identifiability",
        "competitive",
    ),
    "empirical-analysis": (
        "we ",
        "this ",
        "our ",
        "empirical",
        "experimental",
        "large-scale",
        "systematic",
        "findings",
        "phenomen",
    ),
    "method": ("we ", "this ", "our "),
}


def _own_result(after: str, own: list[str]) -> bool:
    """Return True when ``after`` (the words after "we find that") starts with "our …" or an own name."""
    after = after.lstrip()
    return after.lower().startswith(("our ", "the proposed ")) or any(
        after.startswith(name) and not after[len(name) : len(name) + 1].isalnum() for name in own
    )


@dataclass
class ContributionType:
    """A contribution type and the span of the phrase that shows it."""

    type: str
    start: int
    end: int

    def to_dict(self) -> dict[str, object]:
        return {"type": self.type, "start": self.start, "end": self.end}


def extract_contribution_types(clean: str, methods: list[MethodName] | None = None) -> list[ContributionType]:
    """Return the contribution types of an abstract, in ``CONTRIBUTION_TYPES`` order.

    Args:
        clean: the clean text of an abstract.
        methods: its own names; a named contribution that is not a benchmark, dataset or metric
            makes it a method paper.

    Returns:
        A subset of ``CONTRIBUTION_TYPES`` with evidence spans; ``method`` when nothing else fires
        and the abstract names something of its own.

    """
    found: dict[str, ContributionType] = {}
    lowered = clean.lower()
    methods = [m for m in methods or [] if m.own]  # a name it only uses is no contribution
    own = [m.name for m in methods]
    for intro in _INTRO_RE.finditer(clean):
        window = clean[intro.end() : intro.end() + _OBJECT_CHARS]
        stop = _OBJECT_END_RE.search(window)
        window = window[: stop.start()] if stop else window
        for type_, head in _INTRO_HEADS.items():
            m = head.search(window)
            if m and type_ not in found:
                found[type_] = ContributionType(type_, intro.start(), intro.end() + m.end())
    for type_, patterns in _COMPILED.items():
        if type_ in found or not any(probe in lowered for probe in _PROBES[type_]):
            continue
        for pattern in patterns:
            probes = _PROBES_OF.get(id(pattern))
            if probes and not any(p in lowered for p in probes):
                continue
            for m in pattern.finditer(clean):
                if type_ == "empirical-analysis" and _own_result(clean[m.end() : m.end() + 60], own):
                    continue  # "we find that FLAM outperforms …": a result of the method, not a study
                found[type_] = ContributionType(type_, m.start(), m.end())
                break
            if type_ in found:
                break
    for method in methods:
        label = f"{method.name} {method.long_form or ''}"
        heads = " ".join(w.split()[-1] for w in (method.name, method.long_form or "x"))
        if re.search(r"Bench|Benchmark", label):
            found.setdefault("benchmark", ContributionType("benchmark", method.start, method.end))
        elif re.search(r"Dataset|Corpus", heads):
            found.setdefault("dataset", ContributionType("dataset", method.start, method.end))
        elif re.search(r"(?:score|metric|measure|gap|error|index|distance|divergence)$", label.strip(), re.I):
            found.setdefault("metric", ContributionType("metric", method.start, method.end))
        else:
            found.setdefault("method", ContributionType("method", method.start, method.end))
    return [found[t] for t in CONTRIBUTION_TYPES if t in found]
