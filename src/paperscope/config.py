"""Paths and defaults: where the library lives, and the names of bundled models."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["home_dir", "cache_dir", "default_db_path", "examples_dir", "EXAMPLES_DIR"]


def examples_dir(checkout: Path, prefix: Path) -> Path:
    """Return the folder of the example lists.

    ``checkout/examples/icml2026`` when it exists (a source checkout or editable install), else
    ``prefix/share/paperscope/examples/icml2026``, where a wheel installs them (pyproject
    ``data-files``).
    """
    in_checkout = checkout / "examples" / "icml2026"
    return in_checkout if in_checkout.is_dir() else prefix / "share" / "paperscope" / "examples" / "icml2026"


#: The five ICML 2026 lists shipped with paperscope (``paperscope demo``, the int8 calibration).
EXAMPLES_DIR = examples_dir(Path(__file__).resolve().parents[2], Path(sys.prefix))


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
