"""Cold commands cost what they use (issue 29): a fresh process shows, counts, lists, marks and
exports a stored library without importing the extractors, the indexes or the topic model, and
``--help`` imports no heavy third-party package.

Each command runs in a new interpreter through ``runpy`` (as ``python -m paperscope``); an
``atexit`` hook writes the names in ``sys.modules`` when the command has finished.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from paperscope import Library

#: Packages whose code a command that only reads or marks stored papers must not import.
STAGES = ("paperscope.extract", "paperscope.index", "paperscope.topics")
#: The one documented exception: ``stats`` counts the papers without a vector of the active
#: embedder, so it asks the embedder registry for the model id (no model, runtime or tokenizer
#: is loaded; ``Library._model_id``).
MODEL_ID_REGISTRY = {
    "paperscope.index",
    "paperscope.index.embed",
    "paperscope.index.minilm",
    "paperscope.index.pooling",
}
#: Third-party packages ``--help`` must not import (each costs 0.1-1 s cold).
HEAVY = ("numpy", "sklearn", "scipy", "torch", "onnxruntime", "openvino", "fastapi", "uvicorn", "pyarrow")

_RUNNER = """
import atexit, json, runpy, sys
out, sys.argv = sys.argv[1], ["paperscope", *sys.argv[2:]]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
runpy.run_module("paperscope", run_name="__main__", alter_sys=True)
"""


def _modules_after(tmp_path: Path, *args: str) -> set[str]:
    """Run ``paperscope ARGS`` in a fresh interpreter; return the modules it had imported at exit."""
    out = tmp_path / "modules.json"
    env = {k: v for k, v in os.environ.items() if k != "PAPERSCOPE_EMBEDDER"}  # a user's default
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    result = subprocess.run(
        [sys.executable, "-c", _RUNNER, str(out), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return set(json.loads(out.read_text(encoding="utf-8")))


def _stage_modules(modules: set[str]) -> set[str]:
    return {m for m in modules if any(m == s or m.startswith(s + ".") for s in STAGES)}


@pytest.fixture(scope="module")
def small_db(tmp_path_factory: pytest.TempPathFactory, icml_dir: Path) -> tuple[Path, str]:
    """One ICML list with full cards, no vectors; returns the file and one paper_id."""
    path = tmp_path_factory.mktemp("cold") / "lib.db"
    with Library(path) as lib:
        lib.ingest([sorted(icml_dir.glob("*.txt"))[0]], embed=False)
        paper_id = next(lib.papers()).paper_id
    return path, paper_id


@pytest.mark.parametrize(
    "command",
    [
        ["show", "{id}"],
        ["show", "{id}", "--json"],
        ["list"],
        ["star", "{id}"],
        ["tags", "add", "{id}", "reading"],
        ["note", "{id}", "read later"],
        ["mark", "{id}", "keep"],
        ["export", "--format", "csv"],
        ["export", "--format", "bibtex"],
    ],
    ids=" ".join,
)
def test_reading_and_marking_commands_import_no_extractor_index_or_topics(
    tmp_path: Path, small_db: tuple[Path, str], command: list[str]
) -> None:
    db, paper_id = small_db
    modules = _modules_after(tmp_path, "--db", str(db), *(a.format(id=paper_id) for a in command))
    assert "paperscope.library" in modules  # the command did open the library
    assert _stage_modules(modules) == set()


def test_stats_imports_only_the_embedder_registry_for_its_model_id(
    tmp_path: Path, small_db: tuple[Path, str]
) -> None:
    modules = _modules_after(tmp_path, "--db", str(small_db[0]), "stats")
    assert "paperscope.library" in modules
    assert _stage_modules(modules) <= MODEL_ID_REGISTRY
    assert not {m for m in modules if m.split(".")[0] in ("onnxruntime", "openvino", "tokenizers", "sklearn")}


def test_help_imports_no_heavy_package(tmp_path: Path) -> None:
    modules = _modules_after(tmp_path, "--help")
    assert {m.split(".")[0] for m in modules} & set(HEAVY) == set()
    assert _stage_modules(modules) == set()
    assert "paperscope.library" not in modules


@pytest.mark.parametrize(
    "command",
    [
        ["show", "{id}"],
        ["list"],
        ["star", "{id}"],
        ["export", "--format", "csv"],
        ["export", "--format", "bibtex"],
    ],
    ids=" ".join,
)
def test_showing_listing_and_marking_import_no_numpy(
    tmp_path: Path, small_db: tuple[Path, str], command: list[str]
) -> None:
    db, paper_id = small_db
    modules = _modules_after(tmp_path, "--db", str(db), *(a.format(id=paper_id) for a in command))
    assert "paperscope.store.vectors" in modules  # the library facade's store modules are there
    assert "numpy" not in modules


def test_the_console_script_starts_only_a_search_query_side_early():
    from paperscope._entry import wants_query_model

    assert wants_query_model(["--db", "x.db", "search", "graph neural networks"]) == (True, False)
    assert wants_query_model(["search", "扩散模型", "--limit", "5"]) == (True, True)
    assert wants_query_model(["search", "--mode", "bm25", "扩散模型"]) == (False, True)
    assert wants_query_model(["search", "--mode=bm25", "pruning"]) == (False, False)
    assert wants_query_model(["show", "abc123"]) == (False, False)
    assert wants_query_model(["search", "--help"]) == (False, False)
