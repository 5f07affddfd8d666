"""CLI contract: every command that prints data takes --json, and under --json every error is one JSON object.

Each data command runs with ``--json`` on a small library (the 95 ICML 2026 papers, fake
vectors, fitted topics, one paper marked) and its stdout must parse as JSON; then each is made to
fail (no library there, a missing file or folder, an unknown paper) and its stdout must be
exactly ``{"ok": false, "error": <message>}`` with a non-zero exit status and nothing on stderr's
``Error:`` line.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli

#: Commands without --json, and why: their output is not a result a script reads as JSON.
WITHOUT_JSON = {
    "export": "its output is the export itself, in the --format chosen (jsonl and csl-json are JSON)",
    "demo": "a guided tour that builds a demo library and prints sample searches",
    "serve": "a server; serve --get already prints the API's JSON answer",
}

#: One successful run per data command: ``{db}``, ``{pid}``, ``{tmp}``, ``{icml}``, ``{gold}`` are filled in.
RUNS: dict[str, list[str]] = {
    "ingest": ["--db", "{db}", "ingest", "{icml}", "--no-embed"],
    "search": ["--db", "{db}", "search", "dataset distillation", "--limit", "3"],
    "related": ["--db", "{db}", "related", "{pid}", "--limit", "3"],
    "recommend": ["--db", "{db}", "recommend", "--limit", "3"],
    "queue": ["--db", "{db}", "queue", "--limit", "2"],
    "enrich": ["--db", "{db}", "enrich", "--list"],
    "show": ["--db", "{db}", "show", "{pid}"],
    "stats": ["--db", "{db}", "stats"],
    "backup": ["--db", "{db}", "backup", "{tmp}/marks.json"],
    "restore": ["--db", "{db}", "restore", "{tmp}/template-marks.json"],
    "star": ["--db", "{db}", "star", "{pid}"],
    "tags add": ["--db", "{db}", "tags", "add", "{pid}", "later"],
    "tags remove": ["--db", "{db}", "tags", "remove", "{pid}", "first"],
    "tags list": ["--db", "{db}", "tags", "list"],
    "list": ["--db", "{db}", "list"],
    "doctor": ["--db", "{db}", "doctor"],
    "note": ["--db", "{db}", "note", "{pid}", "read the appendix"],
    "mark": ["--db", "{db}", "mark", "{pid}", "maybe"],
    "triage": ["--db", "{db}", "triage", "{pid}", "reject"],
    "cards": ["--db", "{db}", "cards"],
    "embed": ["--db", "{db}", "embed"],
    "eval": ["eval", "--task", "scifact"],
    "eval cards": ["eval", "cards", "--no-iclr", "--gold", "{gold}", "--examples", "{icml}"],
    "eval enrich": ["eval", "enrich"],
    "topics": ["--db", "{db}", "topics"],
    "map": ["--db", "{db}", "map", "--out", "{tmp}/map.html"],
    "build": ["build", "{icml}/000_9f997565051fc2a1.txt", "--out", "{tmp}/shards"],
    "load": ["--db", "{tmp}/loaded.db", "load", "{tmp}/shards"],
    "schedule": ["--db", "{db}", "schedule"],
}

#: Commands whose successful run needs ../shared/data and minutes (their --json is tested with the data).
NEEDS_EVAL_DATA = {"eval", "eval enrich"}

#: One failing run per data command (no library there, a missing input, an unknown paper).
FAILS: dict[str, list[str]] = {
    **{name: ["--db", "{tmp}/none.db", *args[2:]] for name, args in RUNS.items() if args[0] == "--db"},
    "ingest": ["--db", "{db}", "ingest", "{tmp}/nothing-here.txt"],
    "show": ["--db", "{db}", "show", "abcdef123456"],
    "note": ["--db", "{db}", "note", "abcdef123456", "x"],
    "eval": ["eval", "--data", "{tmp}/no-data"],
    "eval cards": ["eval", "--data", "{tmp}/no-data", "cards", "--no-iclr"],
    "eval enrich": ["eval", "--data", "{tmp}/no-data", "enrich"],
    "build": ["build", "{tmp}/nothing-here.txt", "--out", "{tmp}/shards"],
    "load": ["--db", "{tmp}/loaded.db", "load", "{tmp}"],
}


def _commands(group: click.Group, prefix: str = "") -> dict[str, click.Command]:
    """Every runnable command of the tree by its full name (``tags add``), groups left out."""
    found: dict[str, click.Command] = {}
    for name, command in group.commands.items():
        full = f"{prefix}{name}"
        if isinstance(command, click.Group):
            found.update(_commands(command, f"{full} "))
            if command.invoke_without_command:
                found[full] = command
        else:
            found[full] = command
    return found


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, icml_dir: Path) -> dict[str, str]:
    """A small library (95 papers, fitted topics, one paper starred, kept, tagged and noted) and a backup of it."""
    folder = tmp_path_factory.mktemp("cli-json")
    lib = Library(folder / "template.db")
    lib.ingest([icml_dir])
    lib.fit_topics()
    pid = next(iter(lib.papers())).paper_id
    lib.star(pid)
    lib.set_triage(pid, "keep")
    lib.tag(pid, "first")
    lib.set_note(pid, "a note")
    lib.backup(folder / "template-marks.json")
    lib.close()
    gold = folder / "gold.jsonl"
    gold.write_text(
        json.dumps({"file": "000_9f997565051fc2a1.txt", "index": 0, "method_names": ["APM"]}) + "\n"
    )
    return {"db": str(folder / "template.db"), "pid": pid, "gold": str(gold), "folder": str(folder)}


def _fill(args: list[str], template: dict[str, str], tmp_path: Path, icml_dir: Path) -> list[str]:
    """Copy the template library into ``tmp_path`` and fill the placeholders of ``args``."""
    db = tmp_path / "lib.db"
    shutil.copy(template["db"], db)
    shutil.copy(Path(template["folder"]) / "template-marks.json", tmp_path)
    values = {"db": str(db), "pid": template["pid"], "tmp": str(tmp_path), "icml": str(icml_dir)}
    values["gold"] = template["gold"]
    return [arg.format(**values) for arg in args]


def test_every_command_has_json_or_a_reason_not_to() -> None:
    commands = _commands(cli)
    with_json = {name for name, c in commands.items() if any("--json" in p.opts for p in c.params)}
    assert with_json == set(RUNS)
    assert set(commands) - with_json == set(WITHOUT_JSON)
    assert set(FAILS) == set(RUNS)


@pytest.mark.parametrize("name", sorted(set(RUNS) - NEEDS_EVAL_DATA))
def test_each_data_command_prints_json(
    name: str, template: dict[str, str], tmp_path: Path, icml_dir: Path
) -> None:
    if name in ("build", "load"):
        pytest.importorskip("pyarrow", reason="shards need pyarrow: pip install 'paperscope[ray]'")
    if name == "load":  # load reads the shards a build wrote
        built = CliRunner().invoke(cli, _fill(RUNS["build"], template, tmp_path, icml_dir))
        assert built.exit_code == 0, built.output
    result = CliRunner().invoke(cli, [*_fill(RUNS[name], template, tmp_path, icml_dir), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # an empty list is data too (enrich --list before any program)
    assert isinstance(data, (list, dict)) and not (isinstance(data, dict) and data.get("ok") is False)


def test_a_command_s_json_is_its_data(template: dict[str, str], tmp_path: Path, icml_dir: Path) -> None:
    """Spot checks that --json carries the command's data, not only a shape."""
    runner = CliRunner()
    pid = template["pid"]

    def run(*args: str) -> object:
        result = runner.invoke(cli, [*_fill(list(args), template, tmp_path, icml_dir), "--json"])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    assert run("--db", "{db}", "backup", "{tmp}/out.json") == {"path": f"{tmp_path}/out.json", "papers": 1}
    embedded = run("--db", "{db}", "embed")
    assert isinstance(embedded, dict) and embedded.pop("elapsed_s") >= 0
    assert embedded == {"embedded": 0, "vectors": 95}
    assert run("--db", "{db}", "map", "--out", "{tmp}/m.html") == {"out": f"{tmp_path}/m.html", "png": None}
    assert run("--db", "{db}", "cards")["cards"] == 0
    assert [row["paper_id"] for row in run("--db", "{db}", "list")] == [pid]  # type: ignore[index]


@pytest.mark.parametrize("name", sorted(FAILS))
def test_each_data_command_fails_as_one_json_object(
    name: str, template: dict[str, str], tmp_path: Path, icml_dir: Path
) -> None:
    result = CliRunner().invoke(cli, [*_fill(FAILS[name], template, tmp_path, icml_dir), "--json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"ok", "error"} and data["ok"] is False
    assert isinstance(data["error"], str) and data["error"].strip()
    assert "Error:" not in result.stderr and "Traceback" not in result.output


def test_json_errors_name_what_went_wrong_and_keep_the_exit_status(tmp_path: Path) -> None:
    runner = CliRunner()
    db = tmp_path / "none.db"
    missing = runner.invoke(cli, ["--db", str(db), "stats", "--json"])
    assert (missing.exit_code, json.loads(missing.stdout)) == (
        1,
        {
            "ok": False,
            "error": f"{db}: no library there; build one with `paperscope --db {db} ingest FILES`"
            " (or check --db or PAPERSCOPE_DB)",
        },
    )
    assert missing.stderr == ""
    usage = [
        (["show", "--json"], "Missing argument 'PAPER_ID'."),
        (
            ["search", "x", "--limit", "0", "--json"],
            "Invalid value for '--limit': 0 is not in the range 1<=x<=1000.",
        ),
        (["frobnicate", "--json"], "No such command 'frobnicate'."),
        (["--json", "stats"], "No such option '--json'. Did you mean '--version'?"),
    ]
    for args, message in usage:
        result = runner.invoke(cli, args)
        assert (result.exit_code, json.loads(result.stdout)) == (2, {"ok": False, "error": message}), args
    # Without --json an error stays the one line on stderr.
    plain = runner.invoke(cli, ["--db", str(db), "stats"])
    assert plain.exit_code == 1 and plain.stdout == "" and plain.stderr.startswith("Error: ")
    # A "--json" after "--" is an argument, not the flag.
    quoted = runner.invoke(cli, ["--db", str(db), "search", "--", "--json"])
    assert quoted.exit_code == 1 and quoted.stderr.startswith("Error: ")
