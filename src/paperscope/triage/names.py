"""Author names split into family and given parts, and text folded to ASCII, for exports and keys.

A list gives authors as written ("Jane van der Berg", "Berg, Jane", "张伟"); a reference manager
wants parts. The rules are BibTeX's (Patashnik, *BibTeXing*, 1988, §4: "First von Last",
"von Last, First", "von Last, Jr, First") without its brace subtleties: a name with one comma is
``family, given``; else the last word is the family name, preceded by any lower-case particles
("van der", "de"), and a trailing "Jr."/"III" is a suffix. A one-word name, or one written in a
CJK script, has no reliable split and is kept whole (CSL's ``literal``).
"""

from __future__ import annotations

import unicodedata

__all__ = ["split_name", "ascii_fold"]

_PARTICLES = {"van", "von", "der", "den", "de", "di", "da", "del", "della", "des", "du", "la", "le"}
_PARTICLES |= {"dos", "das", "do", "ter", "ten", "zu", "zur", "af", "av", "bin", "al", "el", "st.", "y"}
_SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "v"}
#: Letters NFKD does not decompose into ASCII.
_FOLD = str.maketrans(
    {"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ß": "ss", "æ": "ae", "Æ": "AE"}
    | {"œ": "oe", "Œ": "OE", "þ": "th", "Þ": "Th", "ı": "i", "ð": "d", "Ð": "D"}
)


def ascii_fold(text: str) -> str:
    """Return ``text`` with accents dropped and letters folded to ASCII ("Gödel" → "Godel"); others removed."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return "".join(c for c in decomposed if c.isascii())


def _is_cjk(text: str) -> bool:
    return any(
        "\u3040" <= c <= "\u30ff"
        or "\u3400" <= c <= "\u9fff"
        or "\uac00" <= c <= "\ud7af"
        or "\uf900" <= c <= "\ufaff"
        for c in text
    )


def split_name(name: str) -> dict[str, str]:
    """Return ``{"family": ..., "given": ...}`` (CSL-JSON's name parts) or ``{"literal": name}``.

    Examples: "Jane van der Berg" → family "van der Berg", given "Jane"; "Berg, Jane" → family
    "Berg"; "Martin Luther King Jr." → family "King", given "Martin Luther", suffix "Jr.";
    "Plato" and "张伟" → literal. Whitespace is collapsed; empty parts are left out.
    """
    name = " ".join(name.split())
    if not name or _is_cjk(name):
        return {"literal": name}
    if name.count(",") == 1:
        family, given = (part.strip() for part in name.split(","))
        if family and given:
            return {"family": family, "given": given}
    words = name.replace(",", " ").split()
    suffix = words.pop() if len(words) > 2 and words[-1].lower() in _SUFFIXES else None
    if len(words) < 2:
        return {"literal": name}
    start = len(words) - 1
    while start > 1 and words[start - 1].lower() in _PARTICLES and words[start - 1].islower():
        start -= 1
    parts = {"family": " ".join(words[start:]), "given": " ".join(words[:start])}
    if suffix:
        parts["suffix"] = suffix
    return parts
