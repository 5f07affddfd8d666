"""CLI contract: help for every command, stdout/stderr split, exit codes 0/1/2, JSON shapes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import paperscope
import paperscope.config
from paperscope import Library
from paperscope.cli import cli


@pytest.fixture
def run(tmp_path: Path):
    runner = CliRunner()
    db = str(tmp_path / "cli.db")

    def invoke(*args: str):
        return runner.invoke(cli, ["--db", db, *args], catch_exceptions=False)

    return invoke


@pytest.mark.parametrize("command", sorted(cli.commands))
def test_every_command_has_help_with_an_example(command: str) -> None:
    result = CliRunner().invoke(cli, [command, "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output


def test_version() -> None:
    result = CliRunner().invoke(cli, ["--version"])
    assert result.output.strip() == f"paperscope, version {paperscope.__version__}"


def test_ingest_search_show_export_roundtrip(run, icml_dir: Path) -> None:
    result = run("ingest", str(icml_dir))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1].startswith(
        "total: read 95, new 95, already present 0, skipped 0, files failed 0"
    )
    hits = json.loads(run("search", "dataset distillation", "--limit", "2", "--json").stdout)
    assert len(hits) == 2
    assert all({"paper_id", "rank", "score", "label", "sources", "legs"} <= set(h) for h in hits)
    assert hits[0]["sources"][0]["line"] > 1
    absent = run("tags", "remove", hits[0]["paper_id"], "never-added")
    assert absent.exit_code == 0 and "not tagged 'never-added'" in absent.stderr
    unknown_topic = run("search", "dataset distillation", "--topic", "999")
    assert unknown_topic.exit_code != 0 and "no topic 999" in unknown_topic.output
    shown = json.loads(run("show", hits[0]["paper_id"][:6], "--json").stdout)
    assert shown["paper_id"] == hits[0]["paper_id"]
    assert shown["venue"] == "ICML" and shown["year"] == 2026
    rows = [json.loads(line) for line in run("export", "--format", "jsonl").stdout.splitlines()]
    assert len(rows) == 95
    required = {"paper_id", "label", "abstract", "clean_text", "venue", "year", "sources", "card"}
    assert all(required <= set(r) for r in rows)
    assert all(r["sources"] and {"path", "line"} <= set(r["sources"][0]) for r in rows)


def test_errors_exit_1_with_one_line_and_misuse_exits_2(run, tmp_path: Path) -> None:
    header_only = tmp_path / "empty.txt"
    header_only.write_text("ICML 2026 Papers\n", encoding="utf-8")
    assert run("ingest", str(header_only)).exit_code == 0  # creates the (empty) library
    missing = run("show", "abcdef123456")
    assert missing.exit_code == 1
    assert (
        missing.stderr.strip()
        == "Error: no paper with paper_id 'abcdef123456'; try `paperscope search` to find one"
    )
    empty = run("search", "   ")
    assert empty.exit_code == 1 and "empty query" in empty.stderr
    bad = run("ingest", str(tmp_path / "nope.txt"))
    assert bad.exit_code == 1 and f"{tmp_path / 'nope.txt'}: no such file" in bad.stderr
    assert run("search").exit_code == 2
    assert run("search", "x", "--limit", "0").exit_code == 2
    assert run("frobnicate").exit_code == 2


def test_demo_builds_a_fresh_library_and_searches(tmp_path: Path, icml_dir: Path) -> None:
    result = CliRunner().invoke(cli, ["demo", "--examples", str(icml_dir)], catch_exceptions=False)
    assert result.exit_code == 0
    db = Path(paperscope.config.home_dir()) / "demo.db"
    summary = f"== the library {db} holds 95 papers from 95 sources (ICML 2026: 95)"
    assert summary in result.stdout
    assert "   cards: 95, vectors: 95, topics: not fitted yet\n" in result.stdout
    assert result.stdout.rstrip().endswith(
        f"paperscope --db {db} serve               # web app on http://127.0.0.1:8765/"
    )
    assert "== search: dataset distillation" in result.stdout
    assert result.stdout.index("== search: 剪枝") < result.stdout.index(summary)
    again = CliRunner().invoke(cli, ["demo", "--examples", str(icml_dir)], catch_exceptions=False)
    assert summary in again.stdout


def test_public_api_matches_all() -> None:
    import inspect

    exported = {
        n for n in dir(paperscope) if not n.startswith("_") and not inspect.ismodule(getattr(paperscope, n))
    }
    assert exported == set(paperscope.__all__) - {"__version__"}
    assert all(hasattr(paperscope, name) for name in paperscope.__all__)


def test_show_prints_every_card_field_and_export_names_a_missing_folder(
    run, icml_dir: Path, tmp_path: Path
) -> None:
    assert run("ingest", str(icml_dir)).exit_code == 0
    (hit,) = json.loads(run("search", "analytic parameter matching", "--limit", "1", "--json").stdout)
    card = json.loads(run("show", hit["paper_id"], "--json").stdout)["card"]
    shown = run("show", hit["paper_id"]).stdout
    datasets = ", ".join(d["name"] for d in card["datasets"])
    assert datasets and f"datasets:     {datasets}\n" in shown
    assert f"contribution: {', '.join(t['type'] for t in card['contribution_types'])}\n" in shown
    assert f"area:         {card['area']['label']} ({card['area']['source']}, confidence" in shown
    first = card["claims"][0]
    arrow = {"improves": "↑", "increases": "↑", "reduces": "↓"}.get(first["relation"], "")
    assert f"claims:       {arrow}" in shown and f"{first['value']}{first['unit']} {first['what']}" in shown
    out = tmp_path / "missing" / "list.csv"
    result = run("export", "--format", "csv", "--out", str(out))
    assert result.exit_code == 2 and f"{out}: folder {out.parent} does not exist" in result.stderr
    assert not out.parent.exists()


def test_a_db_that_does_not_exist_is_an_error_except_for_ingest(tmp_path: Path, icml_dir: Path) -> None:
    runner = CliRunner()
    for db in (tmp_path / "typo" / "lib.db", tmp_path / "typo.db"):
        for args in (["stats"], ["search", "x"], ["export"], ["related", "abcd1234"], ["embed"]):
            result = runner.invoke(cli, ["--db", str(db), *args])
            assert result.exit_code == 1
            assert result.stderr == (
                f"Error: {db}: no library there; build one with `paperscope --db {db} ingest FILES`"
                " (or check --db or PAPERSCOPE_DB)\n"
            )
        assert not db.exists()
    db = tmp_path / "typo" / "lib.db"
    assert runner.invoke(cli, ["--db", str(db), "ingest", str(icml_dir)]).exit_code == 0
    assert runner.invoke(cli, ["--db", str(db), "stats"]).exit_code == 0


def test_db_is_accepted_after_the_command_too(tmp_path: Path, icml_dir: Path) -> None:
    runner = CliRunner()
    db = tmp_path / "after.db"
    assert runner.invoke(cli, ["ingest", str(icml_dir), "--db", str(db)]).exit_code == 0
    before = runner.invoke(cli, ["--db", str(db), "search", "dataset distillation", "--json"])
    after = runner.invoke(cli, ["search", "dataset distillation", "--json", "--db", str(db)])
    assert after.exit_code == 0
    assert [h["paper_id"] for h in json.loads(after.stdout)] == [
        h["paper_id"] for h in json.loads(before.stdout)
    ]
    tagged = runner.invoke(
        cli, ["tags", "add", json.loads(after.stdout)[0]["paper_id"], "x", "--db", str(db)]
    )
    assert tagged.stdout == "x\n"
    assert not (Path(paperscope.config.home_dir()) / "library.db").exists()


def test_a_file_with_no_papers_gets_a_warning(run, tmp_path: Path) -> None:
    path = tmp_path / "header_only.txt"
    path.write_text("ICML 2026 Papers\n", encoding="utf-8")
    result = run("ingest", str(path))
    assert result.exit_code == 0
    assert f"warning: {path}: no papers found" in result.stderr


def test_eval_without_its_data_is_one_line_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["eval", "--data", str(tmp_path / "none")])
    hint = (
        "the evaluation data is not there; name the folder (../shared/data) with paperscope eval --data DIR"
    )
    assert (result.exit_code, result.stderr) == (
        1,
        f"Error: {tmp_path / 'none'}: {hint}, or set PAPERSCOPE_EVAL_DATA\n",
    )
    # A plain install has no shared/data beside it: the variable and --data name the folder.
    (tmp_path / "data").mkdir()
    monkeypatch.setenv("PAPERSCOPE_EVAL_DATA", str(tmp_path / "data"))
    for args in (
        ["eval", "cards", "--no-iclr"],
        ["eval", "--data", str(tmp_path / "data"), "cards", "--no-iclr"],
    ):
        result = runner.invoke(cli, args)
        assert (result.exit_code, result.stderr) == (
            1,
            f"Error: {tmp_path / 'data' / 'gold' / 'icml2026_cards_dev.jsonl'}: {hint} cards, or set PAPERSCOPE_EVAL_DATA\n",
        )


def test_eval_cards_reads_the_folder_the_variable_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_data: Path
) -> None:
    (tmp_path / "gold").mkdir()
    shutil.copy(shared_data / "gold" / "icml2026_cards_dev.jsonl", tmp_path / "gold")
    monkeypatch.setenv("PAPERSCOPE_EVAL_DATA", str(tmp_path))
    result = CliRunner().invoke(cli, ["eval", "cards", "--no-iclr", "--json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["gold_name"] == "dev" and data["n_dev_papers"] > 20


def test_ctrl_c_says_what_was_kept_and_how_to_finish(
    run, icml_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paperscope import Library

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Library, "embed", interrupted)
    result = run("ingest", str(icml_dir))
    assert result.exit_code == 130
    assert result.stderr.endswith(
        "interrupted: what was finished is stored (each file, card and vector batch is written whole);"
        " run the same command again to finish the rest\n"
    )
    monkeypatch.undo()
    again = run("ingest", str(icml_dir))
    assert "total: read 95, new 0, already present 95" in again.stdout
    assert "embed 95 papers in" in again.stderr


def test_serve_get_prints_a_page_as_html_and_an_api_answer_as_json(tmp_path, icml_dir) -> None:
    db = ["--db", str(tmp_path / "lib.db")]
    runner = CliRunner()
    assert runner.invoke(cli, [*db, "ingest", str(icml_dir), "--no-embed"]).exit_code == 0
    page = runner.invoke(cli, [*db, "serve", "--get", "/?q=pruning&mode=bm25"])
    assert page.exit_code == 0 and page.stdout.lstrip().lower().startswith("<!doctype html>")
    assert "pruning" in page.stdout and "Traceback" not in page.stdout + page.stderr
    stats = runner.invoke(cli, [*db, "serve", "--get", "/api/stats"])
    assert stats.exit_code == 0 and json.loads(stats.stdout)["data"]["papers"] == 95
    missing = runner.invoke(cli, [*db, "serve", "--get", "/paper/ffffffffffff"])
    assert missing.exit_code == 1 and "<html" in missing.stdout.lower()


def test_the_help_example_outside_a_checkout_names_where_the_examples_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paperscope.config import examples_dir

    monkeypatch.chdir(tmp_path)  # no examples/ folder here, as after pip install
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "lib.db"), "ingest", "examples/icml2026"])
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: examples/icml2026: no such file or folder; nothing was ingested"
        f" (the example lists ship with paperscope: {examples_dir()})\n"
    )
    assert not (tmp_path / "lib.db").exists()


def test_an_ingest_that_stores_nothing_leaves_no_new_library_but_keeps_an_old_one(
    tmp_path: Path, icml_dir: Path
) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    db = tmp_path / "new.db"
    result = CliRunner().invoke(cli, ["--db", str(db), "ingest", "--no-embed", "--no-cards", str(empty)])
    assert result.exit_code == 1, result.output
    assert "nothing was ingested, so no library was made" in result.output
    assert not list(tmp_path.glob("new.db*"))
    kept = tmp_path / "kept.db"
    first = icml_dir / "000_9f997565051fc2a1.txt"
    args = ["--db", str(kept), "ingest", "--no-embed", "--no-cards"]
    assert CliRunner().invoke(cli, [*args, str(first)]).exit_code == 0
    result = CliRunner().invoke(cli, [*args, str(empty)])
    assert result.exit_code == 1 and kept.is_file(), result.output
    with Library(kept) as lib:
        assert len(lib) > 0
