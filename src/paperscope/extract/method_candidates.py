"""Candidate method names of an abstract, for the learned scorer (:mod:`.method_model`).

Generators (each proposes spans of the clean text; a name is the union of its mentions):

* ``rule``: the cue rules of :mod:`.method_rules` (cue verbs, "called/named", acronym definitions
  in a cue's scope, bold and italic names, components); each rule that found a name is a feature;
* ``token``: every token shaped like a coined name anywhere (``OmniFit``, ``GPT-4``, ``MARS``,
  ``C²R``, ``Q-learning``: two capitals, a digit or an inner capital), or a capitalised word not at
  a sentence start (``Hubble``);
* ``paren``: a short form defined in parentheses, "long form (SF)", with its long form
  (:func:`.method_longform.find_long_form`);
* ``bold``: markdown bold spans of the original abstract (also a rule, kept apart for recall).

Greek letters and sub/superscripts are already flattened by :func:`paperscope.text.clean_text`
(``C$^2$R`` gives ``C²R``), so a candidate is a plain token of the clean text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..text import fold
from ._spans import split_sentences
from .method_longform import PAREN_RE, find_long_form, is_short_form

__all__ = ["Candidate", "MethodName", "candidates", "mentions"]

#: A token of the clean text: letters, digits, superscripts, inner ``- + . '`` (``GPT-4``, ``Retro*``).
#: The lookahead skips plain lower-case words in C (most of an abstract) before Python sees them.
_TOKEN_RE = re.compile(
    r"(?<![\w²³⁴\-])(?=[\w²³⁴+\-.'’*]*[^\W_a-z])[^\W_][\w²³⁴+\-.'’]*[\w²³⁴+*]|(?<![\w\-])[A-Z](?![\w\-])"
)
_POSSESSIVE_RE = re.compile(r"['’]s$")
#: "NTL-based", "DrIGM-compliant": a name turned into a modifier; the name is the stem.
_MODIFIER_RE = re.compile(
    r"-(?:based|compliant|compatible|agnostic|friendly|dependent|aware|guided|style|like|driven|free|specific"
    r"|conditioned|enhanced|augmented|powered|inspired|only|level|wise|type)$",
    re.IGNORECASE,
)
#: A model size or version after a hyphen: "-7B", "-v2", "-100K", "-L".
_SIZE_RE = re.compile(r"-(?:v?\d+(?:\.\d+)?[A-Za-z]?|\d+[KMBkmb]|[SMLBH]|XL|Base|Large|Small|Tiny)$")
#: A version or number that may end a two-token name: "SAM 3", "Fast-dLLM v2", "GPT 4o".
_VERSION_RE = re.compile(r"v?\d+(?:\.\d+)?[a-z]?|\+\+|XL|Pro|Plus|Lite|Zero|Max|Mini")
#: A version number right after a name: " 2", " 3.1", " 1124" (not "3.5%", "1,000", "2x").
_NUMBER_AFTER_RE = re.compile(r" (\d{1,4}(?:\.\d{1,2})?)(?![\w%²³⁴]|[.,]\d)")
_NUMBER_RE = re.compile(r"[\d.,]+")
_SENT_START_RE = re.compile(r"(?:^|[.!?:;][\"')\]]?\s+)[\"'(\[]?$")


@dataclass
class MethodName:
    """A name the paper gives its own contribution.

    Attributes:
        name: the name as written in the clean text (the short form when one is defined).
        long_form: the definition of an acronym (``"Cross-Consistency Regularization"``), or None.
        start: character offset of the first mention of ``name`` in the clean text.
        end: end offset (exclusive) of that mention.
        mentions: how many times ``name`` occurs in the clean text.
        evidence: the generators and rules that proposed it (``cue``, ``acronym``, ``bold``, ``token`` …).
        score: the rank model's probability that it is the paper's main name (0 to 1).
        confidence: the name model's probability that it is a proper name the abstract
            introduces or uses (0 to 1, :class:`.method_model.NameModel`); pages show it from
            :data:`.confidence.SHOW_THRESHOLDS` ``["methods"]`` up.
        own: whether the keep model takes it for a name the paper gives its own work (the label,
            tasks, contribution types and the paper's own datasets read only these).

    """

    name: str
    long_form: str | None
    start: int
    end: int
    mentions: int = 1
    evidence: list[str] = field(default_factory=list)
    score: float = 0.0
    confidence: float = 1.0
    own: bool = True

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "long_form": self.long_form,
            "start": self.start,
            "end": self.end,
            "mentions": self.mentions,
            "evidence": self.evidence,
            "score": self.score,
            "confidence": self.confidence,
            "own": self.own,
        }


@dataclass
class Candidate:
    """One candidate name with what the generators saw.

    Attributes:
        name: the name as written at its first proposal.
        start: offset of its first whole-word mention in the clean text.
        end: end of that mention (exclusive).
        sources: the generators and rules that proposed it (``rule:cue``, ``token``, ``paren`` …).
        long_form: its definition when the abstract gives one ("long form (SF)").
        at: the start of each whole-word mention in the clean text (:func:`mentions`).
    """

    name: str
    start: int
    end: int
    sources: set[str] = field(default_factory=set)
    long_form: str | None = None
    at: list[int] = field(default_factory=list)


def mentions(name: str, text: str) -> list[int]:
    """Return the start of each whole-word mention of ``name`` in ``text``.

    No word character or hyphenated continuation either side (``SCALE`` is not in ``SCALE-up``);
    a str.find scan, since a regex per name would be compiled per abstract.
    """
    out: list[int] = []
    at = text.find(name)
    while at >= 0:
        before = text[at - 1] if at else " "
        after = text[at + len(name) : at + len(name) + 2]
        hyphenated = after[:1] == "-" and (after[1:2].isalnum() or after[1:2] == "_")
        if not (before.isalnum() or before in "_-") and not (
            after[:1].isalnum() or after[:1] == "_" or hyphenated
        ):
            out.append(at)
        at = text.find(name, at + 1)
    return out


#: Coined shape: a capital after the first character (``OmniFit``, ``MARS``), a digit or
#: superscript after a leading letter (``T5``, ``C²R``, ``e3``), or a Greek letter and a hyphen
#: (``β-VAE``).
_SHAPED_RE = re.compile(r".[A-Z]|^[^\W\d_].*[\d²³⁴]|^[^\x00-\x7f].*-")


def _shaped(tok: str) -> bool:
    """Return True for a coined-shaped token (see ``_SHAPED_RE``)."""
    return _SHAPED_RE.search(tok) is not None


def candidates(clean: str, rule_names: list[tuple[str, int, int, list[str], str | None]]) -> list[Candidate]:
    """Return the candidates of ``clean``, one per folded name, in order of first mention.

    Args:
        clean: the clean abstract.
        rule_names: ``(name, start, end, evidence, long_form)`` of the rule generator
            (:func:`.method_rules.rule_methods`, which also reads the original's markdown).
    """
    found: dict[str, Candidate] = {}

    def add(name: str, start: int, end: int, source: str, long_form: str | None = None) -> None:
        name = name.strip(" .,;:'\"")
        if len(name) < 2 or len(name) > 60 or not any(c.isalpha() for c in name):
            return
        if name.islower() and " " not in name and len(name) < 4:
            return  # "as", "it": a word, not a name
        key = fold(name)
        cand = found.get(key)
        if cand is None:
            cand = found[key] = Candidate(name, start, end)
        cand.sources.add(source)
        if long_form and not cand.long_form:
            cand.long_form = long_form

    for name, start, end, evidence, long_form in rule_names:
        for ev in evidence:
            add(name, start, end, "rule:" + ev, long_form)
    starts = {s.start for s in split_sentences(clean)}
    tokens = [(m.group(0), m.start()) for m in _TOKEN_RE.finditer(clean)]
    kinds: list[str | None] = []
    for i, (raw, at) in enumerate(tokens):
        tok = _POSSESSIVE_RE.sub("", raw).rstrip(".'")
        if tok.endswith("*") and (tok.endswith("**") or clean[at + len(raw) : at + len(raw) + 1] == "*"):
            tok = tok.rstrip("*")  # markdown emphasis, not "Retro*"
        tok = _MODIFIER_RE.sub("", tok)
        kind = None
        if _shaped(tok):
            kind = "token"
            sized = _SIZE_RE.sub("", tok)  # "AesCoder-7B", "Qwen2.5-v2": the name without its size
            if sized != tok and _shaped(sized):
                add(sized, at, at + len(sized), "token")
        elif (
            tok[:1].isupper()
            and len(tok) >= 3
            and at not in starts
            and not _SENT_START_RE.search(clean[max(0, at - 4) : at])
        ):
            kind = "capword"
        if kind:
            add(tok, at, at + len(tok), kind)
        tokens[i] = (tok, at)
        kinds.append(kind)
    # Two-token names: "SAM 3", "Fast-dLLM v2", "Spider GAN", "RACE Attention", "3D UX-Net".
    for i in range(len(tokens) - 1):
        (a, at), (b, bt) = tokens[i], tokens[i + 1]
        if bt != at + len(a) + 1 or clean[bt - 1] != " ":
            continue  # "60M–1B": a range, not a two-token name
        if _NUMBER_RE.fullmatch(a):
            continue  # "1.5 dB", "300 K": a measurement, not a name
        if not (kinds[i] == "token" or kinds[i + 1] == "token"):
            if kinds[i] == kinds[i + 1] == "capword":
                add(f"{a} {b}", at, bt + len(b), "bigram")  # "Stable Diffusion", "Dolmino Mix"
            continue
        # A plain word capitalised only because a sentence starts with it is no part of a name
        # ("While Vision-Language-Action models ...", "Using PerSEval, ..."), as for capwords
        # above; a name-shaped one still is ("FLARE 3B").
        initial = at in starts or _SENT_START_RE.search(clean[max(0, at - 4) : at]) is not None
        if (
            _VERSION_RE.fullmatch(b)
            or (b[:1].isupper() and kinds[i] == "token")
            or ((a[:1].isupper() and (kinds[i] is not None or not initial)) or a[:1].isdigit())
            and kinds[i + 1] == "token"
        ):
            add(f"{a} {b}", at, bt + len(b), "bigram")
    # A name and a bare version number: "OLMo 2", "Llama 3.1", "Dolmino Mix 1124" (the number is
    # one character or has a dot, so the token scan above does not see it).
    for name, at in [(t, a) for (t, a), k in zip(tokens, kinds, strict=True) if k] + [
        (c.name, c.start) for c in found.values() if " " in c.name
    ]:
        version = _NUMBER_AFTER_RE.match(clean, at + len(name))
        if version and clean.startswith(name, at) and not name[-1].isdigit():
            add(f"{name} {version.group(1)}", at, version.end(), "bigram")
    for m in PAREN_RE.finditer(clean):
        sf = m.group(1).strip()
        if not is_short_form(sf):
            continue
        sent_start = max((s for s in starts if s <= m.start()), default=0)
        lf = find_long_form(clean[sent_start : m.start()].rstrip(), sf)
        add(sf, m.start(1), m.start(1) + len(sf), "paren" if lf else "paren_nolf", lf[1] if lf else None)
    out = []
    for cand in found.values():
        cand.at = mentions(cand.name, clean)
        if cand.at:
            cand.start, cand.end = cand.at[0], cand.at[0] + len(cand.name)
        out.append(cand)
    return sorted(out, key=lambda c: c.start)
