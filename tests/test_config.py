"""Paths: the bundled example lists (package data), the data and cache folders and their overrides."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import paperscope
from paperscope import config
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


def test_env_overrides_win_over_the_platform_folders(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("PAPERSCOPE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PAPERSCOPE_CACHE", "~/pcache")
    monkeypatch.setenv("PAPERSCOPE_DB", str(tmp_path / "elsewhere.db"))
    assert config.home_dir() == tmp_path / "home"
    assert config.cache_dir() == Path.home() / "pcache"
    assert config.default_db_path() == tmp_path / "elsewhere.db"
    monkeypatch.delenv("PAPERSCOPE_DB")
    assert config.default_db_path() == tmp_path / "home" / "library.db"


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG folders are Linux's")
def test_linux_defaults_are_the_xdg_folders_as_before(tmp_path: Path, monkeypatch) -> None:
    for name in ("PAPERSCOPE_HOME", "PAPERSCOPE_CACHE", "PAPERSCOPE_DB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    assert config.home_dir() == tmp_path / "xdg-data" / "paperscope"
    assert config.cache_dir() == tmp_path / "xdg-cache" / "paperscope"
    assert config.default_db_path() == tmp_path / "xdg-data" / "paperscope" / "library.db"
    # Unset (or empty), the spec's defaults under the home folder.
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", "")
    assert config.home_dir() == tmp_path / "user" / ".local" / "share" / "paperscope"
    assert config.cache_dir() == tmp_path / "user" / ".cache" / "paperscope"
    assert not (tmp_path / "user").exists()  # asking for a folder creates nothing
