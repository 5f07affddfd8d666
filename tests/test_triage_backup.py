"""Backup and restore of marks: a new library built from the same lists gets the same marks back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli
from paperscope.errors import InputError


def _all_marks(lib: Library) -> dict[str, dict]:
    out = {}
    for paper in lib.papers():
        m = lib.marks(paper.paper_id)
        if m["starred"] or m["tags"] or m["note"] or m["triage"]:
            out[paper.paper_id] = m
    return out


@pytest.fixture
def marked(tmp_path: Path, icml_dir: Path) -> Library:
    lib = Library(tmp_path / "a.db")
    lib.ingest([icml_dir], embed=False)
    ids = [p.paper_id for p in lib.papers()]
    for i, pid in enumerate(ids[:30]):
        if i % 2 == 0:
            lib.star(pid)
        if i % 3 == 0:
            lib.tag(pid, "to-read")
            lib.tag(pid, f"group-{i % 4}")
        if i % 5 == 0:
            lib.set_note(pid, f"note {i}: R&D\nsecond line")
        lib.set_triage(pid, ("keep", "maybe", "reject")[i % 3])
    yield lib
    lib.close()


def test_backup_new_library_restore_same_marks(marked: Library, icml_dir: Path, tmp_path: Path) -> None:
    before = _all_marks(marked)
    assert len(before) == 30
    path = tmp_path / "marks.json"
    assert marked.backup(path) == 30
    with Library(tmp_path / "b.db") as fresh:
        fresh.ingest([icml_dir], embed=False, cards=False)
        assert _all_marks(fresh) == {}
        report = fresh.restore(path)
        assert (report.entries, report.by_id, report.by_content, report.unmatched) == (30, 30, 0, [])
        assert _all_marks(fresh) == before
        # Restoring twice changes nothing.
        fresh.restore(path)
        assert _all_marks(fresh) == before


def test_restore_by_content_and_unmatched_entries(marked: Library, icml_dir: Path, tmp_path: Path) -> None:
    before = _all_marks(marked)
    path = tmp_path / "marks.json"
    marked.backup(path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    # Three entries as an older paperscope would have named them (another cleaner, another id),
    # and one paper this library does not hold.
    changed = {}
    for entry in doc["papers"][:3]:
        changed[entry["paper_id"]] = entry["paper_id"] = "f" * 12 if not changed else f"{len(changed):012x}"
    doc["papers"].append(
        {"paper_id": "abcdefabcdef", "content_key": "0" * 16, "title": "A Paper Elsewhere", "starred": True}
    )
    path.write_text(json.dumps(doc), encoding="utf-8")
    with Library(tmp_path / "c.db") as fresh:
        fresh.ingest([icml_dir], embed=False, cards=False)
        report = fresh.restore(path)
        assert (report.by_id, report.by_content) == (27, 3)
        assert report.unmatched == [{"paper_id": "abcdefabcdef", "title": "A Paper Elsewhere"}]
        assert _all_marks(fresh) == before


def test_restore_replaces_a_different_note_and_keeps_other_marks(marked: Library, tmp_path: Path) -> None:
    pid = next(p for p, m in _all_marks(marked).items() if m["note"])
    path = tmp_path / "marks.json"
    marked.backup(path)
    marked.set_note(pid, "changed since")
    other = [p.paper_id for p in marked.papers()][60]
    marked.tag(other, "later")
    report = marked.restore(path)
    assert report.notes_replaced == 1 and marked.marks(pid)["note"].startswith("note 0")
    assert marked.marks(other)["tags"] == ["later"]


def test_bad_backup_files_are_input_errors(marked: Library, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    for body, message in (
        ("{not json", "not UTF-8 JSON"),
        ('{"format": "other"}', "not a marks backup"),
        ('{"format": "paperscope-marks", "version": 99, "papers": []}', "newer"),
        (
            '{"format": "paperscope-marks", "version": 1, "papers": [{"title": "x"}]}',
            "entry 0 has no paper_id",
        ),
    ):
        bad.write_text(body, encoding="utf-8")
        with pytest.raises(InputError, match=message) as info:
            marked.restore(bad)
        assert info.value.path == str(bad)
    with pytest.raises(InputError, match="no such file"):
        marked.restore(tmp_path / "missing.json")


def test_cli_backup_and_restore(marked: Library, icml_dir: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    path = tmp_path / "m.json"
    result = runner.invoke(cli, ["--db", str(marked.path), "backup", str(path)])
    assert result.exit_code == 0 and "30 papers" in result.stdout
    db = tmp_path / "d.db"
    runner.invoke(cli, ["--db", str(db), "ingest", "--no-embed", str(icml_dir)], catch_exceptions=False)
    result = runner.invoke(cli, ["--db", str(db), "restore", str(path)])
    assert result.exit_code == 0
    assert "restored the marks of 30 of 30 papers (30 by paper_id, 0 by content)" in result.stdout
    data = json.loads(runner.invoke(cli, ["--db", str(db), "restore", str(path), "--json"]).stdout)
    assert data["by_id"] == 30 and data["unmatched"] == []
    bad = runner.invoke(cli, ["--db", str(db), "restore", str(tmp_path / "nope.json")])
    assert bad.exit_code == 1 and "no such file" in bad.stderr and "Traceback" not in bad.output
