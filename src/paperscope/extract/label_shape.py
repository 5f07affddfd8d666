"""Where a label's phrase may end, and the two checks every label must pass (issue 15 item 6).

A label's "what it does" part is a span of the abstract. It may end only at a *chunk boundary*:
before punctuation or before a word of :data:`~.keyphrase_candidates.FUNCTION_WORDS` (the words
the keyphrase candidate generator cuts noun-phrase runs at), on a word that can end a noun phrase
(not a function word, not an ``-ly``/``-ed``/``-al``/``-ive`` … modifier unless punctuation
follows). :func:`settle` moves a phrase's end to such a boundary (on by at most
:data:`EXTEND_WORDS` words to finish a chunk, else back) and marks a cut with "…".

The checks, used by :func:`paperscope.extract.label.build_label` to pass over a bad phrase and by
the tests over real abstracts:

- :func:`ends_inside_a_phrase`: ends in a function word, has an unbalanced bracket, or stops,
  without "…", where the abstract goes on inside the same chunk ("in a latent" before "space");
- :func:`opens_like_a_sentence`: opens with a conjunction, an auxiliary or a verb before its
  object ("adopts a …"), with an anaphor ("Such …", "Resulting …"), or holds a comma clause
  ("…, which contains …").

Regex and string work only (a few microseconds a label): card building for the ~23.5k papers of
../shared/data must stay under 60 s.
"""

from __future__ import annotations

import re

from .keyphrase_candidates import _ADJ_KEEP, _ADJ_SUFFIXES, FUNCTION_WORDS

__all__ = ["ELLIPSIS", "ends_inside_a_phrase", "opens_like_a_sentence", "settle", "cut_words"]

ELLIPSIS = "…"
#: A phrase cut inside a chunk is finished when the chunk ends within this many words
#: ("family of reversible exponential" + "Runge-Kutta solvers"); else it is cut back.
EXTEND_WORDS = 3
_DASH = " — "

#: Words a phrase never ends in: articles, prepositions, conjunctions, pronouns, auxiliaries and
#: quantifiers. Written for this check; the trimming list of the labels was a subset of it.
FUNCTION_END = frozenset(
    """
    the a an of for and or nor but to in on at by with via from into onto that which its their our
    as both while is are including such like e.g. i.e. e.g i.e between before after over under
    through across within without among against during upon toward towards about than whether if
    when where who whom whose what how why each every all some any no not can could may might will
    would should must shall be been being was were has have had do does did this these those his
    her it we they them also only more most less very so thus then further per whereas although
    though because since using based versus vs
    """.split()
)
#: Nouns shaped like modifiers (the suffix rule would call them adverbs, participles or adjectives).
_NOUN_KEEP = _ADJ_KEEP | frozenset(
    """
    perspective objective alternative derivative initiative incentive narrative directive detective
    representative potential tutorial material manual journal interval boundary summary dictionary
    library vocabulary glossary anniversary adversary family anomaly assembly supply reply speed seed
    need feed embed hundred thousand metric heuristic logic topic arithmetic music traffic clinic
    graphic critic public rubric mechanic epidemic
    """.split()
)
#: The candidate generator's modifier suffixes and "-ic" ("the geometric | and entropic nature").
_MODIFIER_SUFFIXES = (*_ADJ_SUFFIXES, "ic")
#: Nouns among the candidate generator's break words: a phrase may end in them.
_NOUN_BREAKS = frozenset("framework method approach results paper work experiments".split())
#: Verbs (third person) of the break words: a phrase that opens with one is a clause.
_BREAK_VERBS = frozenset(
    w
    for w in FUNCTION_WORDS
    if w.endswith("s")
    and w not in _NOUN_BREAKS | {"this", "its", "thus", "as", "is", "was", "has", "does"}
    and w not in {"others", "us", "ours", "theirs", "themselves", "ourselves", "itself", "less", "yes"}
)
_ANAPHOR_RE = re.compile(
    r"^(?:(?:the|a|an)\s+)?(?:such|resulting|aforementioned|said|latter|former|above|this|these|those"
    r"|that|it|its|they|their|our|them|same|proposed)\b",
    re.IGNORECASE,
)
_CONTINUATION_RE = re.compile(
    r"^(?:and|or|but|nor|then|thus|hence|also|further|furthermore|moreover|additionally|so|yet|which"
    r"|who|where|while|whereas|to|is|are|was|were|can|could|may|will|would|should|has|have|does|do)\b",
    re.IGNORECASE,
)
#: A word ending in -s before a determiner or a wh-word is a verb: "adopts a", "measures how".
_VERB_OBJECT_RE = re.compile(
    r"^(?:[a-z][a-z-]*[^su\W]s|[a-z][a-z-]*(?:ss|sh|ch|x)es)\s+(?:a|an|the|how|what|whether|its|their"
    r"|our|this|these|each|both|any|all|several|multiple)\b",
    re.IGNORECASE,
)
#: A clause after a comma: the phrase ends before it.
CLAUSE_RE = re.compile(r",\s+(?:which|where|who|whom|whereas)\b")
_PUNCT_END = ",;:.!?)]}"
#: After a word and before one of these, the word is a verb or a preposition, not a phrase's end:
#: "solver that directly optimizes | the …", "and relate | it".
_DETERMINERS = frozenset("the a an its their this these those our his her each every it them us".split())
#: The next word, or a short bracket group as one word ("(Runge-Kutta)"), or an open bracket.
_NEXT_RE = re.compile(r"\s+(\([^()]{1,40}\)|\(|[^\s()]+)")
_DASHES = ("—", "–")


def _phrase_part(label: str) -> str:
    return label.split(_DASH, 1)[1] if _DASH in label else label


def opens_like_a_sentence(label: str) -> str | None:
    """Say why the "what it does" part of ``label`` is not a noun phrase, or None when it is one.

    Returns ``"verb"`` (a conjunction, an auxiliary or a verb before its object), ``"anaphor"``
    or ``"clause"`` (module docstring).
    """
    phrase = _phrase_part(label).strip()
    first = phrase.split(" ", 1)[0].lower()
    if _CONTINUATION_RE.match(phrase) or _VERB_OBJECT_RE.match(phrase) or first in _BREAK_VERBS:
        return "verb"
    if _ANAPHOR_RE.match(phrase):
        return "anaphor"
    if CLAUSE_RE.search(phrase):
        return "clause"
    return None


def _bare(word: str) -> str:
    return word.lower().strip(_PUNCT_END + "\"'“”‘’")


def _is_break(word: str) -> bool:
    """A word a chunk ends before: a function word, or a participle opening a reduced clause.

    "solvers | obtained by …", "models | trained on …".
    """
    low = _bare(word)
    return (
        low in FUNCTION_WORDS
        or low in FUNCTION_END
        or (
            len(low) > 4
            and low.endswith("ed")
            and word[:1].islower()
            and "-" not in low
            and low not in _NOUN_KEEP
        )
    )


def _modifier(word: str) -> bool:
    """A word shaped like an adverb, participle or adjective (the candidate generator's rule)."""
    low = _bare(word)
    return low.rsplit("-", 1)[-1] not in _NOUN_KEEP and low.endswith(_MODIFIER_SUFFIXES)


def _can_end(word: str, before_punct: bool) -> bool:
    """A modifier ends a phrase only before a full stop, colon or bracket ("goal-oriented," lists on)."""
    low = _bare(word)
    if (
        not low
        or low.endswith("-")
        or low in FUNCTION_END
        or (low in FUNCTION_WORDS and low not in _NOUN_BREAKS)
    ):
        return False  # "object- and scene-level": a hyphen that waits for its noun
    return (before_punct and not word.endswith(",")) or not _modifier(word)


def _following(clean: str, phrase: str, limit: int = EXTEND_WORDS + 1) -> tuple[list[str], bool] | None:
    """Return the words after ``phrase`` in ``clean`` up to the next punctuation, at most ``limit``.

    Also whether the list stops at punctuation, a dash or the end of the text (else at
    ``limit``). A short bracket group is one word (``"(Runge-Kutta)"``); a longer one is given as
    the word ``"("`` and ends the list. None when the phrase is not in the text as written (a
    phrase put together from two spans).
    """
    tail = " ".join(phrase.split()[-5:])
    at = clean.find(tail) if tail else -1
    if at < 0:
        return None
    pos, words = at + len(tail), []
    if pos < len(clean) and not clean[pos].isspace():
        return words, True
    while len(words) < limit:
        m = _NEXT_RE.match(clean, pos)
        if not m:
            return words, True
        word = m.group(1)
        if word == "(":
            return [*words, word], True
        dash = min((word.find(d) for d in _DASHES if d in word), default=-1)
        if dash >= 0:  # "layers—seek": the dash ends the phrase
            return ([*words, word[:dash]] if dash else words), True
        words.append(word)
        pos = m.end()
        if word[-1] in _PUNCT_END and not word.startswith("("):
            return words, True
    return words, False


def _group(word: str) -> bool:
    return word.startswith("(") and word.endswith(")") and len(word) > 2


def _boundary(words: list[str], i: int, ended: bool) -> bool:
    """True when a phrase may end after ``words[i]`` (``ended``: the text stops after the list).

    After a bracket group the phrase ends as it would after the word before the group:
    "reversible exponential (Runge-Kutta)" goes on to "solvers".
    """
    word = words[i]
    base = words[i - 1] if _group(word) and i > 0 else word
    if not _group(word) and word[-1] in _PUNCT_END and (word[-1] != ")" or word.count("(") < word.count(")")):
        return _can_end(word, True)
    if i + 1 == len(words):
        return ended and _can_end(base, True)
    nxt = words[i + 1]
    if nxt.startswith("("):
        return _can_end(base, False)
    return _is_break(nxt) and _bare(nxt) not in _DETERMINERS and _can_end(base, False)


def cut_words(words: list[str], keep: int) -> list[str] | None:
    """Return the longest prefix of ``words[:keep]`` of two words or more that ends at a chunk boundary."""
    for j in range(min(keep, len(words)) - 1, 0, -1):
        if _boundary(words, j, ended=False):
            return [*words[:j], words[j].rstrip(",;:")]
    return None


def settle(phrase: str, clean: str, max_words: int) -> str | None:
    """Return ``phrase`` ending at a chunk boundary, with "…" where words of it were dropped.

    At most ``max_words`` words (plus up to :data:`EXTEND_WORDS` to finish a chunk the abstract
    goes on with). A comma clause ("…, which …") ends the phrase. None when no prefix of two words
    or more ends at a boundary.
    """
    clause = CLAUSE_RE.search(phrase)
    if clause:
        phrase = phrase[: clause.start()]
    words = phrase.split()
    if not words:
        return None
    found = _following(clean, phrase)
    # Not in the text as written (put together from two spans): trust the end it was given.
    after, ended = found if found is not None else ([], True)
    stream = words + after
    keep = min(len(words), max_words)
    if _boundary(stream, keep - 1, ended):
        out = [*words[: keep - 1], words[keep - 1].rstrip(",;:") if keep < len(words) else words[keep - 1]]
        return " ".join(out) + (ELLIPSIS if keep < len(words) else "")
    for j in range(keep, min(len(stream), keep + EXTEND_WORDS)):
        if stream[j] == "(" or _is_break(stream[j]):
            break  # a function word or a long bracket: the chunk ended before it
        if _boundary(stream, j, ended):
            out = [*stream[: j + 1]]
            out[-1] = out[-1].rstrip(",;:.")
            return " ".join(out) + (ELLIPSIS if j + 1 < len(words) else "")
    out = cut_words(stream, keep)
    return " ".join(out) + ELLIPSIS if out else None


def ends_inside_a_phrase(label: str, clean: str) -> str | None:
    """Say why ``label`` ends inside a phrase, or None when it ends at a phrase boundary.

    Returns ``"function word"``, ``"bracket"`` or ``"cut"`` (module docstring). A label that ends
    before a bracket counts as cut only when its last word is a modifier ("Visual Auto-Regressive
    (VAR) models"); a term before its short form ("gated linear attention (GLA)") is complete.
    """
    text = label.rstrip(ELLIPSIS).rstrip()
    words = text.split()
    if words and _bare(words[-1]) in FUNCTION_END:
        return "function word"
    if any(text.count(a) != text.count(b) for a, b in ("()", "[]", "{}")):
        return "bracket"
    phrase = _phrase_part(text)
    if label.endswith(ELLIPSIS) or len(phrase.split()) < 2:
        return None
    found = _following(clean, phrase, limit=1)
    after = found[0] if found else []
    if not after or _is_break(after[0]):
        return None
    if after[0].startswith("("):
        return "cut" if _modifier(words[-1]) else None
    return "cut"
