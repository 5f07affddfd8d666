"""Keyphrase candidates: noun-phrase-like n-grams of a clean text, without a part-of-speech tagger.

The clean text is cut into runs of words at punctuation and at :data:`FUNCTION_WORDS` (function
words and the verbs abstracts are built from: "we *propose* …", "*achieves*"); every 1–3-word
n-gram inside a run is a candidate when it ends in a noun-like word (not an adverb in ``-ly``, a
participle in ``-ed`` or an adjective suffix such as ``-al``, ``-ive``, ``-ous``, ``-able``) and
does not start with a number. Candidates are grouped by :func:`phrase_key`, the matching rule of
the keyphrase evaluation (lower case, punctuation and hyphens as spaces, plural endings dropped).
The ranker is :mod:`paperscope.extract.keyphrases`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Container

__all__ = ["FUNCTION_WORDS", "TASK_HEADS", "Candidate", "candidates", "phrase_key"]

_MAX_WORDS = 3
_TOKEN_RE = re.compile(r"[^\W_](?:[\w\-'’+]*[^\W_+])?\+*")
_NON_WORD_RE = re.compile(r"[^0-9a-z]+")

#: Function words and the verbs and fillers of abstracts: they end a candidate run. Written for
#: this module (scikit-learn's English list holds content words such as "system" and "computer").
FUNCTION_WORDS = frozenset(
    """
    a an the of to for and or nor but in on at by with from into onto over under via per than then
    as about against among amongst between through during before after above below up down out off
    within without across along around upon toward towards beyond despite unlike whereas while
    whether if unless because since so thus hence therefore however although though yet also too
    very much more most less least many few several some any each every all both either neither
    no not only just even still already again further furthermore moreover additionally namely
    is are was were be been being am has have had having do does did doing can could may might
    must shall should will would it its itself they them their theirs themselves we us our ours
    ourselves you your he she his her this that these those which who whom whose what when where
    why how there here such other others another same own one two three four five six seven eight
    nine ten first second third new novel existing prior previous recent recently current
    propose proposes proposed proposing present presents presented introduce introduces
    introduced show shows showed shown demonstrate demonstrates demonstrated achieve achieves
    achieved achieving outperform outperforms outperforming improve improves improved improving
    enable enables enabling allow allows allowing use uses used using leverage leverages
    leveraging utilize utilizes utilizing provide provides provided providing require requires
    required remain remains remaining yield yields reduce reduces reducing increase increases
    make makes making lead leads leading called termed named based
    study studies address addresses tackle tackles consider considers investigate investigates
    explore explores focus focuses aim aims seek seeks find finds found develop develops
    developed design designs designed evaluate evaluates evaluated conduct conducted
    experiments experimental extensive comprehensive results paper work approach method
    framework significantly substantially effectively efficiently well often typically widely
    e.g i.e etc et al vs via respectively
    """.split()
)

#: Last words of task and problem phrases ("reinforcement learning", "object detection").
TASK_HEADS = frozenset(
    """
    learning detection generation recognition segmentation classification estimation prediction
    retrieval reasoning planning translation answering summarization summarisation forecasting
    tracking editing synthesis reconstruction localization localisation alignment adaptation
    optimization optimisation inference verification discovery control navigation manipulation
    captioning grounding parsing compression distillation quantization pruning unlearning
    attribution interpretability explainability robustness generalization fairness privacy
    safety evaluation benchmarking modeling modelling sampling search matching ranking
    clustering completion understanding restoration super-resolution denoising
    """.split()
)

#: Feature names, in the column order of the model's weights.
_ADJ_SUFFIXES = ("ly", "ed", "al", "ive", "ous", "ful", "able", "ible", "less", "ary")
_ADJ_KEEP = frozenset("signal interval trial rival proposal retrieval removal arrival approval".split())


def _singular(word: str) -> str:
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@functools.lru_cache(maxsize=1 << 16)
def phrase_key(phrase: str) -> str:
    """Return the matching key of a keyphrase: lower case, non-alphanumerics as one space, singular words.

    The rule of :mod:`paperscope.evaluation.keyphrases` (``"Large Language Models"`` =
    ``"large language model"``, ``"self-supervised"`` = ``"self supervised"``).
    """
    return " ".join(_singular(w) for w in _NON_WORD_RE.sub(" ", phrase.lower()).split())


class Candidate:
    """A distinct candidate phrase of one abstract.

    Attributes:
        key: its :func:`phrase_key`.
        text: the words of its first occurrence, as written (``clean[start:end]``).
        start: character offset of the first occurrence in the clean text.
        end: end offset (exclusive) of the first occurrence.
        count: occurrences in the abstract.
        longer: occurrences inside a candidate one word longer (as its start or its end).
        words: the :func:`phrase_key` of each word (``"self-supervised"`` gives ``"self supervised"``).
        capital: a word has an inner capital, or a capital not at a sentence start.
        all_caps: a word is in capitals (``LLM``, ``RL``).
        digit: a word has a digit.
        hyphen: a word has a hyphen.
    """

    __slots__ = (
        "key",
        "text",
        "start",
        "end",
        "count",
        "longer",
        "words",
        "capital",
        "all_caps",
        "digit",
        "hyphen",
    )

    def __init__(
        self, key: str, text: str, start: int, end: int, words: tuple[str, ...], flags: tuple[bool, ...]
    ):
        self.key, self.text, self.start, self.end, self.words = key, text, start, end, words
        self.count = 1
        self.longer = 0
        self.capital, self.all_caps, self.digit, self.hyphen = flags

    def __repr__(self) -> str:
        return f"Candidate({self.text!r}, {self.start}, {self.end}, count={self.count})"


@functools.lru_cache(maxsize=1 << 17)
def _word(word: str) -> tuple[str, bool, bool, bool, bool, bool, bool, bool, str]:
    """Return ``(key, breaks, can_end, number, inner_capital, initial_capital, all_caps, digit, last)``.

    ``last`` is the last word of the key (``"meta-learning"``: ``"learning"``).
    """
    low = word.lower()
    key = phrase_key(word)
    breaks = low in FUNCTION_WORDS or "'" in word or "\u2019" in word or not key
    number = low.replace(".", "").isdigit()
    can_end = not number and (low in _ADJ_KEEP or not low.endswith(_ADJ_SUFFIXES))
    return (
        key,
        breaks,
        can_end,
        number,
        any(ch.isupper() for ch in word[1:]),
        word[0].isupper(),
        word.isupper() and len(word) > 1,
        any(ch.isdigit() for ch in word),
        key.rsplit(" ", 1)[-1],
    )


def _runs(clean: str) -> list[list[tuple[str, int, int, tuple]]]:
    """Return the runs of candidate words ``(word, start, end, info)`` between punctuation and function words."""
    runs: list[list[tuple[str, int, int, tuple]]] = []
    run: list[tuple[str, int, int, tuple]] = []
    last_end = 0
    for m in _TOKEN_RE.finditer(clean):
        word, start, end = m.group(0), m.start(), m.end()
        info = _word(word)
        if (start > last_end and not clean[last_end:start].isspace()) or info[1]:
            if run:
                runs.append(run)
            run = []
        last_end = end
        if not info[1]:
            run.append((word, start, end, info))
    if run:
        runs.append(run)
    return runs


def candidates(clean: str, last_words: Container[str] | None = None) -> list[Candidate]:
    """Return the distinct candidate phrases of ``clean`` (module docstring), in order of their end word.

    Args:
        clean: the clean text.
        last_words: keep only candidates whose key's last word is in it (:data:`TASK_HEADS` for
            the card's tasks); every feature of a kept candidate is the same as without the
            filter, and only the words around such a last word are looked at (about 5x faster).
    """
    found: dict[str, Candidate] = {}
    if last_words is None:
        for run in _runs(clean):
            for j in range(len(run)):
                _add_ending_at(found, clean, run, j)
        return list(found.values())
    low = clean.lower()
    if len(low) != len(clean):  # a rare letter whose lower case is longer: offsets would differ
        for run in _runs(clean):
            for j in range(len(run)):
                if run[j][3][8] in last_words:
                    _add_ending_at(found, clean, run, j)
        return list(found.values())
    done: set[int] = set()
    for pos in sorted(_stem_hits(low, frozenset(last_words))):
        # The words that can matter: two before the hit's word and one after (single-spaced text).
        start = clean.rfind(" ", 0, pos)
        for _ in range(2):
            start = clean.rfind(" ", 0, start) if start > 0 else -1
        end = clean.find(" ", pos)
        end = clean.find(" ", end + 1) if end >= 0 else -1
        matches = list(_TOKEN_RE.finditer(clean, start + 1, len(clean) if end < 0 else end))
        j = next((k for k, m in enumerate(matches) if m.start() <= pos < m.end()), None)
        if j is None or matches[j].start() in done:
            continue
        done.add(matches[j].start())
        info = _word(matches[j].group(0))
        if info[2] and not info[1] and info[8] in last_words:
            run, at = _local_run(clean, matches, j)
            _add_ending_at(found, clean, run, at)
    return list(found.values())


def _stem_hits(low: str, last_words: frozenset[str]) -> list[int]:
    """Return where a word that may end in one of ``last_words`` starts in ``low`` (a superset)."""
    hits = []
    for stem in _stems(last_words):
        i = low.find(stem)
        while i >= 0:
            if i == 0 or not low[i - 1].isalnum():
                hits.append(i)
            i = low.find(stem, i + 1)
    return hits


@functools.lru_cache(maxsize=8)
def _stems(last_words: frozenset[str]) -> tuple[str, ...]:
    """Return the beginnings every written form of ``last_words`` starts with (``discover`` for "discoveries")."""
    return tuple(sorted({w[:-1] if w.endswith("y") else w for w in last_words}))


def _linked(clean: str, before: re.Match[str], after: re.Match[str]) -> bool:
    """Return True when two successive word matches belong to one run (:func:`_runs`' rule)."""
    return (after.start() == before.end() or clean[before.end() : after.start()].isspace()) and not _word(
        after.group(0)
    )[1]


def _local_run(
    clean: str, matches: list[re.Match[str]], j: int
) -> tuple[list[tuple[str, int, int, tuple]], int]:
    """Return the part of match ``j``'s run that candidates ending there can use, and ``j``'s place in it.

    That is up to two words before it (the start of a 3-word candidate, and the word before a
    2-word one) and one after (a longer candidate's end), as :func:`_runs` would cut them.
    """
    left = j
    while left > max(j - _MAX_WORDS + 1, 0) and _linked(clean, matches[left - 1], matches[left]):
        if _word(matches[left - 1].group(0))[1]:
            break
        left -= 1
    right = j + 1 if j + 1 < len(matches) and _linked(clean, matches[j], matches[j + 1]) else j
    run = [(m.group(0), m.start(), m.end(), _word(m.group(0))) for m in matches[left : right + 1]]
    return run, j - left


def _add_ending_at(
    found: dict[str, Candidate], clean: str, run: list[tuple[str, int, int, tuple]], j: int
) -> None:
    """Add (or count again) the candidates of ``run`` that end at word ``j``."""
    infos = [w[3] for w in run]
    if not infos[j][2]:
        return
    size = len(run)
    for i in range(j, max(j - _MAX_WORDS, -1), -1):
        if infos[i][3]:
            continue
        key = infos[j][0] if i == j else " ".join([f[0] for f in infos[i : j + 1]])
        cand = found.get(key)
        if cand is None:
            cand = found[key] = _candidate(clean, run, i, j, key)
        else:
            cand.count += 1
        if j - i + 1 < _MAX_WORDS:  # occurrences inside a longer candidate, one word more
            cand.longer += (j + 1 < size and infos[j + 1][2]) + (i > 0 and not infos[i - 1][3])


def _candidate(clean: str, run: list[tuple[str, int, int, tuple]], i: int, j: int, key: str) -> Candidate:
    start, end = run[i][1], run[j][2]
    infos = [w[3] for w in run[i : j + 1]]
    capital = infos[0][5] and not (start < 2 or clean[start - 2] in ".!?:")
    capital = capital or any(f[4] for f in infos) or any(f[5] for f in infos[1:])
    flags = (capital, any(f[6] for f in infos), any(f[7] for f in infos), "-" in clean[start:end])
    return Candidate(key, clean[start:end], start, end, tuple(f[0] for f in infos), flags)
