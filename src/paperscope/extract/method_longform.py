"""Acronym definitions: the long form of a short form ("Cross-Consistency Regularization (C²R)").

The long form is found by matching the short form's letters to word initials, then by Schwartz &
Hearst's character match (PSB 2003), then by the Title-Case run that starts with the first letter.
Used by the method-name candidates (:mod:`.method_candidates`), the cue rules and the tasks.
"""

from __future__ import annotations

import functools
import re

__all__ = ["PAREN_RE", "find_long_form", "is_short_form", "spells"]

_SKIP = {
    "a",
    "an",
    "the",
    "novel",
    "new",
    "simple",
    "unified",
    "general",
    "generic",
    "lightweight",
    "efficient",
    "effective",
    "principled",
    "first",
    "our",
    "two",
    "three",
    "scalable",
    "powerful",
    "robust",
    "practical",
    "flexible",
    "modular",
    "open",
    "open-source",
    "end-to-end",
    "training-free",
    "plug-and-play",
    "fully",
    "large-scale",
    "comprehensive",
    "systematic",
    "theoretically-grounded",
}
#: The filler adjectives of ``_SKIP`` (not determiners or numbers): they may begin a long form.
_ADJECTIVES = _SKIP - {"a", "an", "the", "our", "first", "two", "three", "fully", "new", "novel"}
_OF_NOUNS = {"family", "class", "suite", "set", "series", "collection", "kind", "type", "variant", "version"}
_CONNECTORS = {"for", "of", "and", "via", "with", "in", "on", "to", "from", "by", "the", "&"}
_STOP_START = _SKIP | _CONNECTORS | {"we", "propose", "introduce", "present", "this", "that", "which", "is"}
# A short form may close with a typo'd brace: "Single-stage Sparse Retrieval (SSR}, a paradigm".
PAREN_RE = re.compile(r"\(([^(){}]{1,60})[)}]")
_JUNKPAREN_RE = re.compile(
    r"et\s+al|\b(?:1[89]|20)\d\d\b|^\s*(?:see|e\.g|i\.e|cf|ours|ref|eq|eqs|equation|table|tab|fig|figure"
    r"|sec|section|appendix|thm|theorem|lemma|corollary|def|definition|algorithm|alg|line)\b",
    re.IGNORECASE,
)
_ENUM_RE = re.compile(r"^\s*(?:i{1,3}|iv|vi{0,3}|ix|x{1,3}|[a-zA-Z]|\d+|[a-z]\d?)\s*$", re.IGNORECASE)
_SUFFIX_RE = re.compile(r"-(?:v?\d+(?:\.\d+)?[A-Za-z]?|\d+[KMBkmb]|[A-Z]?\d+)$")


def _letters(sf: str) -> str:
    """Return the letters a short form spells, lower-cased: ``C²R`` gives ``ccr``, ``VPD-100K`` ``vpd``."""
    sf = _SUFFIX_RE.sub("", sf)
    out: list[str] = []
    for ch in sf:
        if ch.isalpha():
            out.append(ch.lower())
        elif ch in "²³⁴" and out:
            out.extend(out[-1] * ("²³⁴".index(ch) + 1))
    return "".join(out)


def _initials(word: str) -> str:
    """Return the letters a word contributes to an acronym: hyphen-part initials, capitals, all-caps runs."""
    out: list[str] = []
    for part in re.split(r"[-–/]", word):
        part = part.strip("\"'“”‘’,;:.")
        if not part:
            continue
        if part.isupper() and len(part) <= 5:
            out.append(part.lower())
            continue
        out.append(part[0].lower())
        out.extend(ch.lower() for ch in part[1:] if ch.isupper())
    return "".join(out)


def _is_subsequence(needle: str, hay: str) -> bool:
    it = iter(hay)
    return all(ch in it for ch in needle)


def _schwartz_hearst(sf_letters: str, words: list[str]) -> int | None:
    """Return the index of the first long-form word by Schwartz & Hearst's backward match, or None.

    Schwartz & Hearst (2003), "A simple algorithm for identifying abbreviation definitions in
    biomedical text": each short-form character is matched right to left in the candidate, the
    first one at the start of a word.
    """
    text = " ".join(words).lower()
    s, li = len(sf_letters) - 1, len(text) - 1
    while s >= 0:
        ch = sf_letters[s]
        while li >= 0 and (text[li] != ch or (s == 0 and li > 0 and text[li - 1].isalnum())):
            li -= 1
        if li < 0:
            return None
        li -= 1
        s -= 1
    start_char = li + 1
    pos = 0
    for i, w in enumerate(words):
        if pos + len(w) > start_char:
            return i
        pos += len(w) + 1
    return None


@functools.lru_cache(maxsize=256)
def find_long_form(before: str, sf: str, title_fallback: bool = True) -> tuple[int, str] | None:
    """Return ``(offset, long_form)`` of the definition of ``sf`` that ends ``before``, or None.

    Args:
        before: the text of the sentence up to the opening parenthesis (no trailing bracket).
        sf: the short form, e.g. ``"C²R"`` or ``"VPD-100K"``.
        title_fallback: accept a Title-Case run that starts with the short form's first letter
            when no letter match exists (``Fine-grained Forgetting Transformer (FiX)``).

    Returns:
        The offset of the long form in ``before`` and its text; None when nothing matches.

    """
    letters = _letters(sf)
    if not letters:
        return None
    # An em dash ends a phrase: "metrics—weighted mean-squared error (WMSE)".
    base = max((before.rfind(sep) + len(sep) if sep in before else 0) for sep in ("—", " - ", "--"))
    words_all = list(re.finditer(r"\S+", before[base:]))
    # The long form never crosses punctuation that ends a phrase, nor a cue verb.
    words: list[re.Match[str]] = []
    for m in reversed(words_all):
        w = m.group(0)
        if words and (w[-1] in ",;:.!?)" or w.lower() in _VERB_WORDS):
            break
        words.insert(0, m)
        if len(words) >= min(len(letters) + 5, 2 * len(letters) + 2):
            break
    if not words:
        return None
    texts = [m.group(0).strip("\"'“”") for m in words]
    best: int | None = None
    for i in range(len(texts)):
        if texts[i].lower() in _STOP_START or not _clean_long_form(texts[i:]):
            continue
        init = "".join(_initials(t) for t in texts[i:] if t.lower() not in _CONNECTORS)
        if init and init[0] == letters[0] and _is_subsequence(letters, init):
            best = i
            break
    if best is None:
        # An adjective that is usually filler starts the long form when the letters need it:
        # "a novel robust cross-domain Bellman (RCB) operator".
        for i in range(len(texts)):
            low = texts[i].lower()
            if low not in _SKIP or low in _STOP_START - _ADJECTIVES or not _clean_long_form(texts[i:]):
                continue
            init = "".join(_initials(t) for t in texts[i:] if t.lower() not in _CONNECTORS)
            if init[:1] == letters[0] and _is_subsequence(letters, init):
                best = i
                break
    if best is None and len(letters) >= 2:
        j = _schwartz_hearst(letters, texts)
        if j is not None and texts[j].lower() not in _STOP_START:
            n_content = sum(t.lower() not in _CONNECTORS for t in texts[j:])
            if n_content <= len(letters) + 1:
                best = j
    if best is None and title_fallback:
        run = len(texts)
        while run > 0 and (texts[run - 1][:1].isupper() or texts[run - 1].lower() in _CONNECTORS):
            run -= 1
        while run < len(texts) and texts[run].lower() in _CONNECTORS:
            run += 1
        if run < len(texts) and texts[run][0].lower() == letters[0] and len(texts) - run >= 2:
            best = run
    if best is None:
        return None
    if best is not None:
        # Drop trailing words after the last letter matched: "Stable Memory block (DMSM)".
        while len(texts) - best > 1 and texts[-1][:1].islower():
            init = "".join(_initials(t) for t in texts[best:-1] if t.lower() not in _CONNECTORS)
            if not _is_subsequence(letters, init):
                break
            texts.pop()
            words.pop()
    # Extend over Title-Case words with the same initial: "Native Network Anatomy (NaNA)".
    while best > 0 and texts[best - 1][:1].isupper() and texts[best - 1][0].lower() == letters[0]:
        if texts[best - 1].lower() in _STOP_START or words[best - 1].group(0)[-1] in ",;:":
            break
        best -= 1
    start = base + words[best].start()
    end = base + words[-1].end()
    return start, before[start:end].strip().strip("\"'“”")


_VERB_WORDS = {
    "we",
    "propose",
    "proposes",
    "introduce",
    "introduces",
    "present",
    "presents",
    "called",
    "named",
    "design",
    "develop",
    "build",
    "is",
    "are",
    "was",
    "uses",
    "use",
    "using",
}
_DETERMINERS = {"a", "an", "our", "this", "these", "its", "their", "that", "which"}


def _clean_long_form(texts: list[str]) -> bool:
    """Return False when a candidate long form holds a determiner not led by a connector ("of the")."""
    for k, t in enumerate(texts):
        low = t.lower()
        if low in _DETERMINERS or (low == "the" and (k == 0 or texts[k - 1].lower() not in _CONNECTORS)):
            return False
    return True


_PREV_TOKEN_RE = re.compile(r"([A-Za-z0-9²³][\w²³\-]*[\w²³])\s*$")


def spells(sf: str, long_form: str) -> bool:
    """Return True when ``long_form`` spells ``sf``: first letter equal, the rest in order."""
    letters = _letters(sf)
    text = long_form.lower()
    multiword = " " in long_form.strip() or "-" in long_form
    return bool(letters) and multiword and text[:1] == letters[0] and _is_subsequence(letters, text)


def is_short_form(content: str) -> bool:
    c = content.strip()
    if len(c) < 2 or len(c) > 20 or any(ch in c for ch in "_=,;{}"):
        return False
    if " " in c and not (len(c.split()) == 2 and any(ch.isdigit() for ch in c)):
        return False
    if not any("A" <= ch <= "Z" for ch in c):
        return False
    if _ENUM_RE.match(c) or _JUNKPAREN_RE.search(c):
        return False
    return sum(ch.isalpha() for ch in c) >= 1 and not c.replace(".", "").isdigit()
