"""Scoring cards against cards_gold (issue 27): the README's match rules by hand, the CLI table, the baseline note."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope.cli import cli
from paperscope.evaluation.cards_gold import (
    BASELINE_REF,
    baseline_cards,
    claim_key,
    load_cards_gold,
    name_key,
    score_cards,
    task_match,
)


def test_names_match_across_latex_case_hyphens_and_spaces():
    assert name_key("ResNet-50") == name_key("resnet 50") == name_key("ResNet  50") == "resnet 50"
    assert name_key("C$^2$R") == name_key("C²R") == name_key("c2r")
    assert name_key("$\\text{Mamba}$") == "mamba"
    assert name_key("GPT-4o") != name_key("GPT-4")


def test_claims_match_on_value_and_bound_not_unit():
    assert claim_key("14", "more than") == claim_key("14.0", ">") == ((14.0,), "more than")
    assert claim_key("14", None) != claim_key("14", "more than")
    assert claim_key("3", "up to") == ((3.0,), "up to")
    assert claim_key("-3.2", "") == claim_key("3.2", None)  # the sign is the relation, not the value
    assert claim_key("3–5", None) == claim_key("3-5", "") == ((3.0, 5.0), "")
    assert claim_key("9/11", None) == ((9.0, 11.0), "")
    assert claim_key("1,000", "~") == ((1000.0,), "about")
    assert claim_key("more than double", "") is None


def test_tasks_match_softly():
    assert task_match("long-context language modelling", "long-context language modeling")
    assert task_match("semantic segmentation", "segmentation")
    assert not task_match("image classification", "text-to-image generation")
    assert not task_match("", "")


def _record(**fields):
    base = {"method_names": [], "datasets": [], "tasks": [], "claims": [], "artifact_sizes": []}
    return {**base, **fields}


def test_score_cards_hand_worked():
    record = _record(
        method_names=[
            {"name": "HiPoSeg", "role": "introduced", "aliases": ["Hierarchical Prototype Segmentation"]},
            {"name": "ADE20K", "role": "used"},
            {"name": "CLIP", "role": "used"},
        ],
        datasets=["ADE20K", "Cityscapes"],
        tasks=["semantic segmentation", "part segmentation"],
        claims=[
            {"value": "14", "unit": "%", "bound": "more than"},
            {"value": "3.07", "unit": "pp", "bound": None},
        ],
        artifact_sizes=[{"value": "10000", "unit": "questions"}],
    )
    card = {
        # the expansion matches through the alias; "Transformer" matches nothing
        "method_names": ["Hierarchical Prototype Segmentation", "ade20k", "Transformer"],
        "datasets": [{"name": "ADE-20K"}, {"name": "ImageNet"}],
        "tasks": [{"text": "semantic segmentation"}, {"text": "object detection"}],
        "claims": [
            {"value": "14", "unit": "%", "bound": ">"},  # "more than 14%": right
            {"value": "3.07", "unit": "%", "bound": ""},  # % and pp are equal
            {"value": "10,000", "unit": "", "bound": ""},  # an artifact size: not counted
            {"value": "0.25", "unit": "%", "bound": ""},  # a setting: wrong
        ],
    }
    s = score_cards([record], [card])
    # method names are the card's names and datasets ("ADE-20K", "ImageNet"): 2 of 5 right, 2 of 3 found
    assert (s["method_names"]["precision"], s["method_names"]["recall"]) == pytest.approx((2 / 5, 2 / 3))
    # datasets: "ADE-20K" is "ADE20K"? No: the hyphen becomes a space, "ade 20k" != "ade20k".
    assert (s["datasets"]["tp_pred"], s["datasets"]["predicted"], s["datasets"]["gold"]) == (0, 2, 2)
    assert (s["tasks"]["precision"], s["tasks"]["recall"]) == (0.5, 0.5)
    assert s["claims"] == pytest.approx(
        {"precision": 2 / 3, "recall": 1.0, "f1": 0.8, "predicted": 3, "gold": 2, "tp_pred": 2, "tp_gold": 2}
    )


def test_load_cards_gold_halves_and_unknown_split():
    assert [len(load_cards_gold(s)) for s in ("dev", "test")] == [90, 90]
    from paperscope.errors import InputError

    with pytest.raises(InputError, match="unknown split 'train'; choose one of dev, test"):
        load_cards_gold("train")


def test_baseline_outside_a_checkout_says_so_in_one_line(tmp_path: Path):
    cards, note = baseline_cards([], repo=tmp_path)
    assert cards is None
    assert note == f"baseline {BASELINE_REF} unavailable: {tmp_path} is not in a git checkout"


def test_eval_cards_split_dev_prints_p_r_f1_per_field():
    out = CliRunner().invoke(cli, ["eval", "cards", "--split", "dev", "--no-baseline"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0] == "Cards on the hand-labelled cards_gold dev part (90 abstracts)"
    assert lines[2].split() == ["field", "run", "P", "R", "F1", "pred", "gold"]
    rows = [line for line in lines if re.match(r"^(method_names|datasets|tasks|claims) ", line)]
    assert [r.split()[0] for r in rows] == [
        f for f in ("method_names", "datasets", "tasks", "claims") for _ in (0, 1)
    ]
    for row in rows:
        p, r, f1 = (float(x) for x in row.split()[-5:-2])
        assert 0.0 <= p <= 1.0 and 0.0 <= r <= 1.0
        assert f1 == pytest.approx(2 * p * r / (p + r) if p + r else 0.0, abs=2e-3)
    assert "baseline not run (--no-baseline)" in out.output
