"""Silver labels at scale: method names from paper titles, keyphrases from author keywords.

Two label sets are read from ``../shared/data`` (see its SOURCES.md) with the project's own
readers (:func:`paperscope.ingest.csv_table.read_csv`,
:func:`paperscope.ingest.paperlist_json.read_json_array`, then
:func:`paperscope.ingest.pipeline.record_to_paper` for the clean text):

**Method names** (:func:`silver_method_split`). A paper of the ICLR 2026 CSVs or of
airas-papers-db is kept when its title reads ``"Name: subtitle"`` (or ``"Name - subtitle"``,
with an en or em dash too, spaces around it) and :func:`title_method_name` accepts ``Name``:

1. one or two tokens, each of letters, digits and ``- + * . '`` (``InfoBatch``, ``GPT-4``,
   ``Deja Vu``, ``Retro*``), no function word (``to``, ``the``, ``of`` …);
2. not a generic word: at least one token is *coined-shaped* (two capitals, a digit, or a capital
   after its first character: ``MARS``, ``T5``, ``OmniFit``) or *rare as a common word*: its
   lower-cased form is written in lower case in fewer than :data:`COMMON_MIN_DF` abstracts of the
   same sources (``Hubble`` and ``Chameleon`` pass; ``Towards``, ``Synthesizer`` and
   ``Movement Pruning`` do not);
3. ``Name`` occurs in the clean abstract, case-sensitive, with no letter or digit either side;
   a name with no coined-shaped token must occur there at least once *not* at a sentence start
   (so its capital is its own, not the sentence's).

The gold is that ``Name``; the extractor is shown the abstract only (no title, no keywords).

**Keyphrases** (:func:`silver_keyphrase_split`): every ICLR 2026 paper with author keywords
(the ``keywords`` column, comma-separated); the gold is its keyword list.

**Dedup and split.** Papers are deduplicated by their title's match words
(:func:`paperscope.ingest.dedup.match_words`: case, punctuation and accents ignored) and by
their whitespace-folded abstract; the first copy is kept (ICLR 2026 files first, then airas in
file-name order; airas repeats, e.g. every ICML 2022 paper twice). A paper's split is a hash of
its normalised title (BLAKE2b of ``"paperscope-silver:" + match words``): **50/50**, test when the
first byte is odd. Copies of one paper share a title, hence a split; an ICLR 2026 paper is in the
same split in both sets. Ids are ``"s-"`` + 16 hex digits of the same hash: stable across runs,
machines and data order.

Sizes on ``../shared/data`` (2026-12-01): 18,151 unique titled papers (4,302 ICLR 2026, 13,849
airas); 6,805 of them have a "Name: subtitle" title and the rule keeps **3,670** (1,588 ICLR 2026
+ 2,082 airas; the issue's 4,199 = 1,684 + 2,515 counted airas' duplicates and had no
generic-word filter): **1,868 test / 1,802 train**. Rejected: 2,130 names of 3+ tokens, 718 not
in the abstract, 259 generic, 19 with other characters, 8 only at a sentence start, 1 with a
function word. Keyphrases: all 4,302 ICLR 2026 papers have keywords: **2,160 test / 2,142 train**.

``COMMON_MIN_DF = 5`` was set once, before any extractor was scored, by reading samples of the
names the rule accepts (train half) and rejects; no other value was tried, and no figure of the
test split chose it (the rule builds the labels; it is no model parameter).

Before figures: today's extractor (0.7), ``paperscope eval cards --silver`` on 2026-12-01 (3 min
25 s wall on the shared 2-core machine, area run included), test splits:

=============  =====  ======  =======  =====
method names   n      recall  primary  first
=============  =====  ======  =======  =====
all            1,868  0.821   0.792    0.790
ICLR 2026        810  0.899   0.863    0.868
airas          1,058  0.761   0.738    0.730
=============  =====  ======  =======  =====

Keyphrases (2,160 ICLR 2026 test papers, exact match, micro P/R/F1@5): card ``tasks`` 0.245 /
0.056 / **0.092**; YAKE 0.066 / 0.090 / **0.076**; TF-IDF n-grams 0.076 / 0.100 / **0.086**.
Dev gold in the same run: method names F1 0.990, tasks F1 0.293.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections import Counter
from collections.abc import Container, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..ingest.csv_table import read_csv
from ..ingest.dedup import match_words
from ..ingest.paperlist_json import read_json_array
from ..ingest.pipeline import record_to_paper
from ..models import Paper, Record
from .paths import default_data_dir

__all__ = [
    "COMMON_MIN_DF",
    "DEFAULT_SHARED",
    "SilverExample",
    "SilverPapers",
    "common_words",
    "is_coined_shape",
    "load_silver_papers",
    "method_examples",
    "silver_id",
    "silver_keyphrase_split",
    "silver_method_split",
    "split_of",
    "split_title",
    "title_method_name",
]

#: ``$PAPERSCOPE_EVAL_DATA``, else ``../shared/data`` beside the paperscope checkout (at import).
DEFAULT_SHARED = default_data_dir()
#: A word written in lower case in at least this many abstracts is a common word (rule 2).
COMMON_MIN_DF = 5
_HASH_PREFIX = "paperscope-silver:"

_SPLIT_RE = re.compile(r"^\s*(.{1,60}?)\s*(?::\s*|\s+[-–—]\s+)(\S.*)$")
_TOKEN_RE = re.compile(r"^[^\W_](?:[\w\-+*.'’]*[\w+*])?$")
_LOWER_WORD_RE = re.compile(r"(?<![\w-])[a-z][a-z'-]*[a-z](?![\w-])")
_SENTENCE_START_RE = re.compile(r"(?:^|[.!?][\"')\]]?\s+)[\"'(\[]?$")
_FUNCTION_WORDS = frozenset(
    "a an the of to for and or in on with is are be by at as from via not do does can we you it "
    "when how what why all no your my our this that".split()
)


@dataclass(frozen=True)
class SilverExample:
    """One silver-labelled paper.

    Attributes:
        id: stable id, ``"s-"`` + 16 hex digits of the title hash (:func:`silver_id`).
        abstract: the abstract as the source wrote it (what ``extract_methods`` gets as original).
        clean: its clean text (``Paper.clean_text``: what every extractor reads).
        gold: the title's method name (a string) or the author keywords (a tuple of strings).
        title: the paper's title (never shown to an extractor; for reading the errors).
        source: ``"iclr2026"`` or the airas file's stem (``"icml_2022"``).
    """

    id: str
    abstract: str
    clean: str
    gold: str | tuple[str, ...]
    title: str
    source: str


def _title_hash(title: str) -> bytes:
    key = " ".join(match_words(title))
    return hashlib.blake2b((_HASH_PREFIX + key).encode("utf-8"), digest_size=8).digest()


def silver_id(title: str) -> str:
    """Return the stable id of a paper from its title (case, punctuation and accents ignored)."""
    return "s-" + _title_hash(title).hex()


def split_of(title: str) -> str:
    """Return ``"test"`` or ``"train"`` for a paper's title (50/50 by a hash, see the module docstring)."""
    return "test" if _title_hash(title)[0] % 2 == 1 else "train"


def split_title(title: str) -> tuple[str, str] | None:
    """Return ``(name, subtitle)`` of a ``"Name: subtitle"`` / ``"Name - subtitle"`` title, else None."""
    m = _SPLIT_RE.match(title)
    return (m.group(1).strip(), m.group(2)) if m else None


def is_coined_shape(token: str) -> bool:
    """Return True for a token shaped like a coined name: two capitals, a digit, or an inner capital.

    ``MARS``, ``T5``, ``OmniFit``, ``GPT-4`` are; ``Hubble``, ``Co-rewarding``, ``Towards`` are not.
    """
    return (
        sum(c.isupper() for c in token) >= 2
        or any(c.isdigit() for c in token)
        or any(c.isupper() for c in token[1:])
    )


def common_words(abstracts: Iterable[str]) -> frozenset[str]:
    """Return the words written in lower case in at least :data:`COMMON_MIN_DF` of ``abstracts``."""
    df: Counter[str] = Counter()
    for text in abstracts:
        df.update(set(_LOWER_WORD_RE.findall(text)))
    return frozenset(w for w, n in df.items() if n >= COMMON_MIN_DF)


def _rejection(title: str, clean: str, common: Container[str]) -> tuple[str | None, str | None]:
    """Return ``(name, None)`` when the title's name passes the rule, else ``(None, reason)``."""
    parts = split_title(title)
    if parts is None:
        return None, "no name: subtitle"
    name = parts[0]
    tokens = name.split()
    if len(tokens) > 2:
        return None, "3+ tokens"
    if not all(_TOKEN_RE.match(t) for t in tokens):
        return None, "other characters"
    if any(t.lower() in _FUNCTION_WORDS for t in tokens):
        return None, "function word"
    coined = any(is_coined_shape(t) for t in tokens)
    if not coined and all(t.lower() in common for t in tokens):
        return None, "generic"
    where = [m.start() for m in re.finditer(rf"(?<![^\W_]){re.escape(name)}(?![^\W_])", clean)]
    if not where:
        return None, "not in the abstract"
    if not coined and all(_SENTENCE_START_RE.search(clean[max(0, i - 4) : i]) for i in where):
        return None, "only at a sentence start"
    return name, None


def title_method_name(title: str, clean: str, common: Container[str]) -> str | None:
    """Return the method name a title gives, when the rule of the module docstring accepts it.

    Args:
        title: the paper's title (clean text).
        clean: the paper's clean abstract.
        common: the common words (:func:`common_words` of the sources' abstracts).

    Returns:
        ``Name`` of ``"Name: subtitle"``, or None.
    """
    return _rejection(title, clean, common)[0]


def _read(path: Path) -> list[Record]:
    reader = read_csv if path.suffix == ".csv" else read_json_array
    return [r for r in reader(path) if isinstance(r, Record)]


@dataclass(frozen=True)
class SilverPapers:
    """What :func:`load_silver_papers` read.

    Attributes:
        papers: ``(source, paper)`` for the unique papers the sets can use: every ICLR 2026 paper
            and each airas paper with a ``"Name: subtitle"`` title (others are not cleaned).
        common: :func:`common_words` of all unique abstracts (rule 2).
        unique: unique titled papers per source (``iclr2026``, ``airas``).
    """

    papers: tuple[tuple[str, Paper], ...]
    common: frozenset[str]
    unique: dict[str, int]


@functools.lru_cache(maxsize=4)
def load_silver_papers(data_dir: Path = DEFAULT_SHARED) -> SilverPapers:
    """Read the unique titled papers of the ICLR 2026 CSVs and airas-papers-db (about 5 s; cached per folder).

    Deduplicated as the module docstring says; a source is ``"iclr2026"`` or the airas file's stem.

    Raises:
        InputError: ``data_dir`` lacks ``iclr2026-primary-area/*.csv`` or ``airas-papers-db/*.json``,
            or a file does not read (from the readers, naming the file and line).
    """
    data_dir = Path(data_dir)
    iclr = sorted((data_dir / "iclr2026-primary-area").glob("*.csv"))
    airas = sorted((data_dir / "airas-papers-db").glob("*.json"))
    if not iclr or not airas:
        raise InputError(
            "the silver sets need iclr2026-primary-area/*.csv and airas-papers-db/*.json", str(data_dir)
        )
    seen_titles: set[bytes] = set()
    seen_abstracts: set[str] = set()
    abstracts: list[str] = []
    unique: Counter[str] = Counter()
    out: list[tuple[str, Paper]] = []
    for path in iclr + airas:
        source = "iclr2026" if path.suffix == ".csv" else path.stem
        for record in _read(path):
            if not record.title or not record.title.strip():
                continue
            key, body = _title_hash(record.title), " ".join(record.abstract.lower().split())
            if key in seen_titles or body in seen_abstracts:
                continue
            seen_titles.add(key)
            seen_abstracts.add(body)
            abstracts.append(record.abstract)
            unique["iclr2026" if source == "iclr2026" else "airas"] += 1
            if source != "iclr2026" and split_title(record.title) is None:
                continue  # neither set can use it: skip the cleaning
            paper = record_to_paper(record)
            if paper is not None and paper.title:
                out.append((source, paper))
    return SilverPapers(tuple(out), common_words(abstracts), dict(unique))


def _example(source: str, paper: Paper, gold: str | tuple[str, ...]) -> SilverExample:
    title = paper.title or ""
    return SilverExample(silver_id(title), paper.abstract, paper.clean_text, gold, title, source)


def method_examples(data_dir: Path = DEFAULT_SHARED) -> tuple[list[SilverExample], Counter[str]]:
    """Return every silver method-name example (both splits) and how many "Name: …" titles each reason rejected."""
    loaded = load_silver_papers(Path(data_dir))
    kept: list[SilverExample] = []
    reasons: Counter[str] = Counter()
    for source, paper in loaded.papers:
        if split_title(paper.title or "") is None:
            continue  # an ICLR paper kept for the keyphrases
        name, reason = _rejection(paper.title or "", paper.clean_text, loaded.common)
        if name is None:
            reasons[reason or ""] += 1
        else:
            kept.append(_example(source, paper, name))
    return kept, reasons


def _halves(examples: list[SilverExample]) -> tuple[list[SilverExample], list[SilverExample]]:
    train = [e for e in examples if split_of(e.title) == "train"]
    test = [e for e in examples if split_of(e.title) == "test"]
    return train, test


def silver_method_split(data_dir: Path = DEFAULT_SHARED) -> tuple[list[SilverExample], list[SilverExample]]:
    """Return ``(train, test)`` silver method-name examples; ``gold`` is the title's name (a string).

    For the learned extractor: train on ``train`` only; ``test`` is what ``eval cards --silver`` scores.

    Raises:
        InputError: the shared data folder lacks the files (see :func:`load_silver_papers`).
    """
    return _halves(method_examples(data_dir)[0])


def silver_keyphrase_split(
    data_dir: Path = DEFAULT_SHARED,
) -> tuple[list[SilverExample], list[SilverExample]]:
    """Return ``(train, test)`` ICLR 2026 examples; ``gold`` is the tuple of author keywords.

    Raises:
        InputError: the shared data folder lacks the files (see :func:`load_silver_papers`).
    """
    examples = [
        _example(source, paper, tuple(paper.keywords))
        for source, paper in load_silver_papers(Path(data_dir)).papers
        if source == "iclr2026" and paper.keywords
    ]
    return _halves(examples)
