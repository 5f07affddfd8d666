"""Whole cards: every field present, spans point into the clean text, no markup residue anywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperscope import Library
from paperscope.extract import EXTRACTOR_VERSION
from paperscope.extract.contributions import CONTRIBUTION_TYPES

RESIDUE = ("\\times", "$", "**", "textit", "mathcal", "\\")


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


@pytest.fixture(scope="module")
def icml_papers(icml_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    with Library(tmp_path_factory.mktemp("cards") / "lib.db") as lib:
        lib.ingest([icml_dir])
        return list(lib.papers())


def test_every_icml_card_is_current_and_complete(icml_papers):
    assert len(icml_papers) == 95
    for paper in icml_papers:
        card = paper.card.to_dict()
        assert card["extractor_version"] == EXTRACTOR_VERSION
        for key in ("methods", "contribution_types", "tasks", "datasets", "claims", "area", "project_urls"):
            assert key in card, key
        assert {c["type"] for c in card["contribution_types"]} <= set(CONTRIBUTION_TYPES)
        assert 1 <= len(card["tasks"]) <= 3 or card["tasks"] == []


def test_no_field_holds_latex_or_markdown_residue(icml_papers):
    bad = []
    for paper in icml_papers:
        card = paper.card.to_dict()
        card.pop("code_urls")
        card.pop("project_urls")
        bad += [(paper.paper_id, s) for s in _strings(card) if any(r in s for r in RESIDUE)]
    assert bad == []


def test_spans_point_at_the_values(icml_papers):
    for paper in icml_papers:
        card = paper.card.to_dict()
        clean = paper.clean_text
        for m in card["methods"]:
            assert clean[m["start"] : m["end"]] == m["name"]
        for d in card["datasets"]:
            assert d["name"] in clean[d["start"] : d["end"]] or "/" in clean[d["start"] : d["end"]]
        for c in card["claims"]:
            assert c["value"] in clean[c["start"] : c["end"]].replace(",", "")


def test_case_6_card(tmp_path: Path):
    body = (
        "ICML 2026 Papers\n\nWe introduce Cross-Consistency Regularization (C$^2$R), which trains "
        "$f_\\theta$$g_\\phi$ jointly and is 9.6$\\times$ faster than \\textit{dense} baselines while using "
        "$\\mathcal{O}(n)$ memory.\n"
    )
    path = tmp_path / "f6.txt"
    path.write_text(body, encoding="utf-8")
    with Library(tmp_path / "lib.db") as lib:
        lib.ingest([path])
        (paper,) = list(lib.papers())
    card = paper.card.to_dict()
    assert card["method_names"] == ["C²R"]
    assert card["methods"][0]["long_form"] == "Cross-Consistency Regularization"
    assert card["label"] == "C²R — Cross-Consistency Regularization"
    assert [(c["value"], c["unit"], c["what"]) for c in card["claims"]] == [("9.6", "×", "faster")]
    assert json.dumps(card, ensure_ascii=False).count("$") == 0


def test_build_cards_in_two_processes_equals_one(icml_papers):
    from paperscope.extract import build_cards

    one = [(pid, card.to_dict()) for pid, card in build_cards(icml_papers[:12], workers=1)]
    two = [(pid, card.to_dict()) for pid, card in build_cards(icml_papers[:12], workers=2, chunk_size=5)]
    assert one == two
    assert [pid for pid, _ in one] == [p.paper_id for p in icml_papers[:12]]
