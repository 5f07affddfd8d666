"""A program title replaces the generated label everywhere at once, search indexes included (issue 23).

Before ``enrich`` a paper of the synthetic list is ``generated`` and marked "[Label] …"; after it
the paper is ``program`` and shows the program's title, unmarked, in the CLI, the JSON API, the
paper page, every export and both lexical indexes (SQLite FTS5 and the in-memory BM25 of large
libraries); ``enrich --undo`` brings the marked label back.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

import paperscope.library
from paperscope import Library
from paperscope.cli import cli
from paperscope.index.bm25 import query_terms
from paperscope.models import LABEL_MARKER
from paperscope.triage.entry import LABEL_NOTE
from paperscope.web import create_app

from .conftest import N_PAPERS, title, title_word, truth, words, write_program


def _views(lib: Library, pid: str) -> dict[str, object]:
    """What each surface says of paper ``pid``: its name as shown, and its title_source."""
    (hit,) = lib.search(words(3)[0], mode="bm25")  # a word of paper 3's abstract alone
    db = str(lib.store.path)
    shown = CliRunner().invoke(cli, ["--db", db, "show", pid], catch_exceptions=False).stdout.splitlines()
    with TestClient(create_app(lib)) as client:
        api = client.get(f"/api/papers/{pid}").json()["data"]
        page = client.get(f"/paper/{pid}").text
    heading = page.split('<h1 id="paper-title">', 1)[1].split("</h1>", 1)[0]
    key = lib.citation_keys()[pid]
    (bibtex,) = [
        e for e in "".join(lib.export("bibtex")).split("\n\n") if e.startswith("@") and f"{{{key}," in e
    ]
    rows = {r["paper_id"]: r for r in csv.DictReader(io.StringIO("".join(lib.export("csv"))))}
    return {
        "paper": (lib.get(pid).title_source, lib.get(pid).display_label),
        "hit": (hit.title_source, hit.display_label),
        "cli": shown[0],
        "api": (api["title_source"], api["title"]),
        "heading_marked": "label-marker" in heading,
        "bibtex_marked": "{[Label]}" in bibtex or LABEL_NOTE in bibtex,
        "csv": (rows[pid]["title_source"], rows[pid]["label"]),
    }


def test_a_program_title_replaces_the_label_everywhere_and_undo_restores_it(
    enrich_lib: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every library counts as large: searches go through the in-memory BM25, built here.
    monkeypatch.setattr(paperscope.library, "MEMORY_BM25_THRESHOLD", 1)
    enrich_lib.build_search_indexes()
    pid = next(pid for pid, i in truth(enrich_lib).items() if i == 3)
    label = enrich_lib.get(pid).label
    marked = f"{LABEL_MARKER} {label}"
    before = _views(enrich_lib, pid)
    assert before == {
        "paper": ("generated", marked),
        "hit": ("generated", marked),
        "cli": f"{pid}  {marked}",
        "api": ("generated", None),
        "heading_marked": True,
        "bibtex_marked": True,
        "csv": ("generated", marked),
    }
    word = title_word(3)  # in the program title only
    assert enrich_lib.memory_bm25(build=False).search(query_terms(word), 5) == []

    program = write_program(tmp_path / "program.csv", list(range(N_PAPERS)))
    report = enrich_lib.enrich(program)
    assert pid in {a["paper_id"] for a in report.attached}
    after = _views(enrich_lib, pid)
    assert after == {
        "paper": ("program", title(3)),
        "hit": ("program", title(3)),
        "cli": f"{pid}  {title(3)}",
        "api": ("program", title(3)),
        "heading_marked": False,
        "bibtex_marked": False,
        "csv": ("program", title(3)),
    }
    shown = CliRunner().invoke(cli, ["--db", str(enrich_lib.store.path), "show", pid]).stdout
    assert f"title:   {title(3)} (from the program)\n" in shown
    # Both lexical indexes hold the title: FTS5 (small libraries) and the in-memory BM25.
    index = enrich_lib.memory_bm25(build=False)
    assert index is not None and [p for p, _ in index.search(query_terms(word), 5)] == [pid]
    assert [h.paper_id for h in enrich_lib.search(word, mode="bm25")] == [pid]
    fts = enrich_lib.store.conn.execute("SELECT paper_id FROM papers_fts WHERE papers_fts MATCH ?", (word,))
    assert [r[0] for r in fts] == [pid]
    exported = {r["paper_id"]: r for r in map(json.loads, "".join(enrich_lib.export("jsonl")).splitlines())}
    assert (exported[pid]["title"], exported[pid]["title_source"]) == (title(3), "program")

    enrich_lib.undo_enrich(program)
    assert _views(enrich_lib, pid) == before
    index = enrich_lib.memory_bm25(build=True)
    assert index is not None and index.search(query_terms(word), 5) == []
