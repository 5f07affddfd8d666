"""Reading program files: the ingest aliases, --map, sessions, JSON shapes and one clear error per bad file."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli
from paperscope.enrich.program import parse_program_map, read_program
from paperscope.errors import InputError

from .conftest import title, write_program


def test_csv_with_the_usual_names(tmp_path: Path) -> None:
    program = read_program(write_program(tmp_path / "p.csv", [0, 1]))
    first, second = program.entries
    assert (first.line, first.title) == (2, title(0))
    assert first.authors == ("Ada Author0", "Bo Writer0")
    assert first.session == "Poster session 1"
    assert first.decision == "Oral" and second.decision == "Poster"
    assert first.urls == ("https://openreview.net/forum?id=paper0000x",)
    assert first.external_ids == {"openreview": "paper0000x"}


def test_map_names_other_columns_and_the_session(tmp_path: Path) -> None:
    path = write_program(tmp_path / "p.csv", [1], rename={"title": "Paper", "session": "Slot"})
    with pytest.raises(InputError, match=r"p\.csv:1: no title column .*--map title=COLUMN"):
        read_program(path)
    program = read_program(path, parse_program_map(["title=Paper", "session=Slot"]))
    assert program.entries[0].title == title(1)
    assert program.entries[0].session == "Poster session 2"
    assert parse_program_map("title=Paper,session=Slot") == {"title": "Paper", "session": "Slot"}
    assert parse_program_map(["room=Hall", "start=Begins"]) == {"room": "Hall", "start": "Begins"}
    with pytest.raises(
        InputError, match="unknown field.*, session, kind, start, end, room, timezone, institutions$"
    ):
        parse_program_map(["colour=Hall"])


def test_venue_column_holding_the_decision_and_rows_without_title(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text(
        "title,openreview_url,venue\nA Title,https://openreview.net/forum?id=abcdef1,ICLR 2026 Oral\n,,\n"
        ",https://openreview.net/forum?id=abcdef2,ICLR 2026 Poster\n",
        encoding="utf-8-sig",
    )
    program = read_program(path)
    entry = program.entries[0]
    assert (entry.venue, entry.year, entry.decision) == ("ICLR", 2026, "Oral")
    assert program.without_title == [4]  # the blank row 3 is no row at all


def test_json_array_lines_and_a_wrapping_object(tmp_path: Path) -> None:
    records = [
        {"name": "First Paper", "authors": [{"fullname": "Ann Lee"}], "session": "Oral 1", "status": "Oral"},
        {"name": "Second Paper", "authors": ["Bo Li", "Cy Wu"], "sessions": ["Poster 2"]},
    ]
    array = tmp_path / "a.json"
    array.write_text(json.dumps(records), encoding="utf-8")
    lines = tmp_path / "l.jsonl"
    lines.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    wrapped = tmp_path / "w.json"
    wrapped.write_text(json.dumps({"count": 2, "notes": records}), encoding="utf-8")
    for path in (array, lines, wrapped):
        entries = read_program(path).entries
        assert [e.title for e in entries] == ["First Paper", "Second Paper"]
        assert entries[0].authors == ("Ann Lee",) and entries[1].authors == ("Bo Li", "Cy Wu")
        assert entries[0].session == "Oral 1" and entries[1].session == "Poster 2"
        assert entries[0].decision == "Oral"
    assert [e.line for e in read_program(lines).entries] == [1, 2]


@pytest.mark.parametrize(
    ("name", "body", "where"),
    [
        ("bad.csv", 'title,session\nGood,One\n"Unclosed,Two\n', "bad.csv:3"),
        ("bad.csv", "title,session\nGood,One\nToo,many,cells\n", "bad.csv:3"),
        ("bad.jsonl", '{"title": "Fine"}\n{"title": "Broken"\n', "bad.jsonl:2"),
        ("bad.json", '[{"title": "Fine"},\n {"title": "Broken",}]', "bad.json:2"),
        ("none.csv", "paper,session\nGood,One\n", "none.csv:1"),
        ("empty.csv", "", "empty.csv"),
        ("untitled.csv", "title,session\n,One\n", "untitled.csv"),
    ],
)
def test_bad_program_files_give_one_line_naming_file_and_line(
    tmp_path: Path, name: str, body: str, where: str
) -> None:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    with pytest.raises(InputError):
        read_program(path)
    db = tmp_path / "lib.db"
    Library(db).close()
    runner = CliRunner()
    result = runner.invoke(cli, ["--db", str(db), "enrich", "--program", str(path)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {tmp_path / where}")
    assert "Traceback" not in result.output


def test_a_missing_program_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_program(tmp_path / "nowhere.csv")


def test_program_titles_are_cleaned_as_ingested_titles_are(tmp_path: Path) -> None:
    # Programs write titles with LaTeX, markdown and invisible marks; the library holds the clean
    # text. The same title, ingested and read from a program, must be the same string, or the
    # entry is not seen as "already in the library" and an attached title shows raw LaTeX.
    raw = [
        "Best-of-$N$ Sampling with Verifiers",
        "\\textbf{InfoRMIA}: Membership Inference with Information",
        "DA$^{2}$: Depth Anything in Any Direction",
        "Improved $\\ell_{p}$ Regression via Iteratively Reweighted Least Squares",
        "Zero\u200bwidth &amp; Entities in a Title",
    ]
    library_csv = tmp_path / "papers.csv"
    with library_csv.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["title", "abstract"])
        for i, t in enumerate(raw):
            writer.writerow([t, f"Abstract number {i} about a method for a problem with results on data."])
    program = tmp_path / "program.csv"
    with program.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["title", "session"])
        writer.writerows([t, "Poster 1"] for t in raw)
    lib = Library(tmp_path / "lib.db")
    lib.ingest([library_csv], embed=False)
    stored = sorted(p.title for p in lib.papers())
    read = sorted(e.title for e in read_program(program).entries)
    assert read == stored
    assert not any(mark in t for t in read for mark in ("$", "\\", "{", "\u200b", "&amp;"))
