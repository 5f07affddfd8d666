"""From a source's own field names and value shapes to a Record: shared by the JSON and CSV readers.

Paper lists name the same field many ways (``author``/``authors``, ``status``/``decision``,
``site``/``url``/``openreview_url``) and shape values differently (keywords as a list or a
``;``- or ``,``-separated string). This module holds the one alias table and the value
parsers; each reader only decides where records start and what their line or record number is.
Fields outside the table (e-mail, gender, homepage, ORCID, affiliations, ratings…) are never
read, so they can never be stored or shown.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..models import Record, Skip, Source
from ..text import find_urls, latex_to_text

__all__ = [
    "FIELDS",
    "FIELD_ALIASES",
    "NA_STRINGS",
    "is_missing",
    "normalise_key",
    "parse_column_map",
    "resolve_columns",
    "mapping_to_record",
    "split_venue",
    "canonical_venue",
    "venue_year_from_name",
    "split_list",
    "split_authors",
    "external_ids_from",
    "arxiv_id",
]

#: Record fields a source column can fill, each with the names it goes by (after
#: ``normalise_key``), best first. ``url`` gathers every link column.
FIELD_ALIASES: dict[str, tuple[str, ...]] = {
    "title": ("title", "paper_title", "papertitle"),
    "abstract": ("abstract", "summary", "abstract_text", "paper_abstract", "paperabstract", "abstractnote"),
    "authors": ("authors", "author", "author_names", "authornames", "creators"),
    "keywords": ("keywords", "keyword", "author_keywords", "tags", "subjects"),
    "venue": ("venue", "conference", "booktitle", "journal", "proceedings"),
    "year": ("year", "publication_year", "pub_year"),
    "decision": ("decision", "status", "recommendation", "outcome"),
    "area": (
        "primary_area",
        "area",
        "subject_area",
        "research_area",
        "primary_category",
        "category",
        "topic",
    ),
    "url": (
        "site",
        "url",
        "paper_url",
        "link",
        "openreview_url",
        "openreview",
        "forum_url",
        "pdf",
        "pdf_url",
        "html_url",
        "github",
        "code",
        "code_url",
        "project",
        "project_url",
    ),
    "doi": ("doi",),
    "arxiv": ("arxiv_id", "arxivid", "arxiv", "eprint"),
    "openreview": ("forum", "forum_id", "openreview_id"),
}

#: The field names ``--map`` accepts.
FIELDS = tuple(FIELD_ALIASES)

_KEY_RE = re.compile(r"[\s\-./]+")
_YEAR_RE = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
_VENUE_RE = re.compile(r"^(?P<venue>.*?)[\s,'’]*(?P<year>(?:19|20)\d\d)(?!\d)[\s,:;\-–]*(?P<rest>.*)$")
_PAREN_VENUE_RE = re.compile(r"\(\s*([A-Z][A-Za-z&\-]{1,14}[A-Z])['’\s\-]*((?:19|20)\d\d)?\s*\)\s*$")
_OPENREVIEW_RE = re.compile(r"openreview\.net/(?:forum|pdf|attachment)\?(?:.*&)?id=([A-Za-z0-9_\-]+)")
_ARXIV_URL_RE = re.compile(r"arxiv\.org/(?:abs|pdf)/([a-z\-]+(?:\.[A-Z]{2})?/\d{7}|\d{4}\.\d{4,5})", re.I)
_ARXIV_ID_RE = re.compile(r"^(?:arxiv:)?([a-z\-]+(?:\.[A-Z]{2})?/\d{7}|\d{4}\.\d{4,5})(?:v\d+)?$", re.I)
_DOI_RE = re.compile(r"\b(10\.\d{4,9}/\S+)", re.I)
_AUTHOR_SPLIT_RE = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*")

#: Venue spellings as the venues write them; other names keep the source's spelling
#: (all-lowercase short names are upper-cased: ``cvpr`` → ``CVPR``).
_VENUE_NAMES = {
    name.lower(): name
    for name in (
        "NeurIPS ICLR ICML CVPR ICCV ECCV WACV COLM IJCAI AAAI ACL EMNLP NAACL EACL COLING KDD WWW SIGIR "
        "AISTATS UAI CoRL COLT TMLR JMLR MLSys ICRA IROS RSS ICASSP Interspeech MICCAI arXiv"
    ).split()
}
_VENUE_NAMES["nips"] = "NeurIPS"


def normalise_key(name: str) -> str:
    """Return a field or column name as the alias table spells it: lowercase, ``_`` for separators."""
    return _KEY_RE.sub("_", name.strip().lstrip("\ufeff").lower()).strip("_")


def parse_column_map(spec: str | None) -> dict[str, str]:
    """Parse ``--map title=Paper,abstract=Summary`` into ``{"title": "Paper", "abstract": "Summary"}``.

    Raises:
        InputError: a pair has no ``=``, or names a field outside ``FIELDS``.

    """
    if not spec or not spec.strip():
        return {}
    out: dict[str, str] = {}
    for pair in spec.split(","):
        if not pair.strip():
            continue
        name, sep, column = pair.partition("=")
        field = normalise_key(name)
        if not sep or not column.strip():
            raise InputError(f"--map: {pair.strip()!r} is not FIELD=COLUMN (e.g. title=Paper)")
        if field not in FIELD_ALIASES:
            raise InputError(f"--map: unknown field {name.strip()!r}; choose from: {', '.join(FIELDS)}")
        out[field] = column.strip()
    return out


def resolve_columns(
    names: Iterable[str], column_map: Mapping[str, str] | None = None, path: str | None = None
) -> dict[str, list[str]]:
    """Return, for each field, the source names that may fill it, best first.

    Names given with ``--map`` win (and are then the only name for their field); the others
    are inferred from ``FIELD_ALIASES`` (case, spaces and dashes ignored). Names that differ only
    in case or spacing (``abstract``, ``Abstract``, ``ABSTRACT ``) are all kept, in source order, so
    a record takes the first non-empty of them (``url`` takes all) and none is dropped unseen.
    Each source name fills at most one field.

    Raises:
        InputError: a ``--map`` column is not among ``names`` (the message lists them).

    """
    names = list(names)
    by_key: dict[str, list[str]] = {}
    for name in names:
        spellings = by_key.setdefault(normalise_key(name), [])
        if name not in spellings:
            spellings.append(name)  # ``abstract``, ``Abstract``, ``ABSTRACT `` all fill the field
    used: set[str] = set()
    out: dict[str, list[str]] = {}
    for field, column in (column_map or {}).items():
        key = normalise_key(column)
        if key not in by_key:
            raise InputError(
                f"--map {field}={column}: no such column; the columns are: {', '.join(names)}", path
            )
        exact = [n for n in by_key[key] if n == column]
        out[field] = exact + [n for n in by_key[key] if n != column]
        used.add(key)
    for field, aliases in FIELD_ALIASES.items():
        if field in out:
            continue
        found = [name for a in aliases if a in by_key and a not in used for name in by_key[a]]
        if found:
            out[field] = found
            used.update(normalise_key(f) for f in found)
    return out


def canonical_venue(name: str | None) -> str | None:
    """Return a venue name in its usual spelling (``neurips`` → ``NeurIPS``), or None when blank."""
    if not name or not name.strip():
        return None
    name = " ".join(name.split())
    known = _VENUE_NAMES.get(name.lower())
    if known:
        return known
    if name.islower() and len(name) <= 8:
        return name.upper()
    return name


def split_venue(text: str | None) -> tuple[str | None, int | None, str | None]:
    """Split ``"ICLR 2026 Oral"`` into ``("ICLR", 2026, "Oral")``; missing parts are None.

    A string without a year is all venue (``"ICML"`` → ``("ICML", None, None)``). A long name
    ending with its acronym in parentheses is that acronym (``"International Conference on
    Machine Learning (ICML 2026)"`` → ``("ICML", 2026, None)``).
    """
    if not text or not text.strip():
        return None, None, None
    paren = _PAREN_VENUE_RE.search(text)
    if paren:  # "Proceedings of the ... Conference on Machine Learning (ICML 2026)"
        year = paren.group(2)
        return canonical_venue(paren.group(1)), int(year) if year else None, None
    m = _VENUE_RE.match(" ".join(text.split()))
    if not m:
        return canonical_venue(text), None, None
    rest = m.group("rest").strip(" ()[]")
    return canonical_venue(m.group("venue").strip(" ,(")), int(m.group("year")), rest or None


def venue_year_from_name(path: Path) -> tuple[str | None, int | None]:
    """Return the venue and year a file name states (``iclr2017.json``, ``icml_2022.json``), else Nones."""
    m = re.fullmatch(r"([A-Za-z][A-Za-z&]{1,19})[_\- ]?((?:19|20)\d\d)", path.stem)
    if not m:
        return None, None
    return canonical_venue(m.group(1)), int(m.group(2))


#: Cell values that mean "no value" (pandas' default ``na_values``; spreadsheets and R write them).
NA_STRINGS = frozenset(
    (
        "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
        "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
    )
)  # fmt: skip


def is_missing(value: Any) -> bool:
    """Return True for a value that holds nothing: None, blank text, an NA marker, NaN/inf, an empty list."""
    if value is None or isinstance(value, bool):
        return value is None
    if isinstance(value, str):
        text = value.strip()
        return not text or text in NA_STRINGS
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, list | dict):
        return not value
    return False


def _year(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 1900 <= value <= 2100 else None
    if isinstance(value, float) and value.is_integer():
        return _year(int(value))
    if isinstance(value, str):
        m = _YEAR_RE.search(value)
        return int(m.group(1)) if m else None
    return None


def _text(value: Any) -> str | None:
    """Return a scalar as stripped text (None when empty); lists are joined by ``; ``."""
    if is_missing(value) or isinstance(value, bool):
        return None
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int):
        return str(value) if abs(value) < 10**64 else None
    if isinstance(value, float):
        return str(value)
    if isinstance(value, list):
        parts = [t for t in (_text(v) for v in value) if t]
        return "; ".join(parts) or None
    if isinstance(value, dict):  # an OpenReview v2 value object, or a language map
        for key in ("value", "text", "en", "name"):
            if key in value:
                return _text(value[key])
    return None


def split_list(value: Any) -> list[str]:
    """Return keywords as a list: a list as is, a string split on ``;`` (else on ``,``); no blanks or repeats."""
    if value is None:
        return []
    if isinstance(value, list):
        items = [t for t in (_text(v) for v in value) if t]
    elif isinstance(value, str):
        sep = ";" if ";" in value else ","
        items = [part.strip() for part in value.split(sep)]
    else:
        return []
    seen: dict[str, None] = {}
    for item in items:
        item = item.strip().rstrip(".").strip()
        if item and item.casefold() not in {k.casefold() for k in seen}:
            seen[item] = None
    return list(seen)


def _author_name(value: Any) -> str | None:
    if isinstance(value, dict):
        name = _text(value.get("name") or value.get("fullname") or value.get("full_name"))
        if name:
            return name
        given = _text(value.get("given") or value.get("first") or value.get("first_name")) or ""
        family = _text(value.get("family") or value.get("last") or value.get("last_name")) or ""
        return f"{given} {family}".strip() or None
    if isinstance(value, list):
        # arXiv's authors_parsed: [last, first, suffix]
        parts = [_text(v) or "" for v in value]
        if len(parts) >= 2:
            return " ".join(p for p in (parts[1], parts[0], *parts[2:]) if p) or None
        return parts[0] if parts else None
    return _text(value)


def split_authors(value: Any) -> list[str]:
    r"""Return author names: a list as is, ``;``-separated text, or ``A, B and C`` text.

    LaTeX accents in names become Unicode (``Bal\'azs`` → ``Balázs``).
    """
    if value is None:
        return []
    if isinstance(value, list):
        names = [_author_name(v) for v in value]
    elif isinstance(value, str):
        parts = value.split(";") if ";" in value else _AUTHOR_SPLIT_RE.split(value)
        names = [p.strip() for p in parts]
    else:
        names = [_author_name(value)]
    out: list[str] = []
    for name in names:
        if not name:
            continue
        if "\\" in name or "{" in name:
            name = latex_to_text(name).replace("{", "").replace("}", "")
        name = " ".join(name.split())
        if name and name not in out:
            out.append(name)
    return out


def arxiv_id(value: str | None) -> str | None:
    """Return an arXiv id without its version suffix (``2101.00001v2`` → ``2101.00001``), or None.

    The id may be written as an abs or pdf URL (``https://arxiv.org/abs/2101.00001v2``).
    """
    if not value:
        return None
    m = _ARXIV_ID_RE.match(value.strip()) or _ARXIV_URL_RE.search(value)
    return m.group(1) if m else None


def external_ids_from(
    urls: Iterable[str], doi: str | None = None, arxiv: str | None = None, openreview: str | None = None
) -> dict[str, str]:
    """Return ``{"openreview": forum id, "arxiv": id without version, "doi": lowercased DOI}`` found.

    Explicit values win over ids read from URLs; unknown shapes are ignored.
    """
    ids: dict[str, str] = {}
    if openreview and re.fullmatch(r"[A-Za-z0-9_\-]{5,}", openreview.strip()):
        ids["openreview"] = openreview.strip()
    elif openreview and (m := _OPENREVIEW_RE.search(openreview)):  # the forum's URL
        ids["openreview"] = m.group(1)
    if arxiv_id(arxiv):
        ids["arxiv"] = str(arxiv_id(arxiv))
    if doi:
        m = _DOI_RE.search(doi)
        if m:
            ids["doi"] = m.group(1).rstrip(".,;").lower()
    for url in urls:
        m = _OPENREVIEW_RE.search(url)
        if m:
            ids.setdefault("openreview", m.group(1))
        m = _ARXIV_URL_RE.search(url)
        if m:
            ids.setdefault("arxiv", m.group(1))
        if "doi.org/" in url:
            m = _DOI_RE.search(url)
            if m:
                ids.setdefault("doi", m.group(1).rstrip(".,;").lower())
    return ids


_CODE_HOST_RE = re.compile(
    r"(?<![\w./@])(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org|codeberg\.org|huggingface\.co)/[\w.\-/]+[\w/]",
    re.IGNORECASE,
)


def _urls(values: Iterable[Any]) -> list[str]:
    """Return the links in URL fields, in order, without repeats.

    Whole URLs, URLs inside markdown or LaTeX (``text.find_urls``), and code-host links written
    without a scheme (``github.com/a/b`` → ``https://github.com/a/b``).
    """
    out: list[str] = []
    for value in values:
        items = value if isinstance(value, list) else [value]
        for item in items:
            if not isinstance(item, str) or not item.strip():
                continue
            found = find_urls(item) if "://" in item else []
            found += [f"https://{m.group(0)}" for m in _CODE_HOST_RE.finditer(item) if "://" not in item]
            for url in found:
                if url.lower().startswith(("http://", "https://")) and url not in out:
                    out.append(url)
    return out


def flatten_openreview(item: Mapping[str, Any]) -> dict[str, Any]:
    """Lift an OpenReview note's ``content`` (API v1 values, or v2 ``{"value": ...}``) to the top level."""
    content = item.get("content")
    if not isinstance(content, dict):
        return dict(item)
    flat = {k: v for k, v in item.items() if k != "content"}
    for key, value in content.items():
        if isinstance(value, dict) and "value" in value:
            value = value["value"]
        flat.setdefault(key, value)
    if "forum" in item and "openreview_id" not in flat:
        flat["openreview_id"] = item["forum"]
    return flat


def mapping_to_record(
    item: Mapping[str, Any],
    source: Source,
    columns: Mapping[str, list[str]],
    defaults: tuple[str | None, int | None] = (None, None),
) -> Record | Skip:
    """Return the Record of one source record, or a Skip saying why it cannot be one.

    Args:
        item: the record as the source gives it (a JSON object, or a CSV row by column name).
        source: where it was read (path, line or record number, format).
        columns: ``resolve_columns`` output for this source's field names.
        defaults: venue and year for records that state none (from the file name).

    Returns:
        A Record; a Skip (with ``source.line``) when the abstract is missing (absent, null,
        NaN, an NA marker such as ``N/A``) or not text. Where several columns may fill a field
        (repeated or case-variant names, aliases), the first non-missing value wins. Blank
        abstracts are returned as Records: the pipeline skips them after cleaning.

    """
    unit = "record" if source.format == "json" else "line"

    def first(field: str) -> Any:
        blank = None
        for name in columns.get(field, ()):
            value = item.get(name)
            if not is_missing(value):
                return value
            if blank is None and isinstance(value, str) and value and not value.strip():
                blank = value  # only spaces: the pipeline reports it as an empty abstract
        return blank

    abstract = first("abstract")
    if abstract is None:
        return Skip(source.path, source.line, "no abstract", unit)
    if isinstance(abstract, list) and all(isinstance(a, str) for a in abstract):
        abstract = "\n\n".join(abstract)
    elif isinstance(abstract, dict):
        abstract = _text(abstract) or abstract
    if not isinstance(abstract, str):
        return Skip(source.path, source.line, f"abstract is not text ({type(abstract).__name__})", unit)
    venue, year, decision = split_venue(_text(first("venue")))
    year = _year(first("year")) or year
    if venue is None and defaults[0]:
        venue = defaults[0]
        year = year or defaults[1]
    urls = _urls(item.get(name) for name in columns.get("url", ()))
    return Record(
        abstract=abstract,
        source=source,
        title=_text(first("title")),
        authors=split_authors(first("authors")),
        venue=venue,
        year=year,
        decision=_text(first("decision")) or decision,
        keywords=split_list(first("keywords")),
        source_area=_text(first("area")),
        urls=urls,
        external_ids=external_ids_from(
            urls, doi=_text(first("doi")), arxiv=_text(first("arxiv")), openreview=_text(first("openreview"))
        ),
    )
