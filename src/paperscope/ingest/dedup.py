"""Near-duplicate detection: the same paper from two sources becomes one paper with both sources.

Exact duplicates share a ``paper_id`` (the hash of the normalised abstract) and need nothing
here. A record with a new ``paper_id`` is matched against stored papers through *keys*, 64-bit
integers kept in the store's ``dedup_keys`` table so that matching works across ingest runs:

- ``id`` keys: its OpenReview forum id, arXiv id (version suffix removed) and DOI;
- ``alias`` key: its own ``paper_id``, pointing at the paper it was merged into (so
  re-ingesting a near-duplicate finds its paper in one look-up);
- ``title`` key: its title folded to lowercase words (case, punctuation and spacing ignored);
- ``band`` keys: MinHash LSH over word 3-shingles of the clean abstract, ``BANDS`` bands of
  ``ROWS`` rows (Broder 1997 for MinHash; banding as in Leskovec, Rajaraman & Ullman,
  *Mining of Massive Datasets*, ch. 3.4). A pair with shingle Jaccard similarity J shares at
  least one band with probability 1 − (1 − J^ROWS)^BANDS: 0.995 at J = 0.8, 0.9999 at 0.9,
  0.48 at 0.5 and 8e-5 at 0.1, so candidates cost one indexed look-up per band, never a scan.

Signatures are computed here rather than with datasketch: its ``MinHash`` (128 permutations,
one SHA-1 per shingle in Python) measured 370 µs per abstract on this machine, more than the
whole per-paper budget of ingest (2,000 papers/s), while the vectorised numpy code below needs
about 30 µs. The LSH index is the ``dedup_keys`` table, so it persists with the library.

A candidate becomes a match when (checked in this order, by ``is_same_paper``):

1. it has the same external id: same paper, whatever the text says;
2. both have an id of the same kind and the ids differ: two papers (the source's own ids are
   trusted over text similarity);
3. the titles fold to the same words and the abstracts' exact shingle Jaccard is at least
   ``SAME_TITLE_JACCARD`` (0.5): a rewritten abstract of the same titled paper (submission vs
   camera-ready, arXiv v1 vs v2);
4. both abstracts have at least ``MIN_NEAR_DUP_SHINGLES`` (40) distinct shingles and their
   exact shingle Jaccard is at least ``NEAR_DUP_JACCARD`` (0.8): a small edit. Changing k
   words of an n-word abstract changes up to 3k shingles, J ≈ 1 − 6k/n, so 0.8 tolerates
   about one changed word in 30 (5 in a 150-word abstract). Below 40 shingles (about 40
   words; real abstracts have 100-300) one changed number or noun is a different statement
   that Jaccard cannot tell from a revision (case 14's templated abstracts "…improving return
   1×" and "…6×" have J = 0.91), so short texts merge only when identical, by title, or by id.

Measured on ../shared/data (23,411 records with abstracts; same-title pairs, and pairs with
other titles found by datasketch's LSH at J ≥ 0.3): of the same-title pairs, 2,010 have J = 1.0,
two 0.97-0.98 (quote style, control characters), three 0.73, 0.77 and 0.86 (rewrites, merged by
rule 3) and three J = 0 (different papers titled "Withdrawn": kept apart). Pairs with other
titles reach J = 1.0 once (a withdrawn entry of the same abstract), then 0.58 (an ICML paper and
its IJCAI "extended abstract": kept apart), then 0.19 ("Local correlation clustering…", a
follow-up) and below. Nothing real lies between 0.58 and 0.8, which is where rule 4 cuts.

Which source wins for each field when merged records disagree (``merge_fields``):
``paper_id``, abstract and clean text stay those of the first source stored (so stars, tags
and notes stay attached); title, venue, year, decision and area keep the first non-empty
value (later sources only fill gaps); authors keep the first non-empty list (name spellings
differ between sources, so lists are not unioned); keywords and URLs are unioned in order of
first appearance; external ids are unioned, the first value of each kind winning; every
source (path, line, format) is kept.
"""

from __future__ import annotations

import hashlib
import re
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
    "similarity",
    "Fingerprint",
    "fingerprints",
    "batch_shingles",
    "shingles",
    "jaccard",
    "title_key",
    "id_keys",
    "alias_key",
    "is_same_paper",
    "merge_fields",
]

#: LSH bands and rows per band; ``BANDS * ROWS`` MinHash bins.
BANDS = 10
ROWS = 4
#: Exact shingle Jaccard at or above which two abstracts are one paper (rule 4 above).
NEAR_DUP_JACCARD = 0.8
#: Exact shingle Jaccard at or above which two same-titled records are one paper (rule 3).
SAME_TITLE_JACCARD = 0.5
#: Distinct shingles both abstracts need before rule 4 (text similarity alone) applies.
MIN_NEAR_DUP_SHINGLES = 40

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
_BASE = 0x01000193  # an odd multiplier (FNV-1's 32-bit prime), so it has an inverse mod 2^32
_powers = np.ones(1, dtype=np.uint32)
_inverse_powers = np.ones(1, dtype=np.uint32)


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
    """Return the word 3-shingle hashes of each text (uint64 arrays, duplicates possible).

    Tokens are runs of ASCII letters and digits (lower-cased) or of non-ASCII characters;
    punctuation, ``_`` and spaces separate them, and each CJK character is a token of its own.
    All texts are hashed in one vectorised pass over their UTF-8 bytes, with no Python loop
    over words: a token's hash is a polynomial in its bytes taken from prefix sums (Karp &
    Rabin, 1987). A text of one or two tokens has one shingle; an empty text has none.
    """
    if not texts:
        return []
    # A leading NUL, and one between texts: no token starts at byte 0, and NULs mark documents.
    data = ("\x00" + "\x00".join(t.replace("\x00", " ") for t in texts)).encode("utf-8").lower()
    raw = np.frombuffer(data, dtype=np.uint8)
    if ((raw >= 0xE3) & (raw <= 0xED)).any() or (raw == 0xEF).any():  # lead bytes of U+3000-U+DFFF, U+F000-
        text = _CJK_CHAR_RE.sub(r" \g<0> ", data.decode("utf-8"))
        raw = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    word = np.take(_WORD_BYTE, raw)
    edges = np.diff(
        word.view(np.int8), append=np.int8(0)
    )  # +1: next byte starts a word; -1: this one ends it
    starts = np.flatnonzero(edges == 1) + 1
    ends = np.flatnonzero(edges == -1) + 1
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
    """Return the key of a title folded to its lowercase words, or None for no title."""
    if not title:
        return None
    words = _WORD_RE.findall(fold(title))
    return _hash_key("title:" + " ".join(words)) if words else None


def id_keys(external_ids: dict[str, str]) -> list[int]:
    """Return one key per external id (``openreview``, ``arxiv``, ``doi``)."""
    return [_hash_key(f"id:{kind}:{value.lower()}") for kind, value in sorted(external_ids.items())]


def alias_key(paper_id: str) -> int:
    """Return the key under which a merged record's own ``paper_id`` points at its paper."""
    return _hash_key("alias:" + paper_id)


@dataclass
class Fingerprint:
    """Everything dedup needs of one record: shingles, LSH band keys and the exact-match keys."""

    shingles: np.ndarray
    band_keys: list[int]
    title_key: int | None
    id_keys: list[int]
    keys: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.keys:
            self.keys = [
                *self.band_keys,
                *self.id_keys,
                *([self.title_key] if self.title_key is not None else []),
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
    return [
        Fingerprint(
            shingles=s,
            band_keys=row if len(s) else [],
            title_key=title_key(paper.title) if paper.title else None,
            id_keys=id_keys(paper.external_ids) if paper.external_ids else [],
        )
        for paper, s, row in zip(papers, sets, rows, strict=True)
    ]


def is_same_paper(
    a_ids: dict[str, str],
    b_ids: dict[str, str],
    a_title: int | None,
    b_title: int | None,
    similarity: float,
    shortest: int = MIN_NEAR_DUP_SHINGLES,
) -> bool:
    """Decide whether two records with different ``paper_id`` are one paper (rules 1-4 above).

    Args:
        a_ids: external ids of one (``{"openreview": ..., "arxiv": ..., "doi": ...}``).
        b_ids: external ids of the other.
        a_title: ``title_key`` of one (None without a title).
        b_title: ``title_key`` of the other.
        similarity: exact shingle Jaccard of their clean abstracts, in [0, 1].
        shortest: distinct shingles of the shorter abstract.

    """
    shared = set(a_ids) & set(b_ids)
    if any(a_ids[k].lower() == b_ids[k].lower() for k in shared):
        return True
    if shared:
        return False
    if a_title is not None and a_title == b_title and similarity >= SAME_TITLE_JACCARD:
        return True
    return shortest >= MIN_NEAR_DUP_SHINGLES and similarity >= NEAR_DUP_JACCARD


def merge_fields(target: Paper, other: Paper) -> set[str]:
    """Fill ``target`` from ``other`` by the precedence in the module docstring; return changed fields."""
    changed: set[str] = set()
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
