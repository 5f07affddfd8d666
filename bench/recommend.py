"""Benchmark recommendations with a simulated reader on the 4,302 ICLR 2026 papers.

For each of the 12 OpenReview primary areas and 5 seeds, the reader keeps 10 random papers of
that area and rejects 10 random papers of other areas; a recommender then lists 20 of the papers
not triaged, and precision@20 counts those of the same area. Two recommenders run on the same
library and the same draws:

- paperscope: ``Library.recommend`` (keeps and rejects set with ``Library.set_triage``), the linear
  SVM over TF-IDF + embeddings smoothed on the library's neighbour graph, its scores propagated
  one hop on that graph (:mod:`paperscope.triage.learn`);
- baseline: arxiv-sanity-lite's ``svm_rank``, TF-IDF with its settings (1–2 grams, 20,000
  features, max_df 0.1, min_df 5, sublinear tf) and ``LinearSVC(C=0.01, class_weight="balanced")``
  on the kept papers as positives and every other paper as a negative (rejects are not used).

"Papers like mine": 5 papers of an area are written to a JSON list and passed to
``Library.recommend_like``; precision@20 over the papers other than those 5.

    PYTHONPATH=src python bench/recommend.py                 # real minilm embedder
    PYTHONPATH=src python bench/recommend.py --embedder fake # when minilm is not prepared
    PYTHONPATH=src python bench/recommend.py --db /tmp/iclr.db --first-seed 100  # dev seeds

Settings are chosen on other seeds (``--first-seed 100``: seeds 100-104), never on the bench's
own 0-4. ``--db`` builds the library there once and reuses it in later runs.

The library is built in a temporary folder from ../shared/data/iclr2026-primary-area (ingest,
then embedding: a few minutes with minilm on two cores). The refit time is the wall time of one
``rank_with_feedback`` call (features fitted once per library and cached).

Last run (2026-12-01, minilm, 4,302 papers, seeds 0-4, 2 cores shared with other jobs at load
8-10): precision@20 paperscope 0.741, baseline 0.657 (+0.084: the +0.05 target is met), papers
like mine (5) 0.611; refit median 303 ms, max 541 ms (the stacked SVM without the graph took
252 / 342 ms in the same conditions; 123 / 148 ms at light load); features 8.2 s once per library
and process at that load (vectors read, TF-IDF fitted, neighbour graph 1.6 s of it). The run
before the neighbour graph: 0.698 vs 0.657 (+0.041), papers like mine 0.460. On the dev seeds
100-104 this method scored 0.709 against 0.620 (like mine 0.647).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from paperscope import Library
from paperscope.index.embed import embedder_is_ready
from paperscope.store import marks
from paperscope.triage.learn import rank_with_feedback

ICLR_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "iclr2026-primary-area"
KEEP, REJECT, AT, SEEDS, MINE = 10, 10, 20, 5, 5


def baseline_scores(texts: list[str], positives: list[int]) -> np.ndarray:
    """arxiv-sanity-lite's svm_rank: decision values of a TF-IDF linear SVM on the positives."""
    from sklearn.svm import LinearSVC

    x = baseline_tfidf(texts)
    y = np.zeros(x.shape[0], dtype=np.int8)
    y[positives] = 1
    svm = LinearSVC(class_weight="balanced", max_iter=10000, tol=1e-6, C=0.01)
    svm.fit(x, y)
    return svm.decision_function(x)


_TFIDF: dict[int, object] = {}


def baseline_tfidf(texts: list[str]):  # noqa: ANN201 - a scipy sparse matrix
    """TF-IDF with arxiv-sanity-lite's compute.py settings (fitted once)."""
    if id(texts) not in _TFIDF:
        from sklearn.feature_extraction.text import TfidfVectorizer

        v = TfidfVectorizer(
            input="content",
            encoding="utf-8",
            decode_error="replace",
            strip_accents="unicode",
            lowercase=True,
            analyzer="word",
            stop_words="english",
            token_pattern=r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b",
            ngram_range=(1, 2),
            max_features=20000,
            norm="l2",
            use_idf=True,
            smooth_idf=True,
            sublinear_tf=True,
            max_df=0.1,
            min_df=5,
        )
        _TFIDF[id(texts)] = v.fit_transform(texts)
    return _TFIDF[id(texts)]


def precision(ranked: list[str], relevant: set[str]) -> float:
    return sum(p in relevant for p in ranked[:AT]) / AT


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embedder", default="minilm", help="Embedder name (default minilm).")
    parser.add_argument("--seeds", type=int, default=SEEDS, help=f"How many seeds (default {SEEDS}).")
    parser.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="First seed (default 0, the bench's own; choose settings on others, e.g. 100).",
    )
    parser.add_argument(
        "--db",
        type=Path,
        help="Library to build once and reuse across runs (default: a new one in a temporary folder).",
    )
    args = parser.parse_args()
    if args.embedder == "minilm" and not embedder_is_ready("minilm"):
        sys.exit("the minilm embedder is not prepared here; run with --embedder fake (figures then differ)")
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "iclr.db"
        reuse = db.exists()
        lib = Library(db, embedder=args.embedder)
        start = time.perf_counter()
        if not reuse:
            lib.ingest(sorted(ICLR_DIR.glob("*.csv")))
        ingested = time.perf_counter() - start
        lib.embed()  # skips the papers already embedded with this model
        if marks.marked_in_order(lib.store.conn, "triaged") or marks.marked_ids(lib.store.conn, starred=True):
            sys.exit(f"{db}: papers there are starred or triaged (an interrupted run?); use a fresh --db")
        print(
            f"library: {len(lib):,} papers, ingest {ingested:.0f} s, embed {time.perf_counter() - start - ingested:.0f} s"
            f" ({args.embedder})"
        )
        rows = lib.store.conn.execute(
            "SELECT paper_id, title, clean_text, abstract, source_area FROM papers"
        ).fetchall()
        area_of = {r[0]: r[4] for r in rows}
        t0 = time.perf_counter()
        paper_ids, features = lib._recommend_features()
        print(
            f"features (TF-IDF fit + stack, once per library): {time.perf_counter() - t0:.2f} s", flush=True
        )
        text_of = {r[0]: f"{r[1]}. {r[2]}" for r in rows}
        texts = [text_of[p] for p in paper_ids]
        row_of = {p: i for i, p in enumerate(paper_ids)}
        areas = sorted({a for a in area_of.values() if a})
        ours: list[float] = []
        base: list[float] = []
        like: list[float] = []
        refits: list[float] = []
        table: list[tuple[str, float, float, float]] = []
        for area in areas:
            a_ours, a_base, a_like = [], [], []
            members = [p for p in paper_ids if area_of[p] == area]
            others = [p for p in paper_ids if area_of[p] != area]
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                rng = random.Random(f"{area}/{seed}")
                kept = rng.sample(members, KEEP)
                rejected = rng.sample(others, REJECT)
                relevant = set(members) - set(kept)
                for p in kept:
                    lib.set_triage(p, "keep")
                for p in rejected:
                    lib.set_triage(p, "reject")
                hits = lib.recommend(limit=AT)
                a_ours.append(precision([h.paper_id for h in hits], relevant))
                t0 = time.perf_counter()
                rank_with_feedback(features, [row_of[p] for p in kept], [row_of[p] for p in rejected], AT)
                refits.append(time.perf_counter() - t0)
                for p in kept + rejected:
                    lib.set_triage(p, None)
                scores = baseline_scores(texts, [row_of[p] for p in kept])
                scores[[row_of[p] for p in kept + rejected]] = -np.inf
                a_base.append(precision([paper_ids[i] for i in np.argsort(-scores)[:AT]], relevant))
                mine = rng.sample(members, MINE)
                path = Path(tmp) / "mine.json"
                by_id = {r[0]: r for r in rows}
                path.write_text(
                    json.dumps([{"title": by_id[p][1], "abstract": by_id[p][3]} for p in mine]),
                    encoding="utf-8",
                )
                before = len(lib)
                similar = [
                    h.paper_id for h in lib.recommend_like(path, limit=AT + MINE) if h.paper_id not in mine
                ]
                assert len(lib) == before, "recommend_like added papers"
                a_like.append(precision(similar, set(members) - set(mine)))
            table.append((area, statistics.mean(a_ours), statistics.mean(a_base), statistics.mean(a_like)))
            ours += a_ours
            base += a_base
            like += a_like
        print(f"\n{'primary area':<60} {'paperscope':>10} {'baseline':>9} {'like(5)':>8}")
        for area, o, b, lk in table:
            print(f"{area[:60]:<60} {o:>10.3f} {b:>9.3f} {lk:>8.3f}")
        mo, mb, ml = statistics.mean(ours), statistics.mean(base), statistics.mean(like)
        print(f"{'mean over areas and ' + str(args.seeds) + ' seeds':<60} {mo:>10.3f} {mb:>9.3f} {ml:>8.3f}")
        print(
            f"\ntarget paperscope >= baseline + 0.05: {mo:.3f} vs {mb + 0.05:.3f} -> {'met' if mo >= mb + 0.05 else 'NOT met'}"
        )
        print(
            f"refit (rank_with_feedback, {len(paper_ids):,} papers): median {statistics.median(refits) * 1000:.0f} ms,"
            f" max {max(refits) * 1000:.0f} ms"
        )
        lib.close()


if __name__ == "__main__":
    main()
