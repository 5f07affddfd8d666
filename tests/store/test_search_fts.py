"""papers_search_fts: a plain FTS5 index of papers' title and abstract, linked to papers for Datasette and SQL."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from paperscope import Library
from paperscope.store import SCHEMA_VERSION

#: The schema version before the linked full-text table (migrations 0-11).
_BEFORE_SEARCH_FTS = 12

#: Datasette's ``detect_fts_sql`` (datasette/utils/__init__.py, 0.4x to 1.0): the FTS tables of
#: ``table`` are the virtual tables whose SQL names it as their content (or that are named for it).
_DATASETTE_DETECT_FTS = r"""
    select name from sqlite_master
        where rootpage = 0
        and (
            sql like '%VIRTUAL TABLE%USING FTS%content="{table}"%'
            or sql like '%VIRTUAL TABLE%USING FTS%content=[{table}]%'
            or (
                tbl_name = "{table}"
                and sql like '%VIRTUAL TABLE%USING FTS%'
            )
        )
"""

_MATCH = (
    "SELECT p.paper_id FROM papers_search_fts s JOIN papers p ON p.rowid = s.rowid"
    " WHERE papers_search_fts MATCH ? ORDER BY s.rank, p.paper_id"
)


@pytest.fixture
def library_file(tmp_path: Path, icml_dir: Path) -> Path:
    """The first ICML 2026 list ingested (19 papers), closed."""
    path = tmp_path / "lib.db"
    with Library(path, embedder="fake") as lib:
        lib.ingest([sorted(icml_dir.glob("*.txt"))[0]], embed=False, cards=False)
    return path


def _integrity_check(conn: sqlite3.Connection) -> None:
    """FTS5's check of an external-content index against ``papers`` (raises when they differ)."""
    conn.execute("INSERT INTO papers_search_fts (papers_search_fts, rank) VALUES ('integrity-check', 1)")


def test_match_finds_the_paper_and_joins_to_papers(library_file: Path) -> None:
    conn = sqlite3.connect(library_file)
    # The two dataset distillation papers of the list, the one saying it more often first.
    assert conn.execute(_MATCH, ("distillation",)).fetchall() == [("6dcd10ba875e",), ("c0aa3d6d38f6",)]
    assert conn.execute(_MATCH, ('abstract:"multi modal" distillation',)).fetchall() == [("c0aa3d6d38f6",)]
    assert conn.execute("SELECT count(*) FROM papers_search_fts").fetchone() == (19,)
    _integrity_check(conn)


def test_datasette_detects_it_as_the_fts_table_of_papers(library_file: Path) -> None:
    conn = sqlite3.connect(library_file)
    found = conn.execute(_DATASETTE_DETECT_FTS.format(table="papers")).fetchall()
    assert found == [("papers_search_fts",)]
    # Datasette's search box runs this for ?_search= on the papers table.
    rows = conn.execute(
        "SELECT paper_id FROM papers WHERE rowid IN"
        " (SELECT rowid FROM papers_search_fts WHERE papers_search_fts MATCH :search) ORDER BY paper_id",
        {"search": "distillation"},
    ).fetchall()
    assert rows == [("6dcd10ba875e",), ("c0aa3d6d38f6",)]


def test_it_follows_every_change_to_papers(library_file: Path) -> None:
    with Library(library_file, embedder="fake") as lib, lib.store.transaction() as conn:
        conn.execute("UPDATE papers SET title = 'Quokka Sampling' WHERE paper_id = '6dcd10ba875e'")
        conn.execute(
            "UPDATE papers SET abstract = 'Now about zygomorphic flowers.' WHERE paper_id = 'c0aa3d6d38f6'"
        )
    conn = sqlite3.connect(library_file)
    assert conn.execute(_MATCH, ("quokka",)).fetchall() == [("6dcd10ba875e",)]
    assert conn.execute(_MATCH, ("title:quokka",)).fetchall() == [("6dcd10ba875e",)]
    assert conn.execute(_MATCH, ("zygomorphic",)).fetchall() == [("c0aa3d6d38f6",)]
    assert conn.execute(_MATCH, ("distillation",)).fetchall() == [("6dcd10ba875e",)]
    with conn:
        conn.execute("DELETE FROM papers WHERE paper_id = '6dcd10ba875e'")
    assert conn.execute(_MATCH, ("quokka",)).fetchall() == []
    assert conn.execute("SELECT count(*) FROM papers_search_fts").fetchone() == (18,)
    _integrity_check(conn)


def test_an_older_library_gains_it_filled_on_open(library_file: Path) -> None:
    conn = sqlite3.connect(library_file)
    with conn:
        for trigger in ("papers_search_insert", "papers_search_delete", "papers_search_update"):
            conn.execute(f"DROP TRIGGER {trigger}")
        conn.execute("DROP TABLE papers_search_fts")
    conn.execute(f"PRAGMA user_version = {_BEFORE_SEARCH_FTS}")
    conn.close()
    with Library(library_file, embedder="fake") as lib:
        assert lib.store.schema_version == SCHEMA_VERSION
    conn = sqlite3.connect(library_file)
    assert conn.execute("SELECT count(*) FROM papers_search_fts").fetchone() == (19,)
    assert conn.execute(_MATCH, ("distillation",)).fetchall() == [("6dcd10ba875e",), ("c0aa3d6d38f6",)]
    _integrity_check(conn)
