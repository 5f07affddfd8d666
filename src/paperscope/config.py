"""Paths and defaults: where the library lives, and the names of bundled models."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

__all__ = [
    "home_dir",
    "cache_dir",
    "default_db_path",
    "examples_dir",
    "EXAMPLES_DIR",
    "MAX_QUERY_TERMS",
    "MAX_QUERY_CHARS",
]

# The two query bounds live here, not in index/bounds.py (which uses them), so that the
# library facade re-exports them without importing index code (issue 29).
#: Distinct lexical terms a query keeps (stop words are not terms). Each term costs the BM25 leg a
#: postings scan; a 300-word abstract has about 150 distinct terms. Chosen on the 200 training
#: abstracts of ``iclr-abstract`` (an abstract must find its title among 10,425; BM25 top-1 with
#: the N rarest terms kept): 32 -> 0.325, 64 -> 0.535, 128 -> 0.745, all -> 0.750; and the FTS5
#: cost of 3,000-word pastes on the 4,302-paper ICLR library, median (max) ms at load 8:
#: 64 -> 6 (18), 128 -> 18 (33), 256 -> 61 (75), 512 -> 248 (455).
MAX_QUERY_TERMS = 128
#: Characters of a query read at all: about 3,000 English words. A longer text is cut at the
#: last space before this bound (the notice says so); what stays is bounded by MAX_QUERY_TERMS
#: and ``paperscope.index.bounds.MAX_DENSE_QUERY_CHARS``, so the only cost that grows with it is
#: tokenising (about 10 ms per 20,000 characters).
MAX_QUERY_CHARS = 20_000

#: The folder name under the platform's data and cache folders (platformdirs' appname).
_APP_NAME = "paperscope"


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
    r"""Return the data folder: ``$PAPERSCOPE_HOME``, else the platform's user data folder.

    That is platformdirs' ``user_data_dir``: on Linux ``$XDG_DATA_HOME/paperscope``, else
    ``~/.local/share/paperscope`` (the XDG Base Directory spec); on macOS
    ``~/Library/Application Support/paperscope``; on Windows ``%LOCALAPPDATA%\paperscope``.
    """
    env = os.environ.get("PAPERSCOPE_HOME")
    if env:
        return Path(env).expanduser()
    import platformdirs

    # appauthor=False: no vendor folder above ours on Windows.
    return Path(platformdirs.user_data_dir(_APP_NAME, appauthor=False))


def default_db_path() -> Path:
    """Return the library database path: ``$PAPERSCOPE_DB``, else ``home_dir()/library.db``."""
    env = os.environ.get("PAPERSCOPE_DB")
    if env:
        return Path(env).expanduser()
    return home_dir() / "library.db"


def cache_dir() -> Path:
    r"""Return the folder for derived files that can be rebuilt (the int8 model, for one).

    ``$PAPERSCOPE_CACHE``, else platformdirs' ``user_cache_dir``: on Linux
    ``$XDG_CACHE_HOME/paperscope``, else ``~/.cache/paperscope``; on macOS
    ``~/Library/Caches/paperscope``; on Windows ``%LOCALAPPDATA%\paperscope\Cache``.
    """
    env = os.environ.get("PAPERSCOPE_CACHE")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir(_APP_NAME, appauthor=False))
