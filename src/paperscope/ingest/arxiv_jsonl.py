"""Reader for the arXiv metadata snapshot: JSON Lines, one paper per line, read lazily.

The snapshot (Kaggle's ``arxiv-metadata-oai-snapshot.json``, several GB) has ``id``, ``title``,
``abstract``, ``authors`` (a string) and ``authors_parsed`` (``[last, first, suffix]``),
``categories`` (space-separated, primary first), ``versions`` (``[{"version": "v1",
"created": "Mon, 2 Apr 2007 19:18:42 GMT"}, ...]``), ``update_date``, ``doi`` and
``journal-ref``. One line is decoded at a time, so memory stays constant however large the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..models import Record, Skip, Source
from .fields import arxiv_id, external_ids_from, split_authors
from .files import iter_json_lines

__all__ = ["FORMAT", "read_arxiv_jsonl", "is_arxiv_record"]

FORMAT = "arxiv-jsonl"

_YEAR_RE = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
_ARXIV_KEYS = {"versions", "authors_parsed", "update_date", "categories", "journal-ref", "submitter"}


def is_arxiv_record(item: Mapping[str, Any]) -> bool:
    """Return True for an object shaped like an arXiv snapshot record (id plus two arXiv-only keys)."""
    return "id" in item and "abstract" in item and len(_ARXIV_KEYS.intersection(item)) >= 2


def _year(item: Mapping[str, Any], paper_id: str) -> int | None:
    versions = item.get("versions")
    if isinstance(versions, list) and versions and isinstance(versions[0], dict):
        m = _YEAR_RE.search(str(versions[0].get("created", "")))
        if m:
            return int(m.group(1))
    m = re.match(r"(\d\d)(\d\d)\.", paper_id)  # new-style ids start with YYMM (since 2007)
    if m:
        return 2000 + int(m.group(1))
    m = _YEAR_RE.search(str(item.get("update_date", "")))
    return int(m.group(1)) if m else None


def _record(item: Mapping[str, Any], source: Source) -> Record | Skip:
    abstract = item.get("abstract")
    if not isinstance(abstract, str):
        return Skip(source.path, source.line, "no abstract")
    raw_id = str(item.get("id") or "").strip()
    paper_id = arxiv_id(raw_id)
    categories = str(item.get("categories") or "").split()
    urls = [f"https://arxiv.org/abs/{paper_id}"] if paper_id else []
    ids = external_ids_from(urls, doi=item.get("doi") if isinstance(item.get("doi"), str) else None)
    authors = item.get("authors_parsed") or item.get("authors")
    title = item.get("title")
    return Record(
        # The snapshot wraps abstracts at ~80 columns with a leading space: keep paragraphs only.
        abstract="\n".join(line.strip() for line in abstract.strip().split("\n")),
        source=source,
        title=" ".join(title.split()) if isinstance(title, str) else None,
        authors=split_authors(authors),
        venue="arXiv",
        year=_year(item, paper_id or raw_id),
        source_area=categories[0] if categories else None,
        keywords=categories,
        urls=urls,
        external_ids=ids,
    )


def read_arxiv_jsonl(path: Path, column_map: dict[str, str] | None = None) -> Iterator[Record | Skip]:
    """Yield one Record (or Skip) per line of an arXiv metadata snapshot.

    ``Source.line`` is the line number. Venue is ``arXiv``, year the year of the first
    version, ``source_area`` the primary category, and the arXiv id (version suffix removed)
    and DOI go to ``external_ids``. ``column_map`` is accepted for a uniform reader signature
    and ignored (the snapshot's fields are fixed).

    Raises:
        InputError: the file is missing, binary, empty or not UTF-8.

    """
    for entry in iter_json_lines(path):
        if isinstance(entry, Skip):
            yield entry
            continue
        number, item = entry
        if not isinstance(item, dict):
            yield Skip(str(path), number, f"not a JSON object ({type(item).__name__})")
            continue
        yield _record(item, Source(str(path), number, FORMAT))
