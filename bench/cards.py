"""Benchmark card building: papers/s over the ~22k abstracts of ../shared/data.

Usage: PYTHONPATH=src python bench/cards.py [--workers N] [--limit N]
Reads the ICML 2026 lists, the ICLR 2026 CSVs, airas-papers-db and papercopilot lists, cleans
each abstract once (as ingest does; timed apart), then times ``build_card`` over all papers,
in one process or in N worker processes (chunks of 500). Prints papers/s and the elapsed seconds.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from paperscope.extract import build_card
from paperscope.models import Paper
from paperscope.text import clean_text

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def load_records() -> list[tuple[str, str, list[str], str | None]]:
    """Return (abstract, title, keywords, source_area) for every abstract in ../shared/data."""
    out: list[tuple[str, str, list[str], str | None]] = []
    for path in sorted((SHARED / "icml2026").glob("*.txt")):
        body = path.read_text(encoding="utf-8").split("\n\n")
        out += [(a.strip(), "", [], None) for a in body[1:] if a.strip()]
    for path in sorted((SHARED / "iclr2026-primary-area").glob("*.csv")):
        with path.open(encoding="utf-8-sig", newline="") as fh:
            out += [(r["abstract"], r["title"], r["keywords"].split(","), None) for r in csv.DictReader(fh)]
    for path in sorted((SHARED / "airas-papers-db").glob("*.json")):
        out += [
            (d["abstract"], d["title"] or "", [], None)
            for d in json.loads(path.read_text())
            if d.get("abstract")
        ]
    for path in sorted((SHARED / "papercopilot-paperlists").glob("*.json")):
        for d in json.loads(path.read_text()):
            if d.get("abstract"):
                kw = [k.strip() for k in (d.get("keywords") or "").split(";") if k.strip()]
                out.append((d["abstract"], d.get("title") or "", kw, d.get("primary_area") or None))
    return out


def _cards(papers: list[Paper]) -> tuple[int, float]:
    """Build the cards of a chunk; return (cards built, CPU seconds this process spent)."""
    started = time.process_time()
    built = sum(1 for p in papers if build_card(p) is not None)
    return built, time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args()
    records = load_records()
    if args.limit:
        records = records[: args.limit]
    started = time.perf_counter()
    papers = [
        Paper(
            paper_id=str(i),
            abstract=a,
            clean_text=clean_text(a),
            title=clean_text(t) if t else None,
            keywords=k,
            source_area=s,
        )
        for i, (a, t, k, s) in enumerate(records)
    ]
    clean_s = time.perf_counter() - started
    started = time.perf_counter()
    if args.workers <= 1:
        results = [_cards(papers)]
    else:
        chunks = [papers[i : i + 500] for i in range(0, len(papers), 500)]
        with ProcessPoolExecutor(args.workers) as pool:
            results = list(pool.map(_cards, chunks))
    elapsed = time.perf_counter() - started
    built = sum(r[0] for r in results)
    cpu_s = sum(r[1] for r in results)
    print(f"clean_text: {len(papers)} papers in {clean_s:.1f} s (ingest's share, not cards)")
    print(
        f"cards: {built} papers in {elapsed:.1f} s wall = {built / elapsed:.0f} papers/s "
        f"({args.workers} worker{'s' if args.workers > 1 else ''}, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f})"
    )
    print(
        f"CPU: {cpu_s:.1f} s = {1000 * cpu_s / built:.2f} ms/paper; on {args.workers} idle core(s) that is "
        f"{built * args.workers / cpu_s:.0f} papers/s"
    )


if __name__ == "__main__":
    main()
