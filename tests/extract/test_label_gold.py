"""Display labels and code URLs of the ICML 2026 lists against the hand-labelled dev gold (issue 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperscope import Library
from paperscope.text import clean_text, fold

LABEL_MIN_RATE = 0.90
URL_MIN_RATE = 1.0


def _key(name: str) -> str:
    """Case- and LaTeX-insensitive key: gold writes C2R (or C$^2$R), paperscope C²R."""
    return fold(clean_text(name))


@pytest.fixture(scope="module")
def gold_and_papers(shared_data: Path, icml_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    gold = [
        json.loads(line)
        for line in (shared_data / "gold" / "icml2026_cards_dev.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
        if line.strip()
    ]
    lib = Library(tmp_path_factory.mktemp("gold") / "lib.db")
    lib.ingest([icml_dir])
    by_position: dict[tuple[str, int], object] = {}
    lines: dict[str, list[tuple[int, object]]] = {}
    for paper in lib.papers():
        for source in paper.sources:
            lines.setdefault(Path(source.path).name, []).append((source.line, paper))
    for name, entries in lines.items():
        for index, (_, paper) in enumerate(sorted(entries, key=lambda e: e[0])):
            by_position[(name, index)] = paper
    lib.close()
    return gold, by_position


def test_gold_covers_38_papers_of_two_lists(gold_and_papers):
    gold, by_position = gold_and_papers
    assert len(gold) == 38
    assert all((g["file"], g["index"]) in by_position for g in gold)


def test_label_starts_with_a_gold_method_name(gold_and_papers):
    gold, by_position = gold_and_papers
    named = [g for g in gold if g["method_names"]]
    misses = []
    for g in named:
        label = by_position[(g["file"], g["index"])].label
        if not any(_key(label).startswith(_key(name)) for name in g["method_names"]):
            misses.append(f"{g['file']}#{g['index']}: {label!r} (gold {g['method_names']})")
    rate = 1 - len(misses) / len(named)
    print(f"\nlabel starts with a gold method name: {len(named) - len(misses)}/{len(named)} = {rate:.3f}")
    for miss in misses:
        print("  miss", miss)
    assert len(named) == 29
    assert rate >= LABEL_MIN_RATE, misses


def test_code_urls_equal_gold(gold_and_papers):
    gold, by_position = gold_and_papers
    misses = []
    for g in gold:
        card = by_position[(g["file"], g["index"])].card
        if card.code_urls != g["code_urls"]:
            misses.append(f"{g['file']}#{g['index']}: {card.code_urls} != {g['code_urls']}")
    rate = 1 - len(misses) / len(gold)
    print(f"\ncode_urls equal gold: {len(gold) - len(misses)}/{len(gold)} = {rate:.3f}")
    assert rate >= URL_MIN_RATE, misses


def test_labels_hold_no_markup_residue(gold_and_papers):
    _, by_position = gold_and_papers
    residue = ("\\", "$", "*", "textit", "mathcal", "\\times")
    bad = [p.label for p in by_position.values() if any(r in p.label for r in residue)]
    assert bad == []
