"""Method names: the names an abstract gives its own method, system, model, benchmark, dataset or metric.

A learned extractor (issue 15): candidate spans from generators (:mod:`.method_candidates`:
the cue rules of :mod:`.method_rules`, coined-shaped tokens, "long form (SF)" definitions, bold
and italic names), a feature row per candidate (:mod:`.method_features`: cue verbs and their
distance, sentence position, definition and repetition, character shape, library rarity) and a
logistic regression (:mod:`.method_model`, trained by ``scripts/train_method_model.py`` on the
silver train split and the dev gold). A candidate whose probability reaches the model's threshold
is a name (keep model); the names are ranked by a second regression (rank model, the title's name
of the silver papers) and the first is the primary name the label uses.
"""

from __future__ import annotations

from ..text import fold
from ._spans import split_sentences
from .method_candidates import Candidate, MethodName, candidates, mentions
from .method_features import feature_matrix, url_share
from .method_lexicon import lexicon_features, load_lexicon
from .method_longform import PAREN_RE, find_long_form, is_short_form
from .method_model import load_model, load_name_model, load_rarity, name_columns
from .method_rules import rule_methods

__all__ = [
    "MethodName",
    "defined_short_forms",
    "extract_methods",
    "find_long_form",
    "method_candidates",
    "primary_method",
]


def method_candidates(clean: str, original: str | None = None) -> tuple[list[Candidate], object]:
    """Return the candidates of ``clean`` and their feature matrix (what the model scores)."""
    rules = [(m.name, m.start, m.end, m.evidence, m.long_form) for m in rule_methods(clean, original)]
    cands = candidates(clean, rules)
    rarity = load_rarity()
    x = feature_matrix(clean, cands, split_sentences(clean), rarity.df, rarity.lower_df, rarity.n_docs)
    return cands, x


def extract_methods(clean: str, original: str | None = None) -> list[MethodName]:
    """Return the names ``clean`` gives its own contributions, best first.

    Args:
        clean: the clean text of an abstract (``paperscope.text.clean_text``).
        original: the original abstract, read for markdown bold and italic names; optional.

    Returns:
        One :class:`MethodName` per distinct name (case-insensitive) that the keep model accepts
        (``own``: the paper's own) or whose name-model probability (``confidence``: a name it
        introduces or uses) reaches the model's floor; the own names first, each group ordered
        by the rank model's probability (``score``: that it is the paper's main name), each with
        the span of its first mention in ``clean``; a short form's long form is not listed apart.
    """
    cands, x = method_candidates(clean, original)
    if not cands:
        return []
    model = load_model()
    p = model.proba(x)
    own = p[:, 0] >= model.threshold
    name_model = load_name_model()
    conf = name_model.proba(
        name_columns(
            x, model, url_share(clean, cands), lexicon_features([c.name for c in cands], load_lexicon())
        )
    )
    keep = own | (conf >= name_model.floor)
    defined = [c.long_form for c, k in zip(cands, keep, strict=True) if c.long_form and k]
    long_forms = {fold(lf) for lf in defined}
    outside = clean
    for lf in defined:
        outside = outside.replace(lf, " ")
    out = []
    for c, k, is_own, (_, rank), confidence in zip(cands, keep, own, p, conf, strict=True):
        if not k or fold(c.name) in long_forms:
            continue
        if any(c.name in lf for lf in defined if lf != c.long_form) and not mentions(c.name, outside):
            continue  # "sparse TPE (SparTPE)": only a word of another name's definition
        evidence = sorted(src.removeprefix("rule:") for src in c.sources)
        count = max(1, len(c.at))
        out.append(
            MethodName(
                c.name,
                c.long_form,
                c.start,
                c.end,
                count,
                evidence,
                round(float(rank), 4),
                round(float(confidence), 4),
                bool(is_own),
            )
        )
    return sorted(out, key=lambda m: (not m.own, -m.score, m.start))


def primary_method(methods: list[MethodName]) -> MethodName | None:
    """Return the name the abstract is about: the paper's own name (``own``) with the highest score."""
    own = [m for m in methods if m.own]
    return max(own, key=lambda m: (m.score, -m.start)) if own else None


def defined_short_forms(clean: str) -> set[str]:
    """Return the folded short forms ``clean`` defines in parentheses (``"(MDD)"`` gives ``"mdd"``)."""
    return {fold(m.group(1).strip()) for m in PAREN_RE.finditer(clean) if is_short_form(m.group(1))}
