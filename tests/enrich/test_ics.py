"""``export --format ics``: read back with the icalendar library: events, times with their offset, stable UIDs."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import icalendar
from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli

from .conftest import title, truth, write_icml_program


def _calendar(lib: Library, *args: str, out: Path) -> icalendar.Calendar:
    result = CliRunner().invoke(cli, ["--db", str(lib.store.path), "export", *args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return icalendar.Calendar.from_ical(out.read_bytes())


def test_ics_has_an_event_per_session_in_the_programs_zone(enrich_lib: Library, tmp_path: Path) -> None:
    enrich_lib.enrich(write_icml_program(tmp_path / "icml.csv"), timezone="Asia/Seoul")
    ids = {i: pid for pid, i in truth(enrich_lib).items()}
    calendar = _calendar(enrich_lib, "--format", "ics", out=tmp_path / "plan.ics")
    events = calendar.events
    assert len(events) == 8  # 5 papers, 3 of them orals with an Oral and a Poster row
    assert [tz.tz_name for tz in calendar.timezones] == ["Asia/Seoul"]
    oral = next(e for e in events if e.uid == f"{ids[0]}-oral-1@paperscope")
    assert oral.start == datetime.fromisoformat("2026-07-14T10:00:00+09:00")
    assert oral.start.utcoffset() == timedelta(hours=9) and oral.start.tzinfo.key == "Asia/Seoul"
    assert oral.end - oral.start == timedelta(minutes=15)
    assert str(oral["SUMMARY"]) == f"Oral: {title(0)}"
    assert str(oral["LOCATION"]) == "Oral 1A Optimization"
    assert str(oral["URL"]) == "https://openreview.net/forum?id=icml0000x"
    assert str(oral["DESCRIPTION"]).splitlines() == [
        title(0),
        "Oral 1A Optimization",
        "https://openreview.net/forum?id=icml0000x",
        f"paper_id: {ids[0]}",
    ]
    assert sorted(e.uid for e in events if e.uid.startswith(ids[4])) == [
        f"{ids[4]}-oral-1@paperscope",
        f"{ids[4]}-poster-1@paperscope",
    ]


def test_ics_uids_are_the_same_in_two_exports(enrich_lib: Library, tmp_path: Path) -> None:
    enrich_lib.enrich(write_icml_program(tmp_path / "icml.csv"))  # offsets only: no zone named
    first = _calendar(enrich_lib, "--format", "ics", out=tmp_path / "a.ics")
    second = _calendar(enrich_lib, out=tmp_path / "b.ics")  # the format from the .ics extension
    uids = [e.uid for e in first.events]
    assert len(set(uids)) == 8 and uids == [e.uid for e in second.events]
    # no IANA zone: the times are written in UTC, the same instants as the program's
    starts = sorted(e.start for e in first.events)
    assert starts[0] == datetime.fromisoformat("2026-07-14T10:00:00+09:00")
    assert starts[0].utcoffset() == timedelta(0) and first.timezones == []


def test_ics_of_a_selection_has_only_its_papers_sessions(enrich_lib: Library, tmp_path: Path) -> None:
    enrich_lib.enrich(write_icml_program(tmp_path / "icml.csv"), timezone="Asia/Seoul")
    ids = {i: pid for pid, i in truth(enrich_lib).items()}
    enrich_lib.set_triage(ids[1], "keep")
    enrich_lib.set_triage(ids[7], "keep")  # no session: no event
    kept = _calendar(enrich_lib, "--format", "ics", "--state", "keep", out=tmp_path / "keep.ics")
    assert [(e.uid, str(e["SUMMARY"])) for e in kept.events] == [
        (f"{ids[1]}-poster-1@paperscope", f"Poster: {title(1)}")
    ]


def test_ics_says_how_many_events_of_how_many_papers(enrich_lib: Library, tmp_path: Path) -> None:
    enrich_lib.enrich(write_icml_program(tmp_path / "icml.csv"), timezone="Asia/Seoul")
    out = tmp_path / "all.ics"
    result = CliRunner().invoke(
        cli, ["--db", str(enrich_lib.store.path), "export", "--format", "ics", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [f"wrote 8 events (5 papers) to {out}"]  # not the 30 papers
    assert len(icalendar.Calendar.from_ical(out.read_bytes()).events) == 8


def test_ics_without_sessions_writes_nothing_and_says_why(enrich_lib: Library, tmp_path: Path) -> None:
    db = str(enrich_lib.store.path)
    for args in (["--out", str(tmp_path / "none.ics")], ["--format", "ics"]):  # a file, or stdout
        result = CliRunner().invoke(cli, ["--db", db, "export", *args])
        assert result.exit_code == 1 and result.stdout == ""
        assert result.stderr.splitlines() == [
            "Error: no calendar written: these papers have no session with a time; attach the conference"
            " program first (paperscope enrich --program FILE) or choose papers that have sessions"
            " (paperscope schedule lists them)"
        ]
    assert not (tmp_path / "none.ics").exists() and not (tmp_path / "none.ics.tmp").exists()
