"""Crash harness: random SIGKILLs of ingest, cards, embed and topics; nothing may be lost or left undone.

A base library of real papers (the ICLR 2026 lists of ``../shared/data``: the first files
ingested with cards, vectors and topics, then stars, tags, notes and triage states on random
papers) is copied for each round. Each round runs one command on its copy, kills it with
SIGKILL at a random moment of its measured run time, and then checks:

- corrupt: SQLite's ``PRAGMA integrity_check`` is not ``ok``;
- lost marks: any star, tag, note or triage state differs from the base library's;
- failed reruns: running the killed command again exits non-zero or prints a traceback;
- unfinished: after the rerun a stage is not done: papers lacking a current full card or
  vector (``Library.stage_counts``), papers without a topic after a ``topics`` rerun, or a
  ``doctor`` problem.

The commands: ``ingest`` of the remaining ICLR files (new papers: read, first cards, full
cards, vectors), ``cards --rebuild``, ``embed --rebuild`` and ``topics --refit``. Every count
printed at the end must be 0, except one figure printed beside them: the vectors kept by the
killed ``embed`` runs (rows the killed run wrote, counted before the rerun: see
:func:`vectors_kept`; issue 26: vectors are committed as they are finished, so a kill keeps
all but the last second or so of work).

Usage::

    python bench/crash.py --kills 50            # about 10-15 min on 2 busy cores
    python bench/crash.py --kills 4 --papers 800 --json
    PAPERSCOPE_SHARED_DATA=/path/to/shared/data python bench/crash.py   # data elsewhere

``--embedder fake`` (the default) embeds with the hashed bag of words, so an ``embed`` run
lasts seconds, not minutes; ``--embedder minilm`` uses the real model (prepared first).
Vectors are stored the same way whichever model makes them.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ICLR_DIR = (
    Path(os.environ.get("PAPERSCOPE_SHARED_DATA", REPO.parent / "shared" / "data")) / "iclr2026-primary-area"
)
COMMANDS: dict[str, list[str]] = {
    "ingest": ["ingest"],  # the files are appended per library
    "cards": ["cards", "--rebuild"],
    "embed": ["embed", "--rebuild"],
    "topics": ["topics", "--refit"],
}
#: Seconds a command may run (killed, rerun or measured) before the round counts it as failed.
RUN_TIMEOUT_S = 600


@dataclass
class Round:
    """One kill: the command, when it was killed, and what the checks found."""

    command: str
    kill_after_s: float
    exited_before_kill: bool = False
    corrupt: bool = False
    lost_marks: int = 0
    rerun_failed: str | None = None
    unfinished: dict[str, int] = field(default_factory=dict)
    vectors_kept: int | None = None  # an embed round: vectors the killed run had stored


@dataclass
class Setup:
    """The base library, the files an ``ingest`` round reads, and how long each command runs."""

    base: Path
    ingest_files: list[Path]
    marks: dict[str, Any]
    durations_s: dict[str, float]
    papers: int
    vector_rows: frozenset[tuple[int, str]]  # (rowid, paper_id) of the base library's vectors


def _rows(path: Path) -> int:
    csv.field_size_limit(1 << 24)
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return sum(1 for _ in csv.DictReader(handle))


def choose_files(papers: int) -> tuple[list[Path], list[Path]]:
    """Return (base files, ingest files): ICLR lists, smallest first, about ``papers`` rows in all.

    About 60% of the rows go to the base library and 40% to the ingest rounds.
    """
    files = sorted(ICLR_DIR.glob("*.csv"), key=lambda p: (p.stat().st_size, p.name))
    if not files:
        raise SystemExit(f"{ICLR_DIR}: no ICLR 2026 lists there (see ../shared/data/SOURCES.md)")
    chosen, total = [], 0
    for path in files:
        if total >= papers:
            break
        chosen.append((path, _rows(path)))
        total += chosen[-1][1]
    base, rest, count = [], [], 0
    for path, rows in chosen:
        (base if count < 0.6 * total or not base else rest).append(path)
        count += rows
    if not rest:
        rest.append(base.pop())
    return base, rest


def _env(embedder: str, home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PAPERSCOPE_EMBEDDER": embedder,
        "PAPERSCOPE_HOME": str(home),
        "PYTHONUNBUFFERED": "1",
    }


def _argv(db: Path, command: str, ingest_files: list[Path]) -> list[str]:
    args = [sys.executable, "-m", "paperscope", "--db", str(db), *COMMANDS[command]]
    return args + [str(p) for p in ingest_files] if command == "ingest" else args


def run(db: Path, command: str, ingest_files: list[Path], env: dict[str, str]) -> tuple[int, str, float]:
    """Run one command to its end; return (exit code, stderr, wall seconds)."""
    started = time.perf_counter()
    done = subprocess.run(
        _argv(db, command, ingest_files),
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    return done.returncode, done.stderr, time.perf_counter() - started


def run_and_kill(
    db: Path, command: str, ingest_files: list[Path], env: dict[str, str], after_s: float
) -> float | None:
    """Start the command, SIGKILL it (and nothing else) after ``after_s``.

    Returns None when it was killed, else the seconds it took to end on its own first.
    """
    started = time.perf_counter()
    proc = subprocess.Popen(
        _argv(db, command, ingest_files), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        proc.wait(timeout=after_s)
        return time.perf_counter() - started
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        return None


def read_marks(db: Path) -> dict[str, Any]:
    """Return every star, tag, note and triage state of the library file (read with sqlite3 only)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {
            "stars": sorted(r[0] for r in conn.execute("SELECT paper_id FROM stars")),
            "tags": sorted(conn.execute("SELECT paper_id, tag FROM tags").fetchall()),
            "notes": sorted(conn.execute("SELECT paper_id, body FROM notes").fetchall()),
            "triage": sorted(conn.execute("SELECT paper_id, state FROM triage").fetchall()),
        }
    finally:
        conn.close()


def vector_rows(db: Path) -> frozenset[tuple[int, str]]:
    """Return ``(rowid, paper_id)`` of every stored vector."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return frozenset(conn.execute("SELECT rowid, paper_id FROM embeddings"))
    finally:
        conn.close()


def vectors_kept(base: frozenset[tuple[int, str]], after: frozenset[tuple[int, str]]) -> int:
    """Return how many vectors a killed ``embed --rebuild`` had stored (a lower bound).

    The rebuild deletes every vector in one transaction first, so SQLite numbers the new rows
    from 1 again: the rows of ``after`` are all the killed run's once they differ from the
    base's rows (fewer, or other papers at the same rowids). Unchanged rows mean it was killed
    before the delete, or rewrote every vector in the base's own order: counted as 0.
    """
    return 0 if after == base else len(after)


def lost_marks(before: dict[str, Any], after: dict[str, Any]) -> int:
    """Return how many marks of ``before`` are missing or changed in ``after``."""
    return sum(
        len(set(map(tuple, _as_rows(before[k]))) - set(map(tuple, _as_rows(after[k])))) for k in before
    )


def _as_rows(values: list[Any]) -> list[tuple[Any, ...]]:
    return [tuple(v) if isinstance(v, list | tuple) else (v,) for v in values]


def integrity_ok(db: Path) -> bool:
    """Return True when SQLite's full integrity check passes (the file opened read-only)."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return [r[0] for r in conn.execute("PRAGMA integrity_check")] == ["ok"]
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return False


def unfinished_stages(db: Path, command: str, embedder: str) -> dict[str, int]:
    """Return ``stage → papers lacking it`` (only non-zero) after a rerun, and doctor's problems."""
    from paperscope import Library

    with Library(db, embedder=embedder) as lib:
        counts = lib.stage_counts()
        report = lib.doctor()
    found = {k: counts[k] for k in ("missing_cards", "missing_vectors") if counts[k]}
    if command == "topics" and counts["missing_topics"]:
        found["missing_topics"] = counts["missing_topics"]
    if not counts["topics_fitted"]:
        found["topics_lost"] = 1
    for finding in report.problems:
        found[f"doctor_{finding.check}"] = finding.count or 1
    return found


def build_setup(work: Path, papers: int, embedder: str, seed: int, log: bool) -> Setup:
    """Build the base library with marks and measure each command's run time on a copy."""
    from paperscope import Library

    base_files, ingest_files = choose_files(papers)
    home = work / "home"
    env = _env(embedder, home)
    base = work / "base.db"
    os.environ.update({"PAPERSCOPE_EMBEDDER": embedder, "PAPERSCOPE_HOME": str(home)})
    started = time.perf_counter()
    with Library(base, embedder=embedder) as lib:
        lib.ingest(base_files)
        lib.fit_topics()
        rng = random.Random(seed)
        ids = sorted(p.paper_id for p in lib.papers())
        for pid in rng.sample(ids, 20):
            lib.star(pid)
        for pid in rng.sample(ids, 20):
            lib.tag(pid, rng.choice(["read", "to-cite", "baseline"]))
        for i, pid in enumerate(rng.sample(ids, 10)):
            lib.set_note(pid, f"note {i}: compare with the baseline")
        for pid in rng.sample(ids, 10):
            lib.set_triage(pid, rng.choice(["keep", "maybe", "reject"]))
        n_papers = len(lib)
    if log:
        print(
            f"base library: {n_papers:,} papers from {len(base_files)} files in"
            f" {time.perf_counter() - started:.0f} s; ingest rounds read {len(ingest_files)} more files",
            file=sys.stderr,
            flush=True,
        )
    durations = {}
    for command in COMMANDS:
        copy = work / f"measure-{command}.db"
        for _ in range(2):  # the second run is warm (model and index caches), as the rounds are
            for side in ("", "-wal", "-shm"):
                Path(f"{copy}{side}").unlink(missing_ok=True)
            shutil.copy(base, copy)
            code, err, wall = run(copy, command, ingest_files, env)
            if code != 0:
                raise SystemExit(f"`{command}` failed on an intact copy of the base library:\n{err}")
            durations[command] = wall
        for side in ("", "-wal", "-shm"):
            Path(f"{copy}{side}").unlink(missing_ok=True)
    if log:
        shown = ", ".join(f"{c} {s:.1f} s" for c, s in durations.items())
        print(f"uninterrupted run times: {shown}", file=sys.stderr, flush=True)
    return Setup(base, ingest_files, read_marks(base), durations, n_papers, vector_rows(base))


def one_round(setup: Setup, work: Path, command: str, after_s: float, embedder: str) -> Round:
    """Kill ``command`` after ``after_s`` on a fresh copy of the base library, rerun it, check."""
    env = _env(embedder, work / "home")
    db = work / "round.db"
    for side in ("", "-wal", "-shm"):
        Path(f"{db}{side}").unlink(missing_ok=True)
    shutil.copy(setup.base, db)
    result = Round(command, round(after_s, 2))
    ended_s = run_and_kill(db, command, setup.ingest_files, env, after_s)
    if ended_s is not None:  # not a kill: the next kill of this command comes sooner
        result.exited_before_kill = True
        setup.durations_s[command] = min(setup.durations_s[command], ended_s)
    result.corrupt = not integrity_ok(db)
    if not result.corrupt:
        result.lost_marks = lost_marks(setup.marks, read_marks(db))
        if command == "embed" and ended_s is None:
            result.vectors_kept = vectors_kept(setup.vector_rows, vector_rows(db))
    code, err, _ = run(db, command, setup.ingest_files, env)
    if code != 0 or "Traceback" in err:
        result.rerun_failed = err.strip().splitlines()[-1] if err.strip() else f"exit {code}"
        return result
    result.lost_marks = max(result.lost_marks, lost_marks(setup.marks, read_marks(db)))
    result.unfinished = unfinished_stages(db, command, embedder)
    return result


def crash_test(
    kills: int,
    papers: int = 2500,
    embedder: str = "fake",
    seed: int = 13,
    work: Path | None = None,
    log: bool = True,
) -> dict[str, Any]:
    """Run ``kills`` rounds; return the totals (each must be 0) and every round's findings."""
    own = work is None
    work = Path(tempfile.mkdtemp(prefix="paperscope-crash-")) if work is None else work
    work.mkdir(parents=True, exist_ok=True)
    try:
        started = time.perf_counter()
        setup = build_setup(work, papers, embedder, seed, log)
        rng = random.Random(seed)
        rounds: list[Round] = []
        attempts = 0
        # Only a kill that landed while the command ran counts: a round whose command ended
        # first is checked too, then tried again with a shorter delay (at most 3x kills rounds).
        while sum(not r.exited_before_kill for r in rounds) < kills and attempts < 3 * kills:
            i = sum(not r.exited_before_kill for r in rounds)
            attempts += 1
            command = list(COMMANDS)[i % len(COMMANDS)] if i < len(COMMANDS) else rng.choice(list(COMMANDS))
            after_s = rng.uniform(0.3, max(0.5, 0.95 * setup.durations_s[command]))
            found = one_round(setup, work, command, after_s, embedder)
            rounds.append(found)
            if log:
                bad = found.corrupt or found.lost_marks or found.rerun_failed or found.unfinished
                print(
                    f"round {attempts:>3} (kill {i + 1:>2}/{kills}): {command:<6} after {after_s:5.1f} s"
                    f"{' (had already finished)' if found.exited_before_kill else ''}"
                    f"{f', kept {found.vectors_kept:,} vectors' if found.vectors_kept is not None else ''}"
                    f"{'  PROBLEM ' + json.dumps(asdict(found)) if bad else ''}",
                    file=sys.stderr,
                    flush=True,
                )
        killed = [r for r in rounds if not r.exited_before_kill]
        totals = {
            "kills": len(killed),
            "rounds": len(rounds),
            "corrupt_libraries": sum(r.corrupt for r in rounds),
            "lost_marks": sum(r.lost_marks for r in rounds),
            "failed_reruns": sum(r.rerun_failed is not None for r in rounds),
            "stages_left_unfinished": sum(bool(r.unfinished) for r in rounds),
            "vectors_kept_by_killed_embeds": sum(r.vectors_kept or 0 for r in killed),
        }
        embed_rounds = [r for r in killed if r.command == "embed"]
        return {
            **totals,
            "kills_per_command": dict(Counter(r.command for r in killed)),
            "vectors_kept_per_killed_embed": [r.vectors_kept for r in embed_rounds],
            "papers": setup.papers,
            "durations_s": {k: round(v, 1) for k, v in setup.durations_s.items()},
            "elapsed_s": round(time.perf_counter() - started, 1),
            "problems": [
                asdict(r) for r in rounds if r.corrupt or r.lost_marks or r.rerun_failed or r.unfinished
            ],
        }
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=50, help="rounds (default 50)")
    parser.add_argument("--papers", type=int, default=2500, help="about this many ICLR papers in all")
    parser.add_argument("--embedder", default="fake", help="fake (default) or minilm")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()
    result = crash_test(args.kills, args.papers, args.embedder, args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"{result['kills']} kills while the command ran ({result['kills_per_command']}; {result['rounds']}"
        f" rounds, the others ended before their kill) on {result['papers']:,} papers in"
        f" {result['elapsed_s']:.0f} s"
    )
    for key in ("corrupt_libraries", "lost_marks", "failed_reruns", "stages_left_unfinished"):
        print(f"  {key.replace('_', ' ')}: {result[key]}")
    kept = result["vectors_kept_per_killed_embed"]
    print(
        f"  vectors kept by killed embeds: {result['vectors_kept_by_killed_embeds']:,} in"
        f" {len(kept)} killed embed runs ({', '.join(f'{n:,}' for n in kept if n is not None) or 'none'}) of"
        f" {result['papers']:,} papers each"
    )
    for problem in result["problems"]:
        print(f"  problem: {json.dumps(problem)}")
    if any(result[k] for k in ("corrupt_libraries", "lost_marks", "failed_reruns", "stages_left_unfinished")):
        sys.exit(1)


if __name__ == "__main__":
    main()
