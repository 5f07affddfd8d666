"""Chinese and mixed queries over English abstracts: the dictionary route.

No offline zh→en translation model exists here (MODELS.md), so a Chinese query is glossed word
by word: Traditional characters become Simplified (OpenCC ``t2s``), each run of Chinese
characters is split by forward maximum matching over the dictionary, and each word is replaced
by its English senses from CC-CEDICT (MDBG, CC BY-SA 4.0; cleaned and shipped as
``data/cedict_senses.tsv`` by ``scripts/build_cedict_senses.py``). A glossary of about
430 machine-learning terms written by us (``data/zh_glossary.tsv``) comes first, because CC-CEDICT lacks most field compounds (多模态,
强化学习) and lists the everyday sense of others first (扩散 "to spread", not "diffusion").
Latin-script parts of the query (``OCR``, ``Transformer``) are kept as they are.

The glosses feed both legs: extra BM25 terms next to the original query, and the English
text the (English-only) dense model embeds.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources

__all__ = ["QueryGloss", "gloss_query", "prepare_dictionaries", "GLOSSARY", "SENSES_PER_WORD"]

#: CC-CEDICT senses kept per word: the first ones are the most common.
SENSES_PER_WORD = 2
_MAX_WORD = 8


def parse_glossary(text: str, source: str) -> dict[str, str]:
    """Parse glossary lines (Simplified term <TAB> English words; ``#`` comments, blank lines).

    Raises:
        ValueError: a line has no tab or an empty side, or a term is listed twice (``source:line``).
    """
    glossary: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        term, tab, english = line.partition("\t")
        term, english = term.strip(), english.strip()
        if not tab or not term or not english:
            raise ValueError(f"{source}:{number}: expected 'term<TAB>english', got {line!r}")
        if term in glossary:
            raise ValueError(f"{source}:{number}: {term!r} is listed twice")
        glossary[term] = english
    return glossary


#: Machine-learning terms: Simplified Chinese → English, checked before CC-CEDICT.
GLOSSARY: dict[str, str] = parse_glossary(
    resources.files("paperscope.index").joinpath("data", "zh_glossary.tsv").read_text(encoding="utf-8"),
    "paperscope/index/data/zh_glossary.tsv",
)

# Particles, pronouns and other words with no content: CC-CEDICT glosses them with noise
# (的 "bull's-eye") and English stop words would drop them anyway.
_FUNCTION_WORDS = frozenset(
    """的 地 得 了 着 过 和 与 及 或 跟 同 在 中 对 于 对于 关于 是 为 为了 从 以 以及 其 之 等 把 被 将 可 能
    可以 会 吗 呢 吧 啊 也 都 又 而 并 但 且 如何 怎么 怎样 什么 哪些 哪个 一种 一个 一些 这 那 这个 那个
    这些 那些 我们 你们 他们 本文 研究 方法 问题 基于 通过 使用 利用 进行
    如 及其 中的 上 下 里
    同时 导致 现有 前提 情况 无法 尤其是 尤其 难以 存在 是否 当前 无需 用于 之间 不同 进而 从而 因此 然而
    而且 此外 并且 通常 往往 已经 需要 能够 仍然 容易 这种 此类 其中 相关 具有 包括 主要""".split()
)
_CJK_RUN_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


@dataclass
class QueryGloss:
    """A query split into what to search for in English.

    Attributes:
        words: the Chinese words found, in order.
        english: English glosses, one string per glossed word (same order, unglossed words left out).
        latin: the Latin-script parts of the query, as written.
    """

    words: list[str]
    english: list[str]
    latin: list[str]

    @property
    def text(self) -> str:
        """The English rendering of the query: Latin parts first, then the glosses."""
        return " ".join(self.latin + self.english)


@functools.cache
def _converter():  # type: ignore[no-untyped-def]
    import opencc

    return opencc.OpenCC("t2s")


#: The cleaned CC-CEDICT senses shipped in the package (``scripts/build_cedict_senses.py``).
SENSES_FILE = "cedict_senses.tsv"


@functools.cache
def _dictionary() -> Mapping[str, list[str]]:
    """Simplified headword → cleaned English senses, from CC-CEDICT, as a table on disk.

    The senses ship cleaned in ``data/cedict_senses.tsv``; at first use they go into a
    :mod:`paperscope.disktable` table (about 0.3 s, once per machine) keyed by the file's
    header line, which holds the SHA-256 of its rows, so a fresh process looks up a query's
    words in microseconds instead of reading 115k lines. A cache folder that cannot be written
    keeps the senses in memory instead.
    """
    from ..disktable import open_table

    path = resources.files(__package__).joinpath("data", SENSES_FILE)
    with path.open(encoding="utf-8") as handle:
        header = handle.readline().strip()

    def rows() -> Iterator[tuple[str, str]]:  # (word, its senses as a JSON list), after the header
        with path.open(encoding="utf-8") as handle:
            handle.readline()
            for line in handle:
                word, _, senses = line.rstrip("\n").partition("\t")
                yield word, senses

    table = open_table("cedict-senses", header, lambda: (rows(), {}), encoded=True)
    return table if table is not None else {word: json.loads(senses) for word, senses in rows()}


def prepare_dictionaries() -> None:
    """Build the on-disk CC-CEDICT table and load rjieba's dictionary now (under a second)."""
    from ..text import segment

    _dictionary()
    segment("预热", for_index=True)


def _segment(run: str, vocabulary: Mapping[str, list[str]]) -> list[str]:
    """Split a run of Chinese characters by forward maximum matching over glossary + CC-CEDICT."""
    words: list[str] = []
    i = 0
    while i < len(run):
        for length in range(min(_MAX_WORD, len(run) - i), 0, -1):
            piece = run[i : i + length]
            if length == 1 or piece in GLOSSARY or piece in vocabulary or piece in _FUNCTION_WORDS:
                words.append(piece)
                i += length
                break
    return words


def _rank_senses(senses: list[str], frequency: Callable[[list[str]], dict[str, int]] | None) -> list[str]:
    """Return ``senses`` ordered by how common their words are in the library (most first).

    CC-CEDICT lists everyday senses first (行为: "action", "conduct", "behavior"); the library's
    own document frequencies pick the sense its papers use. Ties keep the dictionary order.
    """
    if frequency is None or len(senses) <= SENSES_PER_WORD:
        return senses
    words = {s: [w for w in re.findall(r"[a-z0-9]+", s.lower()) if len(w) > 2] for s in senses}
    df = frequency(sorted({w for ws in words.values() for w in ws}))
    score = {s: max((df.get(w, 0) for w in ws), default=0) for s, ws in words.items()}
    return sorted(senses, key=lambda s: -score[s])


def gloss_query(query: str, frequency: Callable[[list[str]], dict[str, int]] | None = None) -> QueryGloss:
    """Return the English glosses of the Chinese words of ``query`` (Traditional or Simplified).

    ``gloss_query("擴散模型 OCR")`` gives english ``["diffusion model"]`` and latin ``["OCR"]``.
    Words with no gloss (names, rare characters) are kept in ``words`` but add no English.
    With ``frequency`` (terms → number of papers using each), the CC-CEDICT senses kept for a
    word are those most used in the library.
    """
    simplified = _converter().convert(query)
    vocabulary = _dictionary()
    latin = [part for part in _CJK_RUN_RE.sub(" ", simplified).split() if any(ch.isalnum() for ch in part)]
    words: list[str] = []
    english: list[str] = []
    for run in _CJK_RUN_RE.findall(simplified):
        for word in _segment(run, vocabulary):
            words.append(word)
            if word in _FUNCTION_WORDS:
                continue
            if word in GLOSSARY:
                english.append(GLOSSARY[word])
            elif word in vocabulary:
                english.append(" ".join(_rank_senses(vocabulary[word], frequency)[:SENSES_PER_WORD]))
    return QueryGloss(words=words, english=english, latin=latin)
