"""Search at a million papers (issue 16 item 5): build a synthetic library, measure hybrid search.

Usage:
    python bench/scale.py --make-arxiv N OUT.jsonl      # N synthetic arXiv-snapshot records
    python bench/scale.py [--papers 1000000] [--dir /tmp/scale/lib-1m] [--queries 300]

``--make-arxiv`` writes records in the arXiv metadata snapshot format (the fields
``paperscope.ingest.arxiv_jsonl`` reads) with unique ids, titles and abstracts recombined from
the real abstracts of ../shared/data (see ``bench/_synthetic.py``), for ``paperscope build``.

The measurement makes a library of ``--papers`` such records (see ``main`` for what it prints).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))

from _synthetic import write_arxiv_jsonl  # noqa: E402


def make_arxiv(n: int, out: Path) -> None:
    """Write ``n`` synthetic snapshot records to ``out`` and print the rate."""
    started = time.perf_counter()
    count = write_arxiv_jsonl(n, out)
    seconds = time.perf_counter() - started
    size_mb = out.stat().st_size / 1e6
    print(f"wrote {count:,} synthetic arXiv-snapshot records to {out} ({size_mb:.0f} MB)")
    print(f"  {seconds:.1f} s, {count / max(seconds, 1e-9):,.0f} records/s")
    print("  abstracts recombined from the real abstracts of ../shared/data (bench/_synthetic.py)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--make-arxiv", nargs=2, metavar=("N", "OUT"), help="write N synthetic arXiv-snapshot records to OUT"
    )
    args = parser.parse_args()
    if args.make_arxiv:
        make_arxiv(int(args.make_arxiv[0]), Path(args.make_arxiv[1]))
        return
    parser.error("the search measurement is not written yet; use --make-arxiv N OUT")


if __name__ == "__main__":
    main()
