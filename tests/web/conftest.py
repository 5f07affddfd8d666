"""Fixtures of the web tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from paperscope import Library
from paperscope.web import i18n


@pytest.fixture
def strict_catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    """A template asking for a text the catalogue lacks fails the test instead of showing the key."""
    monkeypatch.setattr(i18n, "STRICT", True)


@pytest.fixture(scope="module")
def icml_module_library(tmp_path_factory: pytest.TempPathFactory, icml_dir: Path) -> Iterator[Library]:
    """The 95 ICML 2026 papers (fake embedder), one library per test module: its marks stay in it."""
    lib = Library(tmp_path_factory.mktemp("icml-module") / "lib.db")
    lib.ingest([icml_dir])
    yield lib
    lib.close()
