"""Papers, their provenance and their cards: insert, merge, read."""

from __future__ import annotations

import json
import sqlite3
from array import array
from collections.abc import Iterable, Iterator, Mapping
from typing import NamedTuple

from ..errors import InputError, NotFound
from ..models import Card, Paper, Source, marked_label
from .lexical import write_fts_rows

__all__ = [
    "existing_ids",
    "PaperSnapshot",
    "paper_snapshot",
    "insert_papers",
    "add_sources",
    "save_cards",
    "papers_needing_cards",
    "get_paper",
    "hit_rows",
    "HitRow",
    "iter_papers",
    "resolve_paper_id",
    "update_paper_fields",
    "add_dedup_keys",
    "all_dedup_keys",
    "find_dedup_keys",
    "dedup_rows",
    "papers_missing_dedup_keys",
    "mark_dedup_indexed",
    "set_cache_size",
]

_JSON_FIELDS = ("authors", "keywords", "urls", "external_ids")
_SCALAR_FIELDS = ("title", "venue", "year", "decision", "source_area", "abstract", "clean_text")
_CHUNK = 500  # bound parameters per IN (...) list, well under SQLite's limit
#: SQL, 1 when the paper's title came from a conference program: ``enrich`` attaches a title only
#: to a paper without one and ``enrich --undo`` deletes the row, so a row means the title now
#: shown is the program's (``Paper.title_source``; derived, no column of its own).
_PROGRAM_TITLE = "EXISTS (SELECT 1 FROM enrichments e WHERE e.paper_id = papers.paper_id) AS program_title"


def existing_ids(conn: sqlite3.Connection, paper_ids: Iterable[str]) -> set[str]:
    """Return the subset of ``paper_ids`` already stored."""
    ids = list(paper_ids)
    found: set[str] = set()
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        found.update(
            r[0] for r in conn.execute(f"SELECT paper_id FROM papers WHERE paper_id IN ({marks})", chunk)
        )
    return found


def insert_papers(
    conn: sqlite3.Connection,
    papers: list[Paper],
    content_hashes: list[str],
    analysed: Mapping[str, tuple[str, str, str]] | None = None,
) -> None:
    """Insert new papers with their sources, cards and lexical index rows (call inside a transaction).

    The lexical index row is written by :func:`paperscope.store.lexical.write_fts_rows`;
    ``analysed`` maps a content hash to its row's ``(title, body, exact)`` columns made already
    (``load`` passes those ``build`` made), so a paper whose stored title and text hash to it is
    not analysed again.
    """
    conn.executemany(
        "INSERT INTO papers (paper_id, abstract, clean_text, title, authors, venue, year, decision,"
        " keywords, source_area, urls, external_ids, content_hash, dedup_indexed)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,1)",
        [
            (
                p.paper_id,
                p.abstract,
                p.clean_text,
                p.title,
                json.dumps(p.authors, ensure_ascii=False),
                p.venue,
                p.year,
                p.decision,
                json.dumps(p.keywords, ensure_ascii=False),
                p.source_area,
                json.dumps(p.urls, ensure_ascii=False),
                json.dumps(p.external_ids, ensure_ascii=False),
                h,
            )
            for p, h in zip(papers, content_hashes, strict=True)
        ],
    )
    made = analysed or {}
    write_fts_rows(
        conn,
        (
            (p.paper_id, p.title, p.clean_text, made.get(h))
            for p, h in zip(papers, content_hashes, strict=True)
        ),
    )
    add_sources(conn, [(p.paper_id, s) for p in papers for s in p.sources])
    save_cards(conn, [(p.paper_id, p.card) for p in papers if p.card is not None])


def add_sources(conn: sqlite3.Connection, sources: list[tuple[str, Source]]) -> int:
    """Record provenance entries; return how many were new (a known (path, line) is ignored)."""
    before = conn.total_changes
    conn.executemany(
        "INSERT OR IGNORE INTO sources (paper_id, path, line, format) VALUES (?,?,?,?)",
        [(pid, s.path, s.line, s.format) for pid, s in sources],
    )
    return conn.total_changes - before


def update_paper_fields(
    conn: sqlite3.Connection, paper: Paper, fields: Iterable[str], content_hash: str | None = None
) -> None:
    """Write the named metadata fields of ``paper`` to its stored row (call inside a transaction).

    ``fields`` are names of ``Paper`` metadata (title, authors, venue, year, decision, keywords,
    source_area, urls, external_ids) or its texts (abstract, clean_text: only when a title-less
    paper takes the text of the titled record merged into it, ``ingest.dedup.merge_fields``);
    ``paper_id`` never changes. A new title or clean text also updates the lexical index row,
    and ``content_hash`` (the hash of title and clean text that keys cached vectors) when given.
    """
    names = [f for f in fields if f in _SCALAR_FIELDS or f in _JSON_FIELDS]
    if not names:
        return
    values = [
        json.dumps(getattr(paper, f), ensure_ascii=False) if f in _JSON_FIELDS else getattr(paper, f)
        for f in names
    ]
    if content_hash is not None:
        names.append("content_hash")
        values.append(content_hash)
    assignments = ", ".join(f"{f} = ?" for f in names)
    conn.execute(f"UPDATE papers SET {assignments} WHERE paper_id = ?", [*values, paper.paper_id])
    if "title" in names or "clean_text" in names:
        write_fts_rows(conn, [(paper.paper_id, paper.title, paper.clean_text)])


class PaperSnapshot(NamedTuple):
    """A stored paper as it was: its ``papers`` row (column → value) and its card row, if any."""

    row: dict[str, object]
    card: tuple[object, ...] | None


def paper_snapshot(conn: sqlite3.Connection, paper_id: str) -> PaperSnapshot:
    """Return ``paper_id``'s stored row and card (label, data, extractor_version), to restore later.

    Raises:
        NotFound: no such paper.
    """
    row = conn.execute("SELECT * FROM papers WHERE paper_id = ?", (paper_id,)).fetchone()
    if row is None:
        raise NotFound(f"no paper {paper_id}")
    card = conn.execute(
        "SELECT label, data, extractor_version FROM cards WHERE paper_id = ?", (paper_id,)
    ).fetchone()
    return PaperSnapshot({k: row[k] for k in row.keys()}, tuple(card) if card else None)


def add_dedup_keys(conn: sqlite3.Connection, rows: Iterable[tuple[int, str]]) -> None:
    """Store near-duplicate keys ``(key, paper_id)`` (64-bit signed integers; see ``ingest/dedup.py``)."""
    conn.executemany("INSERT OR IGNORE INTO dedup_keys (key, paper_id) VALUES (?, ?)", rows)


def all_dedup_keys(conn: sqlite3.Connection) -> array:
    """Return every stored near-duplicate key (with repeats), as an ``array('q')`` of int64 (8 bytes each)."""
    return array("q", (row[0] for row in conn.execute("SELECT key FROM dedup_keys")))


def find_dedup_keys(conn: sqlite3.Connection, keys: Iterable[int]) -> dict[int, list[str]]:
    """Return the stored papers of each key that has any: ``{key: [paper_id, ...]}``."""
    wanted = list(dict.fromkeys(keys))
    found: dict[int, list[str]] = {}
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for key, paper_id in conn.execute(
            f"SELECT key, paper_id FROM dedup_keys WHERE key IN ({marks})", chunk
        ):
            found.setdefault(key, []).append(paper_id)
    return found


def dedup_rows(
    conn: sqlite3.Connection, paper_ids: Iterable[str]
) -> dict[str, tuple[str | None, str, dict[str, str]]]:
    """Return ``{paper_id: (title, clean_text, external_ids)}`` for the stored papers among ``paper_ids``."""
    ids = list(dict.fromkeys(paper_ids))
    out: dict[str, tuple[str | None, str, dict[str, str]]] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(
            f"SELECT paper_id, title, clean_text, external_ids FROM papers WHERE paper_id IN ({marks})", chunk
        ):
            out[row[0]] = (row[1], row[2], json.loads(row[3]))
    return out


def papers_missing_dedup_keys(conn: sqlite3.Connection, limit: int) -> list[Paper]:
    """Return up to ``limit`` stored papers whose near-duplicate keys were never computed.

    Papers stored before schema version 4 (or by code that does not compute keys) have none.
    Only the fields dedup reads are filled in the returned Papers.
    """
    rows = conn.execute(
        "SELECT paper_id, title, clean_text, external_ids FROM papers WHERE dedup_indexed = 0 LIMIT ?",
        (limit,),
    ).fetchall()
    return [
        Paper(paper_id=r[0], abstract="", clean_text=r[2], title=r[1], external_ids=json.loads(r[3]))
        for r in rows
    ]


def mark_dedup_indexed(conn: sqlite3.Connection, paper_ids: Iterable[str]) -> None:
    """Record that the near-duplicate keys of these papers are stored."""
    conn.executemany("UPDATE papers SET dedup_indexed = 1 WHERE paper_id = ?", [(p,) for p in paper_ids])


def save_cards(conn: sqlite3.Connection, cards: list[tuple[str, Card]]) -> None:
    """Insert or replace cards (call inside a transaction); each card's ``to_json`` is stored."""
    conn.executemany(
        "INSERT OR REPLACE INTO cards (paper_id, label, data, extractor_version) VALUES (?,?,?,?)",
        [(pid, c.label, c.to_json(), c.extractor_version) for pid, c in cards],
    )


def papers_needing_cards(conn: sqlite3.Connection, version: str, rebuild: bool = False) -> Iterator[Paper]:
    """Yield papers whose card is missing or of another extractor version (every paper if ``rebuild``).

    Streams 500 papers at a time in rowid order, so cards can be saved while iterating;
    sources and cards are not loaded (card building needs neither).
    """
    sql = "SELECT papers.paper_id FROM papers LEFT JOIN cards USING (paper_id)"
    if not rebuild:
        sql += " WHERE cards.extractor_version IS NULL OR cards.extractor_version != ?"
    ids = [r[0] for r in conn.execute(sql + " ORDER BY papers.rowid", () if rebuild else (version,))]
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        rows = {
            r["paper_id"]: r for r in conn.execute(f"SELECT * FROM papers WHERE paper_id IN ({marks})", chunk)
        }
        for paper_id in chunk:
            yield _paper_from_row(rows[paper_id], [], None)


def _card_from_json(data: str) -> Card:
    raw = json.loads(data)
    known = {k: raw.pop(k) for k in ("label", "method_names", "code_urls", "extractor_version") if k in raw}
    return Card(**known, extra=raw)


def _paper_from_row(row: sqlite3.Row, sources: list[Source], card: Card | None) -> Paper:
    return Paper(
        paper_id=row["paper_id"],
        abstract=row["abstract"],
        clean_text=row["clean_text"],
        title=row["title"],
        authors=json.loads(row["authors"]),
        venue=row["venue"],
        year=row["year"],
        decision=row["decision"],
        keywords=json.loads(row["keywords"]),
        source_area=row["source_area"],
        urls=json.loads(row["urls"]),
        external_ids=json.loads(row["external_ids"]),
        sources=sources,
        card=card,
        is_program_title=bool(row["program_title"]) if "program_title" in row.keys() else False,
    )


def get_paper(conn: sqlite3.Connection, paper_id: str) -> Paper:
    """Return one stored paper with its sources and card.

    Raises:
        NotFound: no paper has this ``paper_id``.

    """
    row = conn.execute(f"SELECT *, {_PROGRAM_TITLE} FROM papers WHERE paper_id = ?", (paper_id,)).fetchone()
    if row is None:
        raise NotFound(f"no paper with paper_id {paper_id!r}; try `paperscope search` to find one")
    sources = [
        Source(r["path"], r["line"], r["format"])
        for r in conn.execute(
            "SELECT path, line, format FROM sources WHERE paper_id = ? ORDER BY rowid", (paper_id,)
        )
    ]
    card_row = conn.execute("SELECT data FROM cards WHERE paper_id = ?", (paper_id,)).fetchone()
    return _paper_from_row(row, sources, _card_from_json(card_row["data"]) if card_row else None)


class HitRow(NamedTuple):
    """What a search hit shows of one paper (the texts feed its snippet and matched terms)."""

    label: str
    sources: list[Source]
    title: str | None
    clean_text: str
    title_source: str
    venue: str | None
    year: int | None
    authors: list[str]
    decision: str | None
    area: str | None
    has_code: bool
    links: dict[str, str]

    @property
    def display_label(self) -> str:
        """The label as shown to a person (see :attr:`Paper.display_label`)."""
        return marked_label(self.label, self.title_source)


def hit_rows(conn: sqlite3.Connection, paper_ids: list[str]) -> dict[str, HitRow]:
    """Return ``paper_id -> HitRow`` for the listed papers that exist.

    The label is :attr:`Paper.label` (title, else the card's label, else the first words) and
    ``title_source`` :attr:`Paper.title_source`;
    ``area`` is the card's area label (the source's own area when the record had one, else the
    predicted one), else the source area; ``links`` come from
    :func:`paperscope.links.paper_links`. Three queries for all the ids together, reading only
    the columns and card fields a hit needs; calling :func:`get_paper` per hit read each whole
    row, its JSON fields and card (~0.1 ms a hit).
    """
    from ..links import paper_links

    out: dict[str, HitRow] = {}
    for start in range(0, len(paper_ids), _CHUNK):
        chunk = paper_ids[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        sources: dict[str, list[Source]] = {}
        for r in conn.execute(
            f"SELECT paper_id, path, line, format FROM sources WHERE paper_id IN ({marks}) ORDER BY rowid",
            chunk,
        ):
            sources.setdefault(r[0], []).append(Source(r[1], r[2], r[3]))
        cards = {
            r[0]: r[1:]
            for r in conn.execute(
                "SELECT paper_id, label, json_extract(data, '$.area.label'),"
                " json_extract(data, '$.code_urls'), json_extract(data, '$.project_urls')"
                f" FROM cards WHERE paper_id IN ({marks})",
                chunk,
            )
        }
        for r in conn.execute(
            "SELECT paper_id, title, clean_text, venue, year, authors, decision, source_area, urls,"
            f" external_ids, {_PROGRAM_TITLE} FROM papers WHERE paper_id IN ({marks})",
            chunk,
        ):
            paper_id, title, clean_text = r[0], r[1], r[2]
            label, card_area, code_json, project_json = cards.get(paper_id, (None, None, None, None))
            code_urls = json.loads(code_json) if code_json else []
            card = None if label is None else Card(label=label)
            paper = Paper(paper_id, "", clean_text, title, card=card, is_program_title=bool(r[10]))
            out[paper_id] = HitRow(
                label=paper.label,
                sources=sources.get(paper_id, []),
                title=title,
                clean_text=clean_text,
                title_source=paper.title_source,
                venue=r[3],
                year=r[4],
                authors=json.loads(r[5]),
                decision=r[6],
                area=card_area or r[7],
                has_code=bool(code_urls),
                links=paper_links(
                    json.loads(r[8]),
                    json.loads(r[9]),
                    code_urls,
                    json.loads(project_json) if project_json else [],
                ),
            )
    return out


def iter_papers(conn: sqlite3.Connection, decision: str | None = None) -> Iterator[Paper]:
    """Yield every stored paper, oldest first, with sources and cards (streams; constant memory).

    With ``decision`` set, only papers whose stored decision/status equals it (case-insensitive:
    ``"reject"`` matches ``Reject``) are yielded.
    """
    sources: dict[str, list[Source]] = {}
    for r in conn.execute("SELECT paper_id, path, line, format FROM sources ORDER BY rowid"):
        sources.setdefault(r["paper_id"], []).append(Source(r["path"], r["line"], r["format"]))
    where, params = (
        ("", ()) if decision is None else (" WHERE papers.decision = ? COLLATE NOCASE", (decision,))
    )
    cursor = conn.execute(
        f"SELECT papers.*, cards.data AS card_data, {_PROGRAM_TITLE} FROM papers"
        f" LEFT JOIN cards USING (paper_id){where} ORDER BY papers.rowid",
        params,
    )
    for row in cursor:
        card = _card_from_json(row["card_data"]) if row["card_data"] else None
        yield _paper_from_row(row, sources.get(row["paper_id"], []), card)


def resolve_paper_id(conn: sqlite3.Connection, prefix: str) -> str:
    """Return the full ``paper_id`` that starts with ``prefix`` (at least 4 characters).

    Raises:
        InputError: the prefix is shorter than 4 characters or matches several papers.
        NotFound: no paper matches.

    """
    prefix = prefix.strip().lower()
    if len(prefix) < 4 or not all(c in "0123456789abcdef" for c in prefix):
        raise InputError(f"{prefix!r} is not a paper_id (12 hex characters, or a prefix of 4 or more)")
    rows = conn.execute(
        "SELECT paper_id FROM papers WHERE paper_id >= ? AND paper_id < ? LIMIT 2",
        (prefix, prefix + "g"),
    ).fetchall()
    if not rows:
        raise NotFound(f"no paper with paper_id {prefix!r}; try `paperscope search` to find one")
    if len(rows) > 1:
        raise InputError(f"paper_id prefix {prefix!r} matches several papers; give more characters")
    return str(rows[0][0])


def set_cache_size(conn: sqlite3.Connection, size_bytes: int) -> None:
    """Let SQLite keep up to ``size_bytes`` of pages in memory on this connection.

    Bulk ingest inserts into B-trees keyed by hashes (paper_id, near-duplicate keys), so each
    insert touches a random page; with SQLite's default 2 MiB cache a 600k-paper transaction
    spilled and re-read its pages ~30 times over (126 GB read for a 4 GB write-ahead log).
    """
    conn.execute(f"PRAGMA cache_size = -{max(1, size_bytes // 1024)}")
