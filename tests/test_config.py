"""Where the bundled example lists are found: a checkout, else a wheel's data files."""

from __future__ import annotations

from pathlib import Path

from paperscope.config import EXAMPLES_DIR, examples_dir


def test_checkout_examples_win_over_the_installed_copy(tmp_path: Path) -> None:
    (tmp_path / "repo" / "examples" / "icml2026").mkdir(parents=True)
    assert examples_dir(tmp_path / "repo", tmp_path / "prefix") == tmp_path / "repo" / "examples" / "icml2026"


def test_wheel_installs_read_the_prefix_share_folder(tmp_path: Path) -> None:
    got = examples_dir(tmp_path / "site-packages", tmp_path / "venv")
    assert got == tmp_path / "venv" / "share" / "paperscope" / "examples" / "icml2026"


def test_this_checkout_has_the_five_lists() -> None:
    assert len(list(EXAMPLES_DIR.glob("*.txt"))) == 5
