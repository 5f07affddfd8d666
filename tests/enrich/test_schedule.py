"""The attendee's plan: sessions stored on enrich and undone with it, the day plan and its clashes, the CLI."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli
from paperscope.errors import InputError
from paperscope.schedule import Slot, build_plan

from .conftest import abstract, title, truth, write_icml_program


def _ids(lib: Library) -> dict[int, str]:
    return {i: pid for pid, i in truth(lib).items()}


@pytest.fixture
def planned(enrich_lib: Library, tmp_path: Path) -> Library:
    """The 30-paper library enriched from the ICML-shaped program (papers 0-4), papers 0-4 kept."""
    enrich_lib.enrich(write_icml_program(tmp_path / "icml.csv"), timezone="Asia/Seoul")
    for i in range(5):
        enrich_lib.set_triage(_ids(enrich_lib)[i], "keep")
    return enrich_lib


def _sessions(lib: Library) -> list[tuple]:
    return [
        tuple(r)
        for r in lib.store.conn.execute(
            "SELECT paper_id, entry_line, position, kind, name, starts_at, ends_utc, day, timezone"
            " FROM paper_sessions ORDER BY paper_id, position"
        )
    ]


def test_enrich_stores_each_session_and_undo_removes_them(enrich_lib: Library, tmp_path: Path) -> None:
    program = write_icml_program(tmp_path / "icml.csv")
    report = enrich_lib.enrich(program, timezone="Asia/Seoul")
    ids = _ids(enrich_lib)
    assert len(report.attached) == 5 and report.entries == 5  # 8 rows, 5 papers
    assert report.sessions == 8
    rows = _sessions(enrich_lib)
    assert len(rows) == 8
    assert [r for r in rows if r[0] == ids[0]] == [
        (ids[0], 2, 1, "oral", "Oral 1A Optimization", "2026-07-14T10:00:00+09:00", "2026-07-14T01:15:00Z",
         "2026-07-14", "Asia/Seoul"),
        (ids[0], 2, 2, "poster", "Poster Session 1 East", "2026-07-14T11:00:00+09:00", "2026-07-14T04:30:00Z",
         "2026-07-14", "Asia/Seoul"),
    ]  # fmt: skip
    assert enrich_lib.get(ids[1]).source_area == "Deep Learning->Generative Models"
    enrich_lib.enrich(program, timezone="Asia/Seoul")  # a rerun attaches nothing and keeps the rows
    assert len(_sessions(enrich_lib)) == 8
    restored, _ = enrich_lib.undo_enrich(program)
    assert len(restored) == 5 and _sessions(enrich_lib) == []
    assert enrich_lib.get(ids[1]).source_area is None


def test_an_oral_and_a_poster_that_overlap_are_a_clash(planned: Library) -> None:
    ids = _ids(planned)
    plan = planned.schedule(state="keep")
    assert plan.papers == 5 and len(plan.slots) == 8
    assert plan.clashes == [
        (f"{ids[0]}-oral-1@paperscope", f"{ids[2]}-oral-1@paperscope"),  # two orals at 10:00 on day 1
        (
            f"{ids[3]}-poster-1@paperscope",
            f"{ids[4]}-oral-1@paperscope",
        ),  # a poster 9:30-12:00, an oral 10:00
    ]
    day1 = plan.days[0]
    assert day1.day == "2026-07-14"
    assert [(g.name, g.has_clash, [s.paper_id for s in g.slots]) for g in day1.sessions] == [
        ("Oral 1A Optimization", True, [ids[0]]),
        ("Oral 1B Theory", True, [ids[2]]),
        (
            "Poster Session 1 East",
            False,
            sorted([ids[0], ids[1]], key=lambda p: title(_index(ids, p)).casefold()),
        ),
        ("Poster Session 2 West", False, [ids[2]]),
    ]


def _index(ids: dict[int, str], paper_id: str) -> int:
    return next(i for i, p in ids.items() if p == paper_id)


def test_papers_not_chosen_do_not_clash(planned: Library) -> None:
    ids = _ids(planned)
    planned.set_triage(ids[2], "maybe")
    planned.set_triage(ids[4], None)
    plan = planned.schedule(state="keep")
    assert plan.clashes == [] and plan.papers == 3
    planned.star(ids[2])
    planned.star(ids[0])
    assert len(planned.schedule(starred=True).clashes) == 1
    assert [d.day for d in planned.schedule(state="keep", day="2026-07-15").days] == ["2026-07-15"]


def _slot(uid: str, kind: str, name: str, start: str, end: str | None) -> Slot:
    day = start[:10]
    return Slot(uid, uid, uid, None, None, kind, name, start, end, None, day, None, None)


def test_clash_rule_on_hand_made_slots() -> None:
    plan = build_plan(
        [
            _slot("a", "oral", "O1", "2026-07-14T10:00:00+09:00", "2026-07-14T10:15:00+09:00"),
            _slot("b", "oral", "O2", "2026-07-14T10:15:00+09:00", "2026-07-14T10:30:00+09:00"),  # touches a
            _slot("c", "poster", "P1", "2026-07-14T10:20:00+09:00", "2026-07-14T12:00:00+09:00"),  # b's end
            _slot("d", "poster", "P1", "2026-07-14T10:20:00+09:00", "2026-07-14T12:00:00+09:00"),  # c's hall
            _slot("e", "poster", "P2", "2026-07-14T03:00:00+02:00", "2026-07-14T03:30:00+02:00"),  # 10:00 KST
            _slot("f", "oral", "O3", "2026-07-14T13:00:00+09:00", None),  # an instant
            _slot("g", "oral", "O4", "2026-07-14T13:00:00+09:00", "2026-07-14T13:10:00+09:00"),
        ]
    )
    # a and b only touch; c and d are one poster session; e (10:00-10:30 in Seoul) overlaps a to d
    assert plan.clashes == [
        ("a", "e"),
        ("e", "b"),
        ("e", "c"),
        ("e", "d"),
        ("b", "c"),
        ("b", "d"),
        ("f", "g"),
    ]
    assert [s.uid for s in plan.slots] == ["a", "e", "b", "c", "d", "f", "g"]


def test_schedule_cli_prints_the_day_plan_with_clashes(planned: Library) -> None:
    ids = _ids(planned)
    db = str(planned.store.path)
    result = CliRunner().invoke(cli, ["--db", db, "schedule", "--state", "keep", "--day", "2026-07-15"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "Wednesday 2026-07-15",
        "  09:30–12:00 (UTC+09:00)  poster  Poster Session 3 East  [clash]",
        f"    !! {title(3)}  {ids[3]}",
        f"         clashes with: {title(4)}",
        "  10:00–10:15 (UTC+09:00)  oral  Oral 3C Generative Models  [clash]",
        f"    !! {title(4)}  {ids[4]}",
        f"         clashes with: {title(3)}",
        "  14:00–16:30 (UTC+09:00)  poster  Poster Session 4 West",
        f"       {title(4)}  {ids[4]}",
        "",
        "2 papers, 3 sessions, 1 clash",
    ]
    as_json = CliRunner().invoke(cli, ["--db", db, "schedule", "--state", "keep", "--json"])
    data = json.loads(as_json.stdout)
    assert [d["day"] for d in data["days"]] == ["2026-07-14", "2026-07-15"]
    assert data["clashes"][0] == [f"{ids[0]}-oral-1@paperscope", f"{ids[2]}-oral-1@paperscope"]
    first = data["days"][0]["sessions"][0]["slots"][0]
    assert first["link"] == "https://openreview.net/forum?id=icml0000x"
    assert first["url"] == "https://icml.cc/virtual/2026/oral/1001"


def test_schedule_errors_are_one_line(planned: Library) -> None:
    db = str(planned.store.path)
    other_day = CliRunner().invoke(cli, ["--db", db, "schedule", "--day", "2026-07-16"])
    assert other_day.exit_code == 0 and other_day.stderr == "No sessions of these papers on 2026-07-16\n"
    bad_day = CliRunner().invoke(cli, ["--db", db, "schedule", "--day", "14/07/2026"])
    assert bad_day.exit_code == 1
    assert bad_day.stderr == "Error: --day '14/07/2026' is not a date: write it as YYYY-MM-DD (2026-07-14)\n"
    with pytest.raises(InputError, match="unknown triage state 'kept'"):
        planned.schedule(state="kept")


def test_schedule_without_sessions_says_what_to_do(enrich_lib: Library) -> None:
    result = CliRunner().invoke(cli, ["--db", str(enrich_lib.store.path), "schedule"])
    assert result.exit_code == 0 and result.stdout == ""
    assert "attach the program first (paperscope enrich --program FILE)" in result.stderr


def test_enrich_cli_reads_naive_times_in_the_timezone_given(enrich_lib: Library, tmp_path: Path) -> None:
    program = write_icml_program(tmp_path / "icml.csv", with_offset=False)
    db = str(enrich_lib.store.path)
    before = _sessions(enrich_lib)
    failed = CliRunner().invoke(cli, ["--db", db, "enrich", "--program", str(program)])
    assert failed.exit_code == 1 and failed.stderr.startswith(
        f"Error: {program}:2: start time '2026-07-14 10:00:00'"
    )
    assert _sessions(enrich_lib) == before == []
    done = CliRunner().invoke(
        cli, ["--db", db, "enrich", "--program", str(program), "--timezone", "Asia/Seoul"]
    )
    assert done.exit_code == 0, done.output
    assert "stored 8 sessions of the attached papers (`paperscope schedule`)" in done.stdout.splitlines()
    assert {r[5] for r in _sessions(enrich_lib)} >= {"2026-07-14T10:00:00+09:00", "2026-07-15T14:00:00+09:00"}


def test_salvage_keeps_the_sessions(planned: Library, tmp_path: Path) -> None:
    before = planned.schedule(state="keep").to_dict()
    rows = _sessions(planned)
    planned.close()
    new = tmp_path / "salvaged.db"
    result = CliRunner().invoke(cli, ["--db", str(planned.store.path), "doctor", "--salvage", str(new)])
    assert result.exit_code == 0, result.output
    with Library(new) as lib:
        assert _sessions(lib) == rows and len(rows) == 8
        assert lib.schedule(state="keep").to_dict() == before


def test_papers_with_their_own_title_get_their_sessions(tmp_path: Path) -> None:
    listing = tmp_path / "titled.csv"
    with listing.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["title", "abstract"])
        writer.writerows(
            [[title(i).lower(), abstract(i)] for i in range(6)]
        )  # case differs from the program's
    program = write_icml_program(tmp_path / "icml.csv")
    with Library(tmp_path / "titled.db") as lib:
        lib.ingest([listing])
        report = lib.enrich(program)
        assert report.attached == [] and report.in_library == 5 and report.sessions == 8
        by_title = {p.title: p.paper_id for p in lib.papers()}
        plan = lib.schedule()
        assert plan.papers == 5 and len(plan.clashes) == 2
        assert [s.kind for s in plan.slots if s.paper_id == by_title[title(0).lower()]] == ["oral", "poster"]
        assert lib.enrich(program).sessions == 8 and len(_sessions(lib)) == 8  # a rerun replaces them
        restored, _ = lib.undo_enrich(program)
        assert restored == [] and _sessions(lib) == []
