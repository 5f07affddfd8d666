"""Datasets and benchmarks an abstract names, as written (``Flickr30k``, ``CIFAR-10``, ``TabArena``).

Three sources, merged in text order:

1. The gazetteer ``data/datasets.txt`` (common ML datasets, written by us). Names that are also
   ordinary words (``~Replica``, ``~Traffic``) count only next to "dataset/benchmark/corpus",
   after "on", or in a list with another dataset.
2. Patterns for names the gazetteer lacks: a capitalised or coined name right before "dataset",
   "benchmark", "corpus", "leaderboard", "shared task" (``the LongLaMP dataset``), a coined name
   ending in ``Bench``, a name a result or a metric is reported on (``mAP on ActivityNet-v1.3``),
   the other items of a list that holds a known dataset (``on CMU-MOSI, CMU-MOSEI, and CH-SIMS``),
   and the items of a list a head noun introduces (``benchmarks including A, safety-focused B``,
   ``datasets such as Oxford flowers, Celeb-A``, ``a dataset, i.e., OpenImages``).
3. The paper's own names that are datasets or benchmarks (``VPD-100K`` defined as "Visual
   Privacy Dataset", ``Copyright-Bench``).

``CIFAR-10/100`` counts as two datasets (``CIFAR-10`` and ``CIFAR-100``), both spanning the
written form. A name found is widened by an all-capital word, a Roman numeral or a version either
side (``MS COCO``, ``PASCAL VOC``, ``StarCraft II``), so a part is not reported for the whole.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ..text import fold
from ._spans import is_coined, is_generic, load_terms
from .methods import MethodName, defined_short_forms

__all__ = ["DatasetMention", "extract_datasets"]


@dataclass
class DatasetMention:
    """A dataset or benchmark name and the span of its first mention in the clean text.

    ``confidence`` (0 to 1) is the share of right names of its ``source`` on the dev half of
    ``evaluation/data/cards_gold`` (:data:`SOURCE_CONFIDENCE`).
    """

    name: str
    start: int
    end: int
    source: str

    @property
    def confidence(self) -> float:
        """The precision of this mention's source (:data:`SOURCE_CONFIDENCE`), 0 to 1."""
        return SOURCE_CONFIDENCE.get(self.source, 0.5)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "start": self.start,
            "end": self.end,
            "source": self.source,
            "confidence": self.confidence,
        }


#: Precision of each source on the dev half of cards_gold (extractor 0.11, 49 names: gazetteer
#: 19 of 21, pattern 14 of 15, list 9 of 10, the paper's own 3 of 3), as a dataset's confidence.
SOURCE_CONFIDENCE = {"gazetteer": 0.9, "pattern": 0.93, "list": 0.9, "own": 1.0}


# Variants written onto a name: "ImageNet-1K", "LongBench v2", "ImageNet64×64".
_SUFFIX = r"(?:-(?:\d+(?:\.\d+)?[KkMmBb]?|[A-Z]\d*|v\d+|[Cc]|LT)|\s[vV]\d+(?:\.\d+)?(?![\w.])|×\d+)?"
_HEADWORD_RE = re.compile(
    r"\s*(?:dataset|datasets|data\s+set|benchmark|benchmarks|corpus|corpora|suite)\b", re.I
)
_DATASET_WORD_RE = re.compile(r"(?:dataset|benchmark|corpus|bench)", re.I)
_BEFORE_RE = re.compile(r"(?:\bon|\bin|\bfrom|\busing|\bwith)\s+(?:the\s+)?$", re.I)
_NAME_TOKEN = r"[A-Z][\w\-.+]*[\w+]|[A-Z]"
_PATTERN_RE = re.compile(
    rf"(?<![\w-])((?:{_NAME_TOKEN})(?:\s+(?:{_NAME_TOKEN}))?)\s+"
    r"(dataset|datasets|benchmarks?|corpus|data\s+set|leaderboard|shared\s+task)\b"
)
#: A word that describes a name rather than being one: "English-only", "LLaMA-style", "GPT-based".
_MODIFIER_WORD_RE = re.compile(
    r"[\w.+]+-(?:only|style|like|based|scale|level|oriented|specific|centric|aware|free|driven|focused|related"
    r"|type|sized|grade|domain|language|lingual)"
)
#: Before a plain capitalised name: "the", "on", with one lower-case word ("the synthetic Hypersim dataset").
_THE_BEFORE_RE = re.compile(r"\b(?:the|on)\s+(?:[a-z][a-z\-]+\s+)?$")
#: An earlier item of a list that ends in a named head: "Sintel and ", "MSRVTT, ".
_ITEM_BEFORE_RE = re.compile(rf"(?<![\w-])({_NAME_TOKEN})(?:,\s*(?:and\s+)?|\s+and\s+)$")


#: A capitalised word right before a listed name: the name is the last word of a longer one.
_LONGER_NAME_TAIL_RE = re.compile(r"[A-Z][\w\-.]*\s$")


def _items_before(clean: str, start: int) -> list[tuple[str, int, int]]:
    """Return the names listed before the name at ``start``: ``A, B and`` before ``C benchmarks``."""
    out = []
    while m := _ITEM_BEFORE_RE.search(clean, max(0, start - 40), start):
        name = m.group(1)
        if name in _NON_NAMES or is_generic(name) or _MODIFIER_WORD_RE.fullmatch(name):
            break
        if _LONGER_NAME_TAIL_RE.search(clean, max(0, m.start(1) - 20), m.start(1)):
            break  # "NYU Depth V2, …": the last word of a longer name, not an item of its own
        out.append((name, m.start(1), m.end(1)))
        start = m.start(1)
    return out


_BENCH_TOKEN_RE = re.compile(r"(?<![\w-])([A-Za-z][\w\-]*(?:Bench(?:mark)?|-bench))(?![\w-])")
_SLASH_RE = re.compile(r"(?<![\w-])([A-Za-z][\w]*-)(\d+)((?:/\d+)+)(?![\w])")
_OWN_APPOSITIVE_RE = re.compile(
    # the modifiers stop at another head noun or a clause: "TACO, an … compression model that
    # compresses the training dataset" names a model
    r"\s*(?:\([^()]{1,120}\))?,\s+(?:a|an|the)\s+"
    r"(?:(?!(?:model|method|approach|algorithm|system|that|which|for|to|of|with|in|on)\b)[\w-]+,?\s+){0,8}"
    r"(?:dataset|benchmark(?:ing)?|corpus|environment|testbed|arena)s?\b"
)
#: Where a result names its benchmark: "84.6% pass@32 on MiniF2F", "scores on RULER-QA from 73.2 to
#: 88.9", "improving FinQA from 12.0% to 24.7%", "100% Recall@10 on SPED".
# Each starts at a literal word ("on", "from"): a pattern that opens with a name would be tried at
# every position of every abstract (0.36 ms a card); the words before are checked afterwards.
_RESULT_ON_RE = re.compile(r"(?<=\s)on\s+(?:the\s+)?([A-Z][\w\-.+×]*[\w+]|[a-z]+[A-Z][\w\-.+]*[\w+])")
_RESULT_LEAD_RE = re.compile(
    r"(?:\d%|\d|@\d+|\bscores?|\baccuracy|\bperformance|\bresults?|\bSOTA|\bstate-of-the-art"
    r"|\b(?:mAP|mIoU|AUROC|AUC|BLEU|ROUGE(?:-\w+)?|FID|PSNR|SSIM|F1|IoU)"
    r"|\b[Ee]xperiments|\b[Ee]valuations?|\bevaluated|\btested|\bvalidated)\s+$"
)
_FROM_TO_RE = re.compile(r"(?<=\s)from\s+[\d.]+\s?%?\s+to\s+[\d.]+")
_NAME_BEFORE_RE = re.compile(r"(?<![\w-])([A-Z][\w\-.+]*[\w+]|[a-z]+[A-Z][\w\-.+]*[\w+])\s+$")
#: Two names sharing a plural head: "On the GSO and OmniObject3D datasets".
_PAIR_HEAD_RE = re.compile(
    r"(?<![\w-])([A-Z][\w\-.+×]*[\w+])\s+and\s+(?:the\s+)?([A-Z][\w\-.+×]*[\w+])\s+(?:datasets|benchmarks)\b"
)
_ARENA_RE = re.compile(r"(?<![\w-])((?:[A-Z][\w\-]*\s)?[A-Z][\w\-]*\sArena)\b")
_LIST_SEP_RE = re.compile(r"^(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+|/)")
_NON_NAMES = {
    "The",
    "This",
    "These",
    "Our",
    "We",
    "Extensive",
    "Experiments",
    "Empirical",
    "Existing",
    "Standard",
    "Real-world",
    "Synthetic",
    "Several",
    "Multiple",
    "Both",
    "All",
    "Each",
    "New",
    "Large-scale",
    "Public",
}


@functools.cache
def _gazetteer() -> tuple[dict[str, list[str]], dict[str, bool]]:
    """Return the gazetteer as {first word: names, longest first} and {name: is ambiguous}."""
    names: dict[str, bool] = {}
    for line in load_terms("datasets.txt"):
        names[line.lstrip("~")] = line.startswith("~")
    by_first: dict[str, list[str]] = {}
    for name in sorted(names, key=len, reverse=True):
        by_first.setdefault(name.split()[0], []).append(name)
    return by_first, names


_GAZ_TOKEN_RE = re.compile(r"(?:[^\s,;:()\[\]/\"']|'(?=[a-z]))+")  # "Humanity's Last Exam"
_GAZ_END_RE = re.compile(rf"{_SUFFIX}(?![\w]|-\w|\.\d)")


def _gazetteer_hits(clean: str) -> list[tuple[str, str, int, int]]:
    """Return ``(written form, gazetteer name, start, end)`` for each gazetteer name in ``clean``.

    A token-and-dictionary scan (about 20x faster than one regex alternation of 500 names): each
    token, and each prefix of it cut at a hyphen, is looked up by first word; candidates are
    checked in place, longest first, with an optional suffix (``ImageNet-21K``, ``ETTh1``-style).
    """
    by_first, _ = _gazetteer()
    hits = []
    pos_end = -1
    for m in _GAZ_TOKEN_RE.finditer(clean):
        token = m.group(0)
        if "-" not in token and token.rstrip(".") not in by_first:
            continue  # most tokens: one set lookup, before the position checks
        start = m.start()
        if start < pos_end or (start > 0 and clean[start - 1] in "-_"):
            continue
        token = token.rstrip(".")
        heads = [token] + [token[:i] for i, ch in enumerate(token) if ch == "-"] if "-" in token else [token]
        for head in heads:
            for name in by_first.get(head, ()):
                if not clean.startswith(name, start):
                    continue
                end = _GAZ_END_RE.match(clean, start + len(name))
                if end:
                    hits.append((clean[start : end.end()], name, start, end.end()))
                    pos_end = end.end()
                    break
            else:
                continue
            break
    return hits


def _in_context(clean: str, start: int, end: int, known_spans: list[tuple[int, int]]) -> bool:
    """Return True when an ambiguous name sits where a dataset would: "on X", "X dataset", a list."""
    if _HEADWORD_RE.match(clean[end:]) or _BEFORE_RE.search(clean[max(0, start - 12) : start]):
        return True
    window = clean[max(0, start - 40) : end + 40]
    return any(abs(s - start) < 40 and (s, e) != (start, end) for s, e in known_spans) and bool(
        re.search(r"[,/]", window)
    )


def _list_neighbours(clean: str, start: int, end: int) -> list[tuple[str, int, int]]:
    """Return the coined items listed right after a dataset: ``CMU-MOSI, CMU-MOSEI, and CH-SIMS``."""
    out = []
    pos = end
    while True:
        sep = _LIST_SEP_RE.match(clean[pos:])
        if not sep:
            break
        m = re.match(r"([A-Za-z][\w\-.]*[\w])", clean[pos + sep.end() :])
        if not m:
            break
        token = m.group(1)
        if not (is_coined(token) or re.match(r"[A-Z][a-z]+\d", token)) or is_generic(token):
            break
        s = pos + sep.end()
        out.append((token, s, s + len(token)))
        pos = s + len(token)
    return out


# "four benchmarks: A (X), B, and C" / "datasets such as A and B": a list that a plural head noun
# introduces names datasets, whatever the gazetteer knows.
_INTRO_LIST_RE = re.compile(
    r"\b(?:benchmarks|datasets?|corpora)\s*(?::|\((?:e\.g|i\.e)\.,?"
    r"|(?:,|\s?[—–]\s?)?\s*(?:such\s+as|including|like|(?:e\.g|i\.e)\.,?))\s+"
)
_LIST_ITEM_RE = re.compile(
    r"((?:[A-Z0-9][\w\-.+]*[\w+]|[A-Z])(?:\s+(?:[A-Z0-9][\w\-.+]*[\w+]|[A-Z])){0,3})"
    r"(?:\s+\(([A-Z0-9][\w\-]{1,15})\))?"
)
_ITEM_SEP_RE = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+)")
#: A modifier before a listed name: "safety-focused WildGuardTest", "the reasoning-specific GSM8k".
_ITEM_MODIFIER_RE = re.compile(r"(?:the\s+)?(?:[a-z]+-[a-z]+\s+)?")
#: A listed name of a capitalised word and a lower-case one that ends its item: "Oxford flowers, …".
_ITEM_PLAIN_RE = re.compile(r"([A-Z][a-z]+\s[a-z]{3,})(?=,|\s+(?:and|or)\s)")
#: A compound of capitalised parts: "Needle-In-A-Haystack", "Celeb-A".
_CAPS_COMPOUND_RE = re.compile(r"[A-Z][A-Za-z]*(?:-[A-Z][A-Za-z]*)+")


def _introduced_list(clean: str) -> list[tuple[str, int, int, bool]]:
    """Return the items of lists after "benchmarks:", "datasets such as" …; a long form gives its short form."""
    out: list[tuple[str, int, int, bool]] = []
    for intro in _INTRO_LIST_RE.finditer(clean):
        pos = intro.end()
        while True:
            pos = _ITEM_MODIFIER_RE.match(clean, pos).end()
            plain = _ITEM_PLAIN_RE.match(clean, pos)
            item = plain or _LIST_ITEM_RE.match(clean, pos)
            if not item:
                break
            name, s = item.group(1), item.start(1)
            if not plain and item.group(
                2
            ):  # "Traveling Salesperson Problem (TSP)": the short form is the name
                name, s = item.group(2), item.start(2)
            # One plain capitalised word ("For", "Oxford") or a number with a unit ("26.95dB") is
            # not a name; coined tokens ("MUSIC", "3SAT", "ETTh1"), compounds of capitalised parts
            # ("Celeb-A") and multi-word names are.
            single_ok = " " in name or (
                (
                    is_coined(name)
                    or _CAPS_COMPOUND_RE.fullmatch(name) is not None
                    or re.fullmatch(r"[A-Za-z]+\d+[A-Za-z\d]*|\d[A-Z][A-Za-z\d]+", name) is not None
                )
                and "." not in name
            )
            if single_ok and not is_generic(name) and name.split()[0] not in _NON_NAMES:
                out.append((name, s, s + len(name), not plain and bool(item.group(2))))
            sep = _ITEM_SEP_RE.match(clean, item.end())
            if not sep:
                break
            pos = sep.end()
    return out


def extract_datasets(
    clean: str, methods: list[MethodName] | None = None, defined: set[str] | None = None
) -> list[DatasetMention]:
    """Return the datasets and benchmarks ``clean`` names, in order of first mention.

    Args:
        clean: the clean text of an abstract.
        methods: the paper's names (:func:`.methods.extract_methods`); its own ones (``own``)
            that are datasets or benchmarks are included.
        defined: folded short forms the abstract defines for other things (tasks, methods); a
            pattern match on one of them ("CMM benchmarks") is not a dataset.

    Returns:
        One :class:`DatasetMention` per distinct name (case-insensitive).

    """
    _, names = _gazetteer()
    found: dict[str, DatasetMention] = {}
    methods = [m for m in methods or [] if m.own]  # a name it only uses is no own dataset
    own_keys = {fold(m.name) for m in methods}
    defined = (defined_short_forms(clean) if defined is None else defined) - own_keys

    def covered(start: int, end: int) -> bool:
        """True when a longer name already found spans this one ("SWE-bench" in "SWE-bench Verified")."""
        return any(
            d.start <= start and end <= d.end and (d.start, d.end) != (start, end) for d in found.values()
        )

    def add(name: str, start: int, end: int, source: str) -> None:
        if covered(start, end):
            return
        for other in [
            k for k, d in found.items() if start <= d.start and d.end <= end and d.end - d.start < end - start
        ]:
            del found[other]  # a shorter name found first inside this one ("ImageNet64" in "ImageNet64×64")
        key = fold(name)
        if key not in found or found[key].start > start:
            found[key] = DatasetMention(name, start, end, source)

    for m in _SLASH_RE.finditer(clean):
        stem = m.group(1)
        for number in [m.group(2), *m.group(3).strip("/").split("/")]:
            add(stem + number, m.start(), m.end(), "gazetteer")

    known_spans: list[tuple[int, int]] = []
    hits = []
    for written, base, start, end in _gazetteer_hits(clean):
        hits.append((written, start, end, names.get(base, False)))
        if not names.get(base, False):
            known_spans.append((start, end))
    slash_spans = [(m.start(), m.end()) for m in _SLASH_RE.finditer(clean)]
    for name, start, end, ambiguous in hits:
        if any(s <= start < e for s, e in slash_spans):
            continue
        if ambiguous and not _in_context(clean, start, end, known_spans):
            continue
        add(name, start, end, "gazetteer")
        for token, s, e in _list_neighbours(clean, start, end):
            if fold(token) not in own_keys:
                add(token, s, e, "list")

    for m in _PATTERN_RE.finditer(clean):
        name = m.group(1)
        words = name.split()
        if words[0] in _NON_NAMES:
            words = words[1:]
        if not words:
            continue
        if len(words) > 1 and _MODIFIER_WORD_RE.fullmatch(words[0]):
            words = words[1:]  # "the English-only RULER benchmark": a modifier, not part of the name
        name = " ".join(words)
        start = m.end(1) - len(name)
        last = words[-1]
        if _MODIFIER_WORD_RE.fullmatch(last):
            continue  # "LLaMA-style datasets"
        if is_generic(last) or fold(last) in defined or fold(name) in defined:
            continue
        if len(words) == 1 and not (is_coined(last) or re.search(r"\d", last)):
            # A plain capitalised word is a name only after "the"/"on" ("the Traffic dataset"),
            # never at a sentence start ("Across datasets …").
            if not _THE_BEFORE_RE.search(clean, max(0, start - 30), start):
                continue
        if len(words) > 1 and not all(is_coined(w) or w[:1].isupper() for w in words):
            continue
        if len(words) > 1 and m.group(2) == "benchmarks" and not any(is_coined(w) for w in words):
            continue  # "Natural Language Understanding benchmarks": a field, not a name
        add(name, start, start + len(name), "pattern")
        if m.group(2).endswith("s"):  # "on both Sintel and KITTI-2015 benchmarks": each name of the list
            for item, s, e in _items_before(clean, start):
                if fold(item) not in defined:
                    add(item, s, e, "pattern")

    if "benchmarks" in clean or "dataset" in clean or "corpora" in clean:
        for name, s, e, is_definition in _introduced_list(clean):
            if is_definition or fold(name) not in defined or fold(name) in own_keys:
                add(name, s, e, "list")

    for m in _BENCH_TOKEN_RE.finditer(clean):
        if is_coined(m.group(1)) or "-" in m.group(1):
            add(m.group(1), m.start(1), m.end(1), "pattern")

    # Names a result is reported on: coined or with a digit, never a generic term or an own method.
    pairs = [(m.group(k), m.start(k)) for m in _PAIR_HEAD_RE.finditer(clean) for k in (1, 2)]
    results = [
        (m.group(1), m.start(1))
        for m in _RESULT_ON_RE.finditer(clean)
        if _RESULT_LEAD_RE.search(clean, max(0, m.start() - 40), m.start())
    ]
    for m in _FROM_TO_RE.finditer(clean):
        name = _NAME_BEFORE_RE.search(clean, max(0, m.start() - 60), m.start())
        if name:
            results.append((name.group(1), name.start(1)))
    for name, start in [*pairs, *results]:
        name = name.rstrip(".")
        if (
            (is_coined(name) or re.search(r"[A-Za-z]\d|\d[A-Za-z]", name))
            and not is_generic(name)
            and fold(name) not in own_keys
            and fold(name) not in defined
            and name not in _NON_NAMES
            and not re.search(r"-\d+(?:\.\d+)?[BM]$", name)  # "LLaDA-8B": a model size, not a dataset
        ):
            add(name, start, start + len(name), "pattern")
    if "Arena" in clean:
        for m in _ARENA_RE.finditer(clean):
            if m.group(1).split()[0] not in _NON_NAMES:
                add(m.group(1), m.start(1), m.end(1), "pattern")

    for method in methods:
        heads = [method.name.split()[-1], (method.long_form or "x").split()[-1]]
        after = clean[method.end : method.end + 160]
        before = clean[max(0, method.start - 40) : method.start]
        if (
            any(_DATASET_WORD_RE.fullmatch(h) for h in heads)
            or re.search(r"(?<=[a-z0-9])-?Bench(?:mark)?\b", method.name)
            # "CLASH (…), a meticulously curated dataset", "ArEnAV, the first large-scale … dataset"
            or _OWN_APPOSITIVE_RE.match(after)
            # "we construct a corresponding dataset, GIQA-160K"
            or re.search(r"\b(?:dataset|benchmark|corpus)\s*,\s*$", before)
            # "the Grounded Chain-of-Thought (GCoT) dataset", "(SCaR) benchmark comprising …"
            or re.match(r"\)?\s*(?:dataset|benchmark|corpus)\b", after)
        ):
            add(method.name, method.start, method.end, "own")

    out: dict[str, DatasetMention] = {}
    for d in sorted(found.values(), key=lambda d: d.start):
        start, end = _widen(clean, d.start, d.end, defined | own_keys)
        if (start, end) != (d.start, d.end):
            d = DatasetMention(clean[start:end], start, end, d.source)
        if any(o.start <= start and end <= o.end and (o.start, o.end) != (start, end) for o in out.values()):
            continue  # "COCO" after widening "MS" to "MS COCO"
        out[fold(d.name)] = d
    return sorted(out.values(), key=lambda d: d.start)


#: One more word of a dataset's name: an all-capital word (``MS`` COCO, PASCAL ``VOC``), a Roman
#: numeral (StarCraft ``II``) or a bare version (Mapillary Vistas ``2.0``).
_WIDE_WORD = r"(?:[A-Z]{2,}|[IVX]{2,4}|\d+\.\d+)"
_WIDEN_LEFT_RE = re.compile(rf"(?<![\w\-.])({_WIDE_WORD}) $")
_WIDEN_RIGHT_RE = re.compile(rf" ({_WIDE_WORD}|(?:19|20)\d\d)(?![\w\-]|\.\w)")  # a year: "AIME 2024"


def _widen(clean: str, start: int, end: int, skip: set[str]) -> tuple[int, int]:
    """Return the span of a dataset name widened by one word either side (``_WIDE_WORD``).

    A generic term (``SOTA``) or a short form the abstract defines for something else is not
    part of the name.
    """
    left = _WIDEN_LEFT_RE.search(clean, max(0, start - 12), start)
    if left and not is_generic(left.group(1)) and fold(left.group(1)) not in skip:
        start = left.start(1)
    right = _WIDEN_RIGHT_RE.match(clean, end)
    if right and not is_generic(right.group(1)) and fold(right.group(1)) not in skip:
        end = right.end(1)
    return start, end
