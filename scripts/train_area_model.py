"""Train the bundled area model from the ICLR 2026 CSVs and write it into the package.

Usage: PYTHONPATH=src python scripts/train_area_model.py [--vectors LIB [--embedding-only]] [CSV_DIR] [OUT]
(defaults: ../shared/data/iclr2026-primary-area, src/paperscope/extract/data/area_model.npz).
``--vectors LIB``: a library built from those CSVs with the MiniLM embedder (``paperscope ingest``
of the folder); its stored vectors train the embedding block (the joint SVM), which records their
model id. Without it the model is text-only. ``--embedding-only`` keeps the text model of OUT as
it is and (re)trains only the embedding block, so cards built from text stay byte for byte the
same (retraining the text model moves its weights, so text-only cards change). The constants
were chosen by ``scripts/cv_area_model.py`` (5-fold CV on the train 80% of the held-out split).
Deterministic: LinearSVC with a fixed seed, so the same data gives the same file.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from paperscope.evaluation.area_vectors import library_vectors
from paperscope.evaluation.cards import DEFAULT_ICLR_DIR, load_iclr_area_papers
from paperscope.extract.area import AreaModel, train_area_model
from paperscope.extract.area_train import fit_embedding_block

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("csv_dir", nargs="?", type=Path, default=DEFAULT_ICLR_DIR)
    parser.add_argument(
        "out", nargs="?", type=Path, default=REPO / "src/paperscope/extract/data/area_model.npz"
    )
    parser.add_argument(
        "--vectors", type=Path, default=None, help="built library holding the papers' vectors"
    )
    parser.add_argument(
        "--embedding-only", action="store_true", help="keep OUT's text model, train the block only"
    )
    args = parser.parse_args()
    if args.embedding_only and args.vectors is None:
        parser.error("--embedding-only needs --vectors LIB")
    started = time.perf_counter()
    papers = load_iclr_area_papers(args.csv_dir)
    model = AreaModel.load(args.out) if args.embedding_only else train_area_model(papers, seed=0)
    note = "text only"
    if args.vectors is not None:
        matrix, found, model_id = library_vectors(papers, args.vectors)
        rows = [p for p, ok in zip(papers, found, strict=True) if ok]
        model.embedding = fit_embedding_block(model, rows, matrix[found], model_id)
        note = f"embedding block on {int(found.sum())} of {len(papers)} vectors of {model_id}"
    model.save(args.out)
    print(
        f"trained on {len(papers)} papers in {time.perf_counter() - started:.1f} s; "
        f"{model.coef.shape[1]} features, temperature {model.temperature}; {note}; wrote {args.out} "
        f"({args.out.stat().st_size / 1e6:.2f} MB)"
    )


if __name__ == "__main__":
    main()
