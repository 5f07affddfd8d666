"""Topic fixtures: the ICLR 2026 corpus (helpers live in topics_helpers.py)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from paperscope.text import clean_text


@pytest.fixture(scope="session")
def iclr2026(shared_data: Path) -> tuple[list[str], list[str], list[str]]:
    """Return (paper ids, "title. abstract" clean texts, primary areas) of the 4,302 ICLR 2026 papers."""
    csv.field_size_limit(
        max(csv.field_size_limit(), 1 << 24)
    )  # never lower the reader's limit (process-wide)
    ids, docs, areas = [], [], []
    for path in sorted((shared_data / "iclr2026-primary-area").glob("*.csv")):
        with path.open(encoding="utf-8-sig", newline="") as handle:
            for row in csv.DictReader(handle):
                ids.append(row["openreview_url"].rsplit("=", 1)[-1])
                docs.append(f"{clean_text(row['title'])}. {clean_text(row['abstract'])}")
                areas.append(row["primary_area"])
    return ids, docs, areas
