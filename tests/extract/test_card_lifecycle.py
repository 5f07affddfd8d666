"""Cards across ingest: quick first cards, full cards built after, --no-cards, rebuild, CLI."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli
from paperscope.extract import EXTRACTOR_VERSION, FIRST_CARD_VERSION


def _versions(lib: Library) -> set[str]:
    return {r[0] for r in lib.store.conn.execute("SELECT extractor_version FROM cards")}


def test_ingest_builds_full_cards(icml_library: Library) -> None:
    assert _versions(icml_library) == {EXTRACTOR_VERSION}
    assert icml_library.store.count("cards") == 95
    card = next(p for p in icml_library.papers() if p.card.method_names[:1] == ["APM"]).card
    assert card.extra["area"]["label"] and "datasets" in card.extra


def test_no_cards_then_build_then_rebuild_keeps_marks(tmp_path: Path, icml_dir: Path) -> None:
    lib = Library(tmp_path / "c.db")
    lib.ingest([icml_dir], cards=False)
    assert _versions(lib) == {FIRST_CARD_VERSION}
    first = lib.get(next(p.paper_id for p in lib.papers()))
    assert first.card.label and "area" not in first.card.extra
    lib.star(first.paper_id)
    assert first.card.method_names == [] and first.card.extra["venue"] == "ICML"
    assert lib.build_cards() == 95
    assert _versions(lib) == {EXTRACTOR_VERSION}
    built = lib.get(first.paper_id).card
    assert lib.build_cards() == 0
    assert lib.build_cards(rebuild=True, workers=2) == 95
    assert lib.marks(first.paper_id)["starred"] is True
    assert lib.get(first.paper_id).card.to_dict() == built.to_dict()
    lib.close()


def test_cli_cards(tmp_path: Path, icml_dir: Path) -> None:
    runner = CliRunner()
    db = ["--db", str(tmp_path / "cli.db")]
    runner.invoke(cli, [*db, "ingest", "--no-cards", str(icml_dir)], catch_exceptions=False)
    result = runner.invoke(cli, [*db, "cards"], catch_exceptions=False)
    assert result.stdout == ""
    assert result.stderr.startswith("cards: 95 papers in ") and result.stderr.endswith(" papers/s)\n")


def test_cli_eval_cards_reads_the_default_dev_gold(shared_data: Path) -> None:
    result = CliRunner().invoke(cli, ["eval", "cards", "--no-iclr", "--json"], catch_exceptions=False)
    figures = json.loads(result.stdout)
    assert figures["fields"]["code_urls"]["f1"] == 1.0
    assert figures["area_iclr"] is None
