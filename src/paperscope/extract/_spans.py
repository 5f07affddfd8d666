"""Helpers shared by the field extractors: sentences and words with character spans, data files."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources

__all__ = [
    "Sentence",
    "split_sentences",
    "load_terms",
    "is_coined",
    "is_generic",
    "word_spans",
    "GENERIC_TERMS",
    "scrub",
]

# A sentence ends at . ! ? followed by space and an upper-case letter, digit or bracket, unless the
# dot closes a common abbreviation ("e.g.", "et al.", "Fig.") or an initial.
_SENT_END_RE = re.compile(r"[.!?](?=\s+[\"'(\[]?[A-Z0-9])")
_ABBREV = ("e.g", "i.e", "et al", "etc", "vs", "Fig", "Eq", "Sec", "Tab", "cf", "resp", "approx", "al", "No")
_WORD_RE = re.compile(r"[^\s]+")


@dataclass(frozen=True)
class Sentence:
    """A sentence of a clean text: its text and its [start, end) character span in that text."""

    text: str
    start: int
    end: int


@functools.lru_cache(maxsize=16)
def split_sentences(text: str) -> list[Sentence]:
    """Split ``text`` into sentences with their character spans (abbreviation-aware).

    Cached for the last few texts: every extractor of one card splits the same abstract.
    Callers must not mutate the returned list.
    """
    sentences: list[Sentence] = []
    start = 0
    for m in _SENT_END_RE.finditer(text):
        before = text[max(start, m.start() - 8) : m.start()]
        if any(before.endswith(a) for a in _ABBREV) or re.search(r"(?:^|\s)[A-Z]$", before):
            continue
        sentences.append(Sentence(text[start : m.end()], start, m.end()))
        start = m.end()
        while start < len(text) and text[start].isspace():
            start += 1
    if start < len(text):
        sentences.append(Sentence(text[start:], start, len(text)))
    return sentences


def word_spans(text: str, offset: int = 0) -> list[tuple[str, int, int]]:
    """Return the whitespace-separated words of ``text`` as ``(word, start, end)``, shifted by ``offset``."""
    return [(m.group(0), m.start() + offset, m.end() + offset) for m in _WORD_RE.finditer(text)]


@functools.cache
def load_terms(name: str) -> frozenset[str]:
    """Return the terms of the data file ``extract/data/<name>`` (one a line, ``#`` comments).

    Raises:
        FileNotFoundError: the package was installed without its data files.

    """
    body = resources.files("paperscope.extract").joinpath("data", name).read_text(encoding="utf-8")
    return frozenset(line.strip() for line in body.splitlines() if line.strip() and not line.startswith("#"))


def GENERIC_TERMS() -> frozenset[str]:  # noqa: N802 - reads like the constant it caches
    """Return the stoplist of generic acronyms and well-known names (``data/generic_terms.txt``)."""
    return load_terms("generic_terms.txt")


@functools.lru_cache(maxsize=65536)
def is_generic(token: str) -> bool:
    """Return True when ``token`` (or its singular) is in the generic-terms stoplist."""
    terms = GENERIC_TERMS()
    if token in terms:
        return True
    if token.endswith("s") and token[:-1] in terms:
        return True
    return False


_SUPER = "²³⁴"
_COINED_RE = re.compile(r"^[A-Za-z0-9²³⁴][A-Za-z0-9²³⁴\-+]*[A-Za-z0-9²³⁴+]$|^[A-Z]$")


@functools.lru_cache(maxsize=65536)
def is_coined(token: str) -> bool:
    """Return True when ``token`` looks like a coined name: ``KREPES``, ``OmniFit``, ``ODE-M``, ``C²R``.

    A part (between hyphens) is coined when it has two or more capitals (``FiX``, ``NaNA``,
    ``GStrongCollapse``) or a capital and a digit or superscript (``T3``, ``C²R``); a token is
    coined when a part is, or when all its parts are capitals (``ODE-M``). Ordinary capitalised
    words and compounds (``Transformer``, ``Topology-Aware``, ``Q-learning``) are not.
    """
    if len(token) < 2 or not _COINED_RE.match(token):
        return False
    parts = [p for p in token.split("-") if p]
    if not parts:
        return False
    for part in parts:
        upper = sum(ch.isupper() for ch in part)
        if upper >= 2:
            return True
        if upper == 1 and part[0].isalpha() and any(ch.isdigit() or ch in _SUPER for ch in part):
            return True
    return len(parts) >= 2 and all(p.isupper() for p in parts) and any(len(p) >= 2 for p in parts)


_RESIDUE_RE = re.compile(r"[*$`]|\\[a-zA-Z]+\s*|\\")


def scrub(value: str) -> str:
    """Remove markup residue the clean text may still hold (``*M*FM`` gives ``MFM``) from an output value."""
    return re.sub(r"\s{2,}", " ", _RESIDUE_RE.sub("", value)).strip()
