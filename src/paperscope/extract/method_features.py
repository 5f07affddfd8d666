"""Features of a method-name candidate, for the learned scorer (:mod:`.method_model`).

One row per candidate (:class:`.method_candidates.Candidate`), in :data:`FEATURES` order:

* which generator or rule proposed it (``rule:cue`` … ``token``, ``paren``);
* cue verbs: whether a mention sits in a sentence where the authors propose/introduce/present
  (:data:`.method_cues._CUE_RE`), its token distance after the nearest cue verb, "called/named/
  dubbed/termed" right before it, "our X" / "the proposed X", "X achieves/outperforms";
* sentence position: first sentence, relative offset of the first mention;
* definition and repetition: a long form in parentheses, the number of mentions;
* character shape: length, share of capitals, digits, hyphen, CamelCase, all capitals, plural
  acronym, number of words, the generic-terms stoplist;
* **library rarity**: ``-log`` of the share of the reference corpus's abstracts that contain the
  token (:mod:`.method_model` loads the table; a coined name is in none, ``LLM`` in thousands).
"""

from __future__ import annotations

import bisect
import math
import re

import numpy as np

from ._spans import Sentence, is_generic
from .method_candidates import Candidate
from .method_cues import _CUE_RE, _NAMED_RE

__all__ = ["FEATURES", "RULE_EVIDENCE", "feature_matrix", "url_share"]

#: The rule evidence kinds of :mod:`.method_rules`, one feature each.
RULE_EVIDENCE = ("cue", "named", "acronym", "bold", "italic", "quoted", "component")
FEATURES = (
    *(f"rule:{e}" for e in RULE_EVIDENCE),
    "rule_any",
    "gen:token",
    "gen:capword",
    "gen:paren",
    "gen:paren_nolf",
    "gen:bigram",
    "has_long_form",
    "log_mentions",
    "once",
    "first_sentence",
    "rel_offset",
    "cue_sentence",
    "after_cue",
    "cue_distance",
    "cue_near",
    "named_before",
    "our_before",
    "result_after",
    "apposition_after",
    "paren_after",
    "length",
    "caps_ratio",
    "has_digit",
    "has_hyphen",
    "camel",
    "all_caps",
    "plural_acronym",
    "n_words",
    "lower_start",
    "generic",
    "rarity",
    "in_library",
    "common_lower",
    "most_mentioned",
    "covered",
    "contains_other",
    "rare_x_capword",
    "rare_x_token",
    "rare_x_mentions",
    "rare_x_rule",
    "cue_x_rule",
    "in_long_form",
    "own_sentence",
    "task_after",
    "setting_before",
    "prior_before",
    "eval_before",
    "title_run",
)
_NAMED_BEFORE_RE = re.compile(
    r"(?:named|called|dubbed|coined|termed|term|call|name|dub|as)\s*[\"“]?$", re.IGNORECASE
)
_OUR_BEFORE_RE = re.compile(r"(?:\bour|\bproposed|\bnovel|\bnew)\s+(?:[\w-]+\s+)?$", re.IGNORECASE)
_RESULT_AFTER_RE = re.compile(
    r"^\s+(?:also\s+|further\s+|consistently\s+|significantly\s+)?(?:achieves|outperforms|surpasses|yields"
    r"|delivers|attains|improves|reduces|enables|consists|comprises|is|uses|leverages|learns|employs)\b"
)
_APPOSITION_RE = re.compile(r"^\s*(?:\([^()]{1,60}\)\s*)?,\s+(?:a|an|the|which|our)\s")
#: "our target OFE task", "the TSP problem": the name of a task, not of a method.
_TASK_AFTER_RE = re.compile(r"^\)?\s+(?:tasks?|problems?|settings?|scenarios?|paradigms?)\b")
#: "a new problem setting, Open-World … (OWCR)", "this task is termed RP-NET".
_SETTING_BEFORE_RE = re.compile(
    r"\b(?:setting|problem|task|scenario|phenomenon|concept|notion|capability|property|effect)s?\b[^.;]{0,40}$",
    re.IGNORECASE,
)
#: Prior or other work right before a mention: "recently proposed ViSTA", "such as", "unlike", "than".
_PRIOR_BEFORE_RE = re.compile(
    r"\b(?:recent(?:ly)?(?:\s+proposed)?|existing|previous|prior|popular|standard|conventional|classic(?:al)?"
    r"|such\s+as|including|like|e\.g\.,?|unlike|than|over|versus|vs\.?|compared\s+(?:to|with)|baselines?"
    r"|based\s+on|built\s+(?:up)?on|extends?|following|inspired\s+by|using|uses|use|adopt\w*)\s+(?:the\s+)?[\w-]*\s*$",
    re.IGNORECASE,
)
#: A mention that is evaluated on: "experiments on DomainSuite", "results on X", "evaluated on".
_EVAL_BEFORE_RE = re.compile(
    r"\b(?:experiments?|results?|evaluat\w+|tested|trained|benchmarks?|datasets?)\s+(?:\w+\s+)?(?:on|in|with)\s+(?:the\s+)?$",
    re.IGNORECASE,
)
_OWN_SENTENCE_RE = re.compile(r"\b(?:we|our|us|this\s+(?:paper|work|study))\b", re.IGNORECASE)
#: A capitalised word right after or before a mention: it is one word of a Title-Case phrase.
_CAP_NEXT_RE = re.compile(r"\s+(?:(?:of|for|and|the|in|on|via|with|to)\s+)?[A-Z][a-z]")
_CAP_PREV_RE = re.compile(r"(?<![.!?:;]\s)\b[A-Z][a-z][\w-]*\s+(?:(?:of|for|and|the|in|on|via|with|to)\s+)?$")
_DIGIT_RE = re.compile(r"[\d²³⁴]")
_CAMEL_RE = re.compile(r"[a-z][A-Z]")
_PLURAL_RE = re.compile(r"[A-Z0-9²³\-]{2,}s")
#: Mentions of a candidate read for the context features (the first ones; later ones repeat).
_MAX_MENTIONS = 6


def _cue_ends(sentences: list[Sentence]) -> list[list[int]]:
    """Return, per sentence, the absolute end offsets of its cue verbs and "called/named" cues."""
    out: list[list[int]] = []
    for s in sentences:
        low = s.text.lower()
        ends: list[int] = []
        if "we " in low or "this " in low or "our " in low or " by " in low or "the paper" in low:
            ends += [s.start + m.end() for m in _CUE_RE.finditer(s.text)]
        if any(p in low for p in ("named", "called", "dubbed", "coined", "termed", "which we", "refer")):
            ends += [s.start + m.end() for m in _NAMED_RE.finditer(s.text)]
        out.append(sorted(ends))
    return out


def feature_matrix(
    clean: str,
    cands: list[Candidate],
    sentences: list[Sentence],
    df: dict[str, int],
    lower_df: dict[str, int],
    n_docs: int,
) -> np.ndarray:
    """Return the ``(len(cands), len(FEATURES))`` feature matrix of ``cands`` (float64).

    Args:
        clean: the clean abstract the candidates were found in.
        cands: its candidates.
        sentences: ``split_sentences(clean)``.
        df: abstracts of the reference corpus that contain each token (df >= the table's minimum).
        lower_df: abstracts that hold each lower-cased word in lower case (common words).
        n_docs: abstracts in the reference corpus.
    """
    if not cands:
        return np.zeros((0, len(FEATURES)))
    cue_ends = _cue_ends(sentences)
    sent_starts = [s.start for s in sentences]
    n_chars = max(1, len(clean))
    counts = [max(1, len(c.at)) for c in cands]
    top = max(counts)
    log_n = math.log(n_docs + 1)
    own = [_OWN_SENTENCE_RE.search(s.text) is not None for s in sentences]
    long_forms = [c.long_form for c in cands if c.long_form]
    rows = []
    for c, n in zip(cands, counts, strict=True):
        f: dict[str, float] = {}
        for src in c.sources:
            f[src if src.startswith("rule:") else "gen:" + src] = 1.0
        rule = float(any(s.startswith("rule:") for s in c.sources))
        f["rule_any"] = rule
        f["has_long_form"] = float(bool(c.long_form))
        f["log_mentions"] = math.log(n)
        f["once"] = float(n == 1)
        f["most_mentioned"] = float(n == top)
        f["rel_offset"] = c.start / n_chars
        found = c.at or [c.start]
        best = 99
        in_cue = named = our = result = appos = paren = in_own = task = setting = prior = evaluated = False
        for at in found[:_MAX_MENTIONS]:
            si = bisect.bisect_right(sent_starts, at) - 1
            in_own = in_own or (si >= 0 and own[si])
            ends = cue_ends[si] if si >= 0 else []
            if ends:
                in_cue = True
                k = bisect.bisect_right(ends, at)
                if k:
                    best = min(best, clean.count(" ", ends[k - 1], at))
            left = clean[max(0, at - 30) : at]
            right = clean[at + len(c.name) : at + len(c.name) + 40]
            named = named or _NAMED_BEFORE_RE.search(left) is not None
            our = our or _OUR_BEFORE_RE.search(left) is not None
            result = result or _RESULT_AFTER_RE.match(right) is not None
            appos = appos or _APPOSITION_RE.match(right) is not None
            paren = paren or right.lstrip().startswith("(")
            task = task or _TASK_AFTER_RE.match(right) is not None
            setting = setting or _SETTING_BEFORE_RE.search(left + " ") is not None
            prior = prior or _PRIOR_BEFORE_RE.search(left) is not None
            evaluated = evaluated or _EVAL_BEFORE_RE.search(left) is not None
        f["first_sentence"] = float(bisect.bisect_right(sent_starts, found[0]) <= 1)
        f["cue_sentence"] = float(in_cue)
        f["after_cue"] = float(best < 99)
        f["cue_distance"] = min(best, 20) / 20
        cue_near = float(best <= 4)
        f["cue_near"] = cue_near
        f["named_before"] = float(named)
        f["our_before"] = float(our)
        f["result_after"] = float(result)
        f["apposition_after"] = float(appos)
        f["paren_after"] = float(paren)
        f["own_sentence"] = float(in_own)
        f["task_after"] = float(task)
        f["setting_before"] = float(setting)
        f["prior_before"] = float(prior)
        f["eval_before"] = float(evaluated)
        f["in_long_form"] = float(any(lf != c.long_form and c.name in lf for lf in long_forms))
        first = found[0]
        f["title_run"] = float(
            _CAP_NEXT_RE.match(clean, first + len(c.name)) is not None
            or _CAP_PREV_RE.search(clean[max(0, first - 20) : first]) is not None
        )
        name = c.name
        n_alpha = sum(ch.isalpha() for ch in name)
        n_upper = sum(ch.isupper() for ch in name)
        f["length"] = min(len(name), 30) / 10
        f["caps_ratio"] = n_upper / max(1, n_alpha)
        f["has_digit"] = float(_DIGIT_RE.search(name) is not None)
        f["has_hyphen"] = float("-" in name)
        f["camel"] = float(_CAMEL_RE.search(name) is not None)
        f["all_caps"] = float(n_alpha >= 2 and n_upper == n_alpha)
        f["plural_acronym"] = float(_PLURAL_RE.fullmatch(name) is not None)
        f["n_words"] = min(name.count(" ") + 1, 8)
        f["lower_start"] = float(name[:1].islower())
        f["generic"] = float(is_generic(name))
        d = min(df.get(w, 0) for w in name.split()) if " " in name else df.get(name, 0)
        rare = (log_n - math.log(d + 1)) / log_n
        f["rarity"] = rare
        f["in_library"] = float(d > 0)
        f["common_lower"] = float(lower_df.get(name.lower(), 0) >= 5)
        # Another candidate holds this one ("Topology-Aware" in "Topology-Aware Contrastive Learning",
        # "UX-Net" in "3D UX-Net"): the share of this one's mentions it covers.
        cover = 0.0
        for o, n_o in zip(cands, counts, strict=True):
            if len(o.name) > len(name) and name in o.name:
                cover = max(cover, n_o / n)
            elif len(o.name) < len(name) and o.name in name:
                f["contains_other"] = 1.0
        f["covered"] = min(1.0, cover)
        f["rare_x_capword"] = rare * f.get("gen:capword", 0.0)
        f["rare_x_token"] = rare * f.get("gen:token", 0.0)
        f["rare_x_mentions"] = rare * f["log_mentions"]
        f["rare_x_rule"] = rare * rule
        f["cue_x_rule"] = cue_near * rule
        rows.append([f.get(k, 0.0) for k in FEATURES])
    return np.array(rows)


def url_share(clean: str, cands: list[Candidate]) -> np.ndarray:
    """Return the share of each candidate's mentions that sit in a URL or path, float64 shape ``(len(cands),)``.

    A mention is in a URL when the whitespace-delimited chunk around it holds ``/`` or ``www.``
    (``github.com/MengyuanChen21/CVPR2023-CMPAE``): a user or repository name, not a method.
    """
    out = np.zeros(len(cands))
    if "/" not in clean and "www." not in clean:
        return out
    for i, c in enumerate(cands):
        found = c.at or [c.start]
        hits = 0
        for at in found:
            left = clean.rfind(" ", 0, at) + 1
            right = clean.find(" ", at + len(c.name))
            chunk = clean[left : right if right >= 0 else len(clean)]
            hits += "/" in chunk or "www." in chunk
        out[i] = hits / len(found)
    return out
