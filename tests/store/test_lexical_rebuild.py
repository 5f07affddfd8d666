"""A library whose lexical index another analyzer built is rebuilt on open, and its old caches are not read."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import paperscope.library as library_module
from paperscope import Library
from paperscope.analyzer import LEXICAL_ANALYZER
from paperscope.index.bm25 import MemoryBM25
from paperscope.store import SCHEMA_VERSION, lexical, vectors
from paperscope.text import segment

#: The schema version of the libraries paperscope wrote before issue 24 (migrations 0-10).
_PRE_STEMMING_VERSION = 11


def _make_pre_stemming(path: Path) -> None:
    """Turn ``path`` into the file paperscope wrote before issue 24.

    The unstemmed three-column ``papers_fts`` of migration 0, filled as ``insert_papers`` then
    filled it (segmented title and clean text), no analyzer recorded, schema version 11.
    """
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DROP TABLE papers_fts")
        conn.execute(
            "CREATE VIRTUAL TABLE papers_fts USING fts5 ("
            " paper_id UNINDEXED, title, body, tokenize = 'unicode61 remove_diacritics 2')"
        )
        rows = conn.execute("SELECT paper_id, title, clean_text FROM papers ORDER BY rowid").fetchall()
        conn.executemany(
            "INSERT INTO papers_fts (paper_id, title, body) VALUES (?,?,?)",
            [
                (pid, segment(title or "", for_index=True), segment(text, for_index=True))
                for pid, title, text in rows
            ],
        )
        conn.execute("DELETE FROM library_state WHERE key = 'lexical_analyzer'")
    conn.execute(f"PRAGMA user_version = {_PRE_STEMMING_VERSION}")
    conn.close()


@pytest.fixture
def pre_stemming(tmp_path: Path, icml_dir: Path) -> Path:
    """A library of the first ICML list as paperscope wrote it before issue 24, with its BM25 cache."""
    path = tmp_path / "old.db"
    with Library(path, embedder="fake") as lib:
        lib.ingest([sorted(icml_dir.glob("*.txt"))[0]], embed=False)
        conn = lib.store.conn
        (top,) = conn.execute("SELECT max(rowid) FROM papers").fetchone()
        old_cache = lib._cache_dir() / f"bm25-{top}-g{vectors.library_generation(conn)}"
        rows = conn.execute("SELECT paper_id, title, clean_text FROM papers ORDER BY rowid")
        MemoryBM25.build(rows, stem=False).save(old_cache)  # the unstemmed statistics of then
    _make_pre_stemming(path)
    return path


def test_a_library_built_before_stemming_is_rebuilt_with_no_stale_statistics_read(pre_stemming, monkeypatch):
    old = sqlite3.connect(pre_stemming)
    assert old.execute("SELECT count(*) FROM papers_fts WHERE papers_fts MATCH 'optim'").fetchone() == (0,)
    n_papers = old.execute("SELECT count(*) FROM papers").fetchone()[0]
    old.close()
    loaded: list[Path] = []
    monkeypatch.setattr(library_module, "MEMORY_BM25_THRESHOLD", 1)
    monkeypatch.setattr(MemoryBM25, "load", classmethod(lambda cls, path, stem=True: loaded.append(path)))
    with Library(pre_stemming, embedder="fake") as lib:
        conn = lib.store.conn
        assert lib.store.schema_version == SCHEMA_VERSION
        columns = [row[1] for row in conn.execute("PRAGMA table_info(papers_fts)")]
        assert columns == ["paper_id", "title", "body", "exact"]
        state = conn.execute("SELECT value FROM library_state WHERE key = 'lexical_analyzer'").fetchone()
        assert state[0] == LEXICAL_ANALYZER
        assert lib.store.count("papers_fts") == n_papers
        # Stems in the index: "optimizers" finds the papers that say "optimization" only.
        fts_hits = lib.search("optimizers", mode="bm25", limit=50)
        assert "optimization" in {t for h in fts_hits for t in h.terms}
        old_cache = list(lib._cache_dir().glob("bm25-*"))
        assert [p.name.startswith("bm25-snowball") for p in old_cache] == [False]
        index = lib.memory_bm25()
        assert loaded == [] and "optim" in index.vocabulary and "optimization" not in index.vocabulary
        assert [p.name for p in lib._cache_dir().glob("bm25-*")] == [
            f"bm25-{LEXICAL_ANALYZER}-{n_papers}-g{vectors.library_generation(conn)}"
        ]
        assert [h.paper_id for h in lib.search("optimizers", mode="bm25", limit=50)] == [
            h.paper_id for h in fts_hits
        ]


def test_an_index_of_another_analyzer_is_rebuilt_once_with_a_line_for_big_libraries(
    tmp_path, icml_dir, capsys
):
    path = tmp_path / "lib.db"
    with Library(path, embedder="fake") as lib:
        lib.ingest([sorted(icml_dir.glob("*.txt"))[0]], embed=False)
        lib.store.conn.execute(
            "UPDATE library_state SET value = 'snowball-english-0' WHERE key = 'lexical_analyzer'"
        )
        lib.store.conn.execute("DELETE FROM papers_fts")
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lexical, "_LOUD_REBUILD", 10)
        with Library(path, embedder="fake") as lib:
            n = lib.store.count("papers")
            assert lib.store.count("papers_fts") == n > 10
    assert capsys.readouterr().err.endswith(
        f"rebuilt the lexical index for {LEXICAL_ANALYZER} ({n:,} papers)\n"
    )
    with Library(path, embedder="fake") as lib:  # recorded: the next open rebuilds nothing
        assert lib.store.count("papers_fts") == n
    assert "rebuilt" not in capsys.readouterr().err
