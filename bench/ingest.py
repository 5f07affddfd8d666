"""Ingest speed and memory: records/s and peak RSS per format, for ../shared/data, and for a 1 GB arXiv JSONL.

Each measurement runs in a fresh child process (so its peak RSS is its own) that ingests into
a fresh library and prints wall time, CPU time, records read, papers stored and peak RSS.

    PYTHONPATH=src python bench/ingest.py                 # everything, 1 GB arXiv file included
    PYTHONPATH=src python bench/ingest.py --arxiv-gb 0.1  # a smaller arXiv file
    PYTHONPATH=src python bench/ingest.py --only formats  # one part: formats, folder, airas, arxiv
    python bench/ingest.py --only first-run --baseline b05a71a  # demo and ICLR from a fresh cache

Targets (issues 2 and 3): the airas text list (~15k abstracts) at ≥ 2,000 papers/s; the whole
../shared/data folder in < 30 s; the 1 GB arXiv JSONL with peak RSS < 500 MB. This machine is
shared: wall time swings with other jobs, so CPU time (user + sys, worker process included)
is printed beside it. Files of 1 MiB or more are cleaned in a worker process; "no worker" runs
the same file in one process.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
AIRAS = SHARED / "airas-papers-db"


def _cpu_s() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _child(paths: list[str], db: str, fmt: str | None, inline: bool) -> None:
    from paperscope import Library
    from paperscope.ingest import pipeline

    if inline:
        pipeline._POOL_MIN_BYTES = 2**62
    started = time.perf_counter()
    cpu = _cpu_s()
    with Library(db) as lib:
        # Ingest proper (store + first card: label, method names, URLs); full cards are timed apart.
        report = lib.ingest(paths, fmt=fmt, cards=False)
        papers = len(lib)
        wall_s, cpu_s = time.perf_counter() - started, _cpu_s() - cpu
        cards_started = time.perf_counter()
        cards = lib.build_cards()
        cards_s = time.perf_counter() - cards_started
    print(
        json.dumps(
            {
                "wall_s": wall_s,
                "cpu_s": cpu_s,
                "cards": cards,
                "cards_s": cards_s,
                "read": report.read,
                "new": report.new,
                "papers": papers,
                "failed": len(report.failed),
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


def _measure(label: str, paths: list[Path], fmt: str | None = None, inline: bool = False) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "bench.db")
        flags = [*(["--format", fmt] if fmt else []), *(["--inline"] if inline else [])]
        cmd = [sys.executable, __file__, *flags, "--child", db, *map(str, paths)]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=os.environ).stdout
    result = json.loads(out.strip().splitlines()[-1])
    rate = result["read"] / result["wall_s"]
    print(
        f"{label:<34} {result['read']:>8} records {result['new']:>8} papers {result['wall_s']:8.2f} s wall "
        f"{result['cpu_s']:8.2f} s cpu {rate:9.0f} records/s {result['new'] / result['wall_s']:9.0f} papers/s "
        f"peak RSS {result['peak_rss_mb']:6.0f} MB; then full cards {result['cards']} in {result['cards_s']:.1f} s "
        f"({result['cards'] / max(result['cards_s'], 1e-9):.0f} cards/s)",
        flush=True,
    )
    return result


def _airas_records() -> list[dict]:
    records = []
    for path in sorted(AIRAS.glob("*.json")):
        records.extend(json.loads(path.read_text(encoding="utf-8")))
    return records


def _write_formats(records: list[dict], folder: Path) -> dict[str, Path]:
    """Write the same records as a text list, JSON array, JSON lines, arXiv JSONL, CSV and BibTeX."""
    paths = {
        name: folder / f"sample.{ext}"
        for name, ext in [
            ("text-list", "txt"),
            ("json", "json"),
            ("jsonl", "jsonl"),
            ("arxiv-jsonl", "arxiv.jsonl"),
            ("csv", "csv"),
            ("bibtex", "bib"),
        ]
    }
    with paths["text-list"].open("w", encoding="utf-8") as out:
        out.write("ICML 2022 Papers\n\n")
        for r in records:
            out.write(" ".join(r["abstract"].split()) + "\n\n")
    paths["json"].write_text(json.dumps(records), encoding="utf-8")
    with paths["jsonl"].open("w", encoding="utf-8") as out:
        for r in records:
            out.write(json.dumps(r) + "\n")
    with paths["arxiv-jsonl"].open("w", encoding="utf-8") as out:
        for i, r in enumerate(records):
            out.write(json.dumps(_arxiv_record(i, r["title"], r["abstract"], r["authors"])) + "\n")
    with paths["csv"].open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["title", "abstract", "authors", "venue"])
        for r in records:
            writer.writerow(
                [r["title"], r["abstract"], "; ".join(r["authors"]), f"{r['conference']} {r['year']}"]
            )
    with paths["bibtex"].open("w", encoding="utf-8") as out:
        for i, r in enumerate(records):
            abstract = r["abstract"].replace("{", "(").replace("}", ")")
            title = r["title"].replace("{", "(").replace("}", ")")
            out.write(
                f"@inproceedings{{key{i},\n  title = {{{title}}},\n  author = {{{' and '.join(r['authors'])}}},\n"
                f"  booktitle = {{{r['conference'].upper()} {r['year']}}},\n  abstract = {{{abstract}}}\n}}\n\n"
            )
    return paths


def _arxiv_record(i: int, title: str, abstract: str, authors: list[str]) -> dict:
    yymm = f"{7 + i // 900_000 % 17:02d}{1 + i // 75_000 % 12:02d}"
    return {
        "id": f"{yymm}.{i % 75_000:05d}",
        "submitter": authors[0] if authors else "",
        "authors": ", ".join(authors),
        "title": title,
        "comments": "12 pages",
        "journal-ref": None,
        "doi": None,
        "report-no": None,
        "categories": "cs.LG stat.ML",
        "license": None,
        "abstract": "  " + abstract,
        "versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"}],
        "update_date": "2008-11-13",
        "authors_parsed": [[a.split()[-1], " ".join(a.split()[:-1]), ""] for a in authors if a.split()],
    }


def _write_arxiv(path: Path, size_bytes: int, records: list[dict], seed: int = 7) -> int:
    """Write distinct arXiv-style papers until ``size_bytes``: each abstract mixes 5 real sentences and a random one."""
    rng = random.Random(seed)
    sentences = [s.strip() + "." for r in records for s in r["abstract"].split(". ") if len(s.split()) > 5]
    vocabulary = sorted({w for s in sentences[:20000] for w in s.split() if w.isalpha()})
    written = count = 0
    with path.open("w", encoding="utf-8") as out:
        while written < size_bytes:
            source = records[count % len(records)]
            salt = " ".join(rng.choices(vocabulary, k=12)).capitalize() + "."
            abstract = " ".join(rng.sample(sentences, 5) + [salt])
            line = (
                json.dumps(_arxiv_record(count, f"{source['title']} {count}", abstract, source["authors"]))
                + "\n"
            )
            out.write(line)
            written += len(line.encode("utf-8"))
            count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--format", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--inline", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--arxiv-gb", type=float, default=1.0, help="Size of the generated arXiv JSONL (GB).")
    parser.add_argument("--sample", type=int, default=5000, help="Records per format in the per-format runs.")
    parser.add_argument("--only", choices=["formats", "folder", "airas", "arxiv", "first-run"], default=None)
    parser.add_argument(
        "--baseline",
        default=None,
        metavar="REV",
        help="first-run: also time this git revision (b05a71a: before issue 25).",
    )
    args = parser.parse_args()
    if args.child:
        _child(args.child[1:], args.child[0], args.format, args.inline)
        return
    if args.only in (None, "first-run"):
        from _first_run import compare

        compare(args.baseline)
        if args.only:
            return
    records = _airas_records()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.only in (None, "formats"):
            print(f"== per format: the same {args.sample} airas records, each format in a fresh library")
            sample = random.Random(1).sample(records, args.sample)
            for fmt, path in _write_formats(sample, folder).items():
                _measure(fmt, [path])
        if args.only in (None, "folder"):
            print(f"== whole folder {SHARED} (target < 30 s)")
            _measure("shared/data folder", [SHARED])
        if args.only in (None, "airas"):
            print("== text list of all airas abstracts into a fresh library (target >= 2,000 papers/s)")
            text = folder / "airas.txt"
            with text.open("w", encoding="utf-8") as out:
                out.write("ICML 2026 Papers\n\n")
                for r in records:
                    out.write(" ".join(r["abstract"].split()) + "\n\n")
            _measure("airas text list", [text])
            _measure("airas text list, no worker", [text], inline=True)
        if args.only in (None, "arxiv"):
            path = folder / "arxiv-metadata.jsonl"
            count = _write_arxiv(path, int(args.arxiv_gb * 1e9), records)
            size_mb = path.stat().st_size / 1e6
            print(f"== arXiv-style JSONL, {size_mb:.0f} MB, {count} papers (target peak RSS < 500 MB)")
            _measure("arxiv-jsonl", [path])


if __name__ == "__main__":
    main()
