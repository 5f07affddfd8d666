"""Fixtures of the build/load tests: ~270 real records from ../shared/data with duplicates across files."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

ICLR_CSV = "iclr2026-primary-area/primary_area__datasets-and-benchmarks.csv"


def _rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def _write(path: Path, header: list[str], rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=header)
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.fixture
def mixed_sources(shared_data: Path, tmp_path: Path) -> list[Path]:
    """Three inputs in source order: an ICLR CSV slice, the ICML text lists, and a CSV of duplicates.

    ``dups.csv`` holds 20 exact duplicates of the slice (already present), 20 new rows, and
    10 near-duplicates of the slice's first rows (one sentence dropped, a keyword added, the
    title removed), which merge into their papers and add the keyword (the card is rebuilt).
    """
    header, rows = _rows(shared_data / ICLR_CSV)
    first = _write(tmp_path / "iclr_slice.csv", header, rows[:120])
    icml = tmp_path / "icml"
    shutil.copytree(shared_data / "icml2026", icml)
    near = []
    for row in rows[:10]:
        sentences = row["abstract"].split(". ")
        near.append(
            {
                **row,
                "abstract": ". ".join(sentences[:-1]) if len(sentences) > 3 else row["abstract"] + " ",
                "keywords": row["keywords"] + ", zz-added keyword",
                "title": "",
            }
        )
    dups = _write(tmp_path / "dups.csv", header, rows[100:140] + near)
    return [first, icml, dups]
