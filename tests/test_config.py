"""Where the bundled example lists are found: package data of paperscope, read through importlib.resources."""

from __future__ import annotations

from pathlib import Path

import paperscope
from paperscope.config import EXAMPLES_DIR, examples_dir

REPO = Path(__file__).resolve().parents[1]


def test_examples_are_package_data() -> None:
    assert (
        examples_dir() == EXAMPLES_DIR == Path(paperscope.__file__).parent / "data" / "examples" / "icml2026"
    )
    assert sorted(p.name for p in EXAMPLES_DIR.glob("*.txt")) == [
        "000_9f997565051fc2a1.txt",
        "001_d57e93a6687b01f8.txt",
        "002_ca08d30626a6d4f8.txt",
        "003_723a5b30b8bbfc7e.txt",
        "004_a54ac5fdf4ae50fd.txt",
    ]


def test_the_checkout_examples_folder_is_the_package_data() -> None:
    link = REPO / "examples" / "icml2026"
    assert link.is_symlink() and link.resolve() == EXAMPLES_DIR.resolve()
