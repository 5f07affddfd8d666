"""Control characters never reach a stored mark (issue 26, kind 5), whichever way the mark comes.

NUL and the other C0/C1 controls (tab and newline excepted) are removed from every tag and note,
and line ends are stored as LF: through the Python API, the CLI, the web API and a restored
backup. The exports of such a library read back (``tests/test_triage_roundtrip.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.cli import cli
from paperscope.errors import InputError
from paperscope.store import SCHEMA_VERSION
from paperscope.web import create_app

LIST = (
    "ICML 2026 Papers\n\nWe present APM, an adaptive pruning method with a 9.6x speedup on CIFAR-10.\n\n"
    "We study message passing on graphs with a second abstract of its own.\n"
)
#: A tag and a note with NUL, ESC (an ANSI colour), DEL, C1 controls (NEL, CSI), CRLF, tab, newline.
TAG = "\x00to\x1b[1m-read\x7f\x9b"
NOTE = "check\x00 the\x1b[31m proof\x85\r\nsecond line\tend\rthird\x0b\x0c\x1f"
STORED_TAG = "to[1m-read"
STORED_NOTE = "check the[31m proof\nsecond line\tend\nthird"


@pytest.fixture
def lib(tmp_path: Path, fresh_library: Library) -> Library:
    (tmp_path / "two.txt").write_text(LIST, encoding="utf-8")
    fresh_library.ingest([tmp_path / "two.txt"], embed=False)
    return fresh_library


def _first(lib: Library) -> str:
    return next(lib.papers()).paper_id


def _rows(lib: Library) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    conn = lib.store.conn
    return (
        [(r[0], r[1]) for r in conn.execute("SELECT paper_id, tag FROM tags ORDER BY rowid")],
        [(r[0], r[1]) for r in conn.execute("SELECT paper_id, body FROM notes ORDER BY paper_id")],
    )


def test_the_python_api_stores_tags_and_notes_without_controls(lib: Library) -> None:
    pid = _first(lib)
    lib.tag(pid, TAG)
    lib.tag(pid, "TO[1M-READ\x00")  # the same tag, ignoring case and controls: not a second row
    lib.set_note(pid, NOTE)
    assert _rows(lib) == ([(pid, STORED_TAG)], [(pid, STORED_NOTE)])
    lib.untag(pid, "\x1bto[1m-READ")
    assert lib.marks(pid)["tags"] == []


def test_a_tag_or_note_of_controls_alone_is_empty(lib: Library) -> None:
    pid = _first(lib)
    lib.set_note(pid, "keep this")
    before = _rows(lib)
    with pytest.raises(InputError, match="^empty tag$"):
        lib.tag(pid, "\x00\x1b \x9b")
    assert _rows(lib) == before
    lib.set_note(pid, "\x00\r\n\x85")
    assert lib.marks(pid)["note"] is None


def test_the_cli_stores_tags_and_notes_without_controls(lib: Library) -> None:
    pid, db = _first(lib), str(lib.store.path)
    runner = CliRunner()
    tagged = runner.invoke(cli, ["--db", db, "tags", "add", pid, TAG, "--json"])
    assert tagged.exit_code == 0, tagged.output
    assert json.loads(tagged.stdout)[0]["marks"]["tags"] == [STORED_TAG]
    noted = runner.invoke(cli, ["--db", db, "note", pid, NOTE, "--json"])
    assert noted.exit_code == 0, noted.output
    assert json.loads(noted.stdout)[0]["marks"]["note"] == STORED_NOTE
    removed = runner.invoke(cli, ["--db", db, "tags", "remove", pid, "to\x00[1m-read"])
    assert (removed.exit_code, removed.stdout, removed.stderr) == (0, "(no tags)\n", "")


def test_the_web_api_stores_tags_and_notes_without_controls(lib: Library) -> None:
    pid = _first(lib)
    with TestClient(create_app(lib)) as client:
        tagged = client.put(f"/api/papers/{pid}/tags/%00to%1B%5B1m-read%C2%9B")
        assert tagged.status_code == 200, tagged.text
        assert tagged.json()["data"]["tags"] == [STORED_TAG]
        noted = client.put(f"/api/papers/{pid}/note", json={"body": NOTE})
        assert noted.status_code == 200, noted.text
        assert noted.json()["data"]["note"] == STORED_NOTE
    assert _rows(lib) == ([(pid, STORED_TAG)], [(pid, STORED_NOTE)])


def test_a_restored_backup_stores_tags_and_notes_without_controls(lib: Library, tmp_path: Path) -> None:
    pid, other = (p.paper_id for p in lib.papers())
    lib.tag(pid, "placeholder")
    lib.set_note(other, "an older note")
    path = tmp_path / "marks.json"
    lib.backup(path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    for entry in doc["papers"]:
        if entry["paper_id"] == pid:
            entry["tags"], entry["note"] = [TAG, "\x00\x1b"], NOTE
        else:
            entry["note"] = "\x00\x85"  # nothing left: it must not delete the current note
    path.write_text(json.dumps(doc), encoding="utf-8")
    lib.untag(pid, "placeholder")
    lib.restore(path)
    assert _rows(lib) == ([(pid, STORED_TAG)], sorted([(pid, STORED_NOTE), (other, "an older note")]))


def test_a_library_written_before_the_fix_has_its_tags_and_notes_cleaned_on_open(tmp_path: Path) -> None:
    """Migration 13: raw NULs stored by 0.2 are removed when the library is opened, exports read back."""
    import sqlite3

    db = tmp_path / "old.db"
    (tmp_path / "two.txt").write_text(LIST, encoding="utf-8")
    with Library(db) as lib:
        lib.ingest([tmp_path / "two.txt"], embed=False, cards=False)
        first, second = sorted(p.paper_id for p in lib.papers())
    conn = sqlite3.connect(db)
    with conn:  # what 0.2 stored: the raw text, and a tag that cleans to one the paper has already
        conn.executemany(
            "INSERT INTO tags (paper_id, tag) VALUES (?, ?)",
            [(first, TAG), (first, STORED_TAG), (second, "\x00\x1f"), (second, "ok\x00")],
        )
        conn.executemany(
            "INSERT INTO notes (paper_id, body) VALUES (?, ?)", [(first, NOTE), (second, "\x00\x85 ")]
        )
        conn.execute("PRAGMA user_version = 13")  # before migration 13 (index 13 of MIGRATIONS)
    conn.close()
    with Library(db) as lib:
        assert lib.store.schema_version == SCHEMA_VERSION
        rows = lib.store.conn.execute("SELECT paper_id, tag FROM tags ORDER BY paper_id, tag").fetchall()
        assert sorted(map(tuple, rows)) == sorted([(first, STORED_TAG), (second, "ok")])
        notes = lib.store.conn.execute("SELECT paper_id, body FROM notes").fetchall()
        assert [tuple(n) for n in notes] == [(first, STORED_NOTE)]
        csv_text = "".join(lib.export("csv"))
        bib_text = "".join(lib.export("bibtex"))
    for name, text in (("again.csv", csv_text), ("again.bib", bib_text)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        with Library(tmp_path / f"{name}.db") as again:
            report = again.ingest([tmp_path / name], embed=False, cards=False)
            assert not report.failed and not report.skipped, report
            assert sum(1 for _ in again.papers()) == 2


def test_tags_and_notes_with_bytes_that_are_not_utf8_are_stored_without_them(
    lib: Library, tmp_path: Path
) -> None:
    """``tags add ID $'bad\\xffbyte'`` reaches Python as a lone surrogate (surrogateescape): no traceback."""
    import subprocess
    import sys

    pid = _first(lib)
    db = str(lib.store.path)
    lib.close()
    run = [sys.executable, "-m", "paperscope", "--db", db]
    tagged = subprocess.run([*run, "tags", "add", pid, b"bad\xffbyte"], capture_output=True, timeout=120)
    noted = subprocess.run(
        [*run, "note", pid, "-"], input=b"a note \xff\x9b with bad bytes\n", capture_output=True, timeout=120
    )
    for result in (tagged, noted):
        assert result.returncode == 0 and b"Traceback" not in result.stderr, result.stderr
    with Library(db) as again:
        marks = again.marks(pid)
    assert "badbyte" in marks["tags"]
    assert marks["note"] is not None and "with bad bytes" in marks["note"] and "\ufffd" not in marks["note"]
