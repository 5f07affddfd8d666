"""Issue 26 kind 6: ``doctor --salvage`` reads what a truncated library still holds.

Two libraries are cut at ten points each, on page boundaries and mid-page: the five example
lists with stars, tags and a note, and 1,000 synthetic long abstracts whose papers table is
three levels deep, so a cut loses interior pages above leaves that survive. What must come back
is worked out from the whole file, before the cut, with SQLite's ``dbstat`` table: a row whose
leaf page and overflow pages lie before the cut can still be read (through SQLite, or from the
orphan leaf by :mod:`paperscope.store.pagewalk`), so the salvaged library must hold at least
those rows, each as it was, and no more than the whole file held.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli
from paperscope.store import health
from paperscope.store.salvage import salvage_rows

#: Tables whose surviving rows are counted (papers and the user's marks).
COUNTED = ("papers", "sources", "cards", "embeddings", "stars", "tags", "notes")
#: Where the file is cut, as fractions of its size; odd positions cut mid-page.
CUTS = (0.08, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.97)


@pytest.fixture(scope="module")
def whole(tmp_path_factory, icml_dir) -> Path:
    """A library in one file (no -wal), with a star and a tag on every 7th paper and one note."""
    db = tmp_path_factory.mktemp("salvage-cut") / "library.db"
    with Library(db) as lib:
        lib.ingest([icml_dir])
        ids = [p.paper_id for p in lib.papers()]
        for pid in ids[::7]:
            lib.star(pid)
            lib.tag(pid, "to-read")
        lib.set_note(ids[3], "read the appendix")
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode = DELETE")  # every page in the one file
    return db


def _surviving_rows(db: Path, whole_pages: int, reached: bool = False) -> dict[str, int]:
    """Rows per table whose leaf and overflow pages all lie in the first ``whole_pages``.

    ``reached``: only those whose interior pages (the b-tree path to the leaf) lie there too,
    the rows SQLite itself can still reach.
    """
    conn = sqlite3.connect(db)
    marks = ", ".join("?" * len(COUNTED))
    pages = conn.execute(
        f"SELECT name, path, pageno, pagetype, ncell FROM dbstat WHERE name IN ({marks})", COUNTED
    ).fetchall()
    conn.close()
    # an overflow page's path is its leaf's path, the cell index (3 hex digits), "+" and its place
    cut_cells = {
        (name, path.split("+")[0][:-3], path.split("+")[0][-3:])
        for name, path, pageno, kind, _ in pages
        if kind == "overflow" and pageno > whole_pages
    }
    page_of = {(name, path): pageno for name, path, pageno, kind, _ in pages if kind != "overflow"}
    counts = dict.fromkeys(COUNTED, 0)
    for name, path, pageno, kind, ncell in pages:
        if kind != "leaf":
            continue
        parts = path.strip("/").split("/") if path != "/" else []
        above = ["/"] + ["/" + "/".join(parts[:i]) + "/" for i in range(1, len(parts))]
        if pageno > whole_pages or (reached and any(page_of[(name, p)] > whole_pages for p in above)):
            continue
        counts[name] += ncell - sum(1 for n, leaf, _ in cut_cells if n == name and leaf == path)
    return counts


def _schema_kept(db: Path) -> set[str]:
    """The counted tables whose schema rows SQLite still reads in the truncated ``db``."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    conn.execute("PRAGMA writable_schema = ON")
    kept = {t for t in COUNTED if conn.execute(f"PRAGMA table_info({t})").fetchall()}
    conn.close()
    return kept


def _counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in COUNTED}


def _cut(whole: Path, to: Path, fraction: float, mid_page: bool) -> int:
    """Copy ``whole`` to ``to`` cut at ``fraction`` of its size; return the whole pages left."""
    shutil.copy2(whole, to)
    page_size = 4096
    size = int(whole.stat().st_size * fraction) // page_size * page_size + (1234 if mid_page else 0)
    with to.open("r+b") as handle:
        handle.truncate(size)
    return size // page_size


def _cut_and_expect(db: Path, tmp_path: Path, at: int) -> tuple[Path, int, dict[str, int], set[str]]:
    """Cut ``db`` at ``CUTS[at]`` (odd ``at`` mid-page); return the cut file, its whole pages,
    the rows its pages hold per table, and the tables whose schema rows remain."""
    damaged = tmp_path / "cut.db"
    whole_pages = _cut(db, damaged, CUTS[at], mid_page=at % 2 == 1)
    return damaged, whole_pages, _surviving_rows(db, whole_pages), _schema_kept(damaged)


def _assert_bounds(report, expected: dict[str, int], before: dict[str, int], readable: set[str]) -> None:
    """At least the rows on surviving pages and at most the whole file's, per counted table."""
    for table in COUNTED:
        if table in readable:
            assert expected[table] <= report.copied[table] <= before[table], (table, report.to_dict())
        else:  # its CREATE TABLE was on a lost page: nothing says where its rows are
            assert table in report.unreadable and not report.copied.get(table), (table, report.to_dict())


@pytest.fixture(scope="module")
def deep(tmp_path_factory) -> Path:
    """1,000 papers of 230 random words: one paper per leaf, so the papers b-tree has 3 levels."""
    folder = tmp_path_factory.mktemp("salvage-deep")
    rng = random.Random(3)
    words = [
        a + b + c
        for a in ("gra", "dif", "rew", "spa", "qua", "tok", "ker", "net")
        for b in "aeiou"
        for c in "lmnrst"
    ]
    abstracts = [
        f"We study setting {i}: " + " ".join(rng.choice(words) for _ in range(230)) + "." for i in range(1000)
    ]
    source = folder / "synthetic.txt"
    source.write_text("ICML 2026 Papers\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
    db = folder / "library.db"
    with Library(db) as lib:
        lib.ingest([source], cards=False)
        for paper in list(lib.papers())[::25]:
            lib.star(paper.paper_id)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode = DELETE")
        depth = conn.execute(
            "SELECT max(length(path) - length(replace(path, '/', ''))) FROM dbstat WHERE name = 'papers'"
        ).fetchone()[0]
    assert depth == 3  # root, interior pages, leaves: a cut can orphan leaves
    return db


@pytest.mark.parametrize("at", range(len(CUTS)))
def test_salvage_of_a_deep_truncated_library_reads_the_leaves_no_btree_reaches(deep, tmp_path, at) -> None:
    damaged, whole_pages, expected, readable = _cut_and_expect(deep, tmp_path, at)
    new = tmp_path / "salvaged.db"
    with Library(new) as lib:  # the store-level copy, without the repair (it would build 1,000 cards)
        report = salvage_rows(damaged, lib.store.conn)
    _assert_bounds(report, expected, _counts(deep), readable)
    with sqlite3.connect(new) as conn, sqlite3.connect(deep) as original:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        for table, key, value in (("papers", "paper_id", "abstract"), ("embeddings", "paper_id", "vector")):
            got = set(conn.execute(f"SELECT rowid, {key}, {value} FROM {table}"))
            assert got <= set(
                original.execute(f"SELECT rowid, {key}, {value} FROM {table}")
            )  # each as it was
    with Library(new) as lib:
        assert lib.damaged is None and lib.read_only is None and len(lib) == report.copied["papers"]
    orphaned = expected["papers"] - _surviving_rows(deep, whole_pages, reached=True)["papers"]
    assert report.walked.get("papers", 0) >= orphaned  # what SQLite cannot reach came from the pages
    if at == 0:  # the first cut keeps leaves under lost interior pages: the walk is needed
        assert orphaned > 100, (orphaned, report.to_dict())


@pytest.mark.parametrize("at", range(len(CUTS)))
def test_salvage_of_a_truncated_library_keeps_every_row_its_remaining_pages_hold(whole, tmp_path, at) -> None:
    damaged, whole_pages, expected, readable = _cut_and_expect(whole, tmp_path, at)
    with sqlite3.connect(whole) as conn:
        stars = conn.execute("SELECT paper_id FROM stars ORDER BY paper_id").fetchall()
    cut = health.truncation(damaged)
    assert cut is not None and (cut.whole_pages, cut.pages) == (whole_pages, whole.stat().st_size // 4096)
    new = tmp_path / "salvaged.db"
    with Library(damaged) as lib:
        assert lib.read_only == "it is truncated"
        report, doctor_report = lib.salvage(new)
    assert report.truncated == str(cut)
    assert readable == set(COUNTED) or at == 0  # only the first cut loses schema pages
    _assert_bounds(report, expected, _counts(whole), readable)
    assert doctor_report.ok, doctor_report.to_dict()
    with sqlite3.connect(new) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        if expected["stars"] and "stars" in readable:  # every star comes back as it was
            assert conn.execute("SELECT paper_id FROM stars ORDER BY paper_id").fetchall() == stars
    with Library(new) as lib:
        assert lib.damaged is None and lib.read_only is None
        assert len(lib) == report.copied["papers"]
        assert lib.stats()["missing_vectors"] == 0  # the repair embedded the papers whose vectors were cut


def test_the_cuts_leave_rows_to_salvage_and_lose_some(whole, tmp_path) -> None:
    """The ten cuts are not trivial: the early ones lose papers, and all keep the marks' pages."""
    kept = [_surviving_rows(whole, _cut(whole, tmp_path / "c.db", f, False)) for f in CUTS]
    total = _counts(whole)
    assert kept[0]["papers"] < kept[-1]["papers"] < total["papers"] or kept[-1]["papers"] == total["papers"]
    assert kept[0]["papers"] < total["papers"] and kept[0]["embeddings"] < total["embeddings"]
    assert all(k["stars"] == total["stars"] and k["tags"] == total["tags"] for k in kept)


def test_doctor_salvage_of_a_truncated_file_says_what_it_kept(whole, tmp_path) -> None:
    damaged = tmp_path / "cut.db"
    whole_pages = _cut(whole, damaged, 0.5, mid_page=True)
    before = damaged.read_bytes()
    new = tmp_path / "salvaged.db"
    result = CliRunner().invoke(cli, ["--db", str(damaged), "doctor", "--salvage", str(new)])
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"salvaged into {new}: ") and ", 14 stars, 14 tags, 1 notes" in lines[0]
    total_pages = whole.stat().st_size // 4096
    assert lines[1] == (
        f"  the file is truncated: it holds {whole_pages:,} of the {total_pages:,} pages its header counts"
        f" ({damaged.stat().st_size:,} of {whole.stat().st_size:,} bytes)"
    )
    assert "is opened read-only: run" in result.stderr and "doctor --salvage NEW.db" in result.stderr
    assert damaged.read_bytes() == before  # only read


def test_a_repair_in_place_of_a_truncated_file_points_at_salvage(whole, tmp_path) -> None:
    damaged = tmp_path / "cut.db"
    _cut(whole, damaged, 0.5, mid_page=False)
    result = CliRunner().invoke(cli, ["--db", str(damaged), "doctor", "--repair"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "the file is truncated" in result.output and "doctor --salvage NEW.db" in result.output


def test_a_whole_file_is_not_called_truncated(whole) -> None:
    assert health.truncation(whole) is None
