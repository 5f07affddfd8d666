"""The marks commands (issue 14): mark/triage, star, tags, note take several ids and --json; list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope.cli import _MARK_CHOICES, cli
from paperscope.store.marks import ALL_TRIAGE_STATES


@pytest.fixture
def run(tmp_path: Path, icml_dir: Path):
    runner = CliRunner()
    db = str(tmp_path / "cli.db")

    def invoke(*args: str, code: int = 0):
        result = runner.invoke(cli, ["--db", db, *args], catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result

    invoke("ingest", str(icml_dir))
    return invoke


@pytest.fixture
def two(run) -> list[str]:
    hits = json.loads(run("search", "graph", "--json").stdout)
    return [h["paper_id"] for h in hits[:2]]


def test_mark_choices_are_the_store_states_and_clear() -> None:
    assert _MARK_CHOICES == (*ALL_TRIAGE_STATES, "clear")


def test_mark_sets_several_papers_and_json_prints_what_was_set(run, two: list[str]) -> None:
    out = run("mark", *two, "skimmed").stdout.splitlines()
    assert out == [f"{two[0]}  skimmed", f"{two[1]}  skimmed"]
    data = json.loads(run("mark", *two, "keep", "--json").stdout)
    assert [d["paper_id"] for d in data] == two
    assert all(d["marks"]["triage"] == "keep" and d["label"] for d in data)
    # the older name still works, and unseen clears the state
    data = json.loads(run("triage", two[0], "unseen", "--json").stdout)
    assert data[0]["marks"]["triage"] is None
    assert "later" in run("mark", two[0], "later", code=2).output


def test_star_tags_and_note_take_json_and_several_ids(run, two: list[str]) -> None:
    starred = json.loads(run("star", *two, "--json").stdout)
    assert [d["marks"]["starred"] for d in starred] == [True, True]
    tagged = json.loads(run("tags", "add", *two, "to-read", "--json").stdout)
    assert [d["marks"]["tags"] for d in tagged] == [["to-read"], ["to-read"]]
    removed = run("tags", "remove", *two, "to-read", "--json")
    assert [d["marks"]["tags"] for d in json.loads(removed.stdout)] == [[], []]
    noted = json.loads(run("note", two[0], "compare with APM", "--json").stdout)
    assert noted[0]["marks"]["note"] == "compare with APM"
    unstarred = json.loads(run("star", two[1], "--off", "--json").stdout)
    assert unstarred[0]["marks"]["starred"] is False
    assert "no paper" in run("star", "abcdef123456", code=1).output.lower()


def test_list_filters_combine_in_the_cli(run, two: list[str]) -> None:
    a, b = two
    run("star", a, b)
    run("mark", a, "keep")
    run("mark", b, "maybe")
    run("tags", "add", b, "Graphs")
    run("note", a, "read first")

    def listed(*flags: str) -> list[str]:
        return [row["paper_id"] for row in json.loads(run("list", *flags, "--json").stdout)]

    assert set(listed()) == {a, b}
    assert set(listed("--starred")) == {a, b}
    assert listed("--starred", "--state", "keep") == [a]
    assert listed("--tag", "graphs") == [b]
    assert listed("--noted") == [a]
    assert listed("--noted", "--state", "maybe") == []
    assert listed("--state", "unseen") == []
    row = json.loads(run("list", "--state", "keep", "--json").stdout)[0]
    assert set(row) == {"paper_id", "label", "title_source", "venue", "year", "marks"}
    assert (row["venue"], row["year"], row["marks"]["note"]) == ("ICML", 2026, "read first")
    assert row["title_source"] == "generated" and not row["label"].startswith("[")  # the label, unmarked
    text = run("list", "--starred").stdout.splitlines()
    assert f"{a}  [Label] {row['label']}  [ICML 2026]  ★ keep note" in text


def test_list_filters_combine_in_the_json_api(tmp_path: Path, icml_dir: Path) -> None:
    from fastapi.testclient import TestClient

    from paperscope import Library
    from paperscope.web.app import create_app

    lib = Library(tmp_path / "web.db")
    lib.ingest([icml_dir])
    a, b = [p.paper_id for p in list(lib.papers())[:2]]
    lib.star(a)
    lib.star(b)
    lib.set_triage(a, "keep")
    lib.set_note(b, "later")
    with TestClient(create_app(lib)) as client:

        def listed(**params: str) -> list[str]:
            response = client.get("/api/marks", params=params)
            assert response.status_code == 200, response.text
            return [item["paper"]["paper_id"] for item in response.json()["data"]]

        assert set(listed(starred="true")) == {a, b}
        assert listed(starred="true", state="keep") == [a]
        assert listed(noted="true") == [b]
        assert listed(state="unseen", starred="true") == [b]
        assert client.get("/api/marks", params={"state": "later"}).status_code == 400
    lib.close()


def test_marks_check_every_id_first_exports_say_how_many_and_a_missing_file_makes_no_library(
    tmp_path, icml_dir
) -> None:
    from click.testing import CliRunner

    from paperscope import Library
    from paperscope.cli import cli

    runner = CliRunner()
    db = tmp_path / "m.db"
    nothing = runner.invoke(cli, ["--db", str(db), "ingest", str(tmp_path / "nope.csv")])
    assert nothing.exit_code == 1 and "no such file or folder; nothing was ingested" in nothing.output
    assert not db.exists()
    runner.invoke(cli, ["--db", str(db), "ingest", str(icml_dir), "--no-embed"], catch_exceptions=False)
    with Library(db) as lib:
        known = next(iter(lib.papers())).paper_id
    for args in (["mark", known, "ffffffffffff", "keep"], ["star", known, "ffffffffffff"]):
        failed = runner.invoke(cli, ["--db", str(db), *args])
        assert failed.exit_code == 1 and "Traceback" not in failed.output
    with Library(db) as lib:  # the known paper was not marked either: nothing half-applied
        assert lib.marks(known) == {"starred": False, "tags": [], "note": None, "triage": None}
    runner.invoke(cli, ["--db", str(db), "mark", known, "keep"], catch_exceptions=False)
    out = tmp_path / "keep.bib"
    wrote = runner.invoke(
        cli, ["--db", str(db), "export", "--format", "bibtex", "--state", "keep", "--out", str(out)]
    )
    assert (
        "wrote 1 paper to " in wrote.stderr and out.read_text(encoding="utf-8").count("@inproceedings{") == 1
    )
    by_name = tmp_path / "kept.ris"  # no --format: the extension decides (a .bib never gets JSON Lines)
    named = runner.invoke(cli, ["--db", str(db), "export", "--state", "keep", "--out", str(by_name)])
    assert "(ris)" in named.stderr and by_name.read_text(encoding="utf-8").startswith("TY  - ")
    empty = runner.invoke(cli, ["--db", str(db), "export", "--format", "ris", "--starred", "--out", str(out)])
    assert "no paper matched the selection, so it is empty" in empty.stderr


def test_list_leaves_out_marks_of_papers_no_longer_in_the_library(tmp_path: Path, icml_dir: Path) -> None:
    """After ``doctor --salvage`` lost a marked paper (its marks are kept), ``list`` lists the rest."""
    import sqlite3

    from paperscope import Library

    db = tmp_path / "lib.db"
    with Library(db) as lib:
        lib.ingest([sorted(icml_dir.glob("*.txt"))[0]], embed=False, cards=False)
        kept, lost = sorted(p.paper_id for p in lib.papers())[:2]
        for pid in (kept, lost):
            lib.star(pid)
            lib.tag(pid, "reading")
    conn = sqlite3.connect(db)
    with conn:  # what a salvage that lost the paper's page leaves: its marks, no paper
        conn.execute("DELETE FROM papers WHERE paper_id = ?", (lost,))
    conn.close()
    runner = CliRunner()
    for args in (["list", "--json"], ["list", "--tag", "reading", "--json"], ["list", "--starred", "--json"]):
        result = runner.invoke(cli, ["--db", str(db), *args])
        assert result.exit_code == 0, result.output
        assert [row["paper_id"] for row in json.loads(result.stdout)] == [kept]
