"""Train the bundled area model from the ICLR 2026 CSVs and write it into the package.

Usage: PYTHONPATH=src python scripts/train_area_model.py [CSV_DIR] [OUT]
(defaults: ../shared/data/iclr2026-primary-area, src/paperscope/extract/data/area_model.npz).
Deterministic: LinearSVC with a fixed seed, same data gives the same file.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from paperscope.evaluation.cards import DEFAULT_ICLR_DIR, load_iclr_area_papers
from paperscope.extract.area import train_area_model

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    csv_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_ICLR_DIR
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else REPO / "src/paperscope/extract/data/area_model.npz"
    started = time.perf_counter()
    papers = load_iclr_area_papers(csv_dir)
    model = train_area_model(papers, seed=0)
    model.save(out)
    print(
        f"trained on {len(papers)} papers in {time.perf_counter() - started:.1f} s; "
        f"{model.coef.shape[1]} features, temperature {model.temperature}; wrote {out} "
        f"({out.stat().st_size / 1e6:.2f} MB)"
    )


if __name__ == "__main__":
    main()
