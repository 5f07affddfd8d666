"""The README documents every environment variable the code reads, and how to complete and install."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
#: A variable name: PAPERSCOPE_ and at least one more character (not the bare prefix of a message).
VARIABLE = re.compile(r"\bPAPERSCOPE_[A-Z0-9_]*[A-Z0-9]\b")


def _variables(*folders: str) -> set[str]:
    found: set[str] = set()
    for folder in folders:
        for path in (REPO / folder).rglob("*.py"):
            found |= set(VARIABLE.findall(path.read_text(encoding="utf-8")))
    return found


def test_every_environment_variable_is_documented() -> None:
    used = _variables("src/paperscope")
    assert {"PAPERSCOPE_HOME", "PAPERSCOPE_DB", "PAPERSCOPE_CACHE", "PAPERSCOPE_EMBEDDER"} <= used
    documented = set(VARIABLE.findall(README))
    assert sorted(used - documented) == []
    # The tests' and benchmarks' own variables are in the README's second table.
    assert sorted(_variables("tests", "bench") - documented) == []


def test_shell_completion_and_pipx_are_documented() -> None:
    for shell in ("bash", "zsh", "fish"):
        assert f"_PAPERSCOPE_COMPLETE={shell}_source paperscope" in README
    assert "pipx install ." in README


def test_the_documented_completion_completes() -> None:
    from click.testing import CliRunner

    from paperscope.cli import cli

    def complete(words: str) -> list[str]:
        env = {
            "_PAPERSCOPE_COMPLETE": "bash_complete",
            "COMP_WORDS": words,
            "COMP_CWORD": str(words.count(" ")),
        }
        result = CliRunner().invoke(cli, [], prog_name="paperscope", env=env)
        assert result.exit_code == 0, result.output
        return result.stdout.split()

    assert complete("paperscope ta") == ["plain,tags"]
    assert complete("paperscope search --mode ") == ["plain,hybrid", "plain,bm25", "plain,dense"]
    source = CliRunner().invoke(cli, [], prog_name="paperscope", env={"_PAPERSCOPE_COMPLETE": "bash_source"})
    assert "complete -o nosort -F _paperscope_completion paperscope" in source.stdout
