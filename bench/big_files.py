"""Bounded reading: each shape of a large input file is read or refused in linear time and bounded memory.

Issue 13 (Deliver 6): a 200 MB file of any shape is read or refused within a minute and under
1 GB RSS. This writes each shape into a temporary folder and, in a fresh process per shape (so
each peak RSS is its own), ingests it into an empty library (``Library.ingest`` without full
cards and embeddings: the read phase and storing) and prints seconds, peak RSS and what the
report says (new papers, skipped records and the first skip's reason).

Shapes: a JSON array holding one huge abstract; a one-line text file; a CSV with one huge cell
between two normal rows; a BibTeX file with one huge field between two normal entries; a
normal JSON Lines file of distinct ~2 KB records (``--read-only`` reads it without storing).

Run: ``.venv/bin/python bench/big_files.py [--mb 200] [--shapes json,text,...] [--read-only]``.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHAPES = ("json-one-record", "text-one-line", "csv-huge-cell", "bibtex-huge-field", "jsonl-normal")
_WORDS = (
    "we propose a novel method for learning sparse representations with attention convolution graph "
    "networks transformers diffusion models benchmark accuracy robust efficient training data"
).split()


def _prose(chars: int, rng: random.Random) -> str:
    block = " ".join(rng.choice(_WORDS) for _ in range(20000)) + ", and "
    return (block * (chars // len(block) + 1))[:chars]


def write_shape(shape: str, folder: Path, size: int) -> Path:
    """Write ``shape`` of about ``size`` bytes into ``folder``; return its path."""
    rng = random.Random(13)
    if shape == "json-one-record":
        path = folder / "huge.json"
        path.write_text(json.dumps([{"title": "Huge", "abstract": _prose(size, rng)}]), encoding="utf-8")
    elif shape == "text-one-line":
        path = folder / "oneline.txt"
        path.write_text(_prose(size, rng) + "\n", encoding="utf-8")
    elif shape == "csv-huge-cell":
        path = folder / "huge.csv"
        body = _prose(size, rng).replace('"', "")
        path.write_text(
            'title,abstract\nFirst,"We study a first thing, with commas."\n'
            f'Huge,"{body}"\nLast,We study a last thing.\n',
            encoding="utf-8",
        )
    elif shape == "bibtex-huge-field":
        path = folder / "huge.bib"
        path.write_text(
            "@article{a, title={First}, abstract={We study a first thing.}}\n\n"
            f"@article{{b, title={{Huge}}, abstract={{{_prose(size, rng)}}}}}\n\n"
            "@article{c, title={Last}, abstract={We study a last thing.}}\n",
            encoding="utf-8",
        )
    elif shape == "jsonl-normal":
        path = folder / "normal.jsonl"
        with path.open("w", encoding="utf-8") as handle:
            written = 0
            number = 0
            while written < size:
                words = " ".join(rng.choice(_WORDS) for _ in range(280))
                line = json.dumps(
                    {
                        "title": f"Paper {number}",
                        "abstract": f"Paper {number}: {words}.",
                        "authors": ["Ann Lee", "Bo Chen"],
                        "year": 2026,
                        "venue": "ICML 2026",
                    }
                )
                handle.write(line + "\n")
                written += len(line) + 1
                number += 1
    else:
        raise SystemExit(f"unknown shape {shape!r}; choose from {', '.join(SHAPES)}")
    return path


def _peak_rss_kib() -> int:
    """Peak resident memory of this process in KiB: ``VmHWM`` (reset by exec, unlike ``ru_maxrss``)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # Linux: KiB; inherits the parent's peak


def _measure(path: Path, read_only: bool) -> None:
    """Ingest (or only read) ``path`` in this process and print one JSON line of figures."""
    started = time.perf_counter()
    if read_only:
        from paperscope.ingest.formats import detect_format, get_reader
        from paperscope.models import Skip

        fmt = detect_format(path)
        items = list(get_reader(fmt)(path, None))
        skipped = [str(s) for s in items if isinstance(s, Skip)]
        summary = {"records": len(items) - len(skipped), "skipped": len(skipped), "error": None}
    else:
        from paperscope import Library

        with tempfile.TemporaryDirectory() as home, Library(Path(home) / "lib.db") as lib:
            report = lib.ingest([path], cards=False, embed=False)
            skipped = [str(s) for s in report.skipped]
            errors = [f.error for f in report.failed]
            summary = {"new": report.new, "skipped": len(skipped), "error": errors[0] if errors else None}
    summary["seconds"] = round(time.perf_counter() - started, 2)
    summary["peak_rss_mb"] = round(_peak_rss_kib() / 1024, 1)
    summary["first_skip"] = skipped[0][:160] if skipped else None
    print(json.dumps(summary))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=200, help="size of each file in MB (default 200)")
    parser.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated shapes to run")
    parser.add_argument("--read-only", action="store_true", help="read with the reader, store nothing")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--write", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:
        print(write_shape(args.write, Path(args.folder), int(args.mb * 1e6)))
        return
    if args.measure:
        _measure(Path(args.measure), args.read_only)
        return
    print(f"{'shape':<20} {'MB':>6} {'seconds':>8} {'peak RSS MB':>12}  result")
    with tempfile.TemporaryDirectory() as folder:
        for shape in args.shapes.split(","):
            # Written by a child process: the 200 MB strings never swell this one (whose peak a
            # forked child would otherwise inherit).
            made = subprocess.run(
                [sys.executable, __file__, "--write", shape, "--folder", folder, "--mb", str(args.mb)],
                capture_output=True,
                text=True,
                check=True,
            )
            path = Path(made.stdout.strip())
            mb = path.stat().st_size / 1e6
            command = [sys.executable, __file__, "--measure", str(path)]
            if args.read_only:
                command.append("--read-only")
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                print(f"{shape:<20} {mb:>6.0f} failed: {done.stderr.strip().splitlines()[-1:]}")
                continue
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            rest = {k: v for k, v in figures.items() if k not in ("seconds", "peak_rss_mb")}
            print(f"{shape:<20} {mb:>6.0f} {figures['seconds']:>8} {figures['peak_rss_mb']:>12}  {rest}")
            path.unlink()


if __name__ == "__main__":
    main()
