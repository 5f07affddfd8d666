"""SQL that retrieval needs besides FTS5 matching: the papers a filter allows, term statistics."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from ..analyzer import stem_tokens

__all__ = ["filtered_paper_ids", "document_frequencies", "dataset_key"]


#: A dataset name's matching key in SQL: lower case without spaces, hyphens, underscores or dots.
_NAME_KEY_SQL = "replace(replace(replace(replace(lower({}), ' ', ''), '-', ''), '_', ''), '.', '')"


def dataset_key(name: str) -> str:
    """Return the matching key of a dataset name: ``"CIFAR 10"``, ``"cifar10"`` and ``"CIFAR-10"`` agree."""
    return "".join(ch for ch in name.strip().lower() if ch not in " -_.")


def filtered_paper_ids(
    conn: sqlite3.Connection,
    venue: str | None = None,
    year: int | None = None,
    decision: str | None = None,
    source_area: str | None = None,
    has_code: bool | None = None,
    dataset: str | None = None,
    contribution: str | None = None,
    area: str | None = None,
) -> set[str] | None:
    """Return the paper_ids that pass every given filter, or None when no filter is given.

    ``venue`` matches case-insensitively and exactly; ``decision`` and ``source_area`` match
    case-insensitively as substrings (``"oral"`` matches ``"ICLR 2026 Oral"``), through
    ``instr`` so ``%`` and ``_`` are plain characters. The card facets: ``has_code`` asks for
    at least one code URL on the paper's card; ``dataset`` for a dataset of that name on the
    card (whole name, ignoring case, spaces, hyphens, underscores and dots: ``cifar10`` and
    ``CIFAR 10`` match ``CIFAR-10``, not ``CIFAR-100``);
    ``contribution`` for that contribution type; ``area`` for a card area label containing the
    text (the source's own area when the record had one, else the predicted one). A paper with
    no card passes no card facet. Values are bound parameters, never pasted into SQL.
    """
    clauses: list[str] = []
    params: list[object] = []
    if venue is not None:
        clauses.append("lower(p.venue) = lower(?)")
        params.append(venue.strip())
    if year is not None:
        clauses.append("p.year = ?")
        params.append(int(year))
    if decision is not None:
        clauses.append("instr(lower(coalesce(p.decision, '')), lower(?)) > 0")
        params.append(decision.strip())
    if source_area is not None:
        clauses.append("instr(lower(coalesce(p.source_area, '')), lower(?)) > 0")
        params.append(source_area.strip())
    if has_code is not None:
        code = (
            "EXISTS (SELECT 1 FROM cards c WHERE c.paper_id = p.paper_id"
            " AND json_array_length(json_extract(c.data, '$.code_urls')) > 0)"
        )
        clauses.append(code if has_code else f"NOT {code}")
    if dataset is not None:
        clauses.append(
            "EXISTS (SELECT 1 FROM cards c, json_each(c.data, '$.datasets') d"
            " WHERE c.paper_id = p.paper_id AND "
            + _NAME_KEY_SQL.format("json_extract(d.value, '$.name')")
            + " = ?)"
        )
        params.append(dataset_key(dataset))
    if contribution is not None:
        clauses.append(
            "EXISTS (SELECT 1 FROM cards c, json_each(c.data, '$.contribution_types') t"
            " WHERE c.paper_id = p.paper_id AND json_extract(t.value, '$.type') = lower(?))"
        )
        params.append(contribution.strip())
    if area is not None:
        clauses.append(
            "EXISTS (SELECT 1 FROM cards c WHERE c.paper_id = p.paper_id"
            " AND instr(lower(coalesce(json_extract(c.data, '$.area.label'), '')), lower(?)) > 0)"
        )
        params.append(area.strip())
    if not clauses:
        return None
    sql = "SELECT p.paper_id FROM papers p WHERE " + " AND ".join(clauses)
    return {row[0] for row in conn.execute(sql, params)}


def document_frequencies(conn: sqlite3.Connection, words: Iterable[str]) -> dict[str, int]:
    """Return how many papers hold each word in title or body (FTS5 ``fts5vocab``), by its stem.

    Words are folded tokens as written (``paperscope.text.tokenize``); each is looked up by its
    stem (:func:`paperscope.analyzer.stem_tokens`), as the index holds them, so ``"transformers"``
    counts the papers with "transformer" too. Keyed by the given word; unknown words are left out.
    """
    given = list(dict.fromkeys(words))
    if not given:
        return {}
    stem_of = dict(zip(given, stem_tokens(given), strict=True))
    wanted = list(dict.fromkeys(stem_of.values()))
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.papers_fts_terms USING fts5vocab(main, papers_fts, row)"
    )
    found: dict[str, int] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        # The `row` table counts a paper once whatever columns hold the term. It counts the exact
        # column too, whose words (stem differs from word) equal a stem only where the stemmer is
        # not idempotent and a text holds that stem as a word ("agre" of "agreed"): negligible.
        for term, doc in conn.execute(
            f"SELECT term, doc FROM temp.papers_fts_terms WHERE term IN ({marks})", chunk
        ):
            found[term] = int(doc)
    return {w: found[s] for w, s in stem_of.items() if s in found}
