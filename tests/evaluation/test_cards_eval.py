"""Cards evaluation: match rules, P/R/F1 by hand, and the issue's acceptance thresholds on dev gold."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperscope.evaluation.cards import (
    _claim_key,
    _name_key,
    _task_match,
    format_cards_eval,
    prf,
    run_cards_eval,
)


def test_prf_hand_worked():
    # 3 right, 1 spurious, 2 missed: P = 3/4, R = 3/5, F1 = 2PR/(P+R) = 2/3.
    assert prf(3, 1, 2) == pytest.approx(
        {"precision": 0.75, "recall": 0.6, "f1": 2 / 3, "tp": 3, "fp": 1, "fn": 2}
    )
    assert prf(0, 0, 0)["f1"] == 0.0


def test_match_rules():
    assert _name_key("C$^2$R") == _name_key("C²R") == _name_key("c2r")
    assert _claim_key("9.6", "×") == _claim_key(9.6, "x") == _claim_key("9.60", "X")
    assert _claim_key("1,000", "%") == (1000.0, "%")
    assert _task_match("multi-modal dataset distillation", "dataset distillation for multi-modal data")
    assert not _task_match("graph coarsening", "node classification")


@pytest.fixture(scope="module")
def dev_result(shared_data: Path, icml_dir: Path):
    return run_cards_eval(shared_data / "gold" / "icml2026_cards_dev.jsonl", icml_dir, iclr_dir=None)


def test_dev_gold_meets_the_issue_targets(dev_result):
    fields = dev_result["fields"]
    print("\n" + format_cards_eval(dev_result))
    assert dev_result["n_dev_papers"] == 38
    assert fields["code_urls"]["f1"] == 1.0
    assert fields["method_names"]["f1"] >= 0.90
    assert fields["datasets"]["f1"] >= 0.85
    assert fields["claims"]["f1"] >= 0.80
    assert dev_result["area_dev"]["accuracy"] >= 0.55
    assert dev_result["label_rate"] >= 0.90


def test_format_names_every_field(dev_result):
    text = format_cards_eval(dev_result)
    for field in ("method_names", "datasets", "code_urls", "claims", "contribution_types", "tasks"):
        assert f"\n{field} " in text
    assert "area on dev (38 papers, 21 areas)" in text


def test_progress_names_each_step_and_the_result_has_its_wall_time(
    shared_data: Path, icml_dir: Path, dev_result, capsys: pytest.CaptureFixture[str]
):
    import re

    capsys.readouterr()
    result = run_cards_eval(shared_data / "gold" / "icml2026_cards_dev.jsonl", icml_dir, None, progress=True)
    lines = [re.sub(r", \d+ s$", "", line) for line in capsys.readouterr().err.splitlines()]
    assert lines == [
        f"eval cards: 0/2 steps (build the cards of {icml_dir})",
        "eval cards: 1/2 steps (score 38 gold papers)",
    ]
    assert result["elapsed_s"] > 0
    assert {k: v for k, v in result.items() if k != "elapsed_s"} == {
        k: v for k, v in dev_result.items() if k != "elapsed_s"
    }


@pytest.mark.slow
def test_held_out_iclr_area_beats_the_same_run_baseline(shared_data: Path, icml_dir: Path):
    result = run_cards_eval(
        shared_data / "gold" / "icml2026_cards_dev.jsonl", icml_dir, shared_data / "iclr2026-primary-area"
    )
    runs = result["area_iclr"]["runs"]
    print("\n" + format_cards_eval(result))
    assert result["area_iclr"]["n_test"] == 861
    ours = runs["ours (title+keywords+abstract)"]["accuracy"]
    assert ours > runs["baseline TF-IDF+LR (title+keywords+abstract)"]["accuracy"]
    assert runs["ours (abstract only)"]["accuracy"] > runs["baseline TF-IDF+LR (abstract only)"]["accuracy"]


def test_format_names_another_gold_file(dev_result):
    text = format_cards_eval({**dev_result, "gold_name": "my_holdout.jsonl"})
    assert text.startswith("Card fields on my_holdout.jsonl (38 papers)")
    assert "area on my_holdout.jsonl (38 papers, 21 areas)" in text


def test_cli_scores_another_gold_file(tmp_path: Path, shared_data: Path, icml_dir: Path):
    import json

    from click.testing import CliRunner

    from paperscope.cli import cli

    first = (shared_data / "gold" / "icml2026_cards_dev.jsonl").read_text(encoding="utf-8").splitlines()[0]
    record = json.loads(first)
    record["method_names"] = ["NotTheName"]  # one wrong name: P = R = 0 for method names
    gold = tmp_path / "one.jsonl"
    gold.write_text(json.dumps(record) + "\n", encoding="utf-8")
    out = CliRunner().invoke(
        cli, ["eval", "cards", "--no-iclr", "--json", "--gold", str(gold), "--examples", str(icml_dir)]
    )
    assert out.exit_code == 0, out.output
    result = json.loads(out.stdout)
    assert out.stderr.splitlines()[-1].startswith("eval cards: 1 papers in ")
    assert result["n_dev_papers"] == 1
    assert result["gold_name"] == "one.jsonl"
    assert result["fields"]["method_names"]["tp"] == 0
    assert result["fields"]["method_names"]["fn"] == 1


def _gold(tmp_path: Path, *records: object) -> Path:
    import json

    path = tmp_path / "gold.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return path


def test_a_gold_file_with_only_some_fields_scores_those_and_skips_the_rest(tmp_path, icml_dir) -> None:
    gold = _gold(
        tmp_path,
        {"file": "000_9f997565051fc2a1.txt", "index": 0, "method_names": ["APM"]},
        {"file": "000_9f997565051fc2a1.txt", "index": 1, "datasets": []},
    )
    result = run_cards_eval(gold, icml_dir, iclr_dir=None)
    assert set(result["fields"]) == {"method_names", "datasets"}
    assert result["fields"]["method_names"]["tp"] == 1
    assert result["area_dev"] is None and "claims" in result["skipped_fields"]
    text = format_cards_eval(result)
    assert "area on gold.jsonl: skipped (no record has iclr_primary_area)" in text
    assert "skipped (not in the gold): code_urls, claims, contribution_types, tasks" in text


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ("{not json", "gold.jsonl:1: not a JSON object"),
        ('["a list"]', "gold.jsonl:1: each line must be a JSON object"),
        ('{"index": 0}', 'gold.jsonl:1: "file"'),
        ('{"file": "000_9f997565051fc2a1.txt", "index": "0"}', 'gold.jsonl:1: "index"'),
        (
            '{"file": "000_9f997565051fc2a1.txt", "index": 0, "datasets": "CIFAR-10"}',
            '"datasets" must be a list',
        ),
        ('{"file": "000_9f997565051fc2a1.txt", "index": 0, "claims": [5]}', '"claims" must be a list of'),
        ('{"file": "nope.txt", "index": 3}', "gold.jsonl:1: names abstract 3 of 'nope.txt'"),
    ],
)
def test_a_bad_gold_file_is_one_line_naming_file_and_line(tmp_path, icml_dir, record, message) -> None:
    from click.testing import CliRunner

    from paperscope.cli import cli

    gold = _gold(tmp_path, record)
    result = CliRunner().invoke(
        cli, ["eval", "cards", "--no-iclr", "--gold", str(gold), "--examples", str(icml_dir)]
    )
    assert result.exit_code == 1 and "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and message in errors[0], result.output
