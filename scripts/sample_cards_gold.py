"""Sample the abstracts of the hand-labelled card set (issue 27) and fix their dev/test split.

Seeded (``random.Random(27)``) and stratified by venue: 45 abstracts per venue from four venues
in ``../shared/data`` (not ICML 2026), each with an abstract of 400-2,000 characters, unique by
normalised title within its venue. Within a venue the sampled order is split in two halves,
dev first (the larger half goes to dev for the 1st and 3rd venue, to test for the others, so the
splits are 90/90). The split is decided here, before any labelling.

Writes ``src/paperscope/evaluation/data/cards_gold/sample.jsonl``: one line per abstract with
``id, venue, year, split, source_file, source_key, title, abstract`` (the abstract and title are
the source's own strings, untouched).

``--holdout`` samples the later holdout set instead (seed ``random.Random(2027)``, 20 abstracts
per venue from four venues used by neither dev nor test: ICLR 2022, ICML 2021, IJCAI 2024,
COLM 2024; same length and unique-title filters; split ``holdout``) and writes
``cards_gold/holdout_sample.jsonl``. Usage::

    python scripts/sample_cards_gold.py [--holdout] [--shared ../shared/data] [--out PATH]
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SEED = 27
PER_VENUE = 45
MIN_CHARS, MAX_CHARS = 400, 2000
OUT = REPO / "src/paperscope/evaluation/data/cards_gold/sample.jsonl"
HOLDOUT_SEED = 2027
HOLDOUT_PER_VENUE = 20
HOLDOUT_OUT = REPO / "src/paperscope/evaluation/data/cards_gold/holdout_sample.jsonl"

# (slug, venue, year, files relative to shared/data, source-key field)
VENUES = [
    ("iclr2026", "ICLR", 2026, "iclr2026-primary-area/primary_area__*.csv", "openreview_url"),
    ("cvpr2023", "CVPR", 2023, "airas-papers-db/cvpr_2023.json", "id"),
    ("neurips2020", "NeurIPS", 2020, "airas-papers-db/neurips_2020.json", "id"),
    ("colm2025", "COLM", 2025, "papercopilot-paperlists/colm2025.json", "id"),
]

# The holdout set (made later, labelled before any extractor output was seen for it).
HOLDOUT_VENUES = [
    ("iclr2022", "ICLR", 2022, "airas-papers-db/iclr_2022.json", "id"),
    ("icml2021", "ICML", 2021, "airas-papers-db/icml_2021.json", "id"),
    ("ijcai2024", "IJCAI", 2024, "papercopilot-paperlists/ijcai2024.json", "id"),
    ("colm2024", "COLM", 2024, "papercopilot-paperlists/colm2024.json", "id"),
]


def _norm_title(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", title.lower()).strip()


def _records(shared: Path, pattern: str) -> list[tuple[str, dict]]:
    """(source file relative to shared/data, record) for every record of the venue's files."""
    out: list[tuple[str, dict]] = []
    for path in sorted(shared.glob(pattern)):
        rel = path.relative_to(shared).as_posix()
        if path.suffix == ".csv":
            with path.open(encoding="utf-8-sig", newline="") as handle:
                out.extend((rel, row) for row in csv.DictReader(handle))
        else:
            out.extend((rel, row) for row in json.loads(path.read_text(encoding="utf-8")))
    return out


def sample(shared: Path, *, holdout: bool = False) -> list[dict]:
    """The dev/test sample, or with ``holdout`` the holdout sample (all of split ``holdout``)."""
    rng = random.Random(HOLDOUT_SEED if holdout else SEED)
    per_venue = HOLDOUT_PER_VENUE if holdout else PER_VENUE
    picked: list[dict] = []
    for number, (slug, venue, year, pattern, key) in enumerate(HOLDOUT_VENUES if holdout else VENUES):
        seen: set[str] = set()
        pool: list[tuple[str, dict]] = []
        for rel, row in sorted(_records(shared, pattern), key=lambda item: (str(item[1][key]), item[0])):
            abstract, title = row.get("abstract") or "", row.get("title") or ""
            norm = _norm_title(title)
            if not (MIN_CHARS <= len(abstract) <= MAX_CHARS) or not norm or norm in seen:
                continue
            seen.add(norm)
            pool.append((rel, row))
        chosen = rng.sample(pool, per_venue)
        n_dev = (per_venue + 1) // 2 if number % 2 == 0 else per_venue // 2
        for index, (rel, row) in enumerate(chosen):
            picked.append(
                {
                    "id": f"{slug}-{index:02d}",
                    "venue": venue,
                    "year": year,
                    "split": "holdout" if holdout else "dev" if index < n_dev else "test",
                    "source_file": rel,
                    "source_key": str(row[key]),
                    "title": row["title"],
                    "abstract": row["abstract"],
                }
            )
    return picked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument(
        "--out", type=Path, default=None, help="default: sample.jsonl or holdout_sample.jsonl"
    )
    parser.add_argument(
        "--holdout", action="store_true", help="sample the holdout set (seed 2027, 4 other venues)"
    )
    args = parser.parse_args()
    records = sample(args.shared, holdout=args.holdout)
    args.out = args.out or (HOLDOUT_OUT if args.holdout else OUT)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"{len(records)} abstracts -> {args.out}")


if __name__ == "__main__":
    main()
