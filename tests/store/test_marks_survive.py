"""Marks survive everything that rebuilds derived data (issue 14, Deliver 1): each test sets every
kind of mark first (star, tags, note, each triage state) and checks all of them after."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from paperscope import Library
from paperscope.index import embed
from paperscope.index.embed import FakeEmbedder
from paperscope.store import SCHEMA_VERSION


def _set_marks(lib: Library) -> dict[str, dict]:
    """Give five papers every kind of mark; return the marks of every paper of the library."""
    ids = sorted(p.paper_id for p in lib.papers())[:5]
    for pid, state in zip(ids, ("skimmed", "maybe", "keep", "reject", None), strict=True):
        lib.set_triage(pid, state)
    lib.star(ids[0])
    lib.star(ids[2])
    lib.tag(ids[1], "to-read")
    lib.tag(ids[1], "graphs")
    lib.tag(ids[4], "to-read")
    lib.set_note(ids[2], "compare with APM")
    lib.set_note(ids[4], "相关工作")
    return _all_marks(lib)


def _all_marks(lib: Library) -> dict[str, dict]:
    return {p.paper_id: lib.marks(p.paper_id) for p in lib.papers()}


def _check(before: dict[str, dict], after: dict[str, dict]) -> None:
    assert after == before
    marked = [m for m in after.values() if m["starred"] or m["tags"] or m["note"] or m["triage"]]
    assert len(marked) == 5  # the marks really were there to lose


def test_marks_survive_reingest_of_the_same_files(icml_library: Library, icml_dir: Path) -> None:
    before = _set_marks(icml_library)
    report = icml_library.ingest([icml_dir])
    assert (report.new, report.present) == (0, 95)
    _check(before, _all_marks(icml_library))


def test_marks_survive_a_card_rebuild(icml_library: Library) -> None:
    before = _set_marks(icml_library)
    assert icml_library.build_cards(rebuild=True, workers=1) == 95
    _check(before, _all_marks(icml_library))


def test_marks_survive_reembedding_with_another_model(
    tmp_path: Path, icml_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(embed.EMBEDDERS, "fake-small", lambda: FakeEmbedder(dim=64))
    with Library(tmp_path / "lib.db") as lib:
        lib.ingest([icml_dir])
        before = _set_marks(lib)
    with Library(tmp_path / "lib.db", embedder="fake-small") as lib:
        assert lib.embed(rebuild=True) == 95
        assert lib.embeddings()[1].shape == (95, 64)
        _check(before, _all_marks(lib))


def test_marks_survive_a_topic_refit(icml_library: Library) -> None:
    before = _set_marks(icml_library)
    icml_library.fit_topics(seed=1)
    icml_library.fit_topics(seed=2)
    _check(before, _all_marks(icml_library))


def test_marks_survive_the_schema_migrations_again(icml_library: Library, tmp_path: Path) -> None:
    # A library written at schema 7 is upgraded by migration 8 (the triage table is rebuilt):
    # set the version back and let opening run it again over the marked library.
    before = _set_marks(icml_library)
    path = Path(icml_library.store.path)
    icml_library.close()
    copy = tmp_path / "older.db"
    shutil.copy(path, copy)
    conn = sqlite3.connect(copy)
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    conn.close()
    with Library(copy) as lib:
        assert lib.store.schema_version == SCHEMA_VERSION
        _check(before, _all_marks(lib))


def test_marks_follow_the_surviving_paper_when_a_near_duplicate_merges(
    icml_library: Library, tmp_path: Path
) -> None:
    before = _set_marks(icml_library)
    pid = next(k for k, m in before.items() if m["note"] == "compare with APM")
    paper = icml_library.get(pid)
    # The same paper from another file (another format, the last word of its abstract dropped).
    words = paper.abstract.split()
    record = {"title": paper.title or paper.label, "abstract": " ".join(words[:-1])}
    other = tmp_path / "again.json"
    other.write_text(json.dumps([record]), encoding="utf-8")
    report = icml_library.ingest([other])
    assert (report.new, report.merged) == (0, 1)
    assert len(icml_library) == 95
    survivor = icml_library.get(pid)
    assert [Path(s.path).name for s in survivor.sources][-1] == "again.json"
    _check(before, _all_marks(icml_library))
