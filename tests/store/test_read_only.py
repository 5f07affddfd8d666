"""Case 22 and damaged files: a library that cannot be written answers every read, refuses every write in one line.

The read-only folder is a real read-only bind mount when the tests run as root (as CI does),
else a folder without write permission; both are how users meet it (a shared lab drive, a
copied archive).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli
from paperscope.errors import StoreError
from paperscope.store import health


@contextlib.contextmanager
def read_only_folder(folder: Path) -> Iterator[str]:
    """Make ``folder`` read-only for this process; yield how ("mount" or "chmod")."""
    if os.geteuid() == 0:
        subprocess.run(["mount", "--bind", str(folder), str(folder)], check=True)
        try:
            subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], check=True)
            yield "mount"
        finally:
            subprocess.run(["umount", str(folder)], check=True)
        return
    modes = {p: p.stat().st_mode for p in [folder, *folder.iterdir()]}
    for path in modes:
        path.chmod(stat.S_IMODE(modes[path]) & ~0o222)
    try:
        yield "chmod"
    finally:
        for path, mode in modes.items():
            path.chmod(stat.S_IMODE(mode))


@pytest.fixture(scope="module")
def built(tmp_path_factory, icml_dir) -> tuple[Path, str]:
    """A library of the five example lists with topics and a star, copied into its own folder."""
    work = tmp_path_factory.mktemp("ro-build")
    db = work / "library.db"
    with Library(db) as lib:
        lib.ingest([icml_dir])
        lib.fit_topics()
        pid = next(lib.papers()).paper_id
        lib.star(pid)
        lib.tag(pid, "to-read")
    return db, pid


@pytest.fixture
def ro_library(built, tmp_path) -> Iterator[tuple[Path, str, str]]:
    db, pid = built
    folder = tmp_path / "shelf"
    folder.mkdir()
    shutil.copy2(db, folder / "library.db")  # a copy with no -wal/-shm beside it, as archives are
    with read_only_folder(folder) as how:
        with pytest.raises(OSError):
            (folder / "probe").write_text("x")
        yield folder / "library.db", pid, how


def _run(db: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def test_every_read_command_works_on_a_read_only_library(ro_library) -> None:
    db, pid, _how = ro_library
    code, out = _run(db, "stats")
    assert code == 0 and "papers" in out
    code, out = _run(db, "search", "pruning", "--mode", "bm25")
    assert code == 0 and "prun" in out.lower()
    code, out = _run(db, "search", "dataset distillation")  # hybrid: vectors are read, nothing embedded
    assert code == 0 and "distill" in out.lower()
    code, out = _run(db, "show", pid)
    assert code == 0 and pid in out
    code, out = _run(db, "related", pid)
    assert code == 0 and len(out.splitlines()) >= 3
    code, out = _run(db, "topics")
    assert code == 0 and out.strip()
    code, out = _run(db, "export", "--format", "bibtex", "--starred")
    assert code == 0 and out.count("@misc{") + out.count("@inproceedings{") == 1
    code, out = _run(db, "serve", "--get", "/api/search?q=pruning&mode=bm25")
    assert code == 0 and '"ok": true' in out and "prun" in out.lower()
    code, out = _run(db, "serve", "--get", "/api/stats")
    assert code == 0 and '"papers"' in out


@pytest.mark.parametrize(
    "args",
    [("star", "PID"), ("tags", "add", "PID", "later"), ("note", "PID", "a note"), ("triage", "PID", "keep")],
)
def test_every_mark_fails_with_one_line_saying_read_only(ro_library, args) -> None:
    db, pid, _how = ro_library
    code, out = _run(db, *[pid if a == "PID" else a for a in args])
    assert code == 1
    lines = out.strip().splitlines()
    assert len(lines) == 1 and "read-only" in lines[0] and "Traceback" not in out


def test_ingest_into_a_read_only_library_fails_in_one_line_and_stores_nothing(ro_library, tmp_path) -> None:
    db, _pid, _how = ro_library
    with Library(db) as lib:
        before = len(lib)
    extra = tmp_path / "extra.txt"
    extra.write_text("ICML 2026 Papers\n\nWe propose a brand new sampler for diffusion models on graphs.\n")
    code, out = _run(db, "ingest", str(extra))
    assert code == 1 and "read-only" in out and len(out.strip().splitlines()) == 1
    with Library(db) as lib:
        assert lib.read_only is not None
        assert len(lib) == before
        assert not any("brand new sampler" in p.abstract for p in lib.papers())


def test_the_api_refuses_a_mark_on_a_read_only_library_with_its_error_shape(ro_library) -> None:
    from fastapi.testclient import TestClient

    from paperscope.web import create_app

    db, pid, _how = ro_library
    with Library(db) as lib:
        client = TestClient(create_app(lib))
        assert client.get("/api/search", params={"q": "pruning", "mode": "bm25"}).status_code == 200
        response = client.put(f"/api/papers/{pid}/star")
        assert response.status_code == 403
        assert "read-only" in response.json()["error"]


def test_an_empty_file_is_refused_not_made_a_library(tmp_path) -> None:
    empty = tmp_path / "library.db"
    empty.write_bytes(b"")
    with pytest.raises(StoreError, match="empty"):
        Library(empty)
    assert empty.stat().st_size == 0
    code, out = _run(empty, "ingest", str(tmp_path))
    assert code == 1 and "empty (0 bytes)" in out and empty.stat().st_size == 0


def test_a_foreign_file_is_refused(tmp_path) -> None:
    text = tmp_path / "notes.db"
    text.write_text("just some notes\n")
    with pytest.raises(StoreError, match="not a paperscope library"):
        Library(text)
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")
    with pytest.raises(StoreError, match="another program"):
        Library(other)
    with sqlite3.connect(other) as conn:
        assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("moz_places",)]


def _corrupt(db: Path) -> None:
    """Overwrite pages in the middle of the file (b-tree pages of the papers and their indexes)."""
    size = db.stat().st_size
    with db.open("r+b") as handle:
        for offset in range(size // 3, size - 8192, 8192):
            handle.seek(offset)
            handle.write(b"\xa5" * 1024)


def test_a_damaged_library_opens_read_only_and_points_at_doctor(built, tmp_path) -> None:
    db, pid = built
    copy = tmp_path / "library.db"
    shutil.copy2(db, copy)
    with Library(copy) as lib:
        assert lib.read_only is None and lib.damaged is None
    stars_before = 1
    _corrupt(copy)
    with Library(copy) as lib:
        assert lib.damaged and lib.read_only == "it failed SQLite's quick check"
        with pytest.raises(StoreError, match="doctor"):
            lib.star(pid, False)
    for args in (("stats",), ("search", "pruning", "--mode", "bm25"), ("export", "--format", "jsonl")):
        result = CliRunner().invoke(cli, ["--db", str(copy), *args])
        assert "Traceback" not in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        assert "paperscope doctor" in result.output
    code, out = _run(copy, "star", "--off", pid)
    assert code == 1 and "read-only" in out and "doctor" in out
    conn = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
    with contextlib.suppress(sqlite3.DatabaseError):
        assert conn.execute("SELECT count(*) FROM stars").fetchone()[0] == stars_before


def test_the_quick_check_runs_once_per_change(built, tmp_path, monkeypatch) -> None:
    db, _pid = built
    copy = tmp_path / "library.db"
    shutil.copy2(db, copy)
    calls = []
    real = health.quick_check
    monkeypatch.setattr(health, "quick_check", lambda conn: calls.append(1) or real(conn))
    Library(copy).close()
    Library(copy).close()
    assert len(calls) == 1  # the second open finds the stamp the first recorded
    with copy.open("r+b") as handle:  # any write by another program: checked again
        handle.seek(100)
        same = handle.read(4)
        handle.seek(100)
        handle.write(same)
    os.utime(copy, ns=(copy.stat().st_atime_ns, copy.stat().st_mtime_ns + 1_000_000))
    Library(copy).close()
    assert len(calls) == 2


def test_a_refused_database_of_another_program_is_left_byte_for_byte(tmp_path) -> None:
    other = tmp_path / "places.sqlite"
    with sqlite3.connect(other) as conn:  # rollback-journal mode, as many programs write
        conn.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")
        conn.execute("INSERT INTO moz_places (url) VALUES ('https://example.org')")
    conn.close()
    before = other.read_bytes()
    for args in (
        ("stats",),
        ("search", "x", "--mode", "bm25"),
        ("ingest", str(tmp_path)),
        ("doctor", "--repair"),
    ):
        code, out = _run(other, *args)
        assert code == 1 and "another program" in out, (args, out)
    assert other.read_bytes() == before
    assert not (tmp_path / "places.sqlite-wal").exists()


def test_doctor_repair_on_a_read_only_library_says_read_only(ro_library) -> None:
    db, _pid, _how = ro_library
    code, out = _run(db, "doctor", "--repair")
    assert code == 1 and "read-only" in out and len(out.strip().splitlines()) == 1, out


def test_doctor_salvage_copies_what_a_damaged_library_can_give_into_a_sound_one(built, tmp_path) -> None:
    db, pid = built
    damaged = tmp_path / "library.db"
    shutil.copy2(db, damaged)
    with Library(damaged) as lib:
        total = len(lib)
    _corrupt(damaged)
    before = damaged.read_bytes()
    new = tmp_path / "salvaged.db"
    code, out = _run(damaged, "doctor", "--salvage", str(new))
    assert code == 0 and "Traceback" not in out, out
    assert out.splitlines()[1].startswith(f"salvaged into {new}: ")
    assert damaged.read_bytes() == before  # the damaged file is only read
    with Library(new) as lib:
        assert lib.damaged is None and lib.read_only is None
        assert lib.doctor().ok
        kept = len(lib)
        assert 0 < kept <= total
        assert lib.search("dataset distillation", mode="bm25")
        if pid in {p.paper_id for p in lib.papers()}:
            assert lib.marks(pid)["starred"] and lib.marks(pid)["tags"] == ["to-read"]
    code, out = _run(damaged, "doctor", "--salvage", str(new))  # never overwrites a file
    assert code == 1 and "already exists" in out


def test_salvage_keeps_what_enrich_attached_so_undo_still_works(built, tmp_path) -> None:
    import sqlite3

    db, pid = built
    source = tmp_path / "enriched.db"
    shutil.copy2(db, source)
    with sqlite3.connect(source) as conn:  # one attachment row, as `enrich` writes it
        conn.execute(
            "INSERT INTO enrichments (paper_id, program, entry_line, entry, method, score, before, after)"
            " VALUES (?, 'program.csv', 2, '{}', 'agreed', 1.5, '{}', '{}')",
            (pid,),
        )
    new = tmp_path / "salvaged.db"
    code, out = _run(source, "doctor", "--salvage", str(new))
    assert code == 0, out
    with sqlite3.connect(new) as conn:
        assert conn.execute("SELECT paper_id, program FROM enrichments").fetchall() == [(pid, "program.csv")]
