"""Opening a library again in one process keeps the SQLite locks its open connections hold.

Closing any descriptor of a file drops every POSIX lock the process holds on it (fcntl(2)). The
header checks of an open (``health.check_file``, ``health.truncation``) read the file raw, so a
second open in a process that had the library open (the web server's pool does that) dropped
the first connection's locks: another process that then opened and closed the library took
itself for the last one, deleted the WAL under the server, and the server later answered "file
is not a database" (a fresh-user trial).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from paperscope import Library
from paperscope.errors import StoreError
from paperscope.store.db import Store


def _open_and_close_elsewhere(db: Path) -> None:
    code = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('SELECT count(*) FROM papers').fetchone(); c.close()"
    subprocess.run([sys.executable, "-c", code, str(db)], check=True, timeout=60)


def test_a_second_open_keeps_the_first_ones_locks(tmp_path: Path, icml_dir: Path) -> None:
    db = tmp_path / "lib.db"
    first = Library(db, embedder="fake")
    first.ingest([icml_dir / "000_9f997565051fc2a1.txt"], embed=False)
    wal = Path(f"{db}-wal")
    assert wal.exists()
    second = Store(db)  # as a server's pool opens one more connection
    _open_and_close_elsewhere(db)
    assert wal.exists() and Path(f"{db}-shm").exists()  # the other process knew it was not the last
    first.ingest([icml_dir / "001_d57e93a6687b01f8.txt"], embed=False)
    assert second.conn.execute("SELECT count(*) FROM papers").fetchone()[0] == 38
    second.close()
    first.close()
    # Once every Store here is closed, an open reads the file raw again: a file that stopped
    # being a library is refused with its one line.
    db.write_bytes(b"not a database at all")
    Path(f"{db}-wal").unlink(missing_ok=True)
    Path(f"{db}-shm").unlink(missing_ok=True)
    with pytest.raises(StoreError, match="not a paperscope library"):
        Store(db)
