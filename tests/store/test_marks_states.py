"""Triage states (issue 14): unseen (no row), skimmed, maybe, keep, reject; migration 8 keeps old states."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from paperscope import Library
from paperscope.errors import InputError
from paperscope.store import SCHEMA_VERSION, Store
from paperscope.store import marks as store_marks
from paperscope.store.migrations import MIGRATIONS


def test_every_state_is_stored_and_unseen_clears_the_row(icml_library: Library) -> None:
    pid = next(iter(icml_library.papers())).paper_id
    for state in ("skimmed", "maybe", "keep", "reject"):
        icml_library.set_triage(pid, state)
        assert icml_library.marks(pid)["triage"] == state
    icml_library.set_triage(pid, "unseen")
    assert icml_library.marks(pid)["triage"] is None
    count = icml_library.store.conn.execute("SELECT count(*) FROM triage").fetchone()[0]
    assert count == 0
    with pytest.raises(InputError, match="unseen, skimmed, maybe, keep, reject"):
        icml_library.set_triage(pid, "later")


def test_the_table_itself_refuses_an_unknown_state(icml_library: Library) -> None:
    pid = next(iter(icml_library.papers())).paper_id
    with pytest.raises(sqlite3.IntegrityError):
        icml_library.store.conn.execute("INSERT INTO triage (paper_id, state) VALUES (?, 'later')", (pid,))


def test_migration_8_keeps_the_states_written_at_schema_7(tmp_path: Path) -> None:
    # A library as schema 7 wrote it: migrations 0..6 only, with the old three-state CHECK.
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    from paperscope.store.db import _split_sql

    for number in range(7):
        for statement in _split_sql(MIGRATIONS[number]):
            conn.execute(statement)
    conn.execute("PRAGMA user_version = 7")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO triage (paper_id, state) VALUES ('p0', 'skimmed')")
    conn.executemany(
        "INSERT INTO triage (paper_id, state, updated_at) VALUES (?, ?, ?)",
        [("p1", "keep", "2026-01-02T03:04:05Z"), ("p2", "reject", "2026-01-03T00:00:00Z")],
    )
    conn.commit()
    conn.close()

    store = Store(path)
    assert store.schema_version == SCHEMA_VERSION
    rows = [
        tuple(r) for r in store.conn.execute("SELECT paper_id, state, updated_at FROM triage ORDER BY rowid")
    ]
    assert rows == [("p1", "keep", "2026-01-02T03:04:05Z"), ("p2", "reject", "2026-01-03T00:00:00Z")]
    with store.transaction() as c:
        store_marks.set_triage(c, "p1", "skimmed")
    assert store_marks.triage_of(store.conn, "p1") == "skimmed"
    store.close()
