"""Cross-validate the area model on the train part of the ICLR 2026 split (never its held-out 20%).

Usage: PYTHONPATH=src python scripts/cv_area_model.py --vectors LIB [--folds 5] [CSV_DIR]

The split is the one ``paperscope eval cards`` holds out (stratified 80/20, seed 0); this script
runs ``--folds``-fold stratified cross-validation inside the 80% with the shipped pipeline
(:func:`train_area_model`, then :func:`fit_embedding_block` on the fold's papers with a stored
vector of ``LIB``) and prints the accuracy of the text model and of the joint model with the
vectors, with title+keywords+abstract and with the abstract alone, per fold and on average.
About 2 minutes a fold on two busy cores.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold, train_test_split

from paperscope.evaluation.area_vectors import library_vectors
from paperscope.evaluation.cards import DEFAULT_ICLR_DIR, load_iclr_area_papers
from paperscope.extract.area import predict_area, train_area_model
from paperscope.extract.area_train import fit_embedding_block


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("csv_dir", nargs="?", type=Path, default=DEFAULT_ICLR_DIR)
    parser.add_argument(
        "--vectors", type=Path, required=True, help="built library holding the papers' vectors"
    )
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    papers = load_iclr_area_papers(args.csv_dir)
    matrix, found, model_id = library_vectors(papers, args.vectors)
    labels = np.array([p[3] for p in papers])
    train, _ = train_test_split(np.arange(len(papers)), test_size=0.2, stratify=labels, random_state=0)
    folds = StratifiedKFold(args.folds, shuffle=True, random_state=0).split(train, labels[train])
    scores: dict[str, list[float]] = {}
    for n, (a, b) in enumerate(folds):
        fit, val = train[a], train[b]
        model = train_area_model([papers[i] for i in fit], seed=0)
        ok = [i for i in fit if found[i]]
        model.embedding = fit_embedding_block(model, [papers[i] for i in ok], matrix[ok], model_id)
        for name, full, vec in (
            ("text, title+keywords+abstract", True, False),
            ("text, abstract only", False, False),
            ("joint, title+keywords+abstract", True, True),
            ("joint, abstract only", False, True),
        ):
            hits = []
            for i in val:
                fields = papers[i][:3] if full else (papers[i][0],)
                v = matrix[i] if vec and found[i] else None
                hits.append(
                    predict_area(*fields, model=model, embedding=v, embedding_model=model_id).label
                    == labels[i]
                )
            scores.setdefault(name, []).append(float(np.mean(hits)))
        print(f"fold {n}: " + ", ".join(f"{k} {v[-1]:.4f}" for k, v in scores.items()), flush=True)
    for name, values in scores.items():
        print(f"{name:<32} {np.mean(values):.4f} (folds {min(values):.4f}-{max(values):.4f})")


if __name__ == "__main__":
    main()
