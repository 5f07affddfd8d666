"""Held-out area run with stored vectors: vectors read from a library, fused runs, the output line."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from paperscope.errors import InputError
from paperscope.evaluation.area_vectors import library_vectors
from paperscope.evaluation.cards import _iclr_eval, format_cards_eval, load_iclr_area_papers
from paperscope.library import Library
from paperscope.progress import steps


@pytest.fixture
def small_iclr(tmp_path: Path, shared_data: Path) -> tuple[Path, Path]:
    """The first 10 real papers of each of the 12 ICLR 2026 area CSVs, and a library of them."""
    folder = tmp_path / "iclr"
    folder.mkdir()
    for path in sorted((shared_data / "iclr2026-primary-area").glob("*.csv")):
        with path.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.DictReader(fh)
            rows = [row for _, row in zip(range(10), reader, strict=False)]
            fields = reader.fieldnames
        with (folder / path.name).open("w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=fields)
            writer.writeheader()
            writer.writerows(rows)
    db = tmp_path / "iclr.db"
    with Library(db) as lib:  # the fake embedder (conftest): vectors of "fake-bow-384"
        lib.ingest([folder])
    return folder, db


def test_library_vectors_match_the_csv_rows(small_iclr: tuple[Path, Path]):
    folder, db = small_iclr
    papers = load_iclr_area_papers(folder)
    matrix, found, model_id = library_vectors(papers, db)
    assert model_id == "fake-bow-384"
    assert matrix.shape == (120, 384) and found.all()
    with Library(db) as lib:
        ids, stored = lib.embeddings()
        by_title = {p.title: p.paper_id for p in lib.papers()}
    row = stored[ids.index(by_title[papers[7][1]])]
    assert (matrix[7] == row).all()


def test_library_without_vectors_is_one_clear_error(tmp_path: Path, small_iclr: tuple[Path, Path]):
    folder, _ = small_iclr
    db = tmp_path / "bare.db"
    with Library(db) as lib:
        lib.ingest([folder], embed=False)
    with pytest.raises(InputError, match="holds no vectors"):
        library_vectors(load_iclr_area_papers(folder), db)


def test_held_out_run_scores_the_fused_model_and_says_which_vectors(small_iclr: tuple[Path, Path]):
    folder, db = small_iclr
    with steps(4, desc="test", enabled=False) as bar:
        result = _iclr_eval(folder, 0, bar, area_vectors=db)
    assert result["vectors"] == {
        "library": str(db),
        "model_id": "fake-bow-384",
        "train_found": 96,
        "test_found": 24,
    }
    runs = result["runs"]
    assert {"ours + embedding (title+keywords+abstract)", "ours + embedding (abstract only)"} <= set(runs)
    assert all(0.0 <= r["accuracy"] <= 1.0 for r in runs.values())
    base = {"n_dev_papers": 1, "gold_name": "dev", "fields": {}, "label_rate": 0, "label_papers": 0}
    base |= {"area_dev": None, "n_areas": 21}
    text = format_cards_eval({**base, "area_iclr": result})
    assert f"embedding: stored vectors of fake-bow-384 from {db} (96 train / 24 test papers)" in text
    text = format_cards_eval({**base, "area_iclr": {**result, "vectors": None}})
    assert "embedding: not used (pass --area-vectors LIB" in text
