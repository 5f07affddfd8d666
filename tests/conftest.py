"""Shared fixtures: an isolated PAPERSCOPE_HOME per test, real example and gold data paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperscope import Library

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache folder per test session, so the int8 model is quantised once, not per test."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="session", autouse=True)
def session_env(tmp_path_factory: pytest.TempPathFactory, model_cache: Path):
    """Set the same isolation for session- and module-scoped fixtures, which run before env_setup."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PAPERSCOPE_HOME", str(tmp_path_factory.mktemp("session-home")))
        patch.setenv("PAPERSCOPE_CACHE", str(model_cache))
        patch.setenv("PAPERSCOPE_EMBEDDER", "fake")
        patch.delenv("PAPERSCOPE_DB", raising=False)
        yield


@pytest.fixture(autouse=True)
def env_setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path) -> None:
    """Isolate each test: its own PAPERSCOPE_HOME, a shared model cache, the fake embedder.

    Tests that measure the real model pass ``embedder="minilm"`` and are marked ``model``.
    """
    monkeypatch.setenv("PAPERSCOPE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PAPERSCOPE_CACHE", str(model_cache))
    monkeypatch.setenv("PAPERSCOPE_EMBEDDER", "fake")
    monkeypatch.delenv("PAPERSCOPE_DB", raising=False)


@pytest.fixture(scope="session")
def icml_dir() -> Path:
    return REPO / "examples" / "icml2026"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.fail(f"{SHARED_DATA} missing: the tests read the real data in ../shared/data")
    return SHARED_DATA


@pytest.fixture
def fresh_library(tmp_path: Path) -> Library:
    lib = Library(tmp_path / "lib.db")
    yield lib
    lib.close()


@pytest.fixture
def icml_library(tmp_path: Path, icml_dir: Path) -> Library:
    lib = Library(tmp_path / "icml.db")
    lib.ingest([icml_dir])
    yield lib
    lib.close()


def write_list(path: Path, body: str) -> Path:
    """Write a paper-list text file (UTF-8) and return its path."""
    path.write_text(body, encoding="utf-8")
    return path
