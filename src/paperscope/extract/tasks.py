"""Tasks: one to three short phrases naming the problem a paper works on, each with its span.

Sources, in order of trust:

1. a term the opening sentences define (``"Multi-modal dataset distillation (MDD) seeks to …"``);
2. the purpose of the paper's own contribution (``"a framework for perceptual-level image
   understanding"``, ``"for multi-modal dataset distillation"``);
3. the subject of the opening sentence when it reads as a task (``"Graph coarsening reduces …"``);
4. "the problem/task of X" and "X tasks" phrases;
5. the trained keyphrase ranker's best :data:`MAX_TASKS` task phrases
   (:mod:`paperscope.extract.keyphrases`: candidates whose last word names a task,
   "… learning", "… detection", "… generation"), best first, when the phrases above leave room.

Sources 1-4 come first because they are the more precise ones. On the ICML 2026 dev gold (38
papers, the Jaccard match of :mod:`paperscope.evaluation.cards`), tasks F1: rules alone 0.293
(precision 0.50), the ranker's three alone 0.309, both 0.362 (the card's). Passing the best 2,
3, 5 or 15 ranker phrases gave 0.35-0.37: 3 (= MAX_TASKS) was kept, no finer choice was made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ._spans import split_sentences
from .keyphrases import Keyphrase, is_task_phrase
from .methods import MethodName, find_long_form

__all__ = ["Task", "extract_tasks", "MAX_TASKS"]

#: At most this many task phrases per paper.
MAX_TASKS = 3
_MAX_WORDS = 6
_SF_RE = re.compile(r"\(([A-Z][\w\-]{1,10})\)")
_LEFT_WORDS_RE = re.compile(r"((?:[A-Za-z][\w\-]*\s+){0,6}[A-Za-z][\w\-]*)\s*$")
_PURPOSE_RE = re.compile(
    r"\b(?:framework|method|approach|model|algorithm|system|benchmark|pipeline|technique|strategy|toolkit)"
    r"\s+(?:\([^()]{1,20}\)\s+)?(?:designed\s+|tailored\s+|specifically\s+)?for\s+((?:[\w\-]+\s+){0,5}[\w\-]+)",
    re.IGNORECASE,
)
_SUBJECT_RE = re.compile(
    r"^((?:[A-Za-z][\w\-]*\s+){0,4}[A-Za-z][\w\-]*)\s+(?:\([^()]*\)\s+)?"
    r"(?:aims|seeks|is|are|has|have|remains|reduces|provides|enables|offers|plays|requires|studies|involves)\b"
)
# "We study hybrid reinforcement learning in adversarial MDPs": the object of "we study/address/tackle".
_STUDY_RE = re.compile(
    r"\b(?:we|this\s+(?:paper|work))\s+(?:study|studies|address|addresses|tackle|tackles|consider|considers)\s+"
    r"(?!how\b|whether\b|why\b|what\b|when\b|the\s+(?:question|problem|role|effect|impact)\b|this\b|these\b|such\b)"
    r"((?:[\w\-]+\s+){0,5}[\w\-]+)",
    re.IGNORECASE,
)
_BAD_WORDS = {
    "this",
    "that",
    "these",
    "those",
    "can",
    "could",
    "may",
    "might",
    "will",
    "would",
    "should",
    "it",
    "its",
}
_NUMBER_WORDS = {
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "several",
    "multiple",
}
_PROBLEM_RE = re.compile(r"\b(?:the\s+)?(?:problem|task)\s+of\s+((?:[\w\-]+\s+){0,4}[\w\-]+)", re.IGNORECASE)
_TASKS_HEAD_RE = re.compile(r"\s(?:tasks|problems)\b")
_TASKS_LEFT_RE = re.compile(
    r"\b(?:on|in|for|such\s+as|including|like)\s+((?:[A-Za-z][\w\-]*\s+){0,3}[A-Za-z][\w\-]*)$"
)
_MODEL_HEAD_RE = re.compile(
    r"(?:models?|networks?|transformers?|agents?|LLMs?|architectures?|frameworks?|mechanisms?|-Action)$",
    re.IGNORECASE,
)
#: Single words that qualify tasks ("downstream tasks") without naming one.
_VAGUE = {
    "downstream",
    "various",
    "different",
    "diverse",
    "related",
    "other",
    "real-world",
    "new",
    "challenging",
    "complex",
    "specific",
    "general",
    "standard",
    "knowledge-intensive",
    "reasoning-intensive",
}
_STOP_WORDS = {
    "the",
    "a",
    "an",
    "of",
    "in",
    "on",
    "and",
    "or",
    "to",
    "for",
    "with",
    "by",
    "from",
    "that",
    "which",
    "while",
    "as",
    "its",
    "their",
    "our",
    "this",
    "these",
    "via",
    "under",
    "without",
    "across",
    "both",
    "such",
    "is",
    "are",
    "can",
    "using",
    "through",
    "where",
    "when",
    "at",
    "into",
}
_NOT_TASKS = {
    "recent",
    "existing",
    "modern",
    "current",
    "standard",
    "many",
    "most",
    "deep",
    "large",
    "prior",
    "despite",
    "although",
    "while",
    "however",
    "in",
    "we",
    "this",
    "it",
    "these",
    "there",
    "with",
    "when",
    "recently",
    "as",
    "to",
    "the",
    "a",
    "an",
    "our",
    "such",
    "each",
    "both",
    "various",
    "diverse",
}
# -ing words that belong to task names ("question answering", "image editing").
_TASK_ING = {
    "learning",
    "answering",
    "editing",
    "modeling",
    "modelling",
    "reasoning",
    "planning",
    "tracking",
    "captioning",
    "grounding",
    "retrieval",
    "forecasting",
    "sampling",
    "pruning",
    "clustering",
    "ranking",
    "merging",
    "parsing",
    "tagging",
    "matching",
    "coding",
    "decoding",
    "training",
    "fine-tuning",
}
_GENERIC_HEADS = {
    "models",
    "model",
    "methods",
    "method",
    "networks",
    "network",
    "approaches",
    "data",
    "llms",
    "work",
}


@dataclass
class Task:
    """A task phrase and its span in the clean text."""

    text: str
    start: int
    end: int

    def to_dict(self) -> dict[str, object]:
        return {"text": self.text, "start": self.start, "end": self.end}


def _trim(words: list[str]) -> list[str]:
    while words and words[-1].lower() in _STOP_WORDS:
        words.pop()
    cut = next(
        (i for i, w in enumerate(words) if w.lower() in {"that", "which", "while", "where", "when", "by"}),
        None,
    )
    return words[:cut] if cut is not None else words


def _lower(phrase: str) -> str:
    return " ".join(
        w if any(ch.isupper() for ch in w[1:]) or w.isupper() else w.lower() for w in phrase.split()
    )


def extract_tasks(
    clean: str, methods: list[MethodName] | None = None, keyphrases: list[Keyphrase] | None = None
) -> list[Task]:
    """Return up to ``MAX_TASKS`` task phrases of ``clean`` (lower-cased except acronyms), best first.

    Args:
        clean: the clean text of an abstract.
        methods: the paper's own names; they are never reported as tasks.
        keyphrases: the paper's ranked keyphrases (:func:`~paperscope.extract.keyphrases.extract_keyphrases`
            of ``clean``); their task-like ones fill the places the rules leave.

    Returns:
        A list of :class:`Task`, without duplicates or phrases contained in another.

    """
    methods = [m for m in methods or [] if m.own]
    own = {m.name.lower() for m in methods} | {(m.long_form or "").lower() for m in methods}
    candidates: list[tuple[str, int]] = []
    sentences = split_sentences(clean)

    for sentence in sentences[:2]:
        for paren in _SF_RE.finditer(sentence.text):
            sf = paren.group(1)
            if sf.endswith("s") and sf[:-1].isupper():
                continue  # "LLMs": a class of models, not a task
            before = sentence.text[: paren.start()].rstrip()
            lf = find_long_form(before, sf, title_fallback=False)
            if (
                lf
                and lf[1][:1].isalpha()
                and not _MODEL_HEAD_RE.search(lf[1])
                and 2 <= len(lf[1].split()) <= _MAX_WORDS
            ):
                candidates.append((lf[1], sentence.start + lf[0]))
                continue
            m = _LEFT_WORDS_RE.search(sentence.text, max(0, paren.start() - 90), paren.start())
            if not m:
                continue
            words = m.group(1).split()
            letters = [ch.lower() for ch in sf if ch.isalpha()]
            n = min(len(words), max(len(letters), 1))
            while n < len(words) and words[-n][0].lower() != letters[0]:
                n += 1
            phrase_words = words[-n:]
            if (
                phrase_words
                and phrase_words[0][0].lower() == letters[0]
                and not _MODEL_HEAD_RE.search(phrase_words[-1])
            ):
                phrase = " ".join(phrase_words)
                candidates.append((phrase, sentence.start + m.start(1) + m.group(1).rfind(phrase)))

    for m in _PURPOSE_RE.finditer(clean):
        words = _trim(m.group(1).split()[:_MAX_WORDS])
        if words and words[0].lower() not in _NOT_TASKS and words[-1].lower() not in _GENERIC_HEADS:
            candidates.append((" ".join(words), m.start(1)))

    probe = clean.lower()
    study_probe = any(v in probe for v in ("study", "studies", "address", "tackle", "consider"))
    for m in _STUDY_RE.finditer(clean) if study_probe else ():
        words = _trim(re.split(r"\s\(|,", m.group(1))[0].split()[:_MAX_WORDS])
        if len(words) >= 2 and words[0].lower() not in _NOT_TASKS and words[-1].lower() not in _GENERIC_HEADS:
            candidates.append((" ".join(words), m.start(1)))

    if sentences:
        m = _SUBJECT_RE.match(sentences[0].text)
        if m:
            words = m.group(1).split()
            if words[0].lower() not in _NOT_TASKS and words[-1].lower() not in _GENERIC_HEADS:
                candidates.append((m.group(1), sentences[0].start))

    phrases: list[tuple[str, int, bool]] = []
    if " of " in clean:
        phrases += [(m.group(1), m.start(1), False) for m in _PROBLEM_RE.finditer(clean)]
    for head in _TASKS_HEAD_RE.finditer(clean):
        m = _TASKS_LEFT_RE.search(clean, max(0, head.start() - 70), head.start())
        if m:
            phrases.append((m.group(1), m.start(1), True))
    for phrase, start, is_tasks in phrases:
        words = _trim(phrase.split()[:_MAX_WORDS])
        if words and words[0].lower() not in _NOT_TASKS and (len(words) >= 2 or is_tasks):
            if any(w.endswith("ing") and w.lower() not in _TASK_ING for w in words[:-1]):
                continue
            candidates.append((" ".join(words), start))
    candidates += [(k.text, k.start) for k in keyphrases or () if is_task_phrase(k.key)]

    tasks: list[Task] = []
    for phrase, start in candidates:
        text = _lower(phrase.strip(" ,;:"))
        if len(text) < 4 or text.lower() in own or any(w.lower() in own for w in text.split()):
            continue
        low_words = text.lower().split()
        # "eight datasets across three", "approximating this ratio and can succeed": counts and
        # clause words never belong to a task name.
        if any(w in _BAD_WORDS or w in _NUMBER_WORDS or w.isdigit() for w in low_words):
            continue
        if len(low_words) == 1 and low_words[0] in _VAGUE:
            continue
        key = text.lower()
        if any(key in t.text.lower() or t.text.lower() in key for t in tasks):
            continue
        tasks.append(Task(text, start, start + len(phrase)))
        if len(tasks) == MAX_TASKS:
            break
    return tasks
