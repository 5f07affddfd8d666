"""The scaling model of ``paperscope build`` / ``load`` (issue 16 item 6): stage rates and a projection.

Usage: PYTHONPATH=src python bench/build_stages.py [--records 4000] [--ray]
       PYTHONPATH=src python bench/build_stages.py --load 100000 [--dir DIR]   # issue 28 item 3
(``bench/scale.py --stages N`` runs the same measurement before its search figures.)

Writes ``--records`` synthetic arXiv-snapshot records (``bench/_synthetic.py``, real abstracts
recombined), builds them with the local engine on 1 and then 2 worker processes (``--ray``: also
on a local Ray cluster of 2 CPUs), each into a fresh shard folder, with the real int8 MiniLM, and
loads the 1-worker shards into a new library. Prints, per stage (normalise, cards, embed, write):

* **papers/s per core**: papers / busy seconds summed over the workers (``BuildReport.seconds``),
  i.e. what one core does when it is not shared;
* **wall papers/s** of each run and the 2-worker speedup;
* the load (merge) rate: papers/s of ``load_shards`` (dedup, store, FTS5, vectors, indexes), which
  runs on one machine, one process.

Then projects the wall time of 3M abstracts on 1, 4 and 16 machines of 2, 8 and 32 cores:
``build = N * sum(1 / rate per core) / (machines * cores * efficiency)`` where *efficiency* is the
measured 2-worker speedup / 2, plus ``load = N / load rate`` (not parallel: one SQLite writer) and the
index build measured by ``bench/scale.py`` at 540k papers (``INDEX_S_PER_PAPER``). The model assumes
per-core rates hold on bigger machines (no shared-memory bottleneck in cards or embedding, which are
independent per chunk) and that input files are split so every core has chunks (1,000 records each).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _synthetic import write_arxiv_jsonl  # noqa: E402
from paperscope.index.embed import embedder_model_id  # noqa: E402
from paperscope.library import Library  # noqa: E402
from paperscope.scale.build import run_build  # noqa: E402
from paperscope.scale.load import load_shards  # noqa: E402
from paperscope.scale.stages import embedder_name  # noqa: E402

#: Stages in pipeline order, as ``BuildReport.seconds`` names them.
STAGES = ("normalise", "cards", "embed", "write")
#: Index build seconds per paper after a load: BM25 postings + vector cache + HNSW graph, measured
#: by ``bench/scale.py`` at 540,000 papers (412 + 298 + 257 s at load average ~10 on 2 cores,
#: 2026-12-01): 1.79 ms per paper. One machine; linear in papers at that scale.
INDEX_S_PER_PAPER = (412 + 298 + 257) / 540_000
#: Papers of the projection (arXiv's ML and CS categories, issue 16).
PROJECT_PAPERS = 3_000_000
MACHINES = (1, 4, 16)
CORES = (2, 8, 32)


def _build(source: Path, folder: Path, engine: str, workers: int) -> dict:
    shutil.rmtree(folder, ignore_errors=True)
    report = run_build([str(source)], folder, engine=engine, workers=workers)
    return {
        "engine": engine,
        "workers": workers,
        "papers": report.papers,
        "wall_s": report.elapsed_s,
        "busy_s": {s: report.seconds.get(s, 0.0) for s in STAGES},
    }


def measure(records: int, ray: bool = False) -> dict:
    """Build ``records`` synthetic records on 1 and 2 local workers (and Ray), load once; return figures.

    Returns a dict: ``runs`` (one per build: engine, workers, papers, wall_s, busy_s per stage),
    ``load`` (papers, seconds) and ``load_average`` (1-minute, at start and end).
    """
    started_load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="ps-stages-") as tmp:
        base = Path(tmp)
        source = base / "arxiv.jsonl"
        write_arxiv_jsonl(records, source)
        runs = [_build(source, base / f"w{w}", "local", w) for w in (1, 2)]
        if ray:
            runs.append(_build(source, base / "ray", "ray", 2))
        with Library(base / "lib.db") as lib:
            started = time.perf_counter()
            report = load_shards(lib, base / "w1")
            load_s = time.perf_counter() - started
            loaded = sum(f.new for f in report.files)
    return {
        "embedder": embedder_model_id(embedder_name()),
        "runs": runs,
        "load": {"papers": loaded, "seconds": load_s},
        "load_average": (started_load, os.getloadavg()[0]),
    }


def per_core_rates(run: dict) -> dict[str, float]:
    """Papers per busy core-second of each stage of one build run."""
    return {s: run["papers"] / t for s, t in run["busy_s"].items() if t > 0}


def projection(result: dict, papers: int = PROJECT_PAPERS) -> list[tuple[int, int, float, float, float]]:
    """Return ``(machines, cores, build_s, load_s, total_s)`` for ``papers`` from measured rates."""
    one, two = result["runs"][0], result["runs"][1]
    cost_s = sum(1.0 / r for r in per_core_rates(one).values())  # core-seconds per paper
    speedup = one["wall_s"] / two["wall_s"] if two["wall_s"] > 0 else 1.0
    efficiency = min(1.0, max(0.1, speedup / 2))
    load_rate = result["load"]["papers"] / max(result["load"]["seconds"], 1e-9)
    load_s = papers / load_rate + papers * INDEX_S_PER_PAPER
    rows = []
    for machines in MACHINES:
        for cores in CORES:
            build_s = papers * cost_s / (machines * cores * efficiency)
            rows.append((machines, cores, build_s, load_s, build_s + load_s))
    return rows


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min"


def report(result: dict) -> str:
    """Format :func:`measure`'s figures and the projection as text."""
    lines = [
        f"build stages on {result['runs'][0]['papers']:,} synthetic arXiv records, embedder {result['embedder']}"
        f" (load average {result['load_average'][0]:.1f} at start, {result['load_average'][1]:.1f} at end)"
    ]
    header = (
        "  run            wall papers/s  " + "  ".join(f"{s:>9}" for s in STAGES) + "   (papers/s per core)"
    )
    lines.append(header)
    for run in result["runs"]:
        rates = per_core_rates(run)
        name = f"{run['engine']} x{run['workers']}"
        lines.append(
            f"  {name:<14} {run['papers'] / run['wall_s']:>13,.1f}  "
            + "  ".join(f"{rates.get(s, 0):>9,.1f}" for s in STAGES)
        )
    one, two = result["runs"][0], result["runs"][1]
    lines.append(f"  2 local workers vs 1: {one['wall_s'] / two['wall_s']:.2f}x wall speedup")
    load = result["load"]
    lines.append(
        f"  load (merge into one library, indexes included): {load['papers']:,} papers in"
        f" {load['seconds']:.1f} s ({load['papers'] / max(load['seconds'], 1e-9):,.0f} papers/s, one process)"
    )
    lines.append(
        f"projection for {PROJECT_PAPERS:,} abstracts (build on the cluster; load + indexes"
        f" {INDEX_S_PER_PAPER * 1000:.2f} ms/paper on one machine):"
    )
    lines.append("  machines x cores    build     load+index   total")
    for machines, cores, build_s, load_s, total_s in projection(result):
        lines.append(
            f"  {machines:>3} x {cores:<3}        {_hours(build_s):>8}   {_hours(load_s):>8}    {_hours(total_s):>8}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=4000)
    parser.add_argument("--ray", action="store_true", help="also build on a local Ray cluster of 2 CPUs")
    parser.add_argument(
        "--load",
        type=int,
        default=0,
        metavar="N",
        help="only the single-writer figures of issue 28 item 3: build N records, time load and the index build",
    )
    parser.add_argument(
        "--dir", type=Path, help="with --load: keep the records and shards here, reused next time"
    )
    args = parser.parse_args()
    if args.load:
        print(load_report(measure_load(args.load, args.dir)))
        return
    print(report(measure(args.records, ray=args.ray)))


#: Issue 28 item 3's targets at 100k records on this machine: load (the merge into one library,
#: before the index build) at 5,000 papers/s or more; the index build 3x faster than the 48 s it
#: took (BM25 statistics, vector cache, HNSW graph).
TARGET_LOAD_RATE, INDEX_BEFORE_S = 5_000.0, 48.0


def measure_load(records: int, folder: Path | None = None) -> dict:
    """Build ``records`` synthetic records (2 local workers), load them into a new library; return figures.

    The shards are built with the fake embedder (``PAPERSCOPE_EMBEDDER=fake``: 384-d vectors of
    hashed words, no model) unless ``$PAPERSCOPE_EMBEDDER`` names another: the load and the
    index build store and index vectors the same way whatever made them, and embedding 100k
    abstracts takes about half an hour on these two cores. Returns ``records``, ``build_s``
    (0 when reused), the load report's ``load_s`` (papers, cards, vectors, lexical index rows)
    and ``index_s`` (areas refined, BM25 statistics, vector cache, HNSW graph), ``papers``, the
    library's size in bytes and the load average before and after.
    """
    os.environ.setdefault("PAPERSCOPE_EMBEDDER", "fake")
    started_load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="ps-load-") as tmp:
        base = folder or Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        source, shards = base / f"arxiv-{records}.jsonl", base / f"shards-{records}"
        build_s = 0.0
        if not (shards / "manifest.json").is_file():
            write_arxiv_jsonl(records, source)
            began = time.perf_counter()
            run_build([str(source)], shards, engine="local", workers=2)
            build_s = time.perf_counter() - began
        db = Path(tmp) / "lib.db"
        with Library(db) as lib:
            loaded = load_shards(lib, shards)
        size = sum(p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file())
    return {
        "records": records,
        "embedder": embedder_model_id(embedder_name()),
        "build_s": build_s,
        "papers": loaded.new,
        "load_s": loaded.phases["load"]["elapsed_s"],
        "index_s": loaded.phases["embed"]["elapsed_s"],
        "bytes": size,
        "load_average": (started_load, os.getloadavg()[0]),
    }


def load_report(result: dict) -> str:
    """Format :func:`measure_load`'s figures against issue 28's targets."""
    rate = result["papers"] / max(result["load_s"], 1e-9)
    speedup = INDEX_BEFORE_S / max(result["index_s"], 1e-9)
    built = f"built in {result['build_s']:.0f} s" if result["build_s"] else "shards reused"
    return "\n".join(
        [
            f"load of {result['papers']:,} papers from {result['records']:,} synthetic arXiv records"
            f" ({built}, embedder {result['embedder']}; load average {result['load_average'][0]:.2f}"
            f" at start, {result['load_average'][1]:.2f} at end)",
            f"  load (papers, cards, vectors, lexical rows): {result['load_s']:.1f} s = {rate:,.0f} papers/s"
            f"  (target >= {TARGET_LOAD_RATE:,.0f}: {rate / TARGET_LOAD_RATE:.2f}x of it)",
            f"  index build (areas, BM25, vector cache, HNSW): {result['index_s']:.1f} s"
            f"  ({speedup:.2f}x faster than {INDEX_BEFORE_S:.0f} s; target 3x)",
            f"  library on disk: {result['bytes'] / 2**20:,.0f} MiB",
        ]
    )


if __name__ == "__main__":
    main()
