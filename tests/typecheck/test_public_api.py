"""The public API is typed: paperscope ships py.typed, and `mypy --strict` passes on it and on a user's script."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import paperscope

REPO = Path(__file__).resolve().parents[2]
USAGE = Path(__file__).with_name("api_usage.py")
#: The modules of the public API: ``paperscope`` (its __all__), the Library and the types it returns.
PUBLIC = ["__init__.py", "library.py", "models.py", "errors.py"]

#: What mypy must reveal for each ``reveal_type(...)`` of api_usage.py: never ``Any``.
REVEALED = {
    "report": "paperscope.models.IngestReport",
    "hits": "list[paperscope.models.Hit]",
    "hit.score": "float",
    "hit.legs": "dict[str, dict[str, float]]",
    "paper": "paperscope.models.Paper",
    "paper.card": "paperscope.models.Card | None",
    "card.method_names": "list[str]",
    "lib.papers()": "typing.Iterator[paperscope.models.Paper]",
    "lib.stats()": "dict[str, Any]",
    "lib.topics()": "list[paperscope.models.Topic]",
    'lib.restore(Path("marks.json")).unmatched': "list[dict[str, Any]]",
    "lib.fit_topics().paper_ids": "list[str]",
    "exc": "paperscope.errors.NotFound",
}


def test_the_package_is_marked_typed() -> None:
    assert (Path(paperscope.__file__).parent / "py.typed").is_file()


@pytest.mark.slow
def test_mypy_strict_passes_on_the_public_api_and_a_user_script(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy comes with the dev extra: pip install 'paperscope[dev]'")
    source = REPO / "src" / "paperscope"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--follow-imports=silent",
            "--cache-dir",
            str(tmp_path / "mypy-cache"),
            "--config-file",
            str(REPO / "pyproject.toml"),
            str(USAGE),
            *(str(source / name) for name in PUBLIC),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == f"Success: no issues found in {1 + len(PUBLIC)} source files"
    lines = USAGE.read_text(encoding="utf-8").splitlines()
    revealed = {}
    for number, kind in re.findall(
        r'^.*api_usage\.py:(\d+): note: Revealed type is "(.*)"$', result.stdout, re.M
    ):
        expression = re.search(r"reveal_type\((.*)\)\s*$", lines[int(number) - 1])
        assert expression, lines[int(number) - 1]
        revealed[expression.group(1)] = kind
    assert revealed == REVEALED
