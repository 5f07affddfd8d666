"""What a new user waits for on a fresh machine: `paperscope demo`, then ingest + embed of ICLR 2026.

Each run starts from an empty ``PAPERSCOPE_CACHE`` and ``PAPERSCOPE_HOME`` (nothing compiled,
no dictionary built) and times the whole CLI process, as a person does: ``paperscope demo`` (the
95 example papers: ingest, cards, embed, sample searches), and ``paperscope ingest`` of
``../shared/data/iclr2026-primary-area`` (4,302 papers with cards and vectors) followed by the
first hybrid search. Issue 25's targets on an idle machine: demo ≤ 30 s, ICLR ingest + embed ≤ 90 s.

``--baseline REV`` runs the same at an older commit (a ``git worktree`` of it, this interpreter
and venv) in the same session, so the two columns share one machine state: the issue's "today"
is ``b05a71a``, where the first ingest calibrated the int8 model on the user's machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ICLR = REPO.parent / "shared" / "data" / "iclr2026-primary-area"


def _timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    run = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=1800)
    wall_s = time.perf_counter() - started
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({run.returncode}):\n{run.stderr[-2000:]}")
    closing = [line for line in run.stderr.splitlines() if line.startswith("ingest: ")]
    return wall_s, closing[-1] if closing else ""


def first_run(source: Path, label: str) -> dict[str, float]:
    """Time demo, ICLR ingest and the first search with the code in ``source/src``; print and return seconds."""
    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        python = [sys.executable, "-m", "paperscope"]
        for step in ("demo", "iclr"):
            env = dict(os.environ, PYTHONPATH=str(source / "src"))
            env["PAPERSCOPE_HOME"], env["PAPERSCOPE_CACHE"] = (
                str(work / step / "home"),
                str(work / step / "cache"),
            )
            env.pop("PAPERSCOPE_DB", None)
            env.pop("PAPERSCOPE_EMBEDDER", None)
            if step == "demo":
                times["demo"], closing = _timed([*python, "demo"], env, work)
            else:
                db = str(work / "iclr.db")
                times["iclr ingest"], closing = _timed([*python, "--db", db, "ingest", str(ICLR)], env, work)
                times["first search"], _ = _timed(
                    [*python, "--db", db, "search", "diffusion sampling"], env, work
                )
            print(f"   {label:<22} {step:<5} {closing}", flush=True)
    return times


def compare(baseline: str | None) -> None:
    """Print the fresh-cache times of this checkout, and of ``baseline`` (a git revision) beside them."""
    print(
        f"== first run from a fresh cache (load average {os.getloadavg()[0]:.2f}); targets: demo ≤ 30 s, ICLR ≤ 90 s"
    )
    columns = {"this checkout": first_run(REPO, "this checkout")}
    if baseline:
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp) / "baseline"
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), baseline],
                check=True,
                capture_output=True,
            )
            try:
                columns[baseline] = first_run(tree, baseline)
            finally:
                subprocess.run(
                    ["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], check=False
                )
    names = list(columns)
    print(
        f"   {'seconds':<14}" + "".join(f"{n:>16}" for n in names) + ("   ratio" if len(names) == 2 else "")
    )
    for key in columns[names[0]]:
        cells = [columns[n][key] for n in names]
        ratio = f"   {cells[0] / cells[1]:.2f}" if len(cells) == 2 and cells[1] else ""
        print(f"   {key:<14}" + "".join(f"{c:>16.1f}" for c in cells) + ratio)
    print(f"   load average after: {os.getloadavg()[0]:.2f}")
