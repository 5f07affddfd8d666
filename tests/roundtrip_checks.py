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
    """What an export of ``paper`` must read back as: title (or marked label), authors, venue name, abstract."""
    venue = venue_info(paper.venue)
    published = (
        venue
        if not (paper.decision and any(w in paper.decision.lower() for w in ("reject", "withdraw", "desk")))
        else None
    )
    return {
        "title": norm(paper.display_label),
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
    from pybtex.plugin import find_plugin
    from pybtex.richtext import Text

    # render_as("text") looks the backend up among the installed entry points on every call
    # (three quarters of the time on 20k abstracts); render(backend) is what it then does.
    backend = find_plugin("pybtex.backends", "text")()

    def plain(latex: str) -> str:
        return norm(Text.from_latex(latex).render(backend))

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


def ris_fields(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Fields of RIS records read by rispy, shaped like :func:`bibtexparser_fields`.

    An author written "Family, Given" (or "Family, Suffix, Given") is read in reading order,
    "Given Family [Suffix]", as a reference manager shows it.
    """

    def name(text: str) -> str:
        parts = [p.strip() for p in text.split(",")]
        if len(parts) == 2:
            return norm(f"{parts[1]} {parts[0]}")
        if len(parts) == 3:
            return norm(f"{parts[2]} {parts[0]} {parts[1]}")
        return norm(text)

    return {
        r["id"]: {
            "title": norm(r.get("title")),
            "authors": [name(a) for a in r.get("authors", [])],
            "venue": norm(r.get("secondary_title")),
            "abstract": norm(r.get("abstract")),
        }
        for r in records
    }


def csl_fields(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Fields of CSL-JSON items, shaped like :func:`bibtexparser_fields` (names in reading order)."""

    def name(parts: dict[str, str]) -> str:
        if "literal" in parts:
            return norm(parts["literal"])
        return norm(" ".join(parts.get(k, "") for k in ("given", "family", "suffix")))

    return {
        i["id"]: {
            "title": norm(i.get("title")),
            "authors": [name(a) for a in i.get("author", [])],
            "venue": norm(i.get("container-title")),
            "abstract": norm(i.get("abstract")),
        }
        for i in items
    }


def _same_names(got: list[str], want: list[str]) -> bool:
    """Names equal, where a name the source wrote "Family, Given" may come back "Given Family"."""

    def reading_order(name: str) -> str:
        parts = name.split(", ")
        return f"{parts[1]} {parts[0]}" if len(parts) == 2 else name

    return len(got) == len(want) and all(g in (w, reading_order(w)) for g, w in zip(got, want, strict=True))


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
        out += [
            (paper.paper_id, name)
            for name in want
            if not (_same_names(got[name], want[name]) if name == "authors" else got[name] == want[name])
        ]
    return out


def csl_items(text: str) -> list[dict[str, Any]]:
    """Parse a CSL-JSON export strictly (NaN is refused)."""

    def refuse(value: str) -> None:
        raise ValueError(f"non-strict JSON constant {value}")

    return json.loads(text, parse_constant=refuse)


#: Characters pybtex's decoder (latexcodec) has no escape for (see paperscope/triage/bibtex_out.py).
PYBTEX_UNREADABLE = re.compile(r"[${}]")


def pybtex_differences(
    papers: list[Paper], keys: dict[str, str], text: str | dict[str, dict[str, Any]]
) -> tuple[int, list[tuple[str, str]]]:
    """Return (papers differing through pybtex, the differences not explained by ``$ { }`` in the text).

    ``text`` is the BibTeX, or what :func:`pybtex_fields` read from it.
    """
    by_id = {p.paper_id: p for p in papers}
    found = differences(papers, keys, pybtex_fields(text) if isinstance(text, str) else text)
    unexplained = [
        (pid, name) for pid, name in found if not PYBTEX_UNREADABLE.search(str(expected(by_id[pid])[name]))
    ]
    return len({pid for pid, _ in found}), unexplained
