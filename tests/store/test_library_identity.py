"""Issue 26, kind 2: a copied, restored or moved library never reads another library's caches.

Each test writes the caches of one history (a dense search writes the vector matrix under
``indexes/LIBRARY_ID``), then adds a different paper to a second file that starts from the same
bytes and the same row counts, so that before the fix both reached one cache key and the second
file's dense search returned the first file's paper.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli
from paperscope.index.embed import FakeEmbedder
from paperscope.store import identity, vectors

#: Two papers that share no word with each other or with the example lists' topic words.
ORIGINAL_PAPER = "We price zebra giraffe auctions for savanna marketplaces with okapi bidders."
COPY_PAPER = "We prune quokka wombat kangaroo heads for marsupial language models."
ORIGINAL_QUERY = "zebra giraffe okapi auctions"
COPY_QUERY = "quokka wombat kangaroo marsupial"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory, icml_dir: Path) -> Path:
    """One example list, ingested and embedded with the fake embedder, its caches written."""
    db = tmp_path_factory.mktemp("identity-base") / "base.db"
    with Library(db, embedder="fake") as lib:
        lib.ingest([sorted(icml_dir.glob("*.txt"))[0]])
        lib.search("dataset distillation", mode="dense")
    return db


def _list_file(folder: Path, abstract: str) -> Path:
    path = folder / f"{hashlib.sha1(abstract.encode()).hexdigest()[:8]}.txt"
    path.write_text(f"ICML 2026 Papers\n\n{abstract}\n", encoding="utf-8")
    return path


def _add_and_search(db: Path, abstract: str, query: str) -> tuple[str, list[str], str, Path]:
    """Ingest one paper into ``db``; return its id, a dense search's ids, the library_id and cache folder."""
    with Library(db, embedder="fake") as lib:
        lib.ingest([_list_file(db.parent, abstract)])
        (new_id,) = lib.store.conn.execute(
            "SELECT paper_id FROM papers ORDER BY rowid DESC LIMIT 1"
        ).fetchone()
        hits = [h.paper_id for h in lib.search(query, mode="dense", limit=3)]
        cache = lib._cache_dir()
        assert cache is not None
        return new_id, hits, lib.store.library_id, cache


def _library_id(db: Path, read_only: bool | None = None) -> str:
    with Library(db, embedder="fake", read_only=read_only) as lib:
        return lib.store.library_id


def _stored_state(db: Path) -> dict[str, str]:
    conn = sqlite3.connect(db)
    try:
        return {k: str(v) for k, v in conn.execute("SELECT key, value FROM library_state")}
    finally:
        conn.close()


def _copy_in_place(source: Path, target: Path) -> None:
    """Write ``source``'s bytes over ``target`` as ``cp source target`` does: same file, same inode."""
    with source.open("rb") as src, target.open("r+b") as dst:
        dst.truncate(0)
        shutil.copyfileobj(src, dst)


@pytest.mark.parametrize("copy", [shutil.copy, shutil.copy2], ids=["copy", "copy2"])
def test_a_copy_finds_its_own_new_paper_and_never_the_originals(
    base: Path, tmp_path: Path, copy: Callable[[Path, Path], object]
) -> None:
    original, duplicate = tmp_path / "original.db", tmp_path / "copy.db"
    shutil.copy2(base, original)
    original_id = _library_id(original)
    copy(original, duplicate)

    theirs, original_hits, id_after, original_cache = _add_and_search(
        original, ORIGINAL_PAPER, ORIGINAL_QUERY
    )
    ours, copy_hits, copy_id, copy_cache = _add_and_search(duplicate, COPY_PAPER, COPY_QUERY)

    assert copy_hits[0] == ours and theirs not in copy_hits
    assert copy_id != original_id and copy_cache != original_cache
    # The original is unchanged: same id, its own paper first, the copy's paper absent.
    assert id_after == original_id and _library_id(original) == original_id
    assert original_hits[0] == theirs and ours not in original_hits
    with Library(original, embedder="fake") as lib:
        assert [h.paper_id for h in lib.search(ORIGINAL_QUERY, mode="dense", limit=3)][0] == theirs
        assert lib.store.count("papers") == 20


def test_a_copy_reads_its_vectors_from_its_file_and_embeds_nothing(base: Path, tmp_path: Path) -> None:
    duplicate = tmp_path / "copy.db"
    shutil.copy(base, duplicate)
    embedder = FakeEmbedder()
    with Library(duplicate, embedder=embedder) as lib:
        assert lib.store.library_id != _stored_state(base)["library_id"]
        hits = lib.search("dataset distillation", mode="dense", limit=1)
        assert embedder.calls == 1  # the query: the papers' 19 vectors came from the file
        cache = lib._cache_dir()
        assert cache is not None and len(list(cache.glob("vectors-*.ids.npy"))) == 1
    with Library(base, embedder="fake") as lib:
        assert [h.paper_id for h in lib.search("dataset distillation", mode="dense", limit=1)] == [
            h.paper_id for h in hits
        ]


def test_an_unchanged_library_keeps_its_id_and_caches_across_opens_and_writes(
    base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "lib.db"
    shutil.copy(base, db)
    first = _library_id(db)
    for n in range(12):
        with Library(db, embedder="fake") as lib:
            assert lib.store.library_id == first
            pid = next(lib.papers()).paper_id
            lib.star(pid, starred=n % 2 == 0)
            lib.tag(pid, f"t{n}")
            if n % 4 == 0:
                lib.ingest([_list_file(tmp_path, f"{COPY_PAPER} Variant {n} with lemur number {n}.")])
            lib.search(COPY_QUERY, mode="dense")
    os.replace(db, tmp_path / "renamed.db")  # a rename on the same disk is the same file
    assert _library_id(tmp_path / "renamed.db") == first

    # Reopened without a write, the vectors come from the cache file, not from SQLite.
    def refuse(conn: sqlite3.Connection, model_id: str) -> None:
        raise AssertionError("the vectors were read from SQLite, not from the cache")

    monkeypatch.setattr(vectors, "load_vectors", refuse)
    with Library(tmp_path / "renamed.db", embedder="fake") as lib:
        assert len(lib._loaded_dense_index()) == 22


def test_a_library_moved_to_another_machine_renews_its_id_once(base: Path, tmp_path: Path) -> None:
    db = tmp_path / "lib.db"
    shutil.copy(base, db)
    before = _library_id(db)
    assert _stored_state(db)["file_identity"] == identity.file_identity(db)
    conn = sqlite3.connect(db)  # what another machine's disk gives: another device and inode
    with conn:
        conn.execute("UPDATE library_state SET value = '2049:77:-' WHERE key = 'file_identity'")
    conn.close()
    renewed = _library_id(db)
    assert renewed != before and len(renewed) == 32
    assert _stored_state(db)["library_id"] == renewed
    assert _stored_state(db)["file_identity"] == identity.file_identity(db)
    assert _library_id(db) == renewed


def test_a_library_from_before_the_identity_renews_its_id_once(base: Path, tmp_path: Path) -> None:
    db = tmp_path / "lib.db"
    shutil.copy(base, db)
    before = _library_id(db)
    conn = sqlite3.connect(db)  # a 0.2 library: its id was never tied to a file
    with conn:
        conn.execute("DELETE FROM library_state WHERE key = 'file_identity'")
    conn.close()
    renewed = _library_id(db)
    assert renewed != before
    assert _library_id(db) == renewed and _stored_state(db)["file_identity"] == identity.file_identity(db)


def test_a_read_only_copy_uses_a_derived_id_and_writes_nothing(base: Path, tmp_path: Path) -> None:
    duplicate = tmp_path / "copy.db"
    shutil.copy(base, duplicate)
    digest = hashlib.sha256(duplicate.read_bytes()).hexdigest()
    derived = _library_id(duplicate, read_only=True)
    stored = _stored_state(base)
    assert derived != stored["library_id"] and len(derived) == 32
    expected = f"{stored['library_id']}|{identity.file_identity(duplicate)}"
    assert derived == hashlib.sha256(expected.encode()).hexdigest()[:32]
    assert _library_id(duplicate, read_only=True) == derived
    assert hashlib.sha256(duplicate.read_bytes()).hexdigest() == digest
    # The original, read-only too, is still the file its id was issued for.
    assert _library_id(base, read_only=True) == stored["library_id"]


def test_a_file_restored_in_place_never_reads_the_later_historys_cache(base: Path, tmp_path: Path) -> None:
    db, saved = tmp_path / "lib.db", tmp_path / "saved.db"
    shutil.copy(base, db)
    _library_id(db)
    shutil.copy(db, saved)  # the backup: a plain file copy
    inode = db.stat().st_ino
    theirs, _, id_before, _ = _add_and_search(db, ORIGINAL_PAPER, ORIGINAL_QUERY)
    _copy_in_place(saved, db)  # the restore: `cp saved.db lib.db` rewrites the same inode
    assert db.stat().st_ino == inode and _library_id(db) == id_before  # the file itself cannot tell
    ours, hits, _, _ = _add_and_search(db, COPY_PAPER, COPY_QUERY)
    assert hits[0] == ours and theirs not in hits


def test_a_file_backed_up_and_restored_with_sqlite_reads_only_its_own_cache(
    base: Path, tmp_path: Path
) -> None:
    db, saved = tmp_path / "lib.db", tmp_path / "saved.db"
    shutil.copy(base, db)
    original_id = _library_id(db)
    source, target = sqlite3.connect(db), sqlite3.connect(saved)  # sqlite3's `.backup saved.db`
    source.backup(target)
    source.close()
    target.close()
    assert _library_id(saved) != original_id  # a backup is a new file: a new id
    theirs, _, _, _ = _add_and_search(db, ORIGINAL_PAPER, ORIGINAL_QUERY)
    source, target = sqlite3.connect(saved), sqlite3.connect(db)  # `.restore saved.db`: in place
    source.backup(target)
    source.close()
    target.close()
    ours, hits, _, _ = _add_and_search(db, COPY_PAPER, COPY_QUERY)
    assert hits[0] == ours and theirs not in hits


def test_a_marks_backup_restored_into_a_new_library_keys_its_own_caches(
    base: Path, tmp_path: Path, icml_dir: Path
) -> None:
    original, fresh, marks = tmp_path / "original.db", tmp_path / "fresh.db", tmp_path / "marks.json"
    shutil.copy(base, original)
    runner = CliRunner()
    with Library(original, embedder="fake") as lib:
        pid = next(lib.papers()).paper_id
        lib.star(pid)
    assert runner.invoke(cli, ["--db", str(original), "backup", str(marks)]).exit_code == 0
    with Library(fresh, embedder="fake") as lib:
        lib.ingest([sorted(icml_dir.glob("*.txt"))[0]])
    result = runner.invoke(cli, ["--db", str(fresh), "restore", str(marks)])
    assert result.exit_code == 0, result.output
    theirs, _, original_id, original_cache = _add_and_search(original, ORIGINAL_PAPER, ORIGINAL_QUERY)
    ours, hits, fresh_id, fresh_cache = _add_and_search(fresh, COPY_PAPER, COPY_QUERY)
    assert fresh_id != original_id and fresh_cache != original_cache
    assert hits[0] == ours and theirs not in hits
    with Library(fresh, embedder="fake") as lib:
        assert lib.marks(pid)["starred"] is True


def test_only_writes_to_papers_or_vectors_move_the_generation_and_forks_move_it_apart(
    base: Path, tmp_path: Path
) -> None:
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    shutil.copy(base, first)
    shutil.copy(base, second)
    with Library(first, embedder="fake") as lib:
        conn = lib.store.conn
        start = vectors.library_generation(conn)
        lib.star(next(lib.papers()).paper_id)
        lib.set_note(next(lib.papers()).paper_id, "read later")
        assert vectors.library_generation(conn) == start
        lib.ingest([_list_file(tmp_path, COPY_PAPER)])
        moved = vectors.library_generation(conn)
        assert moved > start
    with Library(second, embedder="fake") as lib:
        lib.ingest([_list_file(tmp_path, COPY_PAPER)])
        assert vectors.library_generation(lib.store.conn) not in (start, moved)
