"""The lexical index row of a paper has the paper's rowid (migration 15, issue 28 item 3).

Before, a row was replaced by ``DELETE FROM papers_fts WHERE paper_id = ?`` on an UNINDEXED
column: one read of the whole index per paper written, so ingest and ``load`` slowed with every
paper (20,000 papers at 67 per second).
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import numpy as np

from paperscope import Library
from paperscope.index.bm25 import MemoryBM25
from paperscope.models import Paper
from paperscope.store import SCHEMA_VERSION, lexical
from paperscope.store import papers as stored_papers
from paperscope.store.lexical import EXACT_WEIGHT, TITLE_WEIGHT

_WORDS = (
    "graph neural network diffusion model sparse attention reinforcement learning policy gradient"
    " language model benchmark robust optimisation kernel bandit federated privacy vision transformer"
).split()


def _papers(n: int, seed: int, prefix: str) -> list[Paper]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        text = " ".join(rng.choice(_WORDS) for _ in range(60))
        out.append(Paper(paper_id=f"{prefix}{i:08x}", abstract=text, clean_text=text, title=f"Paper {i}"))
    return out


def _library_of(path: Path, n: int) -> Library:
    lib = Library(path)
    with lib.store.transaction() as conn:
        batch = _papers(n, seed=n, prefix="a")
        stored_papers.insert_papers(conn, batch, [p.paper_id for p in batch])
    return lib


def _one(conn: sqlite3.Connection, sql: str) -> int:
    return int(conn.execute(sql).fetchone()[0])


def _vm_steps(conn: sqlite3.Connection, action) -> int:  # type: ignore[no-untyped-def]
    """SQLite virtual-machine instructions ``action`` runs, in thousands (a progress handler's calls)."""
    calls = [0]

    def tick() -> int:
        calls[0] += 1
        return 0

    conn.set_progress_handler(tick, 1000)
    try:
        action()
    finally:
        conn.set_progress_handler(None, 0)
    return calls[0]


def test_writing_a_papers_row_costs_the_same_in_a_small_and_a_ten_times_larger_library(
    tmp_path: Path,
) -> None:
    steps = {}
    for n in (300, 3000):
        with _library_of(tmp_path / f"lib{n}.db", n) as lib:
            conn = lib.store.conn
            new = _papers(20, seed=1, prefix="b")
            edited = stored_papers.get_paper(conn, "a00000007")
            edited.title = "An edited title about kernels"

            def write(conn=conn, new=new, edited=edited) -> None:  # type: ignore[no-untyped-def]
                with lib.store.transaction():
                    stored_papers.insert_papers(conn, new, [p.paper_id for p in new])
                    stored_papers.update_paper_fields(conn, edited, ["title"])

            steps[n] = _vm_steps(conn, write)
            hits = {pid for pid, _ in lexical.search_fts(conn, "kernel", 10_000)}
            assert "a00000007" in hits
            assert _one(conn, "SELECT count(*) FROM papers_fts WHERE paper_id = 'a00000007'") == 1
    # A scan of the index per row made the larger library cost about ten times more.
    assert steps[3000] < 1.5 * steps[300], steps


def _index_rows(conn: sqlite3.Connection) -> list[tuple]:
    return sorted(map(tuple, conn.execute("SELECT paper_id, title, body, exact FROM papers_fts")))


def _older_library(path: Path, n: int, damage) -> list[tuple]:  # type: ignore[no-untyped-def]
    """Make a library of ``n`` papers at schema 15 with ``damage(conn)`` done; return its index rows before."""
    with _library_of(path, n) as lib:
        before = _index_rows(lib.store.conn)
    conn = sqlite3.connect(path)
    with conn:
        damage(conn)
    conn.execute("PRAGMA user_version = 15")
    conn.close()
    return before


def _reversed_rowids(conn: sqlite3.Connection) -> None:
    """As versions up to 15 wrote them: rowids in the index's own order, not the papers', and an orphan."""
    rows = conn.execute("SELECT paper_id, title, body, exact FROM papers_fts ORDER BY rowid DESC").fetchall()
    conn.execute("DELETE FROM papers_fts")
    conn.executemany("INSERT INTO papers_fts (paper_id, title, body, exact) VALUES (?,?,?,?)", rows)
    conn.execute(
        "INSERT INTO papers_fts (paper_id, title, body, exact) VALUES ('gone00000000', 'x', 'x', '')"
    )


def _stale_second_row(conn: sqlite3.Connection) -> None:
    """A stale second row of one paper, older than the current one (a lower rowid)."""
    conn.execute("UPDATE papers_fts SET rowid = rowid + 100000")
    conn.execute(
        "INSERT INTO papers_fts (rowid, paper_id, title, body, exact) VALUES (1, 'a00000005', 'zzstale', 'zzstale', '')"
    )


def test_an_older_library_gets_its_index_rows_under_the_papers_rowids(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    before = _older_library(path, 200, _reversed_rowids)
    with Library(path) as lib:
        conn = lib.store.conn
        assert lib.store.schema_version == SCHEMA_VERSION
        misplaced = _one(
            conn,
            "SELECT count(*) FROM papers_fts f JOIN papers p ON p.paper_id = f.paper_id WHERE p.rowid <> f.rowid",
        )
        assert misplaced == 0
        assert _index_rows(conn) == before  # the row of no paper is left out, nothing else changes
        assert next(f for f in lib.doctor().findings if f.check == "fts").ok
        edited = stored_papers.get_paper(conn, "a00000003")
        edited.title = "Kernel bandits"
        with lib.store.transaction():
            stored_papers.update_paper_fields(conn, edited, ["title"])
        assert _one(conn, "SELECT count(*) FROM papers_fts WHERE paper_id = 'a00000003'") == 1


def test_an_older_library_with_two_rows_of_a_paper_is_analysed_again(tmp_path: Path) -> None:
    """Migration 15 cannot tell the current row of two: the index is rebuilt from the papers on open."""
    path = tmp_path / "old.db"
    before = _older_library(path, 100, _stale_second_row)
    with Library(path) as lib:
        conn = lib.store.conn
        assert (
            sorted(map(tuple, conn.execute("SELECT paper_id, title, body, exact FROM papers_fts"))) == before
        )
        assert lexical.search_fts(conn, "zzstale", 10) == []
        assert next(f for f in lib.doctor().findings if f.check == "fts").ok


def test_doctor_names_a_row_under_another_papers_rowid(tmp_path: Path) -> None:
    with _library_of(tmp_path / "lib.db", 50) as lib:
        conn = lib.store.conn
        with lib.store.transaction():
            conn.execute("UPDATE papers_fts SET rowid = 100000 WHERE paper_id = 'a00000004'")
        fts = next(f for f in lib.doctor().findings if f.check == "fts")
        assert not fts.ok and "another rowid" in fts.message


def _arrays(index: MemoryBM25) -> list[np.ndarray]:
    return [index.indptr, index.rows, index.weights, index.idf, np.asarray(index.titleless)]


def test_bm25_read_from_the_stored_rows_equals_bm25_analysed_from_the_texts(
    tmp_path: Path, icml_dir: Path
) -> None:
    with Library(tmp_path / "lib.db", embedder="fake") as lib:
        lib.ingest([icml_dir], embed=False)
        conn = lib.store.conn
        texts = conn.execute("SELECT paper_id, title, clean_text FROM papers ORDER BY rowid")
        expected = MemoryBM25.build(texts, title_weight=TITLE_WEIGHT, exact_weight=EXACT_WEIGHT)
        stored = conn.execute("SELECT paper_id, title, body, exact FROM papers_fts ORDER BY rowid")
        analysed = MemoryBM25.build(
            stored, title_weight=TITLE_WEIGHT, exact_weight=EXACT_WEIGHT, analysed=True
        )
        built = Library._build_memory_bm25(conn)
        for index in (analysed, built):
            assert index.paper_ids == expected.paper_ids and len(index.paper_ids) > 50
            assert index.row_of == expected.row_of
            for got, want in zip(_arrays(index), _arrays(expected), strict=True):
                np.testing.assert_array_equal(got, want)
        # A damaged index (a paper's row missing) is not read: the texts are analysed instead.
        with lib.store.transaction():
            conn.execute("DELETE FROM papers_fts WHERE rowid = (SELECT max(rowid) FROM papers)")
        fallback = Library._build_memory_bm25(conn)
        assert fallback.paper_ids == expected.paper_ids
        np.testing.assert_array_equal(fallback.weights, expected.weights)
