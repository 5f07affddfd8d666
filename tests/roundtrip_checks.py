"""Read exports back with outside parsers and list what differs (shared by the export round-trip tests)."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

import bibtexparser
from bibtexparser.middlewares import LatexDecodingMiddleware

from paperscope.models import Paper
from paperscope.triage.venues import venue_info


def norm(text: str | None) -> str:
    """Whitespace-normalised, NFC-composed text (the comparison the round trips promise)."""
    return " ".join(unicodedata.normalize("NFC", text or "").split())


def expected(paper: Paper) -> dict[str, Any]:
    """What an export of ``paper`` must read back as: title (or label), authors, venue name, abstract."""
    venue = venue_info(paper.venue)
    published = (
        venue
        if not (paper.decision and any(w in paper.decision.lower() for w in ("reject", "withdraw", "desk")))
        else None
    )
    return {
        "title": norm(paper.title or paper.label),
        "authors": [norm(a) for a in paper.authors],
        "venue": norm(published.name) if published else "",
        "abstract": norm(paper.clean_text),
    }


def bibtexparser_fields(text: str) -> dict[str, dict[str, Any]]:
    """Parse BibTeX with bibtexparser 2 and its LaTeX decoding: ``{key: {title, authors, venue, abstract}}``.

    Authors are split by bibtexparser's ``SeparateCoAuthors`` (which respects braces, so a
    braced "A and B" stays one name) and each name decoded by the same pylatexenc decoder.
    """
    from bibtexparser.middlewares import SeparateCoAuthors
    from pylatexenc.latex2text import LatexNodes2Text

    library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    assert not library.failed_blocks, library.failed_blocks[:3]
    names = {
        e.key: e.fields_dict.get("author")
        for e in bibtexparser.parse_string(text, append_middleware=[SeparateCoAuthors()]).entries
    }
    decoder = LatexNodes2Text(math_mode="verbatim")
    out = {}
    for entry in library.entries:
        fields = entry.fields_dict
        authors = names[entry.key].value if names.get(entry.key) else []
        venue = fields.get("booktitle") or fields.get("journal")
        out[entry.key] = {
            "title": norm(fields["title"].value),
            "authors": [norm(decoder.latex_to_text(a)) for a in authors],
            "venue": norm(venue.value) if venue else "",
            "abstract": norm(fields["abstract"].value),
        }
    return out


def pybtex_fields(text: str) -> dict[str, dict[str, Any]]:
    """Parse BibTeX with pybtex, decoding text with its ``Text.from_latex``; same shape as above."""
    from pybtex.database import parse_string
    from pybtex.richtext import Text

    def plain(latex: str) -> str:
        return norm(Text.from_latex(latex).render_as("text"))

    data = parse_string(text, "bibtex")
    out = {}
    for key, entry in data.entries.items():
        persons = entry.persons.get("author", [])
        authors = [
            plain(" ".join(p.first_names + p.middle_names + p.prelast_names + p.last_names + p.lineage_names))
            for p in persons
        ]
        venue = entry.fields.get("booktitle") or entry.fields.get("journal") or ""
        out[key] = {
            "title": plain(entry.fields["title"]),
            "authors": authors,
            "venue": plain(venue),
            "abstract": plain(entry.fields["abstract"]),
        }
    return out


def differences(
    papers: list[Paper], keys: dict[str, str], parsed: dict[str, dict[str, Any]]
) -> list[tuple[str, str]]:
    """Return ``(paper_id, field)`` for every field that did not come back as written."""
    out = []
    for paper in papers:
        got = parsed.get(keys[paper.paper_id])
        if got is None:
            out.append((paper.paper_id, "missing"))
            continue
        want = expected(paper)
        out += [(paper.paper_id, name) for name in want if got[name] != want[name]]
    return out


def csl_items(text: str) -> list[dict[str, Any]]:
    """Parse a CSL-JSON export strictly (NaN is refused)."""

    def refuse(value: str) -> None:
        raise ValueError(f"non-strict JSON constant {value}")

    return json.loads(text, parse_constant=refuse)


#: Characters pybtex's decoder (latexcodec) has no escape for (see paperscope/triage/bibtex_out.py).
PYBTEX_UNREADABLE = re.compile(r"[${}]")


def pybtex_differences(
    papers: list[Paper], keys: dict[str, str], text: str
) -> tuple[int, list[tuple[str, str]]]:
    """Return (papers differing through pybtex, the differences not explained by ``$ { }`` in the text)."""
    by_id = {p.paper_id: p for p in papers}
    found = differences(papers, keys, pybtex_fields(text))
    unexplained = [
        (pid, name) for pid, name in found if not PYBTEX_UNREADABLE.search(str(expected(by_id[pid])[name]))
    ]
    return len({pid for pid, _ in found}), unexplained
