"""Two programs that give the same sessions (a copy under another file name): each session is one session."""

from __future__ import annotations

import shutil
from pathlib import Path

import icalendar
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.cli import cli
from paperscope.web import create_app

from .conftest import truth, write_icml_program


def _uids(lib: Library) -> list[str]:
    return [s.uid for s in lib.schedule().slots]


def _ics_uids(lib: Library, out: Path) -> list[str]:
    result = CliRunner().invoke(
        cli, ["--db", str(lib.store.path), "export", "--format", "ics", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return sorted(e.uid for e in icalendar.Calendar.from_ical(out.read_bytes()).events)


@pytest.fixture
def two_programs(enrich_lib: Library, tmp_path: Path) -> tuple[Library, Path, Path, list[str], list[str]]:
    """The library enriched from the ICML-shaped program, then from a copy of it under another name.

    Returns the library, both programs, and the plan's and the calendar's UIDs after the first.
    """
    first = write_icml_program(tmp_path / "icml2026.csv")
    enrich_lib.enrich(first, timezone="Asia/Seoul")
    uids, events = _uids(enrich_lib), _ics_uids(enrich_lib, tmp_path / "one.ics")
    copy = tmp_path / "icml2026-v2.csv"
    shutil.copy(first, copy)
    return enrich_lib, first, copy, uids, events


def test_a_copy_of_the_program_adds_no_session_and_no_event(two_programs, tmp_path: Path) -> None:
    lib, _, copy, uids, events = two_programs
    clashes = lib.schedule().clashes
    report = lib.enrich(copy, timezone="Asia/Seoul")
    assert report.attached == [] and report.in_library == 5
    assert report.sessions == 8 and report.sessions_shared == 8  # stored, and each shown once
    assert len(uids) == 8 and _uids(lib) == uids and lib.schedule().clashes == clashes
    assert _ics_uids(lib, tmp_path / "two.ics") == events and len(events) == 8
    ids = {i: pid for pid, i in truth(lib).items()}
    assert [s.uid for s in lib.schedule(paper_ids=[ids[0]]).slots] == [
        f"{ids[0]}-oral-1@paperscope",
        f"{ids[0]}-poster-1@paperscope",
    ]  # the paper page's sessions
    with TestClient(create_app(lib)) as client:
        plan = client.get("/api/schedule").json()["data"]
    assert len(plan["clashes"]) == 2
    assert sorted(s["uid"] for d in plan["days"] for g in d["sessions"] for s in g["slots"]) == sorted(uids)


@pytest.mark.parametrize("undone", ["first", "copy"])
def test_undoing_either_program_leaves_the_others_sessions(two_programs, undone: str, tmp_path: Path) -> None:
    lib, first, copy, uids, events = two_programs
    lib.enrich(copy, timezone="Asia/Seoul")
    lib.undo_enrich(first if undone == "first" else copy)
    assert _uids(lib) == uids and _ics_uids(lib, tmp_path / "left.ics") == events


def test_a_rerun_counts_the_entries_it_attached_as_in_the_library(two_programs) -> None:
    lib, first, _, _, _ = two_programs
    report = lib.enrich(first, timezone="Asia/Seoul")
    assert report.entries == 5 and report.in_library == 5 and report.sessions_shared == 0


def test_the_report_says_the_copys_sessions_are_shown_once(two_programs) -> None:
    lib, _, copy, _, _ = two_programs
    result = CliRunner().invoke(
        cli, ["--db", str(lib.store.path), "enrich", "--program", str(copy), "--timezone", "Asia/Seoul"]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{copy}: 5 entries (5 already in the library)")
    assert "8 of the program's sessions were stored from another program already: each is shown once" in lines
