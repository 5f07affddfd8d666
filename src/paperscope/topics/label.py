"""Topic labels: key phrases ranked by class-based TF-IDF (c-TF-IDF) and a short name per topic.

c-TF-IDF (Grootendorst, 2022, "BERTopic: Neural topic modeling with a class-based TF-IDF
procedure", arXiv:2203.05794, eq. 1) treats all documents of a topic as one document ``c`` and
weighs term ``t`` by ``W(t, c) = tf(t, c) * log(1 + A / f(t))``, where ``tf(t, c)`` is the
frequency of ``t`` in ``c`` divided by the number of words in ``c`` (L1), ``f(t)`` is the
frequency of ``t`` over all topics and ``A`` the average number of words per topic.

Candidate phrases are runs of content words: the clean text is cut at punctuation, stop words,
boilerplate ("we propose", "novel", "paper", "method", ...) and LaTeX residue (``mathbf``,
``textit``, ``times``, ...), and the 1- and 2-word n-grams *inside* each run are counted, so
"methods for diffusion" never yields the false bigram "methods diffusion". Generic words
("models", "learning", "data") may end a phrase ("language models") but never form one alone.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Protocol

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer

from ..errors import InputError
from ..text import segment

__all__ = [
    "Labeller",
    "CTfidfLabeller",
    "LABELLERS",
    "get_labeller",
    "STOP_WORDS",
    "BOILERPLATE_WORDS",
    "LATEX_WORDS",
    "GENERIC_WORDS",
    "candidate_phrases",
    "ctfidf",
    "display_phrase",
    "name_topic",
]

#: Words of scientific abstracts that say nothing about the topic (case 14 of the bug cases).
BOILERPLATE_WORDS = frozenset(
    """
    paper papers propose proposes proposed proposing novel method methods approach approaches
    present presents presented introduce introduces introduced introducing demonstrate demonstrates
    demonstrated show shows showed shown result results experiment experiments experimental
    extensive extensively outperform outperforms outperforming outperformed baseline baselines
    state art sota existing prior previous recent recently work works study studies studied
    paradigm framework frameworks significant significantly substantial substantially effective
    effectively effectiveness efficient efficiently improve improves improved improving improvement
    improvements achieve achieves achieved achieving superior leverage leverages leveraging
    based using use uses used utilize utilizes various variety different new key challenge
    challenges challenging problem problems issue issues address addresses addressing task
    tasks performance performances specifically particular particularly furthermore additionally
    moreover overall typically widely commonly crucial critical important importantly remarkable
    remains remain however often able enable enables enabling allow allows allowing provide
    provides providing propose offers offer novelty limitation limitations code available
    publicly github https http www com org html abstract paper's ours like including include
    includes strong stronger robust simple simply general generally ability capabilities
    capability promising powerful potential practical real world despite lack lacks lacking
    achieve yields yield respectively comprehensive thorough across given way ways make makes
    making aim aims goal need needs needed first second third one two three four five
    better best good
    """.split()
)

#: LaTeX command and Greek-letter names left behind by formulas (case 6/14 of the bug cases).
LATEX_WORDS = frozenset(
    """
    mathbf mathcal mathrm mathbb mathit mathsf mathtt mathfrak boldsymbol textit textbf textrm
    texttt textsc emph frac dfrac tfrac sqrt times cdot cdots ldots dots leq geq le ge neq approx
    sim propto infty partial nabla sum prod int log exp min max arg argmin argmax sup inf lim
    left right big bigg langle rangle lvert rvert vert mid in notin subset subseteq cup cap
    forall exists top hat tilde bar vec overline underline operatorname mbox hbox text
    alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi
    omicron pi rho sigma tau upsilon phi varphi chi psi omega
    """.split()
)

#: Chinese function words and boilerplate, for libraries of Chinese abstracts (segmented by jieba).
_CHINESE_STOP_WORDS = frozenset(
    "的 了 和 与 及 在 是 为 以 对 将 把 被 从 中 上 下 等 并 其 该 此 这 这些 一种 一个 我们 本文 "
    "文章 提出 提出了 方法 研究 通过 用于 基于 进行 实现 使用 利用 显著 有效 新的 更 更少 更好 "
    "可以 能够 以及 或 而 但 也 都 由 之 所 如何 一 个 种".split()
)

#: Function words: scikit-learn's English list plus the Chinese list above.
STOP_WORDS = frozenset(ENGLISH_STOP_WORDS) | _CHINESE_STOP_WORDS

#: Words that may end a phrase ("language models") but are never a key phrase on their own.
GENERIC_WORDS = frozenset(
    """
    model models modeling modelling learning learn learned data dataset datasets network networks
    neural training train trained system systems algorithm
    algorithms technique techniques analysis evaluation benchmark benchmarks accuracy results
    information representation representations process processes function functions structure
    structures setting settings application applications scale level approach quality time
    number set sets type types form forms case cases
    """.split()
)

#: Adjectives that say little alone ("large language" is not a topic): they end a phrase when
#: standing alone but may be part of a hyphenated compound ("low-rank", "large-scale").
_MODIFIERS = frozenset("large small high low deep".split())

_EXCLUDED = STOP_WORDS | BOILERPLATE_WORDS | LATEX_WORDS
# Punctuation, brackets, quotes and math symbols end a phrase; hyphens and apostrophes do not.
_BREAK_RE = re.compile(r"[^\w\s\-']+|(?<!\w)['\-]|['\-](?!\w)|_")
_WORD_RE = re.compile(r"\S+")


@functools.lru_cache(maxsize=1 << 18)
def _content_word(token: str) -> str | None:
    """Return ``token`` stripped of edge hyphens if it may be part of a label, else None.

    A content word has 2+ characters and a letter; it is not a stop word, boilerplate, LaTeX
    residue or a lone modifier, and no part of a hyphenated word is excluded. Cached: a corpus
    has far fewer distinct tokens than tokens.
    """
    token = token.strip("'-")
    if len(token) < 2 or token in _MODIFIERS or "'" in token or not any(ch.isalpha() for ch in token):
        return None
    if any(part in _EXCLUDED for part in token.split("-")):
        return None
    return token


def candidate_phrases(text: str, max_words: int = 2) -> list[str]:
    """Return the 1..``max_words``-word phrases of ``text`` that may appear in a topic label.

    The text is folded and CJK-segmented by :func:`paperscope.text.segment`, cut into runs of
    content words, and the n-grams inside each run are returned in order. A phrase made only of
    generic words (``"models"``, ``"deep learning"``) is left out, and so is a hyphenated word
    with an excluded part (``"state-of-the-art"``, ``"real-world"``).
    """
    phrases: list[str] = []
    for chunk in _BREAK_RE.split(segment(text)):
        run: list[str] = []
        for token in [*_WORD_RE.findall(chunk), ""]:
            word = _content_word(token) if token else None
            if word is not None:
                run.append(word)
                continue
            for size in range(1, min(max_words, len(run)) + 1):
                for start in range(len(run) - size + 1):
                    gram = run[start : start + size]
                    if gram[0] in GENERIC_WORDS and (size == 1 or all(w in GENERIC_WORDS for w in gram)):
                        continue
                    phrases.append(" ".join(gram))
            run = []
    return phrases


def ctfidf(counts: sparse.csr_matrix) -> sparse.csr_matrix:
    """Return the c-TF-IDF weights of a class-by-term count matrix (Grootendorst, 2022, eq. 1).

    Args:
        counts: int64, shape (n_classes, n_terms): how often each term occurs in each class.

    Returns:
        float64 csr, shape (n_classes, n_terms): ``tf(t, c) * log(1 + A / f(t))``; a class with
        no words gets an all-zero row.
    """
    counts = sparse.csr_matrix(counts, dtype=np.float64)
    words_per_class = np.asarray(counts.sum(axis=1)).ravel()
    term_freq = np.asarray(counts.sum(axis=0)).ravel()
    avg_words = words_per_class.mean() if words_per_class.size else 0.0
    idf = np.log1p(avg_words / np.maximum(term_freq, 1.0))
    row_scale = np.divide(1.0, words_per_class, out=np.zeros_like(words_per_class), where=words_per_class > 0)
    return sparse.diags(row_scale) @ counts @ sparse.diags(idf)


def _singular(phrase: str) -> str:
    """Return the phrase with its last word made singular by English suffix rules (a key, not a word)."""
    words = phrase.split()
    last = words[-1]
    if len(last) > 4 and last.endswith("ies"):
        last = last[:-3] + "y"
    elif last.endswith(("sses", "shes", "ches", "xes")):
        last = last[:-2]
    elif len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is")):
        last = last[:-1]
    words[-1] = last
    return " ".join(words)


_CJK_GAP_RE = re.compile(r"(?<=[\u3400-\u9fff]) (?=[\u3400-\u9fff])")


def display_phrase(phrase: str) -> str:
    """Return ``phrase`` as shown to people: Chinese words are joined without spaces."""
    return _CJK_GAP_RE.sub("", phrase)


def _initials(phrase: str) -> str:
    words = phrase.split()
    return "".join(w[0] for w in words) if len(words) > 1 else ""


def name_topic(scored: Sequence[tuple[str, float]], max_phrases: int = 3, exclude: Sequence[str] = ()) -> str:
    """Return a short name from ranked key phrases: the best distinct ones joined by ``", "``.

    A one-word phrase gives way to a two-word phrase that contains it and scores at least half
    as high ("diffusion" becomes "diffusion models"), and a phrase is skipped when it repeats,
    contains, or is contained in one already chosen (singular and plural count as the same),
    or is the acronym of one (``"rl"`` after ``"reinforcement learning"``). A name that would be
    single words only ("agents, fairness, voting") leads with the best multi-word phrase
    instead ("social choice, agents, fairness"), so names read as phrases (issue 27).

    Args:
        scored: (phrase, weight) pairs, best first, as :meth:`CTfidfLabeller.key_phrases` gives.
        max_phrases: most phrases in the name.
        exclude: phrases that may not be used (a subtopic leaves out its parent's name).

    Returns:
        The name, or ``""`` when there are no phrases.
    """
    chosen = _pick_phrases(scored, max_phrases, exclude)
    if len(chosen) > 1 and all(" " not in p for p in chosen):
        keys = [_singular(p) for p in exclude]
        lead = next((p for p, _ in scored if " " in p and not _repeats(_singular(p), keys)), None)
        if lead is not None:
            chosen = _pick_phrases(scored, max_phrases, exclude, lead=lead)
    return ", ".join(display_phrase(p) for p in chosen)


def _repeats(key: str, keys: Sequence[str]) -> bool:
    """Whether the phrase key repeats, contains, is contained in, or is the acronym of a chosen key."""
    if any(f" {key} " in f" {k} " or f" {k} " in f" {key} " for k in keys):
        return True
    return any(
        key in (_initials(k), _initials(k) + "s") or k in (_initials(key), _initials(key) + "s") for k in keys
    )


def _pick_phrases(
    scored: Sequence[tuple[str, float]], max_phrases: int, exclude: Sequence[str], lead: str | None = None
) -> list[str]:
    """Return up to ``max_phrases`` distinct phrases in score order, after ``lead`` when given."""
    chosen: list[str] = [lead] if lead else []
    keys: list[str] = [_singular(p) for p in exclude] + [_singular(p) for p in chosen]
    for phrase, score in scored:
        if len(chosen) >= max_phrases:
            break
        if " " not in phrase:
            longer = [p for p, w in scored if " " in p and phrase in p.split() and w >= 0.5 * score]
            phrase = longer[0] if longer else phrase
        key = _singular(phrase)
        if _repeats(key, keys):
            continue
        chosen.append(phrase)
        keys.append(key)
    return chosen


class Labeller(Protocol):
    """Ranks key phrases per class of documents; ``fit`` reads the corpus once."""

    def fit(self, docs: Sequence[str]) -> None:
        """Analyse the corpus (the clean text of every paper)."""
        ...

    def key_phrases(
        self, classes: np.ndarray, rows: np.ndarray | None = None, n_phrases: int = 10
    ) -> dict[int, list[tuple[str, float]]]:
        """Return the best (phrase, weight) pairs of each class.

        Args:
            classes: int64, shape (n_rows,): the class of each document in ``rows``.
            rows: int64 indices into the fitted corpus; None means every document in order.
            n_phrases: phrases per class.
        """
        ...


class CTfidfLabeller:
    """Key phrases by c-TF-IDF over candidate phrases of up to ``max_words`` words.

    Args:
        max_words: longest phrase, in words (2 keeps names short and readable).
        min_count: a phrase must occur in at least this many documents of the corpus to be a
            label; lowered to 1 for corpora of fewer than 50 documents, so tiny libraries still
            get labels (case 12 of the bug cases).
    """

    def __init__(self, max_words: int = 2, min_count: int = 2):
        self.max_words = max_words
        self.min_count = min_count
        self._doc_terms: sparse.csr_matrix | None = None
        self._vocab: np.ndarray = np.array([], dtype=object)

    def fit(self, docs: Sequence[str]) -> None:
        min_df = self.min_count if len(docs) >= 50 else 1
        vectorizer = CountVectorizer(
            analyzer=lambda text: candidate_phrases(text, self.max_words), min_df=min_df, dtype=np.int64
        )
        try:
            self._doc_terms = sparse.csr_matrix(vectorizer.fit_transform(docs))
            self._vocab = vectorizer.get_feature_names_out()
        except ValueError:  # no document has a content word (or the corpus is empty)
            self._doc_terms = sparse.csr_matrix((len(docs), 0), dtype=np.int64)
            self._vocab = np.array([], dtype=object)

    def key_phrases(
        self, classes: np.ndarray, rows: np.ndarray | None = None, n_phrases: int = 10
    ) -> dict[int, list[tuple[str, float]]]:
        if self._doc_terms is None:
            raise RuntimeError("call fit(docs) before key_phrases()")
        classes = np.asarray(classes, dtype=np.int64)
        doc_terms = self._doc_terms if rows is None else self._doc_terms[np.asarray(rows, dtype=np.int64)]
        labels = sorted(set(classes.tolist()))
        result: dict[int, list[tuple[str, float]]] = {label: [] for label in labels}
        if not labels or doc_terms.shape[1] == 0:
            return result
        index = np.searchsorted(labels, classes)
        membership = sparse.csr_matrix(
            (np.ones(classes.size), (index, np.arange(classes.size))), shape=(len(labels), classes.size)
        )
        weights = ctfidf(membership @ doc_terms).toarray()
        for label, row in zip(labels, weights, strict=True):
            # Sort on (-weight, phrase) so ties never depend on hash or thread order.
            order = np.lexsort((self._vocab, -row))
            result[label] = [(str(self._vocab[j]), float(row[j])) for j in order[:n_phrases] if row[j] > 0]
        return result


#: Labellers by short name (``fit_topics(labeller=...)``).
LABELLERS: dict[str, type[CTfidfLabeller]] = {"ctfidf": CTfidfLabeller}


def get_labeller(name: str, seed: int = 42) -> Labeller:
    """Return a new labeller registered under ``name`` (``seed`` is unused: labelling is exact).

    Raises:
        InputError: no labeller has that name (the message lists the valid ones).
    """
    if name not in LABELLERS:
        raise InputError(f"unknown labeller {name!r}; choose one of: {', '.join(sorted(LABELLERS))}")
    return LABELLERS[name]()
