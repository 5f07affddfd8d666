"""Display label: "NAME — what it does" when the paper names its method, else a short phrase.

The lists carry no titles, so the label is what a reader sees in every result list. It is built
from spans of the clean text only (no generation): the primary method name (see
:func:`paperscope.extract.methods.primary_method`), then the first of

1. the long form of the name, with "for <task>" when the long form does not already say it
   ("APM — analytic parameter matching for multi-modal dataset distillation");
2. the apposition after the name ("KREPES — unified framework to analytically interpret …");
3. the task the abstract opens with.

Without a name, the object of the first "we propose/introduce/study …" clause, else the task the
abstract opens with, else its best specific keyphrase (the trained ranker), never a sentence's
opening words unless the abstract has no keyphrase at all.

A phrase that is only a generic one ("Convex functions", "debiasing for robustness — potential
errors": at most three words, none of them coined, each in 2% or more of the reference library's
abstracts) gives way to the abstract's best two specific keyphrases, after a lower-case name; a name
with a capital ("SeC — video object segmentation") already says which paper it is.

Every phrase ends at a noun-phrase boundary (:mod:`.label_shape`: finished when the abstract's
chunk ends within a few words, else cut back, with "…" where words were dropped), and one that
opens with a verb, a conjunction or an anaphor ("adopts …", "Such …") is passed over for the next
(a named paper with none left gets its best keyphrase).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..text import english_stop_words, fold
from ._spans import is_coined, is_generic, scrub, split_sentences
from .label_shape import ELLIPSIS, FUNCTION_END, cut_words, opens_like_a_sentence, settle
from .method_model import load_rarity
from .methods import MethodName, primary_method

__all__ = ["build_label", "title_label", "opening_task", "is_generic_phrase", "MAX_LABEL_CHARS"]

#: Labels are cut at a word boundary to this many characters (one line in a result list).
MAX_LABEL_CHARS = 110
_PHRASE_WORDS = 12
#: A keyphrase in more than this share of the library's abstracts is too common to name a paper
#: (1%: "large language model" 4.7%, "gradient descent" 4.0%, "3D reconstruction" 0.4% of 15,998;
#: chosen on the development sample, ICLR 2026 seed 3).
_COMMON_DF = 0.01
_DASH = " — "
#: A label phrase of at most this many content words can be generic (:func:`is_generic_phrase`).
_GENERIC_WORDS = 3
#: A word in at least this share of the reference library's abstracts is a common one (2%: one
#: abstract in 50 of the 21,498 of ``method_rarity.json.gz``; "convex" 2.5%, "errors" 2.4%,
#: "transport" 1.0%, "unlearning" 0.4%, "speculative" 0.1%).
_COMMON_WORD_SHARE = 0.02
_KEYPHRASE_JOIN = " · "
#: Words a phrase never ends in (:data:`.label_shape.FUNCTION_END`).
_DANGLING = FUNCTION_END
_LEAD_ADJ = re.compile(
    r"^(?:(?:a|an|the)\s+)?(?:(?:novel|new|simple|first|effective|efficient|general)\s*,?\s+"
    r"(?:(?:yet|and|but)\s+(?=(?:novel|new|simple|effective|efficient|general)\b))?)*"
)
_LEAD_CONJ_RE = re.compile(r"^(?:and|yet|but|or)\s+", re.IGNORECASE)


def _lead(text: str) -> str:
    """Drop the praise a phrase opens with: "a simple yet remarkably effective …", "the first and largest …"."""
    stripped = _LEAD_ADJ.sub("", text)
    return _LEAD_CONJ_RE.sub("", stripped) if stripped != text else stripped


# An unclosed "(" before the comma is a long form the author forgot to close: "ConPress (Learning
# from Contextual Pressure, a lightweight … approach" still has its apposition after the comma.
_APPOSITION_RE = re.compile(
    r"^\s*(?:\([^()]{1,40}\)|\([^(),]{1,60}(?=,))?\s*(?:,\s*(?:which is\s+)?|\s+is\s+)(?:a|an|the)\s+"
    r"((?:[^;.:]|\.(?=\d))+)"
)
_HEADS = (
    r"framework|method|model|approach|algorithm|system|benchmark|dataset|metric|architecture|pipeline"
    r"|technique|strategy|estimator|mechanism|toolkit|library|agent|attack|defen[cs]e|loss|objective"
    r"|module|solver|optimizer|network|scheme|procedure|protocol|paradigm|suite|tool|measure|score"
)
# "a novel metric CR" / "an unlearning framework CPU": the kind of thing, written right before the name.
_HEAD_BEFORE_RE = re.compile(rf"\b(?:a|an|the|our)\s+((?:[\w-]+\s+){{0,3}}?(?:{_HEADS}))\s*\(?\s*$", re.I)
# "… estimation protocol (ACUTE) to …": the head noun that ends a long form the name abbreviates.
_HEAD_PAREN_RE = re.compile(rf"\b({_HEADS})\s*\(\s*$", re.I)
# The clause that says what it does, after optional participial asides: ", inspired by X, that …".
_CLAUSE_AFTER_RE = re.compile(
    r"^\)?(?:\s*,\s*(?:inspired|based|built|motivated|grounded|derived)\s[^,;.]{1,80})?\s*,?\s*"
    r"((?:that|which|to|for)\s[^;.:(]+)"
)
#: A tail that starts with a conjunction continues the verb phrase, not the name ("X and implement …").
_BAD_TAIL_RE = re.compile(
    r"^(?:and|or|but|to|yet|then|so|as|in|on|with|through|via|by|from|for)\b", re.IGNORECASE
)
_CLAUSE_END_RE = re.compile(
    r",\s+(?:which|where|while|and|but|enabling|allowing|thereby|whereas|including|such)\b|\s+\("
    r"|,?\s+(?:i\.e\.|e\.g\.)"
)
_SF_RE = re.compile(r"\(([A-Z][\w\-²³]{1,12})\)")
_LEFT_RE = re.compile(r"([A-Za-z][\w\- ]{3,80}?)\s*$")
_STUDY_RE = re.compile(
    r"\b(?:we|this\s+(?:paper|work|study))\s+(?:first\s+|further\s+|also\s+)?"
    r"(?:propose|introduce|present|develop|design|study|investigate|analy[sz]e|formali[sz]e|examine|revisit"
    r"|characteri[sz]e|derive|build)s?d?\s+(?:(?:and|to)\s+\w+\s+)?((?:[^,;.:]|[.:](?=\S))+)",
    re.IGNORECASE,
)


def _trim(phrase: str, max_words: int = 200) -> str:
    """Drop trailing function words (and a cut "i.e."); the word limit is :func:`.label_shape.settle`'s."""
    phrase = re.sub(r",?\s+[ie]$", "", phrase)  # a clause cut inside "i.e."/"e.g."
    words = phrase.split()[:max_words]
    while words and words[-1].lower().strip(",;:") in _DANGLING:
        words.pop()
    return " ".join(words).strip(" ,;:—-")


def _lower_first(phrase: str) -> str:
    """Lower-case a sentence-initial capital of a lower-case phrase (``Multi-modal dataset …``).

    Title-Case names (``Contrastive Curriculum for Robust …``) and acronyms are kept as written.
    """
    words = phrase.split()
    first = words[0] if words else ""
    if any(w[:1].isupper() for w in words[1:]):
        return phrase
    if first[:1].isupper() and first[1:2].islower() and not any(ch.isupper() for ch in first[1:]):
        return first[:1].lower() + phrase[1:]
    return phrase


def opening_task(clean: str, own: frozenset[str] = frozenset()) -> str | None:
    """Return the task the abstract opens with: a term its first two sentences define, if any.

    ``"Multi-modal dataset distillation (MDD) seeks to …"`` gives ``"multi-modal dataset distillation"``.
    Model classes (a plural short form such as ``LLMs``) are not tasks, nor are the paper's own
    names (``own``: folded, "We introduce In-Context Policy Optimization (ICPO)").
    """
    for sentence in split_sentences(clean)[:2]:
        for paren in _SF_RE.finditer(sentence.text):
            sf = paren.group(1)
            if (sf.endswith("s") and sf[:-1].isupper()) or fold(sf) in own:
                continue
            m = _LEFT_RE.search(sentence.text, max(0, paren.start() - 84), paren.start())
            if not m:
                continue
            words = m.group(1).split()
            initials = [w[0].lower() for w in words]
            letters = [ch.lower() for ch in sf if ch.isalpha()]
            # Keep the words the short form spells, counted back from the parenthesis; a hyphenated
            # word gives one letter per part ("In-Context Policy Optimization (ICPO)").
            n, spelled = 0, 0
            while n < len(words) and spelled < max(len(letters), 1):
                n += 1
                spelled += max(1, sum(1 for part in words[-n].split("-") if part[:1].isalpha()))
            while n < len(words) and initials[-n] != letters[0]:
                n += 1
            phrase = " ".join(words[-n:])
            # One word ("key-value (KV) cache") modifies a noun; a task takes two or more.
            if n >= 2 and phrase[0].lower() == letters[0] and not is_generic(sf):
                # A term that ends in a modifier goes on after its short form: "Visual
                # Auto-Regressive (VAR) models"; one that cannot end cleanly is no task.
                settled = settle(phrase, clean, _PHRASE_WORDS)
                if settled and not settled.endswith(ELLIPSIS):
                    return _lower_first(settled)
    return None


def _apposition(clean: str, method: MethodName) -> str | None:
    """Return the phrase in apposition to the name ("X, a … framework that …"), if any."""
    for m in re.finditer(r"(?<![\w-])" + re.escape(method.name) + r"(?![\w]|-\w)", clean):
        found = _APPOSITION_RE.match(clean[m.end() :])
        if found:
            text = found.group(1)
            cut = _CLAUSE_END_RE.search(text)
            return _trim(_lead(text[: cut.start()] if cut else text))
    return None


def _tail_after(clean: str, method: MethodName) -> str | None:
    """Return the words after the name's first mention ("PerCE loss, which adaptively upweights …")."""
    text = clean[method.end :]
    text = re.sub(r"^\)?\s*(?:\([^()]*\))?[\s,]*(?:which|that|is|are)?\s*", "", text)
    # "X, based on conformal prediction, which measures …": skip the aside to the clause.
    text = re.sub(
        r"^(?:inspired|based|built|motivated|grounded|derived)\s[^,;.]{1,80},\s*(?:which|that)\s+", "", text
    )
    cut = re.search(r"[;.:](?:\s|$)|\s\(", text)
    phrase = _trim(text[: cut.start()] if cut else text)
    if _BAD_TAIL_RE.match(phrase):
        return None
    return phrase if len(phrase.split()) >= 2 else None


def _head_and_clause(clean: str, method: MethodName) -> str | None:
    """Return "head noun + relative clause" around the name ("metric that offers …"), if both exist."""
    head = _HEAD_BEFORE_RE.search(clean, max(0, method.start - 80), method.start) or _HEAD_PAREN_RE.search(
        clean, max(0, method.start - 40), method.start
    )
    if not head:
        return None
    clause = _CLAUSE_AFTER_RE.match(clean[method.end :])
    if not clause:
        return None
    cut = _CLAUSE_END_RE.search(clause.group(1))
    text = clause.group(1)[: cut.start()] if cut else clause.group(1)
    if text.startswith("which "):
        text = "that " + text[len("which ") :]
    return _trim(_lead(head.group(1)) + " " + text)


_PRONOUN_START = re.compile(r"^(?:this|these|that|those|it|they|such|how|whether|contrary)\b", re.IGNORECASE)


#: Where the object of "we study …" ends and the sentence goes on with a verb: "… and show that",
#: "… where users are", "… ? We present".
_OBJECT_END_RE = re.compile(
    r"\?|\s(?:and|but|whereby|where|so that|such that)\s+(?:\w+\s+){0,2}?"
    r"(?:show|shows|prove|proves|find|finds|demonstrate|establish|derive|propose|present|introduce|"
    r"is|are|was|were|can|rely|relies|be)\b"
)


def _study_phrases(clean: str) -> Iterator[str]:
    """Yield the objects of the "we propose/study …" clauses of two words or more, in order."""
    for m in _STUDY_RE.finditer(clean):
        text = m.group(1)
        end = _OBJECT_END_RE.search(text)
        phrase = _trim(_lead(text[: end.start()] if end else text))
        if len(phrase.split()) >= 2 and not _PRONOUN_START.match(phrase):
            yield phrase


def _settled(clean: str, phrases: Iterable[str | None]) -> str | None:
    """Return the first of ``phrases`` that ends at a phrase boundary and reads as a noun phrase.

    Each is cut to ``_PHRASE_WORDS`` words at a chunk boundary (:func:`.label_shape.settle`,
    "…" where words were dropped); one that opens with a verb, a conjunction or an anaphor, has
    an unbalanced bracket, or has no boundary to end at, is passed over for the next.
    """
    for raw in phrases:
        if not raw:
            continue
        phrase = settle(raw, clean, _PHRASE_WORDS)
        if (
            phrase
            and len(phrase.split()) >= 2
            and not opens_like_a_sentence(phrase)
            and all(phrase.count(a) == phrase.count(b) for a, b in ("()", "[]", "{}"))
        ):
            return phrase
    return None


def _is_specific(text: str, model: Any) -> bool:
    """Whether neither ``text`` nor its head without the first word is in ``_COMMON_DF`` of the library."""
    from .keyphrase_candidates import phrase_key

    common = _COMMON_DF * model.n_library
    key = phrase_key(text)
    head = key.split(" ", 1)[-1]
    return model.library_df.get(key, 0) < common and (
        " " not in head or model.library_df.get(head, 0) < common
    )


def _keyphrase_label(clean: str, exclude: str = "") -> str | None:
    """The abstract's best specific keyphrase (the trained ranker of :mod:`.keyphrases`), as the phrase.

    ``"Visual token pruning"``: a noun phrase about what the paper is about, where the abstract's
    opening words would be a sentence cut short. One phrase, not two joined by a comma (a keyword
    list such as "Parameter-efficient fine-tuning, large fractions" is not a label): among the
    ranker's best five of two words or more, the first that fewer than ``_COMMON_DF`` of the
    library's abstracts hold ("large language models", "deep learning": 5% of them, say little),
    else the first of them, else the best phrase. ``exclude``: the paper's own name, not repeated.
    """
    from .keyphrases import extract_keyphrases, load_model

    model = load_model()
    found = [
        k.text
        for k in extract_keyphrases(clean, k=8, model=model)
        if not exclude or exclude.lower() not in k.text.lower()
    ]
    multi = [t for t in found if len(t.split()) >= 2][:5]
    best = next((t for t in multi if _is_specific(t, model)), None) or (multi or found or [None])[0]
    return (settle(best, clean, _PHRASE_WORDS) or best) if best else None


def is_generic_phrase(phrase: str) -> bool:
    """Return True when ``phrase`` names no particular thing: a placeholder, not a label.

    Three features, all needed: it is short (at most ``_GENERIC_WORDS`` content words, stop words
    aside), it has no coined token or acronym (:func:`._spans.is_coined`, a capital after the
    first letter: ``LoRA``, ``ViT``, ``C²R``), and each content word is common: in at least
    ``_COMMON_WORD_SHARE`` of the reference library's abstracts (the method model's rarity table).
    ``"Convex functions"`` and ``"potential errors"`` are generic; ``"speculative decoding"``
    (0.1%) and ``"optimal transport"`` (1.0%) are not.
    """
    stop = english_stop_words()
    words = [w.strip(".,;:()[]{}\"'…") for w in phrase.replace("-", " ").split()]
    content = [w for w in words if w and w.lower() not in stop]
    if not content or len(content) > _GENERIC_WORDS:
        return False
    if any(is_coined(w) or any(ch.isupper() for ch in w[1:]) or not w.isalpha() for w in content):
        return False
    rarity = load_rarity()
    return all(rarity.lower_df.get(w.lower(), 0) >= _COMMON_WORD_SHARE * rarity.n_docs for w in content)


def _keyphrases_instead(clean: str, phrase: str, name: str = "") -> str | None:
    """Return the abstract's best two keyphrases ("a · b") to stand for the generic ``phrase``.

    Specific phrases (:func:`_is_specific`: not "large language models") of two words or more,
    best first (the trained ranker), that neither repeat the name nor the generic phrase nor hold
    one another ("multimodal dataset distillation · analytic parameter matching"); None when there
    is none.
    """
    from .keyphrases import extract_keyphrases, load_model

    model = load_model()
    chosen: list[str] = []
    for k in extract_keyphrases(clean, k=8, model=model):
        text = scrub(k.text)
        low = text.lower()
        if len(text.split()) < 2 or (name and name.lower() in low) or low in phrase.lower():
            continue
        if not _is_specific(text, model):
            continue
        if any(low in c.lower() or c.lower() in low for c in chosen):
            continue
        chosen.append(_lower_first(text))
        if len(chosen) == 2:
            break
    return _KEYPHRASE_JOIN.join(chosen) if chosen else None


def _phrase_without_name(clean: str) -> str:
    phrase = _settled(clean, itertools.chain(_study_phrases(clean), (opening_task(clean),)))
    if phrase:
        return phrase
    keyphrases = _keyphrase_label(clean)
    if keyphrases:
        return keyphrases
    first = split_sentences(clean)[0].text if clean else ""
    return settle(_trim(first.rstrip(".!?")), clean, _PHRASE_WORDS) or _trim(first, _PHRASE_WORDS)


def _join(name: str, phrase: str | None) -> str:
    name, phrase = scrub(name), scrub(phrase) if phrase else phrase
    if not phrase:
        return name
    return _clip(f"{name}{_DASH}{phrase}")


def _clip(label: str) -> str:
    """Cut ``label`` to ``MAX_LABEL_CHARS`` at a chunk boundary, never inside a bracket, marked with "…".

    The boundary is :func:`.label_shape.cut_words`' (before punctuation or a function word, on a
    word that can end a noun phrase); a label with none in reach is cut at a word as before.
    """
    if len(label) <= MAX_LABEL_CHARS:
        return label
    words = label.removesuffix(ELLIPSIS).split()
    keep, size = 0, -1
    while keep < len(words) and size + 1 + len(words[keep]) <= MAX_LABEL_CHARS - 1:
        size += 1 + len(words[keep])
        keep += 1
    while keep > 1:
        out = cut_words(words, keep)
        if not out:
            break
        text = " ".join(out).removesuffix(" —")
        if all(text.count(a) <= text.count(b) for a, b in ("()", "[]", "{}")):
            return text + ELLIPSIS
        keep = len(out) - 1
    cut = label[: MAX_LABEL_CHARS - 1].rsplit(" ", 1)[0]
    for opening, closing in ("()", "[]", "{}"):
        if cut.count(opening) > cut.count(closing):  # "intellectual property (I" ends before the bracket
            cut = cut[: cut.rindex(opening)]
    return _trim(cut, max_words=200) + "…"


def build_label(clean: str, methods: list[MethodName]) -> str:
    """Return the display label of an abstract.

    Args:
        clean: the clean text of the abstract.
        methods: its method names (from :func:`paperscope.extract.methods.extract_methods`).

    Returns:
        ``"NAME — phrase"`` when the abstract names its method, else a phrase of at most
        ``_PHRASE_WORDS`` words; never longer than ``MAX_LABEL_CHARS`` characters, never empty for
        a non-empty text.

    """
    if not clean.strip():
        return ""
    methods = [m for m in methods if m.own]  # the label names the paper's own work
    primary = primary_method(methods)
    if primary is None:
        phrase = _phrase_without_name(clean)
        if phrase and is_generic_phrase(phrase):
            phrase = _keyphrases_instead(clean, phrase) or phrase
        return _clip(scrub(phrase[:1].upper() + phrase[1:])) if phrase else _clip(clean)
    task = opening_task(clean, frozenset(fold(m.name) for m in methods))
    long_form = primary.long_form
    # A long form that ends in a modifier goes on after the name ("Markovian Visual AutoRegressive
    # (MVAR) modeling"); one with no clean end ("ON") is passed over for the phrases below.
    settled = settle(long_form, clean, _PHRASE_WORDS) if long_form else None
    if settled and not settled.endswith(ELLIPSIS) and settled.lower() != primary.name.lower():
        phrase = _lower_first(settled)
        if task and task.lower() not in phrase.lower() and " for " not in phrase:
            phrase = f"{phrase} for {task}"
        return _join(primary.name, phrase)
    phrase = _settled(
        clean,
        (
            f()
            for f in (
                lambda: _apposition(clean, primary),
                lambda: _head_and_clause(clean, primary),
                lambda: task,
                lambda: _tail_after(clean, primary),
                lambda: next(_study_phrases(clean), None),
            )
        ),
    )
    if phrase is None:  # every phrase opened with a verb ("GradFix — approximates the …")
        phrase = _keyphrase_label(clean, exclude=primary.name)
        phrase = _lower_first(phrase) if phrase else phrase
    # A name with a capital (an acronym, a coined or Title-Case name) says which paper it is;
    # a lower-case one ("debiasing for robustness") does not.
    if phrase and is_generic_phrase(phrase) and primary.name == primary.name.lower():
        phrase = _keyphrases_instead(clean, phrase, primary.name) or phrase
    return _join(primary.name, phrase)


_TITLE_NAME_RE = re.compile(r"^\s*([^:]{1,40}?)\s*:\s+(\S.*)$")


def title_label(title: str) -> str:
    """Return the label of a paper that has a title: ``"PAGE: A Simple …"`` gives ``"PAGE — A Simple …"``.

    A title already says what the paper does; only its "NAME: subtitle" form is reshaped to the
    label's "NAME — phrase" form, and long titles are cut at a word boundary.
    """
    title = " ".join(title.split())
    m = _TITLE_NAME_RE.match(title)
    if m and len(m.group(1).split()) <= 4:
        return _join(m.group(1), m.group(2))
    return _clip(title)
