"""The official ICML 2026 program CSV reads as published: columns, sessions, times and rows that are one paper."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from paperscope.enrich.program import ProgramEntry, parse_program_map, read_program
from paperscope.errors import InputError

from .conftest import ICML_COLUMNS, icml_rows, title, write_icml_program


def _write(path: Path, rows: list[list[str]], columns: list[str] = ICML_COLUMNS) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerows(rows)
    return path


def test_the_icml_csv_reads_without_map(tmp_path: Path) -> None:
    program = read_program(write_icml_program(tmp_path / "icml.csv"))
    assert program.unused_columns == ["event_id"]
    first = program.entries[0]
    assert first.title == title(0)
    assert first.authors == ("Ada Author0", "Bo Writer0")
    assert first.institutions == ("Seoul National University", "KAIST0")
    assert first.area == "Optimization->Convex"
    assert first.decision == "Accept (oral)"
    assert first.external_ids == {"openreview": "icml0000x"}
    assert "https://openreview.net/forum?id=icml0000x" in first.urls


def test_a_duplicate_oral_row_is_one_entry_with_two_sessions(tmp_path: Path) -> None:
    program = read_program(write_icml_program(tmp_path / "icml.csv"))
    # 8 rows: papers 0, 2 and 4 each have an Oral and a Poster row; paper 4's two rows share only the id
    assert [e.title for e in program.entries] == [title(0), title(2), title(1), title(4), title(3)]
    oral = program.entries[0]
    assert oral.line == 2 and oral.lines == (2, 4)
    assert [(s.kind, s.name, s.starts_at, s.ends_at, s.line) for s in oral.sessions] == [
        ("oral", "Oral 1A Optimization", "2026-07-14T10:00:00+09:00", "2026-07-14T10:15:00+09:00", 2),
        ("poster", "Poster Session 1 East", "2026-07-14T11:00:00+09:00", "2026-07-14T13:30:00+09:00", 4),
    ]
    assert [s.url for s in oral.sessions] == [
        "https://icml.cc/virtual/2026/oral/1001",
        "https://icml.cc/virtual/2026/poster/2001",
    ]
    assert oral.session == "Oral 1A Optimization; Poster Session 1 East"
    by_id = program.entries[3]
    assert by_id.lines == (7, 9) and by_id.title == title(4)  # the first row's title, not the upper-cased one
    assert [s.kind for s in by_id.sessions] == ["oral", "poster"]
    single = program.entries[2]
    assert single.lines == (5,) and [s.name for s in single.sessions] == ["Poster Session 1 East"]


def test_one_title_with_two_openreview_ids_is_two_papers(tmp_path: Path) -> None:
    rows = icml_rows()[:1] + [
        icml_rows()[0][:9] + ["https://openreview.net/forum?id=other01x"] + icml_rows()[0][10:]
    ]
    program = read_program(_write(tmp_path / "p.csv", rows))
    assert [e.external_ids["openreview"] for e in program.entries] == ["icml0000x", "other01x"]


def test_an_entry_round_trips_through_its_stored_json(tmp_path: Path) -> None:
    entry = read_program(write_icml_program(tmp_path / "icml.csv")).entries[0]
    assert ProgramEntry.from_dict(entry.to_dict()) == entry


def test_times_without_offset_read_in_the_timezone_given(tmp_path: Path) -> None:
    path = write_icml_program(tmp_path / "icml.csv", with_offset=False)
    program = read_program(path, timezone="Asia/Seoul")
    session = program.entries[0].sessions[0]
    assert (session.starts_at, session.timezone) == ("2026-07-14T10:00:00+09:00", "Asia/Seoul")
    # the same program in another zone: the wall clock is the program's, the offset that zone's
    other = read_program(path, timezone="America/Vancouver").entries[0].sessions[0]
    assert other.starts_at == "2026-07-14T10:00:00-07:00"


def test_a_timezone_shows_offset_times_in_that_zone(tmp_path: Path) -> None:
    session = read_program(write_icml_program(tmp_path / "icml.csv"), timezone="UTC").entries[0].sessions[0]
    assert (session.starts_at, session.timezone) == ("2026-07-14T01:00:00+00:00", "UTC")


def test_a_timezone_column_wins_over_the_option(tmp_path: Path) -> None:
    rows = [[*r, "Europe/Vienna"] for r in icml_rows(with_offset=False)[:1]]
    program = read_program(
        _write(tmp_path / "p.csv", rows, [*ICML_COLUMNS, "timezone"]), timezone="Asia/Seoul"
    )
    session = program.entries[0].sessions[0]
    assert (session.starts_at, session.timezone) == ("2026-07-14T10:00:00+02:00", "Europe/Vienna")
    assert "timezone" not in program.unused_columns


def test_a_room_column_is_the_sessions_room(tmp_path: Path) -> None:
    rows = [[*r, f"Hall {k}"] for k, r in enumerate(icml_rows()[:2], start=1)]
    program = read_program(_write(tmp_path / "p.csv", rows, [*ICML_COLUMNS, "room"]))
    assert [e.sessions[0].room for e in program.entries] == ["Hall 1", "Hall 2"]


def test_map_names_session_columns(tmp_path: Path) -> None:
    columns = [c if c != "starttime" else "Begins" for c in ICML_COLUMNS]
    path = _write(tmp_path / "p.csv", icml_rows()[:1], columns)
    assert read_program(path).entries[0].sessions[0].starts_at is None  # "Begins" is no known name
    session = read_program(path, parse_program_map("start=Begins")).entries[0].sessions[0]
    assert session.starts_at == "2026-07-14T10:00:00+09:00"
    with pytest.raises(InputError) as caught:
        read_program(path, parse_program_map("room=Hall"))
    assert (
        str(caught.value)
        == f"{path}:1: --map room=Hall: no such column; the columns are: {', '.join(columns)}"
    )


def test_a_time_without_offset_and_without_zone_names_file_and_line(tmp_path: Path) -> None:
    path = write_icml_program(tmp_path / "icml.csv", with_offset=False)
    with pytest.raises(InputError) as caught:
        read_program(path)
    assert str(caught.value) == (
        f"{path}:2: start time '2026-07-14 10:00:00' has no UTC offset and the program names no time"
        " zone: give one with --timezone (e.g. Asia/Seoul) or a timezone column"
    )


def test_a_bad_time_or_zone_is_one_error_naming_the_line(tmp_path: Path) -> None:
    rows = icml_rows()[:3]
    rows[2][7] = "half past ten"
    path = _write(tmp_path / "p.csv", rows)
    with pytest.raises(InputError, match=rf"^{path}:4: end time 'half past ten' is not a time"):
        read_program(path)
    rows = icml_rows()[:3]
    rows[1][7] = "2026-07-14T09:00:00+09:00"
    with pytest.raises(
        InputError, match=r"p2\.csv:3: the session ends \(2026-07-14T09:00:00\+09:00\) before it starts"
    ):
        read_program(_write(tmp_path / "p2.csv", rows))
    with pytest.raises(InputError, match=r"unknown time zone 'Mars/Olympus': give an IANA name"):
        read_program(write_icml_program(tmp_path / "icml.csv"), timezone="Mars/Olympus")
