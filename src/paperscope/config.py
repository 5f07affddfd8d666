"""Paths and defaults: where the library lives, and the names of bundled models."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

__all__ = ["home_dir", "cache_dir", "default_db_path", "examples_dir", "EXAMPLES_DIR"]


def examples_dir() -> Path:
    """Return the folder of the five ICML 2026 example lists, package data of ``paperscope``.

    Found through ``importlib.resources``, so a wheel, ``pip install --user`` and an editable
    install all read the same files (``src/paperscope/data/examples/icml2026``; the checkout's
    ``examples/icml2026`` is a link to it).
    """
    return Path(str(resources.files(__package__) / "data" / "examples" / "icml2026"))


#: The five ICML 2026 lists shipped with paperscope (``paperscope demo``, the int8 calibration).
EXAMPLES_DIR = examples_dir()


def home_dir() -> Path:
    """Return the data folder: ``$PAPERSCOPE_HOME``, else ``$XDG_DATA_HOME/paperscope``.

    Falls back to ``~/.local/share/paperscope`` as the XDG Base Directory spec says.
    """
    env = os.environ.get("PAPERSCOPE_HOME")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg).expanduser() / "paperscope"


def default_db_path() -> Path:
    """Return the library database path: ``$PAPERSCOPE_DB``, else ``home_dir()/library.db``."""
    env = os.environ.get("PAPERSCOPE_DB")
    if env:
        return Path(env).expanduser()
    return home_dir() / "library.db"


def cache_dir() -> Path:
    """Return the folder for derived files that can be rebuilt (the int8 model, for one).

    ``$PAPERSCOPE_CACHE``, else ``$XDG_CACHE_HOME/paperscope`` (``~/.cache/paperscope``).
    """
    env = os.environ.get("PAPERSCOPE_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg).expanduser() / "paperscope"
