"""The in-memory set of a library's near-duplicate keys (``ingest/keyset.py``): never misses a stored key."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from paperscope.ingest.keyset import StoredKeys

_TABLE = "CREATE TABLE dedup_keys (key INTEGER NOT NULL, paper_id TEXT NOT NULL, PRIMARY KEY (key, paper_id)) WITHOUT ROWID"


def test_it_answers_as_a_python_set_over_many_batches() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute(_TABLE)
    first = random.Random(1)
    stored = [first.randrange(-(2**63), 2**63) for _ in range(300)]
    conn.executemany("INSERT OR IGNORE INTO dedup_keys VALUES (?, 'p')", [(k,) for k in stored])
    keys = StoredKeys(conn)
    want = set(stored)
    rng = random.Random(7)
    for size in [1, 5, 1000, 3, 250, 0, 64, 2000, 1]:
        batch = [rng.randrange(-(2**63), 2**63) for _ in range(size)] + rng.sample(sorted(want), 2)
        keys.add(batch)
        want.update(batch)
        probe = (
            batch[: size // 2] + [rng.randrange(-(2**63), 2**63) for _ in range(100)] + [2**63 - 1, -(2**63)]
        )
        assert keys.stored(probe) == want & set(probe)
    assert keys.stored(want) == want
    assert len(keys._runs) <= 12  # runs are merged as they grow (log-structured)


def test_a_commit_by_another_connection_is_read_again(tmp_path: Path) -> None:
    db = tmp_path / "lib.db"
    mine = sqlite3.connect(db)
    mine.execute(_TABLE)
    mine.commit()
    keys = StoredKeys(mine)
    assert keys.stored([42]) == set()
    other = sqlite3.connect(db)
    other.execute("INSERT INTO dedup_keys VALUES (42, 'another process')")
    other.commit()
    assert keys.stored([42, 43]) == {42}
