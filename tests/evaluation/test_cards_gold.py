"""The hand-labelled card set (issue 27): its files parse, its fields are typed, its texts are the sources'.

The set lives in ``src/paperscope/evaluation/data/cards_gold/{dev,test}.jsonl`` (see its README and
GUIDELINE), with a later ``holdout.jsonl`` from four other venues, checked the same way. The
check against the source records reads ``../shared/data`` through the ``shared_data`` fixture
and skips, with the suite's one line, where that folder is absent.
"""

from __future__ import annotations

import csv
import json
from functools import cache
from pathlib import Path

import pytest

GOLD = Path(__file__).resolve().parents[2] / "src/paperscope/evaluation/data/cards_gold"
SPLITS = ("dev", "test")
HOLDOUT = "holdout"
BOUNDS = {None, "more than", "at least", "up to", "at most", "less than", "about"}
ROLES = {"introduced", "used"}
KINDS = {"level", "change"}
SOURCE_FIELDS = ("id", "venue", "year", "source_file", "source_key", "title", "abstract")
LABEL_FIELDS = ("method_names", "datasets", "tasks", "claims", "artifact_sizes", "notes")


def _read(split: str) -> list[dict]:
    lines = (GOLD / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.fixture(scope="module")
def gold() -> dict[str, list[dict]]:
    return {split: _read(split) for split in SPLITS}


@pytest.fixture(scope="module")
def gold_all(gold: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """dev, test and the holdout set."""
    return {**gold, HOLDOUT: _read(HOLDOUT)}


def _is_str_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) and item.strip() for item in value)


def test_fields_have_their_types(gold_all: dict[str, list[dict]]) -> None:
    for split, records in gold_all.items():
        for record in records:
            where = f"{split}:{record.get('id')}"
            assert set(record) == set(SOURCE_FIELDS + LABEL_FIELDS), where
            assert all(
                isinstance(record[key], str) and record[key] for key in SOURCE_FIELDS if key != "year"
            ), where
            assert isinstance(record["year"], int), where
            assert 400 <= len(record["abstract"]) <= 2000, where
            for name in record["method_names"]:
                assert set(name) <= {"name", "role", "aliases"} and {"name", "role"} <= set(name), where
                assert isinstance(name["name"], str) and name["name"].strip(), where
                assert name["role"] in ROLES, where
                assert _is_str_list(name.get("aliases", [])), where
            assert _is_str_list(record["datasets"]) and _is_str_list(record["tasks"]), where
            assert 1 <= len(record["tasks"]) <= 4, where
            for claim in record["claims"]:
                assert set(claim) == {"value", "unit", "bound", "kind", "what"}, where
                assert isinstance(claim["value"], str) and claim["value"], where
                assert isinstance(claim["unit"], str), where
                assert claim["bound"] in BOUNDS, where
                assert claim["kind"] in KINDS, where
                assert isinstance(claim["what"], str) and claim["what"], where
            for size in record["artifact_sizes"]:
                assert set(size) == {"value", "unit", "what"} and all(
                    isinstance(v, str) and v for v in size.values()
                ), where
            assert isinstance(record["notes"], str), where


def test_size_venues_and_disjoint_splits(gold: dict[str, list[dict]]) -> None:
    ids = {split: [record["id"] for record in records] for split, records in gold.items()}
    for split in SPLITS:
        assert len(ids[split]) == len(set(ids[split])), f"duplicate id in {split}"
        assert len({record["venue"] for record in gold[split]}) >= 3, f"fewer than 3 venues in {split}"
    assert not set(ids["dev"]) & set(ids["test"])
    keys = [(record["source_file"], record["source_key"]) for records in gold.values() for record in records]
    assert len(keys) == len(set(keys)), "a source record is labelled twice"
    assert sum(len(records) for records in gold.values()) >= 150
    assert "ICML" not in {record["venue"] for records in gold.values() for record in records}


def test_holdout_is_apart_from_dev_and_test(gold_all: dict[str, list[dict]]) -> None:
    """80 records, 20 from each of four venue-years that dev and test do not use; nothing shared."""
    holdout = gold_all[HOLDOUT]
    ids = [record["id"] for record in holdout]
    assert len(holdout) == 80 and len(ids) == len(set(ids))
    venues = {(record["venue"], record["year"]) for record in holdout}
    assert len(venues) == 4 and all(
        sum((record["venue"], record["year"]) == venue for record in holdout) == 20 for venue in venues
    )
    used = {(record["venue"], record["year"]) for split in SPLITS for record in gold_all[split]}
    assert not venues & used and ("ICML", 2026) not in venues
    keys = [
        (record["source_file"], record["source_key"]) for records in gold_all.values() for record in records
    ]
    assert len(keys) == len(set(keys)), "a source record is labelled twice"
    assert not set(ids) & {record["id"] for split in SPLITS for record in gold_all[split]}


def test_every_dataset_is_also_a_name(gold_all: dict[str, list[dict]]) -> None:
    """The guideline lists a dataset both under ``datasets`` and under ``method_names``."""
    for records in gold_all.values():
        for record in records:
            names = {name["name"] for name in record["method_names"]}
            assert set(record["datasets"]) <= names, record["id"]


@cache
def _source(shared: Path, rel: str) -> dict[str, list[dict]]:
    """Records of one source file, by their stable key (a key may repeat in airas-papers-db)."""
    path = shared / rel
    if path.suffix == ".csv":
        with path.open(encoding="utf-8-sig", newline="") as handle:
            rows, key = list(csv.DictReader(handle)), "openreview_url"
    else:
        rows, key = json.loads(path.read_text(encoding="utf-8")), "id"
    by_key: dict[str, list[dict]] = {}
    for row in rows:
        by_key.setdefault(str(row[key]), []).append(row)
    return by_key


def test_texts_match_the_source_records(gold_all: dict[str, list[dict]], shared_data: Path) -> None:
    for records in gold_all.values():
        for record in records:
            rows = _source(shared_data, record["source_file"]).get(record["source_key"], [])
            assert any(
                row["abstract"] == record["abstract"] and row["title"] == record["title"] for row in rows
            ), (
                f"{record['id']}: no record {record['source_key']} with this title and abstract in {record['source_file']}"
            )
