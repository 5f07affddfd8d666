"""What a copied library pays for its own cache identity (issue 26): open and first dense search.

A copy gets a new ``library_id`` when it is first opened (one small write, under a millisecond),
so it reads none of its original's caches: its first dense search reads the vectors from the
file and writes the vector cache, where the original's reads the memory-mapped cache. Nothing
is embedded again. A copy's open also runs SQLite's quick check, as for any file paperscope has
not checked before (:mod:`paperscope.store.health`): most of its open time at larger sizes.

Usage: python bench/copy_identity.py [--sizes 95,20000] [--repeats 5] [--workdir DIR]

Size 95 is the five ICML 2026 example lists ingested with the fake embedder; larger sizes are
the real abstracts of ``../shared/data`` (cycled, as ``bench/search.py`` does) with fake vectors.
For each size it prints the median over ``--repeats`` fresh ``Library`` objects of the open
(milliseconds) and the first dense search (milliseconds), for the original reopened and for a
fresh ``shutil.copy`` of it, and the ratio copy / original.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))

from paperscope import Library  # noqa: E402
from paperscope.config import EXAMPLES_DIR  # noqa: E402
from paperscope.index.search import clear_query_vectors  # noqa: E402

QUERY = "dataset distillation with synthetic data"


def build(size: int, db: Path) -> None:
    """Write a library of ``size`` papers with fake vectors at ``db``."""
    with Library(db, embedder="fake") as lib:
        if size == 95:
            lib.ingest([EXAMPLES_DIR])
            return
        from paperscope.evaluation.retrieval import default_data_dir
        from search import corpus, real_abstracts, store_corpus

        store_corpus(lib, corpus(real_abstracts(default_data_dir()), size))
        lib.embed()


def timed_open_and_search(db: Path) -> tuple[float, float, str]:
    """Return (open ms, first dense search ms, library_id) of a fresh Library on ``db``."""
    clear_query_vectors()
    started = time.perf_counter()
    lib = Library(db, embedder="fake")
    opened = time.perf_counter()
    lib.search(QUERY, mode="dense", limit=10)
    searched = time.perf_counter()
    library_id = lib.store.library_id
    lib.close()
    return (opened - started) * 1e3, (searched - opened) * 1e3, library_id


def measure(size: int, repeats: int, workdir: Path) -> None:
    base = workdir / f"base-{size}.db"
    if not base.exists():
        build(size, base)
    timed_open_and_search(base)  # the original's caches are written once, as after any search
    rows: dict[str, list[tuple[float, float]]] = {"original": [], "copy": []}
    ids = set()
    for n in range(repeats):
        open_ms, search_ms, library_id = timed_open_and_search(base)
        rows["original"].append((open_ms, search_ms))
        copy = workdir / f"copy-{size}-{n}.db"
        shutil.copy(base, copy)
        open_ms, search_ms, copy_id = timed_open_and_search(copy)
        rows["copy"].append((open_ms, search_ms))
        ids.add(copy_id)
        if copy_id == library_id:
            raise SystemExit(f"copy {copy} kept its original's library_id {library_id}")
        copy.unlink()
    medians = {
        k: (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v)) for k, v in rows.items()
    }
    (o_open, o_search), (c_open, c_search) = medians["original"], medians["copy"]
    print(
        f"{size:>7,} papers  open: original {o_open:6.1f} ms, copy {c_open:6.1f} ms ({c_open / o_open:.1f}x)"
        f"  first dense search: original {o_search:6.1f} ms, copy {c_search:6.1f} ms ({c_search / o_search:.1f}x)"
        f"  ({repeats} copies, {len(ids)} distinct ids)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="95", help="comma-separated paper counts (95: the example lists)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="paperscope-copy-identity-"))
    workdir.mkdir(parents=True, exist_ok=True)
    for size in (int(s) for s in args.sizes.split(",")):
        measure(size, args.repeats, workdir)


if __name__ == "__main__":
    main()
