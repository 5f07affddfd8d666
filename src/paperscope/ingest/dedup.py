r"""Identity: when two records are one paper, and when they only look alike or share an id.

Exact duplicates share a ``paper_id`` (the hash of the normalised abstract) and need nothing
here. A record with a new ``paper_id`` is matched against stored papers through *keys*, 64-bit
integers kept in the store's ``dedup_keys`` table so that matching works across ingest runs:

- ``id`` keys: its external ids, normalised (``normalise_id``): arXiv ids lose their version
  (``2601.01234v2``), ``arXiv:`` or ``https://arxiv.org/abs/`` prefix and old-style subject
  class (``math.GT/0309136`` → ``math/0309136``); DOIs lose ``https://doi.org/`` / ``doi:``
  and their case, and an arXiv DOI (``10.48550/arXiv.2601.01234``) is that arXiv id;
  OpenReview forum ids keep their case (OpenReview's ids are case-sensitive);
- ``alias`` key: its own ``paper_id``, pointing at the paper it was merged into (so
  re-ingesting a near-duplicate finds its paper in one look-up);
- ``title`` key: its title's *match words* (below); titles of fewer than ``MIN_TITLE_WORDS``
  words get none: of the 13 one-word titles in ../shared/data, 6 are placeholders
  ("Withdrawn", "withdraw", "Placeholder", "title"), and no 2-word title is one;
- ``head`` key (title-less records only): its first ``HEAD_WORDS`` match words, which a titled
  record looks up as the first ``HEAD_WORDS`` match words of its title followed by its abstract
  (rule 6, when the list was stored first);
- ``band`` keys: MinHash LSH over word 3-shingles of the match words of the clean abstract,
  ``BANDS`` bands of ``ROWS`` rows (Broder 1997 for MinHash; banding as in Leskovec,
  Rajaraman & Ullman, *Mining of Massive Datasets*, ch. 3.4). A pair with shingle Jaccard
  similarity J shares at least one band with probability 1 − (1 − J^ROWS)^BANDS: 0.995 at
  J = 0.8, 0.9999 at 0.9, 0.48 at 0.5 and 8e-5 at 0.1, so candidates cost one indexed
  look-up per band, never a scan.

*Match words* are what shingles and title keys are made of, so that the same abstract written
by a text list (LaTeX ``65$\times$``, ``**bold**``, hard-wrapped lines, curly quotes, a
``12.`` in front) and by an export (``65x``, plain, straight quotes) gives the same words
(``match_words``): the clean text is folded (NFKC, casefold: ``C²R`` → ``c2r``), a leading
list number or ``Abstract:`` goes, ``×`` reads as ``x``, accents go from Latin letters
(``Rényi`` = ``Renyi``), punctuation and symbols (ASCII, curly quotes, dashes, arrows, math
operators) separate words, and a run of digits is a word of its own (``65x`` = ``65 x``,
``GPT-4`` = ``GPT4`` = ``gpt 4``). Shingling costs 24 µs an abstract with it, 15-22 µs without
(batches of 1,000 of ../shared/data). Of an abstract written seven ways a list might write it
(``tests/ingest/test_identity.py``), two (markdown, hard-wrapped) clean to the export's text and
five have J = 1.0 with it; before match words those five had 0.85 (LaTeX ``×``), 0.88 (curly
quotes, dashes), 0.99 (numbered), 0.85 (accents, ``×``) and 0.79 (all at once: two papers).
Keys computed before this form existed were dropped by schema migration 7 and are rebuilt by
the next ingest (``pipeline._index_missing_keys``).

Signatures are computed here rather than with datasketch: its ``MinHash`` (128 permutations,
one SHA-1 per shingle in Python) measured 370 µs per abstract on this machine, more than the
whole per-paper budget of ingest (2,000 papers/s), while the vectorised numpy code below needs
about 30 µs. The LSH index is the ``dedup_keys`` table, so it persists with the library.

A candidate is judged (``judge``, in this order; J is the exact shingle Jaccard of the two
abstracts, "same title" means equal title keys):

1. *A shared external id*: both carry the same id (same kind, same normalised value). It makes
   them one paper only when the text agrees too: same title, or J ≥ ``ID_TEXT_JACCARD`` (0.4).
   Otherwise it is a **conflict**: two papers, and the record is listed in the ingest report
   (``FileReport.conflicts``) with the id and the paper it collided with. An arXiv v1 and v2
   are one paper by this rule when the title stayed or the abstract was revised, not replaced.
2. *Different ids of one kind* (two DOIs, two arXiv ids, two OpenReview forums): two papers,
   whatever the text. Kept on purpose: a conference paper and its journal version, or a
   resubmission to a later venue with its own forum and decision, are different records that
   a reader wants apart; identical abstracts (one ``paper_id``) are still one paper before
   any rule.
3. The titles are the same and J ≥ ``SAME_TITLE_JACCARD`` (0.5): a rewritten abstract of the
   same titled paper (submission vs camera-ready, arXiv v1 vs v2).
4. Both abstracts have at least ``MIN_NEAR_DUP_SHINGLES`` (40) distinct shingles and J ≥
   ``NEAR_DUP_JACCARD`` (0.8): a small edit. Changing k words of an n-word abstract changes
   up to 3k shingles, J ≈ 1 − 6k/n, so 0.8 tolerates about one changed word in 30 (5 in a
   150-word abstract). Below 40 shingles (about 40 words; real abstracts have 100-300) one
   changed number or noun is a different statement that Jaccard cannot tell from a revision
   (case 14's templated abstracts "…improving return 1×" and "…6×" have J = 0.91).
5. J = 1.0, at any length: the same words written differently (a short abstract from a list
   and from an export). A changed number or noun is a changed word, so case 14 stays apart.
6. One record has no title, its text begins with the other's title (its *lead*, ``split_lead``),
   and the rest of its text has J >= ``SAME_TITLE_JACCARD`` (0.5) with the other's abstract:
   rule 3, with the lead read as the title. A text list may write each paper as its title
   followed by its abstract (``APM: Adaptive Pruning. We prune attention heads…``, or the
   title on a line of its own); against the titled export of that paper such a line has a J
   of about n / (n + t) for an abstract of n words and a title of t, so a short abstract
   (below rule 4's 40 shingles) or a long title kept the two apart (issue 26, kind 7). The
   lead must read as a title: at most ``MAX_LEAD_WORDS`` words, equal in match words to the
   other's title, followed by more text, and ending in punctuation (``.``, ``:``, ``?``,
   ``—``…) or followed by a word that does not start in lower case (a line break, which the
   clean text turns into a space); so "Sparse experts route tokens…" does not begin with the
   title "Sparse Experts". A title alone never merges: the rest must match the abstract as in
   rule 3, so a line that merely opens with another paper's title stays apart. Candidates
   come from keys: a title-less record looks up the title key of each of its first 2 to
   ``MAX_LEAD_WORDS`` match words (nothing stored) and stores its ``head`` key, which a
   titled record looks up.

*Shared ids.* An id already held by ``SHARED_ID_PAPERS`` (2) different papers is not a paper's
own id but a proceedings volume's DOI, or an id an export reused: it then counts for nothing
in rules 1 and 2 (it neither merges nor keeps apart; the text rules decide), its holders are
not even loaded as candidates (a volume DOI on 10,000 papers costs one look-up), and each
further record carrying it that is not merged into one of its holders is listed as a conflict.

Thresholds, measured on ../shared/data (23,506 records with abstracts, 21,496 distinct
``paper_id``; every pair sharing 3 or more shingles of document frequency ≤ 200, and every
same-title pair: 397,780 pairs). No two records with distinct abstracts share an external id
(7,416 OpenReview, 25 arXiv and 2 DOI ids, all on one ``paper_id`` each), so rules 1 and 2
change nothing there. Of the same-title pairs, six are one paper: J = 1.0 twice (quote style,
control characters; 0.978 before match words), 0.97, 0.86, 0.77 and 0.73 (rewrites, rule 3);
four are placeholders with J = 0 ("Withdrawn" and "withdraw": kept apart). Pairs with other
titles reach J = 0.57 once (an ICML paper and its IJCAI "extended abstract": kept apart),
then 0.28 ("Divide and Conquer with Neural Networks", ICLR 2017, and its ICLR 2018 successor
"Divide and Conquer Networks"), 0.28 (two papers of one group on group-equivariant networks),
and 0 to 0.3 for the other 397,000. So different papers stay below 0.3 and every rewrite of
one paper found is above 0.57: ``ID_TEXT_JACCARD`` = 0.4 sits between, for a pair whose id
already says "same". Nothing real lies between 0.58 and 0.8, which is where rule 4 cuts.
Match words changed no decision on these pairs (the same 6 merges), and ingesting all of
../shared/data gives the same 21,490 papers, each with the same sources as before, 0 conflicts.
Rule 6 changed nothing there either (the same 21,490 papers, sources, titles and abstracts, 6
merges; 95 keys more, the head keys of the 95 title-less ICML 2026 lines): no list in it writes
titles. On its 4,302 ICLR 2026 titles with abstracts cut to 25 words, written as a titled export
and as title-led list lines (``tests/ingest/test_title_lead.py``), rules 1-5 join none of the
pairs and rule 6 joins all 4,302 in either order; each title followed by another paper's
abstract joins neither paper (0 of 4,302). Of its 23,400 abstracts, 8 open with the first six
words of a title (7 their own, one another paper's: "Infinite horizon off-policy policy
evaluation is a highly challenging task…"), each as the subject of a sentence that goes on:
none reads as a lead.

Which source wins for each field when merged records disagree (``merge_fields``):
``paper_id``, abstract and clean text stay those of the first source stored (so stars, tags
and notes stay attached), except that a title-less paper whose text begins with the title of a
record merged into it (rule 6's lead) takes that record's abstract and clean text along with
its title, so the title is not shown twice (the ``paper_id`` stays); title, venue, year,
decision and area keep the first non-empty value (later sources only fill gaps); authors
keep the first non-empty list (name spellings differ between sources, so lists are not
unioned); keywords and URLs are unioned in order of first appearance; external ids are
unioned, the first value of each kind winning; every source (path, line, format) is kept.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
import urllib.parse
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

import numpy as np

from ..models import Paper
from ..text import fold

__all__ = [
    "BANDS",
    "ROWS",
    "NEAR_DUP_JACCARD",
    "SAME_TITLE_JACCARD",
    "MIN_NEAR_DUP_SHINGLES",
    "ID_TEXT_JACCARD",
    "MIN_TITLE_WORDS",
    "MAX_LEAD_WORDS",
    "HEAD_WORDS",
    "SHARED_ID_PAPERS",
    "similarity",
    "Fingerprint",
    "fingerprints",
    "batch_shingles",
    "shingles",
    "match_words",
    "jaccard",
    "title_key",
    "head_key",
    "split_lead",
    "lead_similarity",
    "normalise_id",
    "normalise_ids",
    "id_key",
    "id_keys",
    "alias_key",
    "FINGERPRINT_VERSION",
    "Verdict",
    "is_same_paper",
    "SamePaper",
    "judge",
    "merge_fields",
]

#: The version of :func:`fingerprints` (shingles, MinHash, band and exact keys): bump it with any
#: change to them. ``build`` stores fingerprints in its shards with this version, and ``load``
#: makes them again for shards of another (it also checks one paper per shard).
FINGERPRINT_VERSION = "1"
#: LSH bands and rows per band; ``BANDS * ROWS`` MinHash bins.
BANDS = 10
ROWS = 4
#: Exact shingle Jaccard at or above which two abstracts are one paper (rule 4 above).
NEAR_DUP_JACCARD = 0.8
#: Exact shingle Jaccard at or above which two same-titled records are one paper (rule 3).
SAME_TITLE_JACCARD = 0.5
#: Distinct shingles both abstracts need before rule 4 (text similarity alone) applies.
MIN_NEAR_DUP_SHINGLES = 40
#: Exact shingle Jaccard at or above which two records sharing an id have the same text (rule 1).
ID_TEXT_JACCARD = 0.4
#: Words (letters or digits between punctuation) a title needs to count as evidence.
MIN_TITLE_WORDS = 2
#: Distinct papers holding one id at which it stops being any paper's own id (a volume DOI).
SHARED_ID_PAPERS = 2
#: Most match words a title-less record's lead may have to be read as a title (rule 6): the
#: longest of the 23,415 titles in ../shared/data has 26 (median 9, 99.9th percentile 21).
MAX_LEAD_WORDS = 32
#: Match words of a ``head`` key (rule 6). Six: the median title of ../shared/data has 9, so
#: the key is mostly title words; a shorter title adds the first words of its abstract, which
#: two writings of one paper share. Abstracts often open alike ("in this paper we propose a"
#: opens 61 of 23,400), titles do not: of the 23,400 titled records' heads, 8 are the head of
#: some abstract, each of one, so a titled record rarely loads a candidate for nothing.
HEAD_WORDS = 6

_WORD_RE = re.compile(r"[^\W_]+")
_BINS = BANDS * ROWS
_MAX32 = np.uint64(0xFFFFFFFF)
_EMPTY = np.iinfo(np.uint64).max
_rng = np.random.default_rng(20260101)  # fixed seed: keys are stored, so they must not change between runs
_SHINGLE_MIX = _rng.integers(1, 2**63, size=3, dtype=np.uint64) | np.uint64(1)
_BAND_MIX = _rng.integers(1, 2**63, size=(BANDS, ROWS), dtype=np.uint64) | np.uint64(1)
# CJK has no spaces: each character is made its own token, so Chinese text gets character 3-shingles.
_CJK_CHAR_RE = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# Bytes that belong to a word: ASCII letters and digits, and every byte of a multi-byte UTF-8 character.
_WORD_BYTE = np.array([chr(b).isalnum() if b < 128 else True for b in range(256)], dtype=bool)
_DIGIT_BYTE = np.array([chr(b).isdigit() if b < 128 else False for b in range(256)], dtype=bool)
_BASE = 0x01000193  # an odd multiplier (FNV-1's 32-bit prime), so it has an inverse mod 2^32
_powers = np.ones(1, dtype=np.uint32)
_inverse_powers = np.ones(1, dtype=np.uint32)

# A list's own numbering or label in front of an abstract: "12. ", "[3] ", "(4) ", "• ", "abstract: ".
_LEADER_RE = re.compile(
    r"(?:(?:\[\d{1,4}\]|\(\d{1,4}\)|#?\d{1,4}[.):]|[•·▪◦*\-])\s+)?(?:abstract\s*[:.]\s+)?"
)
# Non-ASCII punctuation and symbols, which separate words like ASCII punctuation does: Latin-1
# signs (¡ « ° · » ¿ × ÷), General Punctuation (curly quotes, dashes, ellipsis, ‰, ′), arrows,
# mathematical operators, technical and geometric symbols, dingbats, supplemental and CJK
# punctuation. Letters, digits and combining marks (Indic vowel signs) stay word characters.
_SYMBOL_RE = re.compile(
    "[\u00a0-\u00bf\u00d7\u00f7\u2000-\u206f\u2190-\u23ff\u2500-\u27bf\u2e00-\u2e7f\u3000-\u303f]+"
)
# Latin letters with accents (Latin-1 Supplement, Extended-A/B, Latin Extended Additional).
_ACCENTED_RE = re.compile("[\u00c0-\u024f\u1e00-\u1eff]")
# Words as the byte tokeniser cuts them: runs of ASCII digits, or of ASCII letters and other characters.
_MATCH_WORD_RE = re.compile("[0-9]+|[a-z\u0080-\U0010ffff]+")


@functools.lru_cache(maxsize=1024)
def _unaccent(char: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))


def _match_form(text: str) -> str:
    """Return ``text`` as match words separated by anything but a word character (see the docstring).

    Digits are split from letters later, by the tokenisers (``batch_shingles``, ``match_words``).
    """
    text = fold(text)  # cached: ingest has just folded each clean abstract for its paper_id
    leader = _LEADER_RE.match(text)
    if leader and leader.end():
        text = text[leader.end() :]
    if not text.isascii():
        text = _ACCENTED_RE.sub(lambda m: _unaccent(m.group()), text.replace("×", " x "))
        text = _SYMBOL_RE.sub(" ", text)
    return text


def match_words(text: str) -> list[str]:
    r"""Return the words ``text`` is matched by: the tokens ``batch_shingles`` hashes, as strings.

    ``match_words(clean_text("12. **GPT-4** is 65$\times$ faster"))`` and
    ``match_words("GPT4 is 65x faster")`` are both ``["gpt", "4", "is", "65", "x", "faster"]``.
    """
    form = _match_form(text)
    if _CJK_CHAR_RE.search(form):
        form = _CJK_CHAR_RE.sub(r" \g<0> ", form)
    return _MATCH_WORD_RE.findall(form)


def _mix(h: np.ndarray) -> np.ndarray:
    # A 64-bit finaliser (Stafford's Mix13 variant of MurmurHash3's fmix64): spreads every input bit.
    with np.errstate(over="ignore"):
        h = h ^ (h >> np.uint64(30))
        h = h * np.uint64(0xBF58476D1CE4E5B9)
        h = h ^ (h >> np.uint64(27))
        h = h * np.uint64(0x94D049BB133111EB)
        return h ^ (h >> np.uint64(31))


def _power_tables(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Return BASE^i and BASE^-i mod 2^32 (uint32) for i < n, cached and grown by doubling."""
    global _powers, _inverse_powers
    if len(_powers) < n:
        size = max(n, 2 * len(_powers))
        inverse = pow(_BASE, -1, 2**32)
        with np.errstate(over="ignore"):
            _powers = np.cumprod(np.full(size, _BASE, dtype=np.uint32), dtype=np.uint32) * np.uint32(inverse)
            _inverse_powers = np.cumprod(
                np.full(size, inverse, dtype=np.uint32), dtype=np.uint32
            ) * np.uint32(_BASE)
    return _powers[:n], _inverse_powers[:n]


def batch_shingles(texts: list[str]) -> list[np.ndarray]:
    """Return the word 3-shingle hashes of each text's match words (uint64 arrays, duplicates possible).

    Words are those of ``match_words``: runs of ASCII digits, or of ASCII letters and non-ASCII
    characters, in the text's match form; each CJK character is a word of its own. All texts
    are hashed in one vectorised pass over their UTF-8 bytes, with no Python loop over words:
    a word's hash is a polynomial in its bytes taken from prefix sums (Karp & Rabin, 1987). A
    text of one or two words has one shingle; an empty text has none.
    """
    if not texts:
        return []
    # A leading NUL, and one between texts: no token starts at byte 0, and NULs mark documents.
    data = ("\x00" + "\x00".join(_match_form(t).replace("\x00", " ") for t in texts)).encode("utf-8")
    raw = np.frombuffer(data, dtype=np.uint8)
    if ((raw >= 0xE3) & (raw <= 0xED)).any() or (raw == 0xEF).any():  # lead bytes of U+3000-U+DFFF, U+F000-
        text = _CJK_CHAR_RE.sub(r" \g<0> ", data.decode("utf-8"))
        raw = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    word = np.take(_WORD_BYTE, raw)
    digit = np.take(_DIGIT_BYTE, raw)
    # A word starts where a word byte follows a non-word byte or a byte of the other class
    # (digit vs letter), and ends likewise; raw[0] is NUL, so nothing starts at 0.
    change = np.empty(len(raw), dtype=bool)
    change[0] = True
    change[1:] = (word[1:] != word[:-1]) | (digit[1:] != digit[:-1])
    starts = np.flatnonzero(change & word)
    after = np.empty(len(raw), dtype=bool)
    after[-1] = True
    after[:-1] = change[1:]
    ends = np.flatnonzero(after & word) + 1
    empty = [np.zeros(0, dtype=np.uint64) for _ in texts]
    if not len(starts):
        return empty
    powers, inverse_powers = _power_tables(len(raw))
    with np.errstate(over="ignore"):
        prefix = np.cumsum(raw * powers, dtype=np.uint32)  # prefix[i] = sum of byte_j * BASE^j for j <= i
        tokens = _mix(((prefix[ends - 1] - prefix[starts - 1]) * inverse_powers[starts]).astype(np.uint64))
        token_doc = np.searchsorted(np.flatnonzero(raw == 0), starts) - 1
        same_doc = token_doc[:-2] == token_doc[2:]
        shingle = (
            tokens[:-2] * _SHINGLE_MIX[0] + tokens[1:-1] * _SHINGLE_MIX[1] + tokens[2:] * _SHINGLE_MIX[2]
        )
    shingle, shingle_doc = shingle[same_doc], token_doc[:-2][same_doc]
    bounds = np.searchsorted(shingle_doc, np.arange(len(texts) + 1))
    counts = np.bincount(token_doc, minlength=len(texts))
    out = []
    for i in range(len(texts)):
        if counts[i] >= 3:
            out.append(shingle[bounds[i] : bounds[i + 1]])
        elif counts[i]:
            short = tokens[token_doc == i]
            with np.errstate(over="ignore"):
                out.append(np.array([np.sum(short * _SHINGLE_MIX[: len(short)])], dtype=np.uint64))
        else:
            out.append(empty[i])
    return out


def shingles(text: str) -> np.ndarray:
    """Return the distinct word 3-shingle hashes of one text (uint64, shape (n_shingles,))."""
    return np.unique(batch_shingles([text])[0])


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Return the Jaccard similarity |a ∩ b| / |a ∪ b| of two shingle-hash sets (0.0 when either is empty)."""
    if not len(a) or not len(b):
        return 0.0
    a, b = np.unique(a), np.unique(b)
    inter = len(np.intersect1d(a, b, assume_unique=True))
    return inter / (len(a) + len(b) - inter)


def similarity(a: np.ndarray, b: np.ndarray) -> tuple[float, int]:
    """Return the Jaccard similarity of two shingle-hash arrays and the distinct size of the smaller."""
    a, b = np.unique(a), np.unique(b)
    if not len(a) or not len(b):
        return 0.0, 0
    inter = len(np.intersect1d(a, b, assume_unique=True))
    return inter / (len(a) + len(b) - inter), min(len(a), len(b))


def _signatures(sets: list[np.ndarray]) -> np.ndarray:
    """Return one-permutation MinHash signatures, uint64 of shape (n_docs, BANDS * ROWS).

    Each shingle is hashed once; the hash's high bits pick one of the bins and its low 32
    bits are the value kept if smallest (one permutation hashing, Li, Owen & Zhang, NIPS 2012).
    Empty bins borrow from the next non-empty bin to the right, circularly, plus a constant
    per step (densification by rotation, Shrivastava & Li, ICML 2014). Two texts agree on a
    bin with probability about their Jaccard similarity. Rows of empty texts are all 2^64 − 1.
    """
    n = len(sets)
    sig = np.full(n * _BINS, _EMPTY, dtype=np.uint64)
    sizes = np.array([len(s) for s in sets], dtype=np.int64)
    if sizes.sum():
        values = _mix(np.concatenate(sets))
        docs = np.repeat(np.arange(n, dtype=np.uint64), sizes)
        with np.errstate(over="ignore"):
            bins = ((values >> np.uint64(32)) * np.uint64(_BINS)) >> np.uint64(32)
        np.minimum.at(sig, docs * np.uint64(_BINS) + bins, values & _MAX32)
    sig = sig.reshape(n, _BINS)
    missing = (sig == _EMPTY) & (sizes > 0)[:, None]
    dense = sig.copy()
    step = 1
    while missing.any() and step < _BINS:
        rolled = np.roll(sig, -step, axis=1)
        take = missing & (rolled != _EMPTY)
        with np.errstate(over="ignore"):
            dense[take] = rolled[take] + np.uint64(step) * np.uint64(0x9E3779B9)
        missing &= ~take
        step += 1
    return dense


def _hash_key(text: str) -> int:
    return int.from_bytes(
        hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little", signed=True
    )


def title_key(title: str | None) -> int | None:
    """Return the key of a title's match words, or None without a title of ``MIN_TITLE_WORDS`` words.

    Case, punctuation, spacing, accents and the digit/letter boundary are ignored
    (``"Sparse Attention: for Long-Documents"`` = ``"sparse attention for long documents."``).
    """
    if not title or len(_WORD_RE.findall(fold(title))) < MIN_TITLE_WORDS:
        return None
    words = match_words(title)
    return _hash_key("title:" + " ".join(words)) if words else None


def head_key(words: list[str]) -> int | None:
    """Return the key of the first ``HEAD_WORDS`` of ``words`` (match words), or None when fewer."""
    if len(words) < HEAD_WORDS:
        return None
    return _hash_key("head:" + " ".join(words[:HEAD_WORDS]))


def _lead_keys(words: list[str]) -> list[int]:
    """Return the title keys of the first 2 to ``MAX_LEAD_WORDS`` of ``words``, always leaving one word."""
    last = min(MAX_LEAD_WORDS, len(words) - 1)
    return [_hash_key("title:" + " ".join(words[:n])) for n in range(MIN_TITLE_WORDS, last + 1)]


# Where a lead may end in clean text: a run of white space (a line break is one after cleaning).
_CUT_RE = re.compile(r"\s+")
# Punctuation that ends a title: full stop, colon, semicolon, question and exclamation marks,
# dashes and a bar (and the CJK full-width forms).
_LEAD_END = frozenset(".:;?!|-\u2013\u2014\u3002\uff1a\uff1b\uff1f\uff01")


def split_lead(text: str, title: str) -> str | None:
    """Return the rest of ``text`` after ``title`` when ``text`` begins with it as a title, else None.

    It does when its first match words are the title's (``MIN_TITLE_WORDS`` to ``MAX_LEAD_WORDS``
    of them), more text follows, and the title ends there as a title does: in punctuation
    (``"APM: Adaptive Pruning. We prune…"``), or before a word that does not start in lower case
    (``"APM: Adaptive Pruning We prune…"``, a line break in the list). ``"Sparse experts route
    tokens…"`` does not begin with the title ``"Sparse Experts"``: its sentence goes on.

    Args:
        text: clean text of a title-less record (``paperscope.text.clean_text``).
        title: clean title of the other record.

    """
    want = match_words(title)
    if not MIN_TITLE_WORDS <= len(want) <= MAX_LEAD_WORDS or match_words(text)[: len(want)] != want:
        return None
    for cut in _CUT_RE.finditer(text):
        lead = text[: cut.start()]
        words = match_words(lead)
        if len(words) > len(want):
            return None
        rest = text[cut.end() :]
        if words == want and rest and (lead[-1] in _LEAD_END or not rest[0].islower()):
            return rest
    return None


def lead_similarity(
    a_title: str | None,
    a_text: str,
    a_shingles: np.ndarray,
    b_title: str | None,
    b_text: str,
    b_shingles: np.ndarray,
) -> float | None:
    """Return rule 6's evidence for two records: None, or the Jaccard of the rest with the abstract.

    When exactly one of the two has a title and the other's clean text begins with it
    (``split_lead``), return the exact shingle Jaccard of the text after the title with the
    titled record's abstract (``a_shingles`` or ``b_shingles``, its ``batch_shingles``);
    otherwise None.
    """
    if bool(a_title) == bool(b_title):
        return None
    title, text, abstract = (a_title, b_text, a_shingles) if a_title else (b_title, a_text, b_shingles)
    rest = split_lead(text, title or "")
    return None if rest is None else jaccard(shingles(rest), abstract)


_DOI_RE = re.compile(r"10\.\d{4,9}/\S+")
_DOI_PREFIX_RE = re.compile(r"^(?:(?:https?://)?(?:dx\.|www\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_ARXIV_DOI_RE = re.compile(r"10\.48550/arxiv\.(\S+)", re.IGNORECASE)
_ARXIV_PREFIX_RE = re.compile(
    r"^(?:(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/|arxiv:\s*)", re.IGNORECASE
)
_ARXIV_NEW_RE = re.compile(r"(\d{4}\.\d{4,5})(?:v\d+)?(?:\.pdf)?", re.IGNORECASE)
_ARXIV_OLD_RE = re.compile(r"([a-z][a-z\-]*)(?:\.[a-z]{2})?/(\d{7})(?:v\d+)?(?:\.pdf)?", re.IGNORECASE)
_OPENREVIEW_RE = re.compile(r"[A-Za-z0-9_\-]{5,}")
_OPENREVIEW_URL_RE = re.compile(r"[?&]id=([A-Za-z0-9_\-]+)")


def normalise_id(kind: str, value: str) -> str | None:
    """Return the canonical spelling of an external id, or None when ``value`` is not one.

    ``doi``: ``https://doi.org/10.X/Y``, ``doi:10.x/y`` and ``10.X/Y`` are ``10.x/y`` (DOIs are
    case-insensitive, DOI Handbook §2.4), percent-escapes decoded, trailing punctuation dropped.
    ``arxiv``: ``2601.01234v2``, ``arXiv:2601.01234``, ``https://arxiv.org/abs/2601.01234v1``
    and ``…/pdf/2601.01234.pdf`` are ``2601.01234``; old-style ``cs.LG/0601001v1`` is
    ``cs/0601001`` (the subject class is not part of the identifier). ``openreview``: a forum
    id, or the ``id=`` of a forum URL, case kept. Other kinds: stripped and casefolded.
    """
    text = urllib.parse.unquote(value).strip() if "%" in value else value.strip()
    if kind == "doi":
        match = _DOI_RE.search(_DOI_PREFIX_RE.sub("", text))
        return match.group(0).rstrip(".,;:)]}>'\"").lower() if match else None
    if kind == "arxiv":
        text = _ARXIV_PREFIX_RE.sub("", text)
        if match := _ARXIV_NEW_RE.fullmatch(text):
            return match.group(1)
        if match := _ARXIV_OLD_RE.fullmatch(text):
            return f"{match.group(1).lower()}/{match.group(2)}"
        return None
    if kind == "openreview":
        if match := _OPENREVIEW_URL_RE.search(text):
            text = match.group(1)
        return text if _OPENREVIEW_RE.fullmatch(text) else None
    return text.casefold() or None


def normalise_ids(external_ids: Mapping[str, str]) -> dict[str, str]:
    """Return ``external_ids`` in canonical spelling (``normalise_id``), dropping what is not an id.

    An arXiv DOI (``10.48550/arXiv.2601.01234``) is read as the arXiv id it names, unless the
    record has its own arXiv id. Idempotent: normalising twice changes nothing.
    """
    out: dict[str, str] = {}
    for kind in sorted(external_ids, key=lambda k: k != "arxiv"):  # an explicit arXiv id first
        value = external_ids[kind]
        if not isinstance(value, str):
            continue
        if kind == "doi" and (match := _ARXIV_DOI_RE.search(value)):
            arxiv = normalise_id("arxiv", match.group(1))
            if arxiv:
                out.setdefault("arxiv", arxiv)
                continue
        canonical = normalise_id(kind, value)
        if canonical:
            out[kind] = canonical
    return out


@functools.lru_cache(maxsize=65536)
def id_key(kind: str, value: str) -> int:
    """Return the key of one external id already in canonical spelling (``normalise_id``)."""
    return _hash_key(f"id:{kind}:{value}")


def id_keys(external_ids: Mapping[str, str]) -> list[int]:
    """Return one key per external id (``openreview``, ``arxiv``, ``doi``), normalised first."""
    return [id_key(kind, value) for kind, value in sorted(normalise_ids(external_ids).items())]


def alias_key(paper_id: str) -> int:
    """Return the key under which a merged record's own ``paper_id`` points at its paper."""
    return _hash_key("alias:" + paper_id)


@dataclass
class Fingerprint:
    """Everything dedup needs of one record: shingles, LSH band keys and the exact-match keys.

    ``ids`` are its external ids in canonical spelling; ``id_keys`` their keys, in the same order.
    ``keys`` are stored and looked up; ``lead_keys`` are only looked up (rule 6: a title-less
    record's lead title keys, a titled record's ``head`` key). ``head_key`` is a title-less
    record's own ``head`` key (stored, so it is in ``keys``).
    """

    shingles: np.ndarray
    band_keys: list[int]
    title_key: int | None
    id_keys: list[int]
    keys: list[int] = field(default_factory=list)
    ids: dict[str, str] = field(default_factory=dict)
    head_key: int | None = None
    lead_keys: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.keys:
            self.keys = [
                *self.band_keys,
                *self.id_keys,
                *([self.title_key] if self.title_key is not None else []),
                *([self.head_key] if self.head_key is not None else []),
            ]


def fingerprints(papers: list[Paper], sets: list[np.ndarray] | None = None) -> list[Fingerprint]:
    """Return the Fingerprint of each paper (batched: MinHash runs vectorised over all of them).

    ``sets`` are the papers' ``batch_shingles`` when already computed (in a worker process).
    """
    if sets is None:
        sets = batch_shingles([p.clean_text for p in papers])
    sig = _signatures(sets)
    with np.errstate(over="ignore"):
        bands = (sig.reshape(len(papers), BANDS, ROWS) * _BAND_MIX[None]).sum(axis=2, dtype=np.uint64)
        bands = bands + np.arange(1, BANDS + 1, dtype=np.uint64)[None, :] * np.uint64(0x94D049BB133111EB)
        bands ^= bands >> np.uint64(31)
    rows = bands.view(np.int64).tolist()
    out = []
    for paper, s, row in zip(papers, sets, rows, strict=True):
        ids = normalise_ids(paper.external_ids) if paper.external_ids else {}
        title = title_key(paper.title) if paper.title else None
        head: int | None = None
        lead: list[int] = []
        if not paper.title:
            words = match_words(paper.clean_text)
            head, lead = head_key(words), _lead_keys(words)
        elif title is not None and (
            key := head_key(match_words(paper.title) + match_words(paper.clean_text))
        ):
            lead = [key]
        out.append(
            Fingerprint(
                shingles=s,
                band_keys=row if len(s) else [],
                title_key=title,
                id_keys=[id_key(kind, value) for kind, value in sorted(ids.items())],
                ids=dict(sorted(ids.items())),
                head_key=head,
                lead_keys=lead,
            )
        )
    return out


@dataclass(frozen=True)
class Verdict:
    """What ``judge`` decided about two records.

    Attributes:
        same: one paper.
        rule: the rule of the module docstring that decided (1-6), 0 when none applied.
        conflict: ``(kind, value)`` of an external id both carry although they are two papers
            (rule 1's conflict, or a shared id the texts did not confirm); None otherwise.

    """

    same: bool
    rule: int
    conflict: tuple[str, str] | None = None


def judge(
    a_ids: Mapping[str, str],
    b_ids: Mapping[str, str],
    a_title: int | None,
    b_title: int | None,
    similarity: float,
    shortest: int = MIN_NEAR_DUP_SHINGLES,
    shared: Collection[tuple[str, str]] = (),
    lead: float | None = None,
) -> Verdict:
    """Decide whether two records with different ``paper_id`` are one paper (rules 1-6 above).

    Args:
        a_ids: external ids of one, in canonical spelling (``normalise_ids``).
        b_ids: external ids of the other, likewise.
        a_title: ``title_key`` of one (None without a title).
        b_title: ``title_key`` of the other.
        similarity: exact shingle Jaccard of their abstracts' match words, in [0, 1].
        shortest: distinct shingles of the shorter abstract.
        shared: ``(kind, value)`` ids known to be held by ``SHARED_ID_PAPERS`` or more papers:
            they count for nothing in rules 1 and 2.
        lead: ``lead_similarity`` of the two (rule 6): None unless one has no title and its text
            begins with the other's title, else the Jaccard of its rest with the other's abstract.

    """
    common = sorted((kind, value) for kind, value in a_ids.items() if b_ids.get(kind) == value)
    same_title = a_title is not None and a_title == b_title
    own = [pair for pair in common if pair not in shared]
    if own:
        if same_title or similarity >= ID_TEXT_JACCARD:
            return Verdict(True, 1)
        return Verdict(False, 1, own[0])
    conflict = common[0] if common else None
    for kind, value in a_ids.items():
        other = b_ids.get(kind)
        if (
            other is not None
            and other != value
            and (kind, value) not in shared
            and (kind, other) not in shared
        ):
            return Verdict(False, 2, conflict)
    if same_title and similarity >= SAME_TITLE_JACCARD:
        return Verdict(True, 3)
    if shortest >= MIN_NEAR_DUP_SHINGLES and similarity >= NEAR_DUP_JACCARD:
        return Verdict(True, 4)
    if similarity >= 1.0:
        return Verdict(True, 5)
    if lead is not None and lead >= SAME_TITLE_JACCARD:
        return Verdict(True, 6)
    return Verdict(False, 0, conflict)


def is_same_paper(a: Paper, b: Paper) -> bool:
    """Return True when two stored papers are one paper by the rules of ``judge`` (or one ``paper_id``).

    For readers of a library (related papers) rather than ingest: no id counts as shared, so a
    proceedings DOI on both makes them one paper only when the texts agree too (rule 1). A
    shared title alone never does: two papers named "Scaling Laws for X" with different
    abstracts stay two (rule 3 wants J >= ``SAME_TITLE_JACCARD`` as well).
    """
    return SamePaper(a)(b)


@functools.lru_cache(maxsize=4096)
def _read_shingles(text: str) -> np.ndarray:
    """:func:`shingles` of a stored text, kept for readers (related lists); read-only.

    The ten neighbours of one paper page are often those of the next one too: their shingles
    were a tenth of the page's time. 4,096 texts of ~150 shingles are about 5 MB.
    """
    made = shingles(text)
    made.flags.writeable = False
    return made


class SamePaper:
    """``is_same_paper(a, ·)`` with ``a``'s shingles, ids and title key made once.

    A related list tests each of its neighbours against one host paper: remaking the host's
    shingles for every neighbour was a tenth of a paper page's time (ten neighbours).
    """

    def __init__(self, a: Paper):
        self.paper = a
        self.shingles = _read_shingles(a.clean_text)
        self.ids = normalise_ids(a.external_ids or {})
        self.title_key = title_key(a.title)

    def __call__(self, b: Paper) -> bool:
        """Return True when ``b`` is one paper with the host (see :func:`is_same_paper`)."""
        a = self.paper
        if a.paper_id == b.paper_id:
            return True
        b_shingles = _read_shingles(b.clean_text)
        jaccard_ab, shortest = similarity(self.shingles, b_shingles)
        verdict = judge(
            self.ids,
            normalise_ids(b.external_ids or {}),
            self.title_key,
            title_key(b.title),
            jaccard_ab,
            shortest,
            lead=lead_similarity(a.title, a.clean_text, self.shingles, b.title, b.clean_text, b_shingles),
        )
        return verdict.same


def merge_fields(target: Paper, other: Paper) -> set[str]:
    """Fill ``target`` from ``other`` by the precedence in the module docstring; return changed fields."""
    changed: set[str] = set()
    if not target.title and other.title and split_lead(target.clean_text, other.title) is not None:
        target.abstract, target.clean_text = other.abstract, other.clean_text  # the title, not twice
        changed.update(("abstract", "clean_text"))
    for name in ("title", "venue", "year", "decision", "source_area"):
        if getattr(target, name) in (None, "") and getattr(other, name) not in (None, ""):
            setattr(target, name, getattr(other, name))
            changed.add(name)
    if not target.authors and other.authors:
        target.authors = list(other.authors)
        changed.add("authors")
    for name in ("keywords", "urls"):
        current: list[str] = getattr(target, name)
        known = {v.casefold() for v in current}
        extra = [v for v in getattr(other, name) if v.casefold() not in known]
        if extra:
            setattr(target, name, current + list(dict.fromkeys(extra)))
            changed.add(name)
    ids = {**other.external_ids, **target.external_ids}
    if ids != target.external_ids:
        target.external_ids = ids
        changed.add("external_ids")
    return changed
