"""Fuzzing ``clean_text``: idempotent, free of invisible code points, single-spaced, hashable.

Inputs: random Unicode (every category, lone surrogates included), text built from the markup
``clean_text`` reads (LaTeX, markdown, TeX typography, inline HTML, URLs, entities) mixed with
invisible characters and combining marks, and real abstracts from ``../shared/data`` with
such pieces inserted. Properties, for every input ``x`` with ``c = clean_text(x)``:

* ``clean_text(c) == c`` (cleaning twice changes nothing);
* no character of ``c`` is invisible (``text.INVISIBLE_RANGES``);
* ``c`` is stripped and single-spaced, and ``paper_id_for(c)`` works (valid UTF-8).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paperscope.ingest.pipeline import paper_id_for
from paperscope.text import INVISIBLE_RANGES, clean_text, is_invisible, strip_invisible

from .conftest import examples

#: One character of each invisible range, and the characters that become a word boundary.
INVISIBLE = sorted(
    {chr(a) for a, _ in INVISIBLE_RANGES}
    | {chr(b) for _, b in INVISIBLE_RANGES}
    | set("\u200b\u200c\u200d\u00ad\ufeff\u2060\u202e\u2066\u061c\ufe0f\U000e0041")
)
#: The markup clean_text reads, in pieces, so random sequences of them form (and break) its patterns.
MARKUP = [
    "$", "$$", "\\$", "\\", "{", "}", "\\textbf{", "\\emph{", "\\mathcal{", "\\url{", "\\href{",
    "\\frac{", "\\-", "\\'", '\\"', "\\~", "\\ell", "\\alpha", "\\times", "\\textcolor{", "\\cite{",
    "^", "^{", "_", "_{", "2", "-3", "n", "T", "*", "**", "***", "_", "__", "~~", "`", "``", "''",
    "~", "--", "---", "-", "<sub>", "</sub>", "<sup>", "</sup>", "<i>", "</i>", "<br/>", "<", ">",
    "[", "](", ")", "(", "https://", "http://github.com/a/b", "https://x.org/a_b_", ".", ",", ";",
    "%", "&", "#", "&amp;", " ", "  ", "\n", "\t", "\u00a0", "\u3000",
    "a", "e", "Z", "9", "\u0301", "\u0308", "\u0327", "²", "₂", "ⁿ", "ﬁ", "Ｘ", "ℓ", "𝒪", "Å",
    "\u0e20", "\u0e32", "\u0645", "\u06cc", "\u062e", "क", "\u094d", "ष", "中", "ß", "İ",
    "\ue000", "\ue001", "\ufdd0", "\ufdd1", "0", "1",
]  # fmt: skip
PIECES = st.one_of(st.sampled_from(MARKUP), st.sampled_from(INVISIBLE), st.text(max_size=3))
MARKUP_TEXT = st.lists(PIECES, max_size=40).map("".join)
ANY_UNICODE = st.text(
    st.one_of(st.characters(codec=None, exclude_categories=[]), st.sampled_from(INVISIBLE)), max_size=200
)


def check_clean(original: str) -> str:
    """Clean ``original`` and check the properties of the module docstring; return the clean text."""
    clean = clean_text(original)
    assert clean_text(clean) == clean, f"not idempotent: {clean!r} -> {clean_text(clean)!r}"
    hidden = [f"U+{ord(ch):04X}" for ch in clean if is_invisible(ch)]
    assert not hidden, f"invisible code points {hidden} in {clean!r}"
    assert clean == clean.strip() and "  " not in clean
    paper_id_for(clean)  # hashes the UTF-8 of the normalised text: no lone surrogate survives
    assert strip_invisible(strip_invisible(original)) == strip_invisible(original)
    return clean


@settings(max_examples=examples(1000))
@given(text=ANY_UNICODE)
def test_clean_text_of_random_unicode(text: str) -> None:
    check_clean(text)


@settings(max_examples=examples(2000))
@given(text=MARKUP_TEXT)
def test_clean_text_of_markup_invisibles_and_combining_marks(text: str) -> None:
    check_clean(text)


def _real_abstracts(shared_data: Path, limit: int) -> list[str]:
    out: list[str] = []
    for name in ("airas-papers-db/iclr_2020.json", "papercopilot-paperlists/colm2025.json"):
        with (shared_data / name).open(encoding="utf-8") as handle:
            out.extend(r["abstract"] for r in json.load(handle) if isinstance(r.get("abstract"), str))
    return out[:limit]


@pytest.fixture(scope="module")
def real_abstracts(shared_data: Path) -> list[str]:
    return _real_abstracts(shared_data, 100_000)


INSERTS = st.lists(st.tuples(st.floats(0, 1), PIECES), min_size=1, max_size=6)


@settings(max_examples=examples(600))
@given(data=st.data())
def test_clean_text_of_real_abstracts_with_pieces_inserted(
    real_abstracts: list[str], data: st.DataObject
) -> None:
    text = data.draw(st.sampled_from(real_abstracts), label="abstract")
    for where, piece in data.draw(INSERTS, label="inserts"):
        at = int(where * len(text))
        text = text[:at] + piece + text[at:]
    check_clean(text)


def test_clean_text_is_idempotent_on_real_abstracts(real_abstracts: list[str]) -> None:
    """Every abstract of two real files (1,105 of them) as they are: one cleaning is final."""
    assert len(real_abstracts) > 1000
    unstable = [a[:80] for a in real_abstracts if clean_text(clean_text(a)) != clean_text(a)]
    assert unstable == []


def test_every_invisible_range_is_removed() -> None:
    """Both ends of every range of ``INVISIBLE_RANGES`` go, in the middle of a word and alone."""
    for a, b in INVISIBLE_RANGES:
        for code in {a, b}:
            assert clean_text(f"ab{chr(code)}cd") in ("abcd", "ab cd"), f"U+{code:04X}"
            assert clean_text(chr(code)) == "", f"U+{code:04X}"
    assert sys.maxunicode == 0x10FFFF
