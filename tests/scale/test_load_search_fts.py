"""A bulk ``load`` pauses the full-text index for other tools and always leaves it whole (issue 28)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from paperscope.errors import InputError
from paperscope.library import Library
from paperscope.scale import load
from paperscope.scale.build import run_build
from paperscope.scale.load import load_shards
from paperscope.store import search_fts

pytest.importorskip("pyarrow", reason="build/load need pyarrow: pip install 'paperscope[ray]'")

_TRIGGERS = ["papers_search_delete", "papers_search_insert", "papers_search_update"]


def _state(db: Path) -> tuple[list[str], list[tuple[str]], set[str], set[str]]:
    """(trigger names, pause mark, rowids the index finds for 'the', rowids of papers whose text has 'the')."""
    conn = sqlite3.connect(db)
    try:
        triggers = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'papers_search_%' ORDER BY name"
            )
        ]
        mark = conn.execute(
            "SELECT value FROM library_state WHERE key = ?", (search_fts.PAUSED_KEY,)
        ).fetchall()
        found = {
            r[0]
            for r in conn.execute("SELECT rowid FROM papers_search_fts WHERE papers_search_fts MATCH 'the'")
        }
        holding = {
            r[0]
            for r in conn.execute(
                "SELECT rowid FROM papers WHERE (' ' || lower(coalesce(title, '') || ' ' || abstract) || ' ')"
                " GLOB '*[^a-z]the[^a-z]*'"
            )
        }
    finally:
        conn.close()
    return triggers, mark, found, holding


def test_a_load_that_dies_leaves_the_index_paused_and_the_next_writer_rebuilds_it(
    mixed_sources: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_build([str(s) for s in mixed_sources], tmp_path / "shards")
    db = tmp_path / "lib.db"
    stored = load._load_files

    def dies_after_storing(*args, **kwargs):  # type: ignore[no-untyped-def]
        stored(*args, **kwargs)
        raise KeyboardInterrupt  # as Ctrl-C or a kill: nothing after it runs

    monkeypatch.setattr(load, "_load_files", dies_after_storing)
    with Library(db) as lib, pytest.raises(KeyboardInterrupt):
        load_shards(lib, tmp_path / "shards")
    monkeypatch.undo()
    triggers, mark, found, holding = _state(db)
    assert triggers == [] and mark and not found and len(holding) > 100

    with Library(db) as lib:
        report = lib.doctor()
    (finding,) = [f for f in report.findings if f.check == "search_fts"]
    assert finding.problem and "did not finish" in finding.message and "doctor --repair" in finding.repair

    with Library(db) as lib:
        lib.ingest([mixed_sources[-1]])  # any writer: it rebuilds the index before it writes
    triggers, mark, found, holding = _state(db)
    assert triggers == _TRIGGERS and mark == [] and found == holding

    with Library(db) as lib:  # and the triggers follow writes again
        with lib.store.transaction() as conn:
            conn.execute("UPDATE papers SET abstract = abstract || ' zzfollowed' WHERE rowid = 1")
        hits = lib.store.conn.execute(
            "SELECT rowid FROM papers_search_fts WHERE papers_search_fts MATCH 'zzfollowed'"
        ).fetchall()
        assert [tuple(h) for h in hits] == [(1,)]
        assert next(f for f in lib.doctor().findings if f.check == "search_fts").ok


def test_doctor_repair_rebuilds_an_abandoned_index(mixed_sources: list[Path], tmp_path: Path) -> None:
    db = tmp_path / "lib.db"
    with Library(db) as lib:
        lib.ingest(mixed_sources[:1])
        with lib.store.transaction() as conn:
            search_fts.pause(conn)
            conn.execute(
                "UPDATE library_state SET value = 'pid another-host:1' WHERE key = ?",
                (search_fts.PAUSED_KEY,),
            )
            conn.execute("INSERT INTO papers_search_fts (papers_search_fts) VALUES ('delete-all')")
        report = lib.doctor(repair=True)
    assert any("papers_search_fts" in line for line in report.repaired)
    triggers, mark, found, holding = _state(db)
    assert triggers == _TRIGGERS and mark == [] and found == holding and len(holding) > 50


def test_a_running_load_keeps_its_pause(tmp_path: Path) -> None:
    """Another process does not rebuild the index under a load that still runs (it would only slow it)."""
    db = tmp_path / "lib.db"
    with Library(db) as lib, lib.store.transaction() as conn:
        search_fts.pause(conn)
        running = search_fts.paused_by(conn)
        assert running is not None
        # This process paused it, so here it counts as gone; PID 1 (init) always runs.
        host = running.removeprefix("pid ").rpartition(":")[0]
        conn.execute(
            "UPDATE library_state SET value = ? WHERE key = ?", (f"pid {host}:1", search_fts.PAUSED_KEY)
        )
        assert not search_fts.resume_abandoned(conn)
        assert search_fts.paused_by(conn) == f"pid {host}:1"
        conn.execute("UPDATE library_state SET value = ? WHERE key = ?", (running, search_fts.PAUSED_KEY))
        assert search_fts.resume_abandoned(conn)
        assert search_fts.paused_by(conn) is None


def test_a_load_that_stops_on_a_bad_shard_leaves_the_index_whole(
    mixed_sources: list[Path], tmp_path: Path
) -> None:
    run_build([str(s) for s in mixed_sources], tmp_path / "shards")
    last = sorted((tmp_path / "shards").glob("*.parquet"))[-1]
    last.write_bytes(b"not parquet")
    db = tmp_path / "lib.db"
    with Library(db) as lib, pytest.raises(InputError, match="not a readable Parquet shard"):
        load_shards(lib, tmp_path / "shards")
    triggers, mark, found, holding = _state(db)
    assert triggers == _TRIGGERS and mark == [] and found == holding and len(holding) > 50
