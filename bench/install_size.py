"""Measure what a plain ``pip install`` of this checkout puts on disk (issue 25: at most half of 1.2 GB).

Creates a fresh venv in a temporary folder, installs a copy of the checkout into it as ``make``
does (``pip install -c constraints.txt``, no extras unless ``--extras``; pip reads PyPI, and its
cache makes a second run quick), then prints the size of the venv's site-packages (every file's
bytes, MB = 10^6 bytes), its distributions, the 15 largest, and the ratio to the issue's baseline
(1.2 GB, 76 distributions, before issue 25) and to the target (600 MB).

``--without NAME`` (repeatable) also prints the size without that distribution and every
distribution only it needs, read from the installed requirements (``--without umap-learn``: what
moving UMAP to an extra would save), without installing again.

    python bench/install_size.py                       # the default install
    python bench/install_size.py --extras onnx,png,ann  # a variant with extras
    python bench/install_size.py --without umap-learn --keep /tmp/size-venv
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[1]
#: The issue's figure for `pip install .` before issue 25 (README: 76 distributions).
BASELINE_BYTES = 1_200_000_000
TARGET_BYTES = 600_000_000
MB = 1_000_000

#: Runs inside the venv: each distribution's name, version, installed bytes (the files its RECORD
#: lists, its scripts in bin/ included) and requirements.
_PROBE = r"""
import json, sysconfig
from importlib import metadata
from pathlib import Path
out = []
for dist in metadata.distributions():
    size = 0
    for file in dist.files or []:
        path = Path(dist.locate_file(file))
        if path.is_file():
            size += path.stat().st_size
    out.append({"name": dist.metadata["Name"], "version": dist.version, "size_bytes": size,
                "requires": dist.requires or []})
print(json.dumps({"site_packages": sysconfig.get_paths()["purelib"], "dists": out}))
"""


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _run(args: list[str | Path], timeout_s: int) -> str:
    done = subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, args))} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return done.stdout


def folder_bytes(folder: Path) -> int:
    """Return the sum of the sizes of the regular files under ``folder`` (links not followed)."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            path = Path(root) / name
            if not path.is_symlink():
                total += path.stat().st_size
    return total


def install(venv: Path, extras: str, constraints: Path) -> float:
    """Create ``venv`` and install a copy of the checkout (with ``extras``); return the seconds taken."""
    started = time.perf_counter()
    sources = venv.parent / "sources"
    sources.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, sources / name)
    # A copy: building in the checkout would leave build/ and *.egg-info in a tree others use.
    shutil.copytree(REPO / "src", sources / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    _run([sys.executable, "-m", "venv", venv], 300)
    target = f"{sources}[{extras}]" if extras else str(sources)
    _run([venv / "bin" / "python", "-m", "pip", "install", "-q", "-c", constraints, target], 1800)
    return time.perf_counter() - started


def reachable(dists: list[dict], root: str = "paperscope", cut: frozenset[str] = frozenset()) -> set[str]:
    """Return the distributions ``root`` needs, itself included, never passing through ``cut``.

    Requirements are read as installed: markers evaluated here, a requirement's extras followed.
    """
    by_name = {_canonical(d["name"]): d for d in dists}
    seen: set[tuple[str, frozenset[str]]] = set()
    todo = [(_canonical(root), frozenset[str]())]
    while todo:
        name, extras = todo.pop()
        if (name, extras) in seen or name in cut or name not in by_name:
            continue
        seen.add((name, extras))
        for text in by_name[name]["requires"]:
            req = Requirement(text)
            if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in extras or {""}):
                todo.append((_canonical(req.name), frozenset(req.extras)))
    return {name for name, _ in seen}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extras", default="", help="extras to install, e.g. onnx,png,ann (default: none)")
    parser.add_argument(
        "--without", action="append", default=[], help="also show the size without this distribution"
    )
    parser.add_argument("--constraints", type=Path, default=REPO / "constraints.txt")
    parser.add_argument("--keep", type=Path, help="create the venv here and keep it (must not exist)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)

    scratch = None
    if args.keep:
        args.keep.mkdir(parents=True)
        venv = args.keep / "venv"
    else:
        scratch = Path(tempfile.mkdtemp(prefix="paperscope-size-"))
        venv = scratch / "venv"
    try:
        install_s = install(venv, args.extras, args.constraints)
        probe = json.loads(_run([venv / "bin" / "python", "-c", _PROBE], 120))
        site_packages = Path(probe["site_packages"])
        total = folder_bytes(site_packages)
        dists = sorted(probe["dists"], key=lambda d: -d["size_bytes"])
        without = {}
        for name in args.without:
            gone = reachable(dists) - reachable(dists, cut=frozenset({_canonical(name)}))
            without[name] = {
                "size_bytes": total - sum(d["size_bytes"] for d in dists if _canonical(d["name"]) in gone),
                "left_out": sorted(d["name"] for d in dists if _canonical(d["name"]) in gone),
            }
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)

    figures = {
        "extras": args.extras,
        "site_packages_bytes": total,
        "distributions": len(dists),
        "baseline_bytes": BASELINE_BYTES,
        "ratio_to_baseline": total / BASELINE_BYTES,
        "target_bytes": TARGET_BYTES,
        "install_s": round(install_s, 1),
        "largest": [{k: d[k] for k in ("name", "version", "size_bytes")} for d in dists[:15]],
        "without": without,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    label = f"pip install .[{args.extras}]" if args.extras else "pip install ."
    print(
        f"{label} -c constraints.txt into a fresh venv ({install_s:.0f} s, Python {sys.version.split()[0]})"
    )
    print(
        f"site-packages: {total:,} bytes = {total / MB:.0f} MB in {len(dists)} distributions;"
        f" baseline {BASELINE_BYTES / MB:.0f} MB (ratio {total / BASELINE_BYTES:.2f});"
        f" target {TARGET_BYTES / MB:.0f} MB ({'met' if total <= TARGET_BYTES else 'not met'})"
    )
    print("the 15 largest distributions:")
    for d in dists[:15]:
        print(f"  {d['name']:<28} {d['version']:<14} {d['size_bytes'] / MB:7.1f} MB")
    for name, row in without.items():
        print(
            f"without {name} and what only it needs ({', '.join(row['left_out'])}):"
            f" {row['size_bytes'] / MB:.0f} MB (ratio {row['size_bytes'] / BASELINE_BYTES:.2f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
