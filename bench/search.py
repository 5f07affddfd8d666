"""Search benchmark: embedding throughput, index build time, query latency per mode, peak RSS.

Usage: python bench/search.py [--sizes 5000,20000,100000] [--queries 1000] [--embed-sample 200]
       python bench/search.py --families     (search quality per query family, issue 24)

``--families`` prints, for every query family (titles, keyword strings, statements, Chinese
queries, whole abstracts, method sentences, the ICML dev queries), the BM25 leg, the dense leg,
the ranking before issue 24 and today's hybrid side by side on the test queries (see
``bench/_families.py``), and whether the fusion holds its best leg.

Prints, in one run:
- embedding throughput of all-MiniLM-L6-v2, the fp32 reference (``minilm-fp32``, onnxruntime)
  vs the default runtime (``minilm``: static int8 on OpenVINO) in abstracts/s, median of 3 runs
  over the same real ICLR 2026 abstracts, and the ratio;
- for each library size: build time of the lexical index (insert + FTS5), of the dense index
  (load vectors) and of the HNSW graph, then query latency p50/p99 over ``--queries`` real
  queries for bm25, dense (exact and HNSW) and hybrid, end to end through ``Library.search``
  (query embedding and hit loading included), and the peak RSS of that size's process.

Corpus: the ~20k real abstracts of ../shared/data (airas-papers-db, ICLR 2026,
papercopilot), repeated with light perturbation (one word dropped, a copy marker added) to
reach 100k. Vectors: embedding 100k abstracts takes hours on 2 busy cores, so the papers
get the real MiniLM vectors of the eval libraries (SciFact + ICLR, built by
``paperscope.evaluation.retrieval``), cycled with small Gaussian noise and re-normalised.
Latency does not depend on which unit vectors a paper has; recall figures are not measured here.
Each size runs in its own process so its peak RSS is its own.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from paperscope import Card, Library, Paper, Record, Source  # noqa: E402
from paperscope.evaluation.qrels import read_beir_queries, read_iclr_papers  # noqa: E402
from paperscope.evaluation.retrieval import default_data_dir, load_tasks  # noqa: E402
from paperscope.index.embed import get_embedder  # noqa: E402
from paperscope.ingest.pipeline import content_hash_for, record_to_paper  # noqa: E402
from paperscope.store import papers as stored_papers  # noqa: E402
from paperscope.store import vectors as stored_vectors  # noqa: E402


def real_abstracts(data: Path) -> list[tuple[str | None, str]]:
    out: list[tuple[str | None, str]] = []
    for path in sorted((data / "airas-papers-db").glob("*.json")):
        for row in json.loads(path.read_text(encoding="utf-8")):
            if row.get("abstract"):
                out.append((row.get("title"), row["abstract"]))
    for path in sorted((data / "papercopilot-paperlists").glob("*.json")):
        for row in json.loads(path.read_text(encoding="utf-8")):
            if isinstance(row, dict) and row.get("abstract"):
                out.append((row.get("title"), row["abstract"]))
    for item in read_iclr_papers(data / "iclr2026-primary-area"):
        out.append((item.title, item.abstract))
    return out


def corpus(base: list[tuple[str | None, str]], size: int) -> Iterator[tuple[str | None, str]]:
    """Yield ``size`` ``(title, abstract)`` pairs from ``base`` (streamed: the 100k are never all held)."""
    rng = random.Random(7)
    for i in range(size):
        title, abstract = base[i % len(base)]
        copy = i // len(base)
        if copy:
            words = abstract.split()
            if len(words) > 1:
                del words[rng.randrange(len(words))]
            abstract = " ".join(words) + f" (variant {copy})"
        yield title, abstract


def store_corpus(
    lib: Library,
    pairs: Iterable[tuple[str | None, str]],
    build_card: Callable[[Paper], Card] | None = None,
) -> int:
    """Store ``(title, abstract)`` pairs as papers (lexical index included); return how many.

    Papers go straight to the store: the ingest pipeline's dedup is skipped (a repeated paper_id
    is dropped). ``build_card`` (e.g. ``build_first_card``) gives each paper a card as ingest
    would; without it papers have none.
    """
    records = (
        Record(abstract=abstract, title=title, source=Source("bench", i + 1, "bench"))
        for i, (title, abstract) in enumerate(pairs)
    )
    # Papers are stored 1,000 at a time, as the ingest pipeline does, so the bench holds no
    # more of the corpus than the product would.
    seen: set[str] = set()
    batch: list[Paper] = []

    def flush() -> None:
        with lib.store.transaction() as conn:
            stored_papers.insert_papers(conn, batch, [content_hash_for(p.title, p.clean_text) for p in batch])
        batch.clear()

    for record in records:
        paper = record_to_paper(record)
        if paper is not None and paper.paper_id not in seen:
            seen.add(paper.paper_id)
            if build_card is not None:
                paper.card = build_card(paper)
            batch.append(paper)
            if len(batch) >= 1000:
                flush()
    if batch:
        flush()
    return len(seen)


def store_synthetic_vectors(lib: Library, base: np.ndarray, model_id: str) -> None:
    """Give each paper without a ``model_id`` vector a row of ``base`` plus noise, re-normalised.

    ``base`` is float32, shape (n_base, dim): real vectors, cycled in paper order; the noise is
    Gaussian (sd 0.02 per dimension, seed 3). Rows are saved 5,000 per transaction.
    """
    rng = np.random.default_rng(3)
    rows = []
    for i, (pid, _title, _text, h) in enumerate(stored_vectors.missing_vectors(lib.store.conn, model_id)):
        v = base[i % len(base)] + rng.normal(0, 0.02, base.shape[1]).astype(np.float32)
        rows.append((pid, h, (v / np.linalg.norm(v)).astype(np.float32), 1))
        if len(rows) >= 5000:
            with lib.store.transaction() as conn:
                stored_vectors.save_vectors(conn, model_id, rows)
            rows.clear()
    with lib.store.transaction() as conn:
        stored_vectors.save_vectors(conn, model_id, rows)


def bench_queries(data: Path, n: int) -> list[str]:
    iclr = read_iclr_papers(data / "iclr2026-primary-area")
    claims = list(read_beir_queries(data / "scifact-beir" / "queries.jsonl").values())
    mixed = [p.title for p in iclr[::7]] + [p.keywords.replace(",", " ") for p in iclr[3::11]] + claims[::5]
    random.Random(11).shuffle(mixed)
    return [q for q in mixed if q.strip()][:n]


def real_vectors(workdir: Path) -> np.ndarray:
    mats = []
    for lib, _ in load_tasks(["scifact", "iclr-title"], workdir=workdir):
        mats.append(lib.embeddings()[1])
        lib.close()
    return np.vstack(mats)


def peak_rss_mb() -> float:
    """Return this process's peak resident set size (MB) from /proc (VmHWM).

    ``getrusage().ru_maxrss`` is not used: Linux keeps it across exec, so a child would
    report its parent's peak.
    """
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile_ms(samples: list[float], q: float) -> float:
    return float(np.percentile(np.array(samples) * 1000, q))


def run_size(size: int, n_queries: int, workdir: Path) -> dict:
    data = default_data_dir()
    texts = corpus(real_abstracts(data), size)
    queries = bench_queries(data, n_queries)
    base = real_vectors(workdir)
    embedder = get_embedder("minilm")
    with tempfile.TemporaryDirectory() as tmp:
        lib = Library(Path(tmp) / "bench.db", embedder="minilm")
        started = time.perf_counter()
        store_corpus(lib, texts)
        lexical_s = time.perf_counter() - started
        store_synthetic_vectors(lib, base, embedder.model_id)
        started = time.perf_counter()
        index = lib.dense_index()
        dense_load_s = time.perf_counter() - started
        index.ann_threshold = 0
        started = time.perf_counter()
        index.build_ann()
        ann_build_s = time.perf_counter() - started
        lib.build_search_indexes()  # what ingest does: the BM25 statistics (and graph) on disk
        lib.search("warm up the caches", mode="hybrid")
        latency: dict[str, dict[str, float]] = {}
        plans = [("bm25", 10**9), ("dense-exact", 10**9), ("dense-hnsw", 0), ("hybrid", None)]
        for label, threshold in plans:
            from paperscope.index.dense import ANN_THRESHOLD

            index.ann_threshold = ANN_THRESHOLD if threshold is None else threshold
            mode = label.split("-")[0]
            samples = []
            for q in queries:
                t = time.perf_counter()
                lib.search(q, limit=10, mode=mode)
                samples.append(time.perf_counter() - t)
            latency[label] = {"p50_ms": percentile_ms(samples, 50), "p99_ms": percentile_ms(samples, 99)}
        n = len(lib)
        uses_ann = index.uses_ann
        lib.close()
    return {
        "papers": n,
        "lexical_index_s": lexical_s,
        "dense_load_s": dense_load_s,
        "hnsw_build_s": ann_build_s,
        "hybrid_uses_hnsw": uses_ann,
        "latency": latency,
        "peak_rss_mb": peak_rss_mb(),
    }


def throughput(sample: int) -> dict:
    data = default_data_dir()
    texts = [p.abstract for p in read_iclr_papers(data / "iclr2026-primary-area")][::13][:sample]
    fp32, int8 = get_embedder("minilm-fp32"), get_embedder("minilm")
    int8.embed(texts[:8])
    fp32.embed(texts[:8])
    runs: dict[str, list[float]] = {"fp32": [], "int8": []}
    for _ in range(3):
        for name, embedder in (("fp32", fp32), ("int8", int8)):
            started = time.perf_counter()
            embedder.embed(texts)
            runs[name].append(len(texts) / (time.perf_counter() - started))
    median = {k: float(np.median(v)) for k, v in runs.items()}
    return {
        "abstracts": len(texts),
        "runs": runs,
        "median": median,
        "ratio": median["int8"] / median["fp32"],
        "model_ids": {"fp32": fp32.model_id, "int8": int8.model_id},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,20000,100000", help="comma list; empty: throughput only")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--embed-sample", type=int, default=200)
    parser.add_argument(
        "--workdir", type=Path, default=None, help="eval libraries (default $PAPERSCOPE_HOME/eval)"
    )
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--families", action="store_true", help="search quality per query family only")
    args = parser.parse_args()
    if args.families:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from _families import print_family_table

        print_family_table()
        return
    from paperscope.config import home_dir

    workdir = args.workdir or home_dir() / "eval"
    if args.child is not None:
        print(json.dumps(run_size(args.child, args.queries, workdir)))
        return
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    if not args.skip_throughput:
        tp = throughput(args.embed_sample)
        print(f"\nembedding throughput, {tp['abstracts']} ICLR 2026 abstracts, median of 3 (abstracts/s):")
        for name in ("fp32", "int8"):
            runs = ", ".join(f"{r:.1f}" for r in tp["runs"][name])
            print(f"  {name}: {tp['median'][name]:.1f}  (runs: {runs})  {tp['model_ids'][name]}")
        print(f"  int8 / fp32 = {tp['ratio']:.2f}x   (load average now {os.getloadavg()[0]:.1f})")
    for size in (int(s) for s in args.sizes.split(",") if s.strip()):
        cmd = [
            sys.executable,
            __file__,
            "--child",
            str(size),
            "--queries",
            str(args.queries),
            "--workdir",
            str(workdir),
        ]
        child = subprocess.run(cmd, capture_output=True, text=True)
        if child.returncode != 0:
            print(f"\n{size:,} papers: benchmark process failed:\n{child.stderr[-3000:]}")
            continue
        result = json.loads(child.stdout.strip().splitlines()[-1])
        print(f"\n{result['papers']:,} papers")
        print(
            f"  build: lexical index (insert + FTS5) {result['lexical_index_s']:.1f} s,"
            f" dense load {result['dense_load_s']:.2f} s, HNSW graph {result['hnsw_build_s']:.1f} s"
        )
        print(f"  query latency over {args.queries} queries (ms), limit 10, end to end:")
        for label, values in result["latency"].items():
            note = " (HNSW)" if label == "hybrid" and result["hybrid_uses_hnsw"] else ""
            print(f"    {label:<12} p50 {values['p50_ms']:7.1f}   p99 {values['p99_ms']:7.1f}{note}")
        print(f"  peak RSS {result['peak_rss_mb']:.0f} MB")


if __name__ == "__main__":
    main()
