"""The store: idempotent ingest, provenance, migrations, user data kept, failed files leave no trace."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from paperscope import Library
from paperscope.store import SCHEMA_VERSION, Store, papers


def test_new_library_is_wal_with_current_schema_and_user_tables(tmp_path: Path) -> None:
    store = Store(tmp_path / "a" / "lib.db")
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.schema_version == SCHEMA_VERSION
    tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"papers", "sources", "cards", "stars", "tags", "notes"} <= tables
    store.close()


def test_reopening_applies_no_migration_twice(tmp_path: Path) -> None:
    Store(tmp_path / "lib.db").close()
    store = Store(tmp_path / "lib.db")
    assert store.schema_version == SCHEMA_VERSION
    store.close()


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "lib.db")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    conn.close()
    import pytest

    from paperscope.errors import StoreError

    with pytest.raises(StoreError, match="newer"):
        Store(tmp_path / "lib.db")


def test_ingest_examples_gives_95_papers_and_reingest_adds_none(
    icml_dir: Path, fresh_library: Library
) -> None:
    first = fresh_library.ingest([icml_dir])
    assert (first.read, first.new, first.present) == (95, 95, 0)
    again = fresh_library.ingest([icml_dir])
    assert (again.read, again.new, again.present) == (95, 0, 95)
    assert fresh_library.stats()["papers"] == 95
    assert fresh_library.stats()["sources"] == 95


def test_renamed_copy_adds_one_provenance_entry_per_paper(
    icml_dir: Path, fresh_library: Library, tmp_path: Path
) -> None:
    fresh_library.ingest([icml_dir])
    copy = tmp_path / "renamed.txt"
    shutil.copy(icml_dir / "000_9f997565051fc2a1.txt", copy)
    report = fresh_library.ingest([copy])
    assert (report.new, report.present) == (0, 19)
    assert fresh_library.stats()["sources"] == 95 + 19
    paper = next(p for p in fresh_library.papers() if any(s.path == str(copy) for s in p.sources))
    assert sorted(Path(s.path).name for s in paper.sources) == ["000_9f997565051fc2a1.txt", "renamed.txt"]
    assert paper.sources[0].line == paper.sources[1].line


def test_same_abstract_with_different_markup_is_one_paper(tmp_path: Path, fresh_library: Library) -> None:
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text("ICML 2026 Papers\n\nWe reach a 9.6$\\times$ speedup on **CIFAR-10**.\n", encoding="utf-8")
    b.write_text("We reach a 9.6× speedup on CIFAR-10.\n", encoding="utf-8")
    fresh_library.ingest([a, b])
    assert fresh_library.stats()["papers"] == 1
    (paper,) = fresh_library.papers()
    assert paper.venue == "ICML"
    assert [s.line for s in paper.sources] == [3, 1]


def test_reingest_keeps_stars_tags_and_notes(icml_dir: Path, fresh_library: Library) -> None:
    fresh_library.ingest([icml_dir])
    ids = [p.paper_id for p in fresh_library.papers()][:3]
    fresh_library.star(ids[0])
    fresh_library.tag(ids[1], "to-read")
    fresh_library.set_note(ids[2], "compare with APM")
    fresh_library.set_triage(ids[2], "maybe")
    fresh_library.ingest([icml_dir])
    assert fresh_library.marks(ids[0]) == {"starred": True, "tags": [], "note": None, "triage": None}
    assert fresh_library.marks(ids[1]) == {
        "starred": False,
        "tags": ["to-read"],
        "note": None,
        "triage": None,
    }
    assert fresh_library.marks(ids[2]) == {
        "starred": False,
        "tags": [],
        "note": "compare with APM",
        "triage": "maybe",
    }


def test_bad_file_is_reported_and_other_files_still_ingest(
    icml_dir: Path, fresh_library: Library, tmp_path: Path
) -> None:
    fresh_library.ingest([icml_dir / "000_9f997565051fc2a1.txt"])
    before = {t: fresh_library.store.count(t) for t in ("papers", "sources", "cards", "papers_fts")}
    bad = tmp_path / "bad.txt"
    bad.write_bytes("ICML 2026 Papers\n\nok abstract here.\n\ncaf\xe9\n".encode("latin-1"))
    binary = tmp_path / "img.txt"
    binary.write_bytes(b"\x00\x01\x02")
    report = fresh_library.ingest(
        [bad, binary, tmp_path / "missing.txt", icml_dir / "001_d57e93a6687b01f8.txt"]
    )
    errors = [f.error for f in report.failed]
    assert errors == [
        f"{bad}:5: not UTF-8 (byte 0xe9 at offset 40); re-save the file as UTF-8",
        f"{binary}: binary file (NUL bytes); expected UTF-8 text",
        f"{tmp_path / 'missing.txt'}: no such file",
    ]
    after = {t: fresh_library.store.count(t) for t in before}
    assert after == {t: n + 19 for t, n in before.items()}


def test_failure_mid_file_rolls_back_the_whole_file(
    icml_dir: Path, fresh_library: Library, monkeypatch
) -> None:
    import paperscope.ingest.pipeline as pipeline

    fresh_library.ingest([icml_dir / "000_9f997565051fc2a1.txt"])
    before = {t: fresh_library.store.count(t) for t in ("papers", "sources", "cards", "papers_fts")}
    calls = {"n": 0}
    real = pipeline.record_to_paper

    def flaky(record):
        calls["n"] += 1
        if calls["n"] == 10:
            raise pipeline.InputError("broken record", record.source.path, record.source.line)
        return real(record)

    monkeypatch.setattr(pipeline, "record_to_paper", flaky)
    report = fresh_library.ingest([icml_dir / "001_d57e93a6687b01f8.txt"])
    assert report.failed[0].error.endswith("broken record")
    assert {t: fresh_library.store.count(t) for t in before} == before


def test_hit_rows_match_get_paper_on_titleless_papers_with_cards(icml_library: Library) -> None:
    conn = icml_library.store.conn
    ids = [r[0] for r in conn.execute("SELECT paper_id FROM papers ORDER BY rowid")]
    shown = papers.hit_rows(conn, ids + ["000000000000"])
    assert len(ids) == 95 and set(shown) == set(ids)
    for paper_id in ids:
        paper = papers.get_paper(conn, paper_id)
        assert paper.title is None and paper.card is not None
        row = shown[paper_id]
        assert (row.label, row.sources, row.title, row.clean_text) == (
            paper.card.label,
            paper.sources,
            None,
            paper.clean_text,
        )
        assert (row.venue, row.year, row.authors) == (paper.venue, paper.year, paper.authors)
        assert row.has_code == bool(paper.card.code_urls)
        assert len(paper.sources) == 1


def test_tags_ignore_case(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text(
        "ICML 2026 Papers\n\nWe study sparse attention.\n\nWe study graph pruning.\n", encoding="utf-8"
    )
    with Library(tmp_path / "lib.db", embedder="fake") as lib:
        lib.ingest([path])
        first, second = (p.paper_id for p in lib.papers())
        lib.tag(first, "to-read")
        lib.tag(second, "To-Read")  # joins the tag as first written
        assert lib.tags() == [("to-read", 2)]
        lib.untag(first, "TO-READ")
        assert lib.marks(first)["tags"] == [] and lib.marks(second)["tags"] == ["to-read"]
