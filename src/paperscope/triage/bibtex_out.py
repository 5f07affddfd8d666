r"""BibTeX export: ``@inproceedings``/``@article``/``@misc`` entries that parse back to the same text.

Text is escaped with pylatexenc's encoder (``latexencode.UnicodeToLatexEncoder``) under a rule set
chosen so that the two LaTeX-aware readers we test with, bibtexparser's ``LatexDecodingMiddleware``
(pylatexenc's ``latex2text``) and pybtex's ``Text.from_latex`` (latexcodec), read each field back
as the same text after whitespace normalisation, and BibTeX's brace counting stays balanced:

* ``& % # _ $`` → ``\&`` …, a backslash → ``\textbackslash{}``, ``~`` → ``\textasciitilde{}``;
* TeX ligatures are broken so they stay literal: ``--`` → ``-{}-``, two backquotes or two
  apostrophes → ``\`{}\```, ``'{}'``, ``!\``` → ``!{}\```, two commas → ``,{},`` (pybtex reads
  ``,,`` as the low quote „, as T1 fonts typeset it; a real ICLR 2026 abstract has one);
* literal braces → ``\{``/``\}`` when the field's braces pair up, else ``\lbrace{}``/``\rbrace{}``
  (an unpaired ``\{`` would end the field early for BibTeX);
* ``^`` is written as it is: both readers keep it, while its escapes come back changed
  (``\textasciicircum{}`` as ``ˆ`` U+02C6 from pylatexenc, ``\^{}`` as nothing); a title with
  a bare ``^`` ("A^2TG") needs math mode to typeset, as its source meant;
* every other character, accents and CJK included, stays UTF-8 (biber, Zotero and BibTeX with
  ``inputenc`` read it), composed (NFC: "e" + U+0300 is written "è", the same text; pylatexenc
  composes it when reading anyway).

pybtex's decoder (latexcodec) has no escape for ``$``, ``{`` or ``}``: it reads ``\$`` back as
``\$`` and ``\{`` as ``\``. Those are the only characters whose text differs through pybtex.

In titles, words with a capital after their first letter ("LLMs", "MoNet", "GPT-4") are braced so
styles that lower-case titles keep them, and so is the marker of a generated label (``{[Label]}``,
:data:`~paperscope.models.LABEL_MARKER`). URLs, DOIs and arXiv ids are written verbatim.

A generated label's note (:data:`.entry.LABEL_NOTE`) is in ``note`` (BibTeX and biblatex styles
print it) and in ``titleaddon``: pandoc's citeproc drops ``note`` but prints ``titleaddon`` after
the title, and biblatex's data model allows it in every entry type (``type`` is invalid in
``@inproceedings`` for ``biber --validate-datamodel``). A code link goes into ``note`` as
``Code: \url{...}``: biblatex has no ``code`` field.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any

from pylatexenc.latexencode import RULE_REGEX, UnicodeToLatexConversionRule, UnicodeToLatexEncoder

from ..models import Paper
from .entry import LABEL_MARKER, LABEL_NOTE, ExportEntry, entry_of

__all__ = ["write_bibtex", "bibtex_entry", "latex_escape"]

#: The rules as one alternation (pylatexenc tries every regex rule at every character, so one
#: pattern instead of eight makes the encoder several times faster on 20k abstracts).
_SPECIAL = re.compile(r"[\\~&%#_${}]|-(?=-)|`(?=`)|'(?=')|,(?=,)|[!?](?=`)")
_ESCAPES = {"\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "-": "-{}", "`": "`{}", "'": "'{}"}
_ESCAPES |= {",": ",{}"}
_ESCAPES |= {"!": "!{}", "?": "?{}"} | {c: "\\" + c for c in "&%#_$"}


def _encoder(braces: dict[str, str]) -> UnicodeToLatexEncoder:
    table = _ESCAPES | braces
    return UnicodeToLatexEncoder(
        conversion_rules=[
            UnicodeToLatexConversionRule(RULE_REGEX, [(_SPECIAL, lambda m: table[m.group(0)])])
        ],
        replacement_latex_protection="none",
        unknown_char_policy="keep",
        unknown_char_warning=False,
    )


_PAIRED = _encoder({"{": r"\{", "}": r"\}"})
_UNPAIRED = _encoder({"{": r"\lbrace{}", "}": r"\rbrace{}"})
#: Punctuation around a word that says nothing about its case ("(LLMs)", "Transformers:").
_WRAPPING = ".,:;!?()[]{}\"'“”‘’"
_URL_UNSAFE = {"{": "%7B", "}": "%7D", " ": "%20"}


def _braces_pair(text: str) -> bool:
    depth = 0
    for c in text:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def latex_escape(text: str) -> str:
    """Return ``text`` as LaTeX for a braced BibTeX field value (see the module doc for the rules)."""
    text = unicodedata.normalize("NFC", text)
    if not _SPECIAL.search(text):
        return text
    encoder = _PAIRED if _braces_pair(text) else _UNPAIRED
    return encoder.unicode_to_latex(text)


def _title(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    encoder = _PAIRED if _braces_pair(text) else _UNPAIRED

    def encode(word: str) -> str:
        if not keeps_case(word):
            return encoder.unicode_to_latex(word) if _SPECIAL.search(word) else word
        if not any(c.isdigit() for c in word):
            return "{" + (encoder.unicode_to_latex(word) if _SPECIAL.search(word) else word) + "}"
        # pandoc's citeproc lower-cases "3D", "{3D}" and "X3D" alike; capitals braced on their
        # own inside the group ("{{X}3{D}}") keep their case there, in BibTeX and biber too.
        pieces = re.split(r"([A-Z]+)", word)
        inner = "".join(
            "{" + p + "}" if i % 2 else (encoder.unicode_to_latex(p) if _SPECIAL.search(p) else p)
            for i, p in enumerate(pieces)
        )
        return "{" + inner + "}"

    return "".join(encode(w) for w in re.split(r"(\s+)", " ".join(text.split())))


def keeps_case(word: str) -> bool:
    """Return True when a title word is case-protected in BibTeX (braced).

    A word is protected when one of its hyphen-separated parts has a capital after its first
    character ("LoRA", "BERT", "3D", "D&R", "Q&A"), or a capital and a character that is not a
    letter ("A100", "T5", "Od³", "GPT-4"), or is a single capital in a hyphenated word
    ("U-Net"). Title-case words ("Self-Supervised", "Learning") are left to the style.
    """
    parts = [part.strip(_WRAPPING) for part in word.split("-")]
    for part in parts:
        if any(c.isupper() for c in part[1:]):
            return True
        if any(c.isupper() for c in part) and not part.isalpha():
            return True
        if len(parts) > 1 and len(part) == 1 and part.isupper():
            return True
    return False


def _author(name: str) -> str:
    text = latex_escape(" ".join(name.split()))
    # A comma or a lone "and" would split the name for BibTeX: keep such a name whole.
    return "{" + text + "}" if "," in name or re.search(r"\band\b", name, re.I) else text


def _url(url: str) -> str:
    return "".join(_URL_UNSAFE.get(c, c) for c in url)


def bibtex_fields(entry: ExportEntry) -> tuple[str, list[tuple[str, str]]]:
    """Return ``(entry type, [(field, BibTeX value without the outer braces)])`` of one entry."""
    if entry.title_is_label and entry.title.startswith(LABEL_MARKER):
        fields = [("title", "{" + LABEL_MARKER + "} " + _title(entry.title[len(LABEL_MARKER) :]))]
    else:
        fields = [("title", _title(entry.title))]
    if entry.authors:
        fields.append(("author", " and ".join(_author(a) for a in entry.authors)))
    kind = entry.kind
    if entry.venue and kind == "journal":
        fields.append(("journal", latex_escape(entry.venue.name)))
    elif entry.venue:
        fields.append(("booktitle", latex_escape(entry.venue.name)))
    if entry.venue and entry.venue.publisher:
        fields.append(("publisher", latex_escape(entry.venue.publisher)))
    if entry.year:
        fields.append(("year", str(entry.year)))
    if entry.url:
        fields.append(("url", _url(entry.url)))
    if entry.doi:
        fields.append(("doi", _url(entry.doi)))
    if entry.arxiv:
        fields += [("eprint", _url(entry.arxiv)), ("archiveprefix", "arXiv")]
    if entry.tags:
        fields.append(("keywords", latex_escape(", ".join(entry.tags))))
    fields.append(("abstract", latex_escape(entry.abstract)))
    if entry.title_is_label:
        fields.append(("titleaddon", latex_escape(LABEL_NOTE)))
    notes = [latex_escape(entry.full_note)] if entry.full_note else []
    if entry.code_url:  # biblatex has no code field: biber warns on one, Zotero files it away
        notes.append(r"Code: \url{" + _url(entry.code_url) + "}")
    if notes:
        fields.append(("note", " ".join(notes)))
    bibtype = {"conference": "inproceedings", "journal": "article"}.get(kind, "misc")
    return bibtype, fields


def bibtex_entry(entry: ExportEntry) -> str:
    """Return one BibTeX entry, ending with a blank line."""
    bibtype, fields = bibtex_fields(entry)
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{bibtype}{{{entry.key},\n{body}\n}}\n\n"


def write_bibtex(papers: Iterable[tuple[Paper, dict[str, Any]]]) -> Iterator[str]:
    """Yield one BibTeX entry per paper (``info["key"]`` is its citation key)."""
    for paper, info in papers:
        yield bibtex_entry(entry_of(paper, info))
