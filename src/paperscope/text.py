r"""Text normalisation shared by every stage: original text in, clean text and folded keys out.

Pipeline of :func:`clean_text` (each step runs once, in this order):

0. Invisible and formatting code points go (:func:`strip_invisible`): zero-width spaces and
   joiners, soft hyphens, bidi marks, BOMs, variation selectors, tag characters, controls.
1. Unicode NFKC, so full-width letters, ligatures and non-breaking spaces become plain (the
   super- and subscript digits and signs stay: ``C²R`` is what ``C$^2$R`` gives too).
   A literal ``\\$`` becomes the full-width ``＄``, so that no later cleaning reads it as math.
2. Markdown emphasis and inline code lose their markers.
3. URLs are set aside (they may hold ``_``, ``%`` or ``~``), markdown links become their text.
4. LaTeX math and commands become Unicode via pylatexenc (``9.6$\\times$`` to ``9.6×``,
   ``$\\mathcal{O}(n)$`` to ``O(n)``, ``C$^2$R`` to ``C²R``, ``\\textit{x}`` to ``x``).
   Readable as a person writes it (0.2): operator names stay words (``$n\\log n$`` to
   ``n log n``), set braces stay (``$\\max\\{0,x\\}$`` to ``max{0, x}``), a comma in math is
   followed by a space, and a control space (``i.i.d.\\ and``) is a space.
5. TeX typography and inline HTML become plain text (``---`` to ``—``, ``Bradley--Terry`` to
   ``Bradley–Terry``, ````x''`` to ``“x”``, ``Fig.~3`` to ``Fig. 3``, ``H<sub>2</sub>O`` to ``H₂O``).
6. URLs are put back and whitespace is collapsed.

``clean_text`` is idempotent: ``clean_text(clean_text(x)) == clean_text(x)`` (fuzzed by
``tests/fuzz/test_clean_text_fuzz.py``).

``paper_id`` is not hashed from it but from :func:`identity_text`, the 0.1 rendering, so that
improving the rendering never moves a paper's identity (``tests/ingest/test_id_stability.py``
checks every id of ``../shared/data`` against 0.1's).

HTML entities are not part of it: ingest decodes them exactly once with :func:`decode_entities`
before storing the original text, so that ``&amp;amp;`` stays ``&amp;`` and never becomes ``&``.

Only the short LaTeX segments go through pylatexenc (it costs about 8 ms per whole abstract,
and about 0.05 ms per segment), so plain prose pays nothing for it.
"""

from __future__ import annotations

import functools
import html
import logging
import re
import unicodedata

from pylatexenc import latexwalker
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

__all__ = [
    "clean_text",
    "strip_controls",
    "CONTROL_CHARS",
    "strip_invisible",
    "is_invisible",
    "INVISIBLE_RANGES",
    "decode_entities",
    "latex_to_text",
    "find_urls",
    "fold",
    "normalise_for_hash",
    "identity_text",
    "has_cjk",
    "is_blank",
    "readable",
    "english_stop_words",
]

_URL_RE = re.compile(r"https?://[^\s<>\"'`{}\[\]|\\^]+", re.IGNORECASE)
# The link text may hold one level of braces: \href{u}{\textcolor{black}{u}}.
_LATEX_URL_RE = re.compile(r"\\(?:url|href)\{([^{}]+)\}(?:\{((?:[^{}]|\{[^{}]*\})*)\})?")
_MD_LINK_RE = re.compile(r"\[([^\]\n]+)\]\((\s*https?://[^)\s]+)\s*\)")
_MD_BOLD_RE = re.compile(r"(\*\*\*|\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1")
_MD_ITALIC_RE = re.compile(r"(?<![\w*\\])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])")
_MD_UNDERSCORE_RE = re.compile(r"(?<![\w\\])_(?=[^\s_])([^_\n]+?)(?<=[^\s_])_(?!\w)")
# A backtick beside another opens a TeX quote (````x''``), not inline code.
_MD_CODE_RE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_URL_TRAILING = ".,;:!?)]}>'\"*"
# Noncharacters (Unicode §23.7: "for internal use") mark where a URL was set aside; step 0
# removes any from the input, so no text can look like a placeholder.
_PLACEHOLDER = "\ufdd0{}\ufdd1"
_PLACEHOLDER_RE = re.compile("\ufdd0(\\d+)\ufdd1")
# A LaTeX command with up to two braced arguments (one level of nesting), or a braced group.
# An accent macro takes the letter after it, bare or braced (``Bal\\'azs``, ``Ren\\'{e}``,
# ``\\'\\i``): converted alone it loses its base letter.
_LATEX_CMD_RE = re.compile(
    r"\\(?:[a-zA-Z]+\*?(?:\s*\{(?:[^{}]|\{[^{}]*\})*\}){0,2}"
    r"|['\"`^~=.](?:[a-zA-Z]|\{\\?[a-zA-Z]?\}|\\[ij](?![a-zA-Z]))|[^a-zA-Z\s])"
    r"|\{(?:[^{}]|\{[^{}]*\})*\}"
)
_SUPERSCRIPTS = str.maketrans("0123456789+-=()niT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵀ")
_SUBSCRIPTS = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")
# The super- and subscripts clean_text itself writes (``C$^2$R`` → ``C²R``): NFKC would fold
# them back to digits, so a second cleaning would change the text; they are kept as written.
# So is the full-width dollar sign a literal ``\$`` becomes: a plain ``$`` would open math
# when the text is cleaned again (``costs \\$5 and \\$10`` would lose "5 and").
_LITERAL_DOLLAR = "\uff04"
_SCRIPTS_RE = re.compile("([⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵀ₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎\uff04]+)")
_SUPERSCRIPT_RE = re.compile(r"\^(?:\{([0-9+\-=()niT]{1,4})\}|(-?[0-9]{1,4}(?![0-9])|[niT+]))")
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_WS_RE = re.compile(r"\s+")
_MACRO_NAME_RE = re.compile(r"\\[a-zA-Z]+\*?")
_MATH_TOKEN_RE = re.compile(r"\\.|\$", re.DOTALL)

#: Code points that :func:`strip_invisible` removes, as inclusive ranges. They are
#:
#: * every ``Default_Ignorable_Code_Point`` of Unicode 15.1 (``DerivedCoreProperties.txt``; UAX #44,
#:   Unicode Standard §5.21 "Ignoring Characters in Processing"; UTS #39/TR36 list them as the
#:   invisible characters of spoofing): soft hyphen, combining grapheme joiner, Arabic letter mark,
#:   Hangul fillers, Khmer inherent vowels, Mongolian variation selectors and vowel separator,
#:   zero-width space/joiners, LRM/RLM, bidi embeddings, overrides and isolates (UAX #9), word
#:   joiner and invisible operators, variation selectors, BOM, tag characters, and the reserved
#:   ranges Unicode keeps default-ignorable. Python has no API for the property, hence the list;
#:   ``tests/test_text.py`` checks it against ``unicodedata`` (every Cf is here or kept below);
#: * the format characters (Cf) that are not default-ignorable but carry no text of their own:
#:   interlinear annotation marks U+FFF9–FFFB and Egyptian hieroglyph format controls;
#: * C0/C1 control characters other than whitespace, lone surrogates and the noncharacters
#:   (U+FDD0–FDEF and the last two code points of every plane): not text at all.
#:
#: Kept although Cf: the prepended concatenation marks (``Prepended_Concatenation_Mark``,
#: U+0600–0605, U+06DD, U+070F, U+0890–0891, U+08E2, U+110BD, U+110CD): visible signs such as the
#: Arabic number sign, which span the digits after them (Unicode Standard §23.2).
INVISIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x0008),  # C0 controls before tab
    (0x000E, 0x001B),  # C0 controls (U+001C–001F are whitespace to str.split)
    (0x007F, 0x0084),  # DEL, C1 controls
    (0x0086, 0x009F),  # C1 controls after NEL (U+0085 is whitespace)
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul choseong/jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors, vowel separator
    (0x200B, 0x200F),  # ZWSP, ZWNJ, ZWJ, LRM, RLM
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, bidi isolates, deprecated format
    (0x3164, 0x3164),  # Hangul filler
    (0xD800, 0xDFFF),  # lone surrogates (from JSON "\ud800" escapes)
    (0xFDD0, 0xFDEF),  # noncharacters
    (0xFE00, 0xFE0F),  # variation selectors 1–16
    (0xFEFF, 0xFEFF),  # BOM / zero-width no-break space
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFFB),  # reserved default-ignorable, interlinear annotation marks
    (0xFFFE, 0xFFFF),  # noncharacters
    (0x13430, 0x1343F),  # Egyptian hieroglyph format controls
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol format controls
    (0xE0000, 0xE0FFF),  # language tag, tag characters, variation selectors 17–256, reserved
    *((plane * 0x10000 + 0xFFFE, plane * 0x10000 + 0xFFFF) for plane in range(1, 17)),
)


def _char_class(ranges: tuple[tuple[int, int], ...]) -> re.Pattern[str]:
    return re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges) + "]+")


_INVISIBLE_RE = _char_class(INVISIBLE_RANGES)
# A class with astral ranges is matched range by range (~30 µs per abstract); the ASCII and BMP
# parts alone are bitmaps (~5 µs), and most abstracts are ASCII with no astral character at all.
_ASCII_INVISIBLE_RE = _char_class(tuple((a, min(b, 0x7F)) for a, b in INVISIBLE_RANGES if a < 0x80))
_BMP_INVISIBLE_RE = _char_class(tuple((a, min(b, 0xFFFF)) for a, b in INVISIBLE_RANGES if a <= 0xFFFF))
_ASTRAL_RE = re.compile("[\U00010000-\U0010ffff]")
# The same without ZWSP and ZWNJ, which go last (they may be a word boundary, below).
_INVISIBLE_BUT_ZW_RE = _char_class(
    tuple((0x200D, b) if (a, b) == (0x200B, 0x200F) else (a, b) for a, b in INVISIBLE_RANGES)
)
# What LaTeX conversion may write that must go (pylatexenc writes ``\\-`` as a soft hyphen): every
# invisible character but the two noncharacters that mark a URL set aside (``_PLACEHOLDER``).
_WRITTEN_INVISIBLE_RE = _char_class(
    tuple(
        part
        for a, b in INVISIBLE_RANGES
        for part in (((a, b),) if (a, b) != (0xFDD0, 0xFDEF) else ((0xFDD2, 0xFDEF),))
    )
)
# Two invisible characters mark a word boundary where the script has no spaces, and become one:
# ZWSP between letters of Thai, Lao, Myanmar or Khmer, which are written without spaces and use it
# as the word separator (UAX #14, class ZW; Unicode Standard §16.2–16.4), and ZWNJ between two
# Arabic-script letters, the Persian/Urdu boundary inside a word ("می‌خواهم", "کتاب‌ها"), which
# Lucene's PersianCharFilter also reads as a space. Everywhere else both only steer rendering
# (line breaks, ligatures, Indic conjuncts), so they go: "inves\u00adtigate" and
# "Know \u200bHow" read as the reader sees them, "investigate" and "Know How".
_SEA = "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"
_ARABIC = "\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdcf\ufdf0-\ufdff\ufe70-\ufefc"
_ZW_BOUNDARY_RE = re.compile(f"(?<=[{_SEA}])\u200b+(?=[{_SEA}])|(?<=[{_ARABIC}])\u200c+(?=[{_ARABIC}])")
_ZW_REMOVED = str.maketrans("", "", "\u200b\u200c")


def _nfkc(text: str) -> str:
    r"""Return NFKC of ``text``, except for the super- and subscripts of ``_SCRIPTS_RE``, kept as they are.

    So ``C²R`` as a source writes it and ``C$^2$R`` clean alike (``C²R``), and cleaning is
    idempotent; ``fold`` (and so ``paper_id``) still reads both as ``c2r``. The full-width
    dollar ``＄`` (a literal ``\$``) is kept too, and folds to ``$``.
    """
    if text.isascii():
        return text
    if not _SCRIPTS_RE.search(text):
        return unicodedata.normalize("NFKC", text)
    pieces = _SCRIPTS_RE.split(text)  # odd indexes hold the kept runs
    return "".join(p if i % 2 else unicodedata.normalize("NFKC", p) for i, p in enumerate(pieces))


def is_invisible(ch: str) -> bool:
    """Return True when the character ``ch`` is one :func:`strip_invisible` removes (``INVISIBLE_RANGES``)."""
    return _INVISIBLE_RE.fullmatch(ch) is not None


def _has_invisible(text: str) -> bool:
    if text.isascii():
        return _ASCII_INVISIBLE_RE.search(text) is not None
    if _BMP_INVISIBLE_RE.search(text):
        return True
    return _ASTRAL_RE.search(text) is not None and _INVISIBLE_RE.search(text) is not None


def strip_invisible(text: str) -> str:
    """Return ``text`` without invisible and formatting code points (``INVISIBLE_RANGES``).

    A zero-width space between two Thai, Lao, Myanmar or Khmer letters, and a zero-width
    non-joiner between two Arabic-script letters, become a space (they are the word boundary
    there); every other invisible character is removed. Text without any comes back as it is.
    """
    if not _has_invisible(text):
        return text
    if "\u200b" in text or "\u200c" in text:
        text = _INVISIBLE_BUT_ZW_RE.sub("", text)
        return _ZW_BOUNDARY_RE.sub(" ", text).translate(_ZW_REMOVED)
    return _INVISIBLE_RE.sub("", text)


#: The C0 and C1 control characters that are not text (a regex character-class body): U+0000–0008,
#: U+000B, U+000C, U+000E–001F, U+007F (DEL) and U+0080–009F. Tab (U+0009) and line feed
#: (U+000A) are text; carriage return (U+000D) is a line end, which :func:`strip_controls` writes
#: as a line feed.
CONTROL_CHARS = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
_CONTROL_RE = re.compile(f"[{CONTROL_CHARS}]+")
_CR_RE = re.compile("\r\n?")


def strip_controls(text: str) -> str:
    r"""Return ``text`` without control characters, its line ends as ``\n``: what every stored text holds.

    Removes the C0 and C1 controls of :data:`CONTROL_CHARS` (NUL, ESC, DEL, NEL, CSI…), keeps
    tab and line feed, and writes each CRLF or lone CR as one LF, as the text-list, BibTeX and CSV
    readers already read line ends (universal newlines), so a note typed in a browser form and a
    JSON abstract with ``\r\n`` store the same line ends. Nothing else changes (invisible
    formatting characters are :func:`strip_invisible`'s job). Ingest applies it to every text
    field of every record, and the marks layer to every tag and note, so an export never carries
    a byte a reader refuses (a NUL made the library's own CSV and BibTeX read as binary files).

    Args:
        text: any text.

    Returns:
        The text without control characters; ``text`` itself when it holds none and no CR.
    """
    if "\r" in text:
        text = _CR_RE.sub("\n", text)
    return _CONTROL_RE.sub("", text)


#: Abbreviation macros of the CVPR/ICCV/ECCV style files (``\def\eg{\emph{e.g}\onedot}`` …) that
#: authors paste into abstracts: written out, not dropped as unknown ("(\eg, low ratios" lost "e.g.").
ABBREVIATION_MACROS = {
    "eg": "e.g.",
    "Eg": "E.g.",
    "ie": "i.e.",
    "Ie": "I.e.",
    "etal": "et al.",
    "etc": "etc.",
    "wrt": "w.r.t.",
    "Wrt": "W.r.t.",
    "vs": "vs.",
    "cf": "cf.",
    "Cf": "Cf.",
    "aka": "a.k.a.",
    "iid": "i.i.d.",
    "dof": "d.o.f.",
}


class _Latex2Text(LatexNodes2Text):
    r"""pylatexenc's converter, raising where it would leave a replacement template in the text.

    When a macro lacks the arguments its replacement names (``\frac{R(`` cut off, ``\frac b``),
    pylatexenc logs a warning and returns the template itself (``%s/%s``) as text; here that is
    an ``IndexError``, which :func:`_convert_segment` answers by keeping the words.
    """

    def apply_simplify_repl(self, node, simplify_repl, what):  # type: ignore[no-untyped-def]
        out = super().apply_simplify_repl(node, simplify_repl, what)
        if out is simplify_repl and isinstance(out, str) and "%" in out and len(out) != 1:
            raise IndexError(f"{what}: missing arguments")
        return out


#: Font switches whose argument pylatexenc 2 drops with the macro (``\\texttt{True}`` gave ``""``):
#: their text is kept from 0.2 on (not in :func:`identity_text`, which stays 0.1's rendering).
KEPT_FONT_MACROS = ("texttt", "textsf", "textup", "textmd", "textnormal")


@functools.cache
def _converter(legacy: bool = True) -> LatexNodes2Text:
    db = get_default_latex_context_db()
    drop = ["cite", "citep", "citet", "ref", "eqref", "label", "footnote", "vspace", "hspace"]
    kept = [] if legacy else [MacroTextSpec(name, simplify_repl="%s") for name in KEPT_FONT_MACROS]
    db.add_context_category(
        "paperscope",
        prepend=True,
        macros=[MacroTextSpec(name, simplify_repl="") for name in drop]
        + [MacroTextSpec("mbox", simplify_repl="%s"), MacroTextSpec("hbox", simplify_repl="%s")]
        + [MacroTextSpec(name, simplify_repl=text) for name, text in ABBREVIATION_MACROS.items()]
        + kept,
    )
    # Its warnings (a macro's replacement failing) are answered in _convert_segment, never shown.
    logging.getLogger("pylatexenc").setLevel(logging.ERROR)
    return _Latex2Text(math_mode="text", latex_context=db, strict_latex_spaces=False)


@functools.cache
def _walker_context() -> latexwalker.LatexContextDb:
    # Built once: pylatexenc otherwise rebuilds its parser context for every segment (~0.5 ms).
    return latexwalker.get_default_latex_context_db()


@functools.lru_cache(maxsize=65536)
def _convert_segment(segment: str, legacy: bool = True) -> str:
    # Bare % starts a LaTeX comment and bare & is an alignment tab: both are prose here.
    escaped = re.sub(r"(?<!\\)([%&#])", r"\\\1", segment)
    converter = _converter(legacy)
    try:
        converted = converter.latex_to_text(escaped, latex_context=_walker_context())
    except (KeyError, IndexError):
        # pylatexenc raises KeyError or IndexError when a macro lacks an argument its replacement names
        # (``\textcolor{magenta}`` with no text after it): keep the words, drop the markup.
        converted = _MACRO_NAME_RE.sub("", segment).replace("{", "").replace("}", " ")
    # Invisible characters go and NFKC holds, as in the input, so a second cleaning finds nothing
    # to change: pylatexenc writes ``\-`` (a discretionary hyphen) as a soft hyphen, which must go
    # before the typography step reads what is around it, and ``\ell`` as ``ℓ``, which NFKC folds.
    if not converted.isascii():
        converted = _WRITTEN_INVISIBLE_RE.sub("", converted)
    return _nfkc(converted).replace("$", _LITERAL_DOLLAR)


def _superscript(m: re.Match[str]) -> str:
    return (m.group(1) or m.group(2)).translate(_SUPERSCRIPTS)


def _split_math(text: str) -> list[tuple[bool, str]]:
    r"""Split text into (is_math, segment) pairs on ``$`` delimiters.

    ``$a$$b$`` is two inline spans (a ``$$`` that closes an open inline span opens the next),
    ``$$x$$`` outside a span is display math, ``\\$`` is a literal dollar, and an unclosed
    ``$`` is kept as text.
    """
    parts: list[tuple[bool, str]] = []
    i, n, start = 0, len(text), 0
    in_math = False
    display = False
    while i < n:
        # Jump to the next backslash escape or dollar: a per-character loop costs ~0.2 ms/abstract.
        m = _MATH_TOKEN_RE.search(text, i)
        if m is None:
            break
        i = m.start()
        if text[i] == "\\":
            i = m.end()
            continue
        if not in_math:
            parts.append((False, text[start:i]))
            display = text.startswith("$$", i)
            i += 2 if display else 1
            in_math, start = True, i
        else:
            if display and not text.startswith("$$", i):
                i += 1
                continue
            parts.append((True, text[start:i]))
            i += 2 if display else 1
            in_math, display, start = False, False, i
    if in_math:
        parts.append((False, text[start - (2 if display else 1) :]))
    else:
        parts.append((False, text[start:]))
    return [p for p in parts if p[1]]


#: Operator names that TeX sets upright as words (the amsmath ``\DeclareMathOperator`` set):
#: the readable rendering keeps them apart from the letters around them (``n\log n``).
_OPERATOR_RE = re.compile(
    r"\\(arg\s*max|arg\s*min|argmax|argmin|arg|log|ln|lg|exp|max|min|sup|inf|lim|limsup|liminf|det|dim"
    r"|ker|deg|gcd|Pr|sin|cos|tan|tanh|sinh|cosh|arcsin|arccos|arctan|sgn|sign|tr|rank|diag|softmax)"
    r"(?![a-zA-Z])"
)
#: A TeX control space (``i.i.d.\ and``), not a line break (``\\``).
_DOUBLED_PERCENT_RE = re.compile(r"\\{2,}%")
_CONTROL_SPACE_RE = re.compile(r"(?<!\\)\\(?=\s)")
#: A comma in math that TeX follows with a thin space (``\{0,x\}``), not one in ``1{,}000``.
_MATH_COMMA_RE = re.compile(r",(?=[^\s\d])|(?<=[^\d\s]),(?=\d)")
#: Inside a braced group in prose: what marks it as a set or a list (``{0, x}``, ``{x : x>0}``)
#: that the reader must see, not TeX grouping (``{BERT}``) whose braces go.
_SET_CONTENT_RE = re.compile(r"[,:;|=<>±∣∈]")
#: A word of prose (not a macro name): a group holding one is text in braces (``{\\em a, b}``).
_PROSE_WORD_RE = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{4,}")


def _spaced_operator(m: re.Match[str]) -> str:
    # A space where a letter, digit or closing bracket touches the name (``n\log n``,
    # ``\log\alpha``); none before an opening one (``O(\log n)``, ``\max\{0,x\}``).
    text, start, end = m.string, m.start(), m.end()
    before = text[start - 1] if start else ""
    after = text[end : end + 2]
    lead = " " if before.isalnum() or before in ")}]" else ""
    trail = " " if after[:1].isalnum() or (after[:1] == "\\" and after[1:].isalpha()) else ""
    return lead + re.sub(r"\s+", "", m.group(1)) + trail


def latex_to_text(text: str, *, legacy: bool = False) -> str:
    r"""Turn LaTeX math and commands in ``text`` into Unicode, leaving prose untouched.

    Adjacent inline spans stay apart (``$f_\\theta$$g_\\phi$`` gives ``f_θ g_ϕ``).
    Math alphabets fold to plain letters (``\\mathcal{O}`` gives ``O``) through NFKC.
    Operator names stay words (``$O(n \\log n)$`` gives ``O(n log n)``), set braces stay
    (``$\\max\\{0,x\\}$`` gives ``max{0, x}``) and a control space is a space.

    ``legacy=True`` is the rendering of paperscope 0.1 (``nlogn``, ``max0,x``), kept only for
    :func:`identity_text`, so that ``paper_id`` does not move when the rendering improves.
    """
    if "\\" not in text and "$" not in text and "{" not in text:
        return text
    if not legacy and "\\" in text:
        text = _CONTROL_SPACE_RE.sub("", text)
        # "$18.9\\%$": a percent sign escaped twice (a CSV or JSON written with its backslashes
        # doubled) is a percent sign, not a line break and a comment that drops the rest of the span.
        text = _DOUBLED_PERCENT_RE.sub(r"\\%", text)
    out: list[str] = []
    previous_math = False
    for is_math, segment in _split_math(text):
        if is_math:
            if not legacy and "\\" in segment:
                segment = _OPERATOR_RE.sub(_spaced_operator, segment)
            # NFKC (in _convert_segment) folds math alphabets (𝒪 to O) before superscripts are made.
            converted = _convert_segment(segment, legacy).strip()
            converted = _SUPERSCRIPT_RE.sub(_superscript, converted)
            if not legacy and "," in converted:
                converted = _MATH_COMMA_RE.sub(", ", converted)
            if previous_math and out and converted:
                out.append(" ")
            out.append(converted)
        else:
            if "^" in segment:  # "10^{-3}" in prose: the braces would go before the superscript is read
                segment = _SUPERSCRIPT_RE.sub(_superscript, segment)
            out.append(_LATEX_CMD_RE.sub(functools.partial(_convert_prose, legacy=legacy), segment))
        previous_math = is_math
    return "".join(out)


def _convert_prose(m: re.Match[str], legacy: bool) -> str:
    markup = m.group(0)
    if (
        not legacy
        and markup.startswith("{")
        and _SET_CONTENT_RE.search(markup)
        and not _PROSE_WORD_RE.search(markup)
        and not markup.startswith("{\\")  # a font switch's scope, ``{\\em e.g.,}``
    ):
        # A set or list written in braces keeps them; its content is converted as any prose.
        inner = markup[1:-1]
        return "{" + _LATEX_CMD_RE.sub(functools.partial(_convert_prose, legacy=legacy), inner) + "}"
    return _convert_segment(markup, legacy)


def _trim_url(url: str) -> str:
    url = url.strip()
    while url and url[-1] in _URL_TRAILING:
        # Keep a closing bracket that closes one opened inside the URL (wiki-style links).
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    return url


def find_urls(text: str) -> list[str]:
    r"""Return the URLs in ``text`` in order of first appearance, without duplicates.

    Trailing punctuation, braces and markdown/LaTeX wrappers are stripped
    (``\\url{https://x.org/a}.`` gives ``https://x.org/a``).
    """
    seen: dict[str, None] = {}
    for m in _URL_RE.finditer(text):
        url = _trim_url(m.group(0))
        if len(url) > len("https://") and url not in seen:
            seen[url] = None
    return list(seen)


def _protect_urls(text: str) -> tuple[str, list[str]]:
    urls: list[str] = []

    def stash(url: str) -> str:
        urls.append(url)
        return _PLACEHOLDER.format(len(urls) - 1)

    def latex_link(m: re.Match[str]) -> str:
        label = m.group(2) or ""
        # A link whose text is its own address ("\href{u}{u}") gives the address once.
        keep = label and m.group(1).strip() not in label
        return (label + " " if keep else "") + stash(m.group(1))

    text = _LATEX_URL_RE.sub(latex_link, text)
    text = _MD_LINK_RE.sub(lambda m: f"{m.group(1)} ({stash(m.group(2).strip())})", text)

    def bare(m: re.Match[str]) -> str:
        url = _trim_url(m.group(0))
        return stash(url) + m.group(0)[len(url) :]

    if "://" not in text:
        return text, urls
    return _URL_RE.sub(bare, text), urls


def _strip_markdown(text: str) -> str:
    # Each pattern runs only when its marker occurs: most abstracts have none of them.
    if "`" in text:
        text = _MD_CODE_RE.sub(r"\1", text)
    has_underscore, has_star = "_" in text, "*" in text
    if has_underscore or has_star or "~~" in text:
        text = _MD_BOLD_RE.sub(r"\2", text)
    if has_underscore:
        text = _MD_UNDERSCORE_RE.sub(r"\1", text)
    if has_star:
        text = _MD_ITALIC_RE.sub(r"\1", text)
    return text


def decode_entities(text: str) -> str:
    """Decode HTML entities once (``Q&amp;A`` → ``Q&A``, ``&amp;lt;`` → ``&lt;``); ingest calls it.

    A character reference to a control character (``&#12;``, ``&#13;``) decodes to what
    :func:`strip_controls` leaves of it, so no control enters the store through an entity either.
    """
    return strip_controls(html.unescape(text)) if "&" in text else text


_EM_DASH_RE = re.compile(r"(?<=[\w\s])---(?=[\w\s])")
_EN_DASH_RE = re.compile(r"(?<=\w)--(?=\w)|(?<=\s)--(?=\s)")
_TEX_QUOTES_RE = re.compile(r"``(.+?)''")
_TEX_HALF_QUOTES_RE = re.compile(r'``([^`"]+?)"')
_TEX_TILDE_RE = re.compile(r"(?<=[A-Za-z.])~(?=[\w\s\\])")
_HTML_SCRIPT_RE = re.compile(r"<(sub|sup)>\s*([0-9+\-=()]{1,4})\s*</\1>", re.IGNORECASE)
_HTML_TAG_RE = re.compile(
    r"</?(?:i|b|em|strong|u|sub|sup|code|span|p|br|small|tt)(?:\s[^<>]{0,80})?\s*/?>", re.IGNORECASE
)


def _typography(text: str, legacy: bool = True) -> str:
    """Turn TeX typography and inline HTML into plain text (each step runs only when its marker occurs).

    ``---`` and ``--`` between words become dashes, ````quotes''`` curly quotes, ``Fig.~3``
    a space, ``H<sub>2</sub>O`` ``H₂O``; other inline HTML tags (``<i>``, ``<b>``, …) go.
    """
    if "--" in text:
        text = _EM_DASH_RE.sub("—", text)
        text = _EN_DASH_RE.sub("–", text)
    if "``" in text:
        text = _TEX_QUOTES_RE.sub(r"“\1”", text)
        if not legacy:  # a TeX opening quote closed by a plain one (````right to be forgotten"``)
            text = _TEX_HALF_QUOTES_RE.sub(r"“\1”", text)
    if "~" in text:
        text = _TEX_TILDE_RE.sub(" ", text)
    if "<" in text:
        text = _HTML_SCRIPT_RE.sub(
            lambda m: m.group(2).translate(_SUPERSCRIPTS if m.group(1).lower() == "sup" else _SUBSCRIPTS),
            text,
        )
        text = _HTML_TAG_RE.sub("", text)
    return text


#: Passes of the steps at most (see :func:`clean_text`); real abstracts settle after one or two.
_MAX_PASSES = 4


def _clean_once(original: str, legacy: bool = False) -> str:
    # Invisible characters go before NFKC: one between a letter and its combining accent would
    # otherwise keep the pair apart, and a second cleaning would compose it.
    text = _nfkc(strip_invisible(original))
    # Markdown first: `_https://x.org/a_` is an italic URL, not a URL ending in "_".
    text, urls = _protect_urls(_strip_markdown(text))
    text = latex_to_text(text, legacy=legacy)
    text = _typography(text, legacy)
    if urls:
        text = _PLACEHOLDER_RE.sub(lambda m: urls[int(m.group(1))], text)
    # Markdown links become "text (url)"; the URL stays for the extractors.
    # str.split() splits on exactly the characters \s matches, and is several times faster.
    return " ".join(text.split())


def clean_text(original: str) -> str:
    r"""Return the clean text of ``original``: the form every index and extractor reads.

    See the module docstring for the steps. The result is single-spaced, stripped, NFKC,
    with no LaTeX or markdown markers left, URLs intact, and no invisible code points
    (``INVISIBLE_RANGES``); cleaning it again changes nothing.

    The steps run again on their own output until it no longer changes (at most
    ``_MAX_PASSES`` times): one pass can uncover markup for the next, as ``$\{\pm1\}$``
    gives ``{±1}``, a braced group, and a lone backtick left by a TeX quote pairs with a later
    one. About 1% of real abstracts take a second pass (221 of the 23,507 records of
    ``../shared/data``); the check costs ~40 µs on top of the ~130 µs of the first.
    """
    return _clean(original, legacy=False)


def identity_text(original: str) -> str:
    r"""Return the text that ``paper_id`` is hashed from: :func:`clean_text` as paperscope 0.1 wrote it.

    The two differ only where 0.2's readable TeX differs (``n\log n`` is ``nlogn`` here,
    ``n log n`` in :func:`clean_text`; ``\max\{0,x\}`` is ``max0,x`` here): identity stays
    fixed while what is shown, indexed and exported improves, so a library ingested by 0.1 finds
    the same papers again. Abstracts that hold none of those constructs give ``clean_text``.
    """
    return _clean(original, legacy=True)


def _clean(original: str, legacy: bool) -> str:
    text = _clean_once(original, legacy)
    for _ in range(_MAX_PASSES - 1):
        again = _clean_once(text, legacy)
        if again == text:
            break
        text = again
    return text


def readable(field: str) -> str:
    r"""Return a short field (an author keyword, a title) as text: ``"$k$-median"`` → ``"k-median"``.

    Only a field holding TeX (``$`` or ``\\``) goes through :func:`clean_text` (~50 µs); the
    others come back as they are, without invisible code points, so a page of 20k keywords costs nothing.
    """
    return clean_text(field) if "$" in field or "\\" in field else strip_invisible(field)


@functools.lru_cache(maxsize=4096)  # ingest folds each clean abstract twice (paper_id, lexical index)
def fold(text: str) -> str:
    """Return a matching key: NFKC, superscripts to digits, casefolded, single-spaced.

    ``fold("C²R")`` and ``fold("c2r")`` are equal; used to compare names and build hashes.
    """
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def normalise_for_hash(clean: str) -> str:
    """Return the key hashed into ``paper_id``: folded, punctuation-insensitive at the edges.

    Two abstracts that differ only in case, whitespace, markup or trailing punctuation
    give the same key.
    """
    return fold(clean).strip(" .;,")


def has_cjk(text: str) -> bool:
    """Return True when ``text`` holds a Chinese, Japanese or Korean character."""
    return _CJK_RE.search(text) is not None


def is_blank(text: str | None) -> bool:
    """Return True for None and for text with no letter or digit in it (``"—"``, ``"$ $"``)."""
    if not text:
        return True
    return not any(ch.isalnum() for ch in clean_text(text))


_TOKEN_RE = re.compile(r"[^\W_]+")
_CJK_RUN_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


@functools.cache
def _jieba():  # type: ignore[no-untyped-def]
    """Return the Chinese word segmenter: rjieba (jieba-rs), jieba's dictionary and algorithm in Rust.

    It loads its 350k-word dictionary in about 0.1 s, with nothing built on disk (jieba's own
    start-up took 0.56 s from its cache file, several seconds the first time, and its prefix
    dictionary 42 MB installed). On the 321,682 runs of Chinese characters in ``../shared/data``
    and the repository it segments every run as jieba 0.42.1 did, in both modes, but one
    (``常在有``: an unknown three-character span that the two HMM decoders split differently).
    """
    import rjieba

    return rjieba  # its module-level cut and cut_for_search use the instance built at import


def segment(text: str, for_index: bool = False) -> str:
    """Return ``fold(text)`` with each Chinese run split into words by rjieba, space-separated.

    SQLite's unicode61 tokenizer would read a whole run of Chinese characters as one token,
    so ``剪枝`` could never match ``...图神经网络剪枝方法...``. With ``for_index=True`` jieba's
    search mode also emits the sub-words of long words (``检索增强`` gives ``检索 增强 检索增强``).
    """
    folded = fold(text)
    if not _CJK_RUN_RE.search(folded):
        return folded
    tokenizer = _jieba()
    cut = tokenizer.cut_for_search if for_index else tokenizer.cut

    def split_run(m: re.Match[str]) -> str:
        return " " + " ".join(w for w in cut(m.group(0)) if w.strip()) + " "

    return _WS_RE.sub(" ", _CJK_RUN_RE.sub(split_run, folded)).strip()


def tokenize(text: str) -> list[str]:
    """Return the word tokens of ``text`` as the lexical index sees them (folded, CJK segmented).

    ``tokenize("State-of-the-art C²R")`` gives ``["state", "of", "the", "art", "c2r"]``.
    """
    return _TOKEN_RE.findall(segment(text))


@functools.cache
def english_stop_words() -> frozenset[str]:
    """Return scikit-learn's English stop words (318 words, the Glasgow Information Retrieval Group's list).

    The list is read from scikit-learn's ``feature_extraction/_stop_words.py`` alone, without
    importing scikit-learn (about 1 s cold, which a ``related`` in a fresh process would pay);
    if that file is not where scikit-learn 1.x keeps it, scikit-learn is imported instead.
    """
    import importlib.util
    import runpy
    from pathlib import Path

    spec = importlib.util.find_spec("sklearn")
    for root in (spec.submodule_search_locations or []) if spec else []:
        path = Path(root) / "feature_extraction" / "_stop_words.py"
        try:
            words = runpy.run_path(str(path))
        except (OSError, SyntaxError):
            continue
        found = words.get("ENGLISH_STOP_WORDS")
        if isinstance(found, frozenset) and found:
            return frozenset(str(w) for w in found)
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)
