from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli


def _env(tmp_path: Path) -> dict[str, str]:
    return {"PAPERSCOPE_EMBEDDER": "fake", "PAPERSCOPE_DB": str(tmp_path / "cli.db")}


def test_search_modes_and_filters_from_the_cli(tmp_path, icml_dir):
    runner = CliRunner()
    env = _env(tmp_path)
    assert runner.invoke(cli, ["ingest", str(icml_dir)], env=env).exit_code == 0
    result = runner.invoke(cli, ["search", "dataset distillation", "--limit", "2", "--json"], env=env)
    hits = json.loads(result.output)
    assert [set(h["legs"]) for h in hits] == [{"bm25", "dense"}, {"bm25", "dense"}]
    dense = runner.invoke(cli, ["search", "dataset distillation", "--mode", "dense", "--json"], env=env)
    assert all(set(h["legs"]) == {"dense"} for h in json.loads(dense.output))
    none = runner.invoke(cli, ["search", "distillation", "--venue", "NeurIPS"], env=env)
    assert none.output == "no results\n"
    bad = runner.invoke(cli, ["search", "x", "--mode", "fuzzy"], env=env)
    assert bad.exit_code == 2


def test_related_command_lists_neighbours_with_shared_words(tmp_path, icml_dir):
    runner = CliRunner()
    env = _env(tmp_path)
    runner.invoke(cli, ["ingest", str(icml_dir)], env=env)
    with Library(tmp_path / "cli.db") as lib:
        paper_id = next(lib.papers()).paper_id
    result = runner.invoke(cli, ["related", paper_id[:8], "--limit", "3", "--json"], env=env)
    hits = json.loads(result.output)
    assert [h["rank"] for h in hits] == [1, 2, 3]
    assert paper_id not in [h["paper_id"] for h in hits]
    assert all(h["terms"] for h in hits)
    missing = runner.invoke(cli, ["related", "ffffffff"], env=env)
    assert missing.exit_code == 1 and "no paper with paper_id 'ffffffff'" in missing.output


def test_decision_and_area_filters_match_substrings(tmp_path, icml_dir):
    with Library(tmp_path / "lib.db", embedder="fake") as lib:
        lib.ingest([icml_dir])
        ids = [p.paper_id for p in lib.papers()]
        with lib.store.transaction() as conn:
            conn.execute(
                "UPDATE papers SET decision = 'ICLR 2026 Oral', source_area = 'generative models'"
                " WHERE paper_id = ?",
                (ids[0],),
            )
        text = lib.get(ids[0]).clean_text.split()[:6]
        hits = lib.search(" ".join(text), decision="oral", mode="bm25")
        assert [h.paper_id for h in hits] == [ids[0]]
        assert [h.paper_id for h in lib.search(" ".join(text), source_area="GENERATIVE", mode="hybrid")] == [
            ids[0]
        ]
        assert lib.search(" ".join(text), decision="poster") == []


def test_card_facets_keep_exactly_the_papers_whose_card_matches(tmp_path, icml_dir):
    runner = CliRunner()
    env = _env(tmp_path)
    assert runner.invoke(cli, ["ingest", str(icml_dir)], env=env).exit_code == 0
    with Library(tmp_path / "cli.db", embedder="fake") as lib:
        cards = {p.paper_id: p.card.extra for p in lib.papers()}
    with_cifar = {pid for pid, c in cards.items() if any(d["name"] == "CIFAR-10" for d in c["datasets"])}
    theory = {pid for pid, c in cards.items() if any(t["type"] == "theory" for t in c["contribution_types"])}
    robotics = {pid for pid, c in cards.items() if "robotics" in c["area"]["label"]}
    # The facets must select some but not all of the 95 papers, or this test proves nothing.
    for chosen in (with_cifar, theory, robotics):
        assert 0 < len(chosen) < len(cards)

    def hits(*options: str) -> set[str]:
        args = ["search", "learning", "--mode", "dense", "--limit", "200", "--json", *options]
        result = runner.invoke(cli, args, env=env)
        assert result.exit_code == 0, result.output
        return {h["paper_id"] for h in json.loads(result.output)}

    assert hits("--dataset", "cifar-10") == with_cifar
    assert hits("--dataset", "CIFAR 10") == hits("--dataset", "cifar10") == with_cifar
    assert hits("--contribution", "Theory") == theory
    assert hits("--area", "ROBOTICS") == robotics
    assert hits("--contribution", "theory", "--area", "robotics") == theory & robotics
    bad = runner.invoke(cli, ["search", "x", "--contribution", "poem"], env=env)
    assert bad.exit_code == 2
