"""The ``paperscope`` console script: start a search's slow loads before the CLI is even imported.

A fresh ``paperscope search`` waits on two loads that do not depend on the library: the query
model (the default model's int8 IR run by numpy from its memory-mapped program, a few ms plus
paging its weights in; OpenVINO's import and compile, ~0.25 s, for other embedders or before
the program exists) and, for a Chinese query, the word segmenter (rjieba builds its dictionary
at import, ~0.15 s). :func:`main` reads the command line before importing click and the CLI (~50 ms):
when it names ``search`` (not ``--mode bm25``), the model starts loading on a daemon thread
at once, and the segmenter too when the line holds Chinese characters. The CLI then runs
as always and finds them loaded or loading (:func:`paperscope.index.embed.preload_embedder`
is idempotent). A guess that is wrong (a tag named "search") costs a background load, never a
different result.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading

__all__ = ["main", "wants_query_model"]

_CJK = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))


def wants_query_model(argv: list[str]) -> tuple[bool, bool]:
    """(load the query model, load the Chinese segmenter) for a command line (``sys.argv[1:]``)."""
    if "search" not in argv or "--help" in argv:
        return False, False
    after = argv[argv.index("search") + 1 :]
    bm25 = any(a in ("--mode=bm25",) for a in after) or any(
        a == "--mode" and b == "bm25" for a, b in zip(after, after[1:], strict=False)
    )
    chinese = any(lo <= ord(ch) <= hi for arg in after for ch in arg for lo, hi in _CJK)
    return not bm25, chinese


#: Set when the interpreter starts to exit (an atexit handler, run before the loader is joined).
_EXITING = threading.Event()


def _load_query_side(model: bool, chinese: bool) -> None:
    try:
        from .index.embed import DEFAULT_EMBEDDER, preload_embedder

        if model:
            thread = preload_embedder(os.environ.get("PAPERSCOPE_EMBEDDER") or DEFAULT_EMBEDDER, query=True)
            if thread is not None:
                thread.join()  # the segmenter next: both imports hold the GIL, one after the other
        if chinese:
            from .text import _jieba

            _jieba()
    except Exception:
        # The command ended first (a usage error exits at once): a module imported here then
        # cannot register its exit handler ("can't register atexit after shutdown"). Nothing
        # needs what was being loaded, so it is dropped without a traceback.
        if not _EXITING.is_set():
            raise


def main() -> None:
    """Run the CLI (``paperscope.cli.cli``), having started the search's query-side loads."""
    model, chinese = wants_query_model(sys.argv[1:])
    if model:
        # The query model's small matrix products run on one BLAS thread: OpenBLAS's threads,
        # meeting the preloading thread or any other load on 2 cores, made a query of 32
        # wordpieces take 0.7 s instead of 36 ms (set before numpy is imported; a user's own
        # setting is kept).
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if model or chinese:
        thread = threading.Thread(target=_load_query_side, args=(model, chinese), daemon=True)
        thread.start()
        atexit.register(thread.join, 60.0)  # never exit inside native loading code (embed.join_at_exit)
        atexit.register(_EXITING.set)  # runs first (last registered): the loader may stop quietly
    from .cli import cli

    cli()
