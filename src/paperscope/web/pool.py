"""A pool of Library instances on one SQLite file, so web requests run side by side.

Each pooled :class:`~paperscope.library.Library` has its own SQLite connection (the file is in
WAL mode: readers never wait for a writer, writers wait for each other through SQLite's busy
timeout), and a request checks one out for its whole duration, so no two threads ever share a
connection or a Library's in-memory caches. The embedding model is shared by the whole
process: ``get_embedder`` loads it once, and encoding a query is thread-safe (the tokenizer
only reads its settings; OpenVINO's single-query infer request has its own lock, the
onnxruntime session and the multi-stream request queue are safe to call from several threads).

The pooled libraries cache their BM25 statistics and dense index keyed on the library's
fingerprints (max rowid, generation), so papers that another instance (an ingest job)
writes are seen by every instance on its next search.

A ``:memory:`` library, or one that was given an Embedder object (which may not be safe to call
from two threads), cannot be opened twice: its pool holds just that one Library, and a
checkout waits for the previous one (the old global lock).
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Iterator

from ..errors import InputError, PaperscopeError
from ..library import Library

__all__ = ["LibraryPool", "PoolBusy", "DEFAULT_POOL_SIZE", "CHECKOUT_TIMEOUT_S", "SEARCH_SLOTS"]


#: Libraries opened at most (lazily, one more each time all are busy). Requests beyond this wait
#: for one to come back: on 2 cores, 4 instances keep a slow request (a topic fit, a hybrid search
#: loading the model) from blocking the quick ones, and each costs only a connection and caches
#: that are memory-mapped from the same files.
def _count_from_environment(name: str, default: int) -> int:
    """Return the whole number >= 1 in ``$name`` (``default`` when unset or empty).

    Raises:
        InputError: the value is not a whole number of 1 or more.
    """
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit() or int(text) < 1:
        raise InputError(f"{name} must be a whole number of 1 or more, got {text!r}")
    return int(text)


DEFAULT_POOL_SIZE = _count_from_environment("PAPERSCOPE_WEB_POOL", 4)
#: Seconds a request waits for a free Library before it gets a 503.
CHECKOUT_TIMEOUT_S = 30.0
#: Searches (and related-paper lookups) that run at once in one server process. A search is
#: CPU work, mostly under the GIL: four at once in one process answered 77 searches/s where one
#: or two answered 94-96/s (21.5k papers, ``bench/serve_load.py --mix search=1``, 1 worker, same
#: session), as threads beyond two only wait for the GIL and evict each other's caches. Two keep
#: a search's native parts (SQLite, numpy, OpenVINO) overlapping another's Python.
SEARCH_SLOTS = _count_from_environment("PAPERSCOPE_WEB_SEARCHES", 2)


class PoolBusy(PaperscopeError):
    """Every pooled Library stayed busy for ``CHECKOUT_TIMEOUT_S`` (the web app answers 503)."""

    http_status = 503


def configure_for_server(library: Library) -> Library:
    """Make ``library`` fit to answer web requests: a search never embeds papers inline.

    Embedding belongs to ingest (its background job embeds the new papers); while vectors are
    missing, a search answers from BM25 and its ``search_notice`` says so.
    """
    library.search_embed_max_papers = 0
    return library


class LibraryPool:
    """Hand out Library instances opened on the same file, one request at a time each.

    Args:
        library: the first instance (the caller keeps owning it and closes it).
        size: most instances open at once (1 for ``:memory:`` or an Embedder object).
        timeout_s: seconds :meth:`checkout` waits for a free instance.
    """

    def __init__(
        self, library: Library, size: int = DEFAULT_POOL_SIZE, timeout_s: float = CHECKOUT_TIMEOUT_S
    ):
        self.primary = configure_for_server(library)
        self.db_path = library.store.path
        self.embedder_name = library.embedder_name
        #: True when more Library instances can be opened on the same file (a job gets its own).
        self.is_shareable = self.db_path != ":memory:" and self.embedder_name is not None
        self.size = max(1, size) if self.is_shareable else 1
        self.timeout_s = timeout_s
        self._idle: queue.LifoQueue[Library] = queue.LifoQueue()  # the warmest instance first
        self._idle.put(library)
        self._opened: list[Library] = []  # instances this pool opened (and closes)
        self._lock = threading.Lock()
        self._closed = False
        self._searches = threading.BoundedSemaphore(max(1, SEARCH_SLOTS))

    def open_library(self) -> Library:
        """Open one more Library on the same file (the caller closes it).

        Raises:
            PaperscopeError: the library is ``:memory:`` or was given an Embedder object.
            StoreError: the file cannot be opened.
        """
        if not self.is_shareable:
            raise PaperscopeError("this library cannot be opened twice (in memory, or a custom embedder)")
        return configure_for_server(Library(self.db_path, embedder=self.embedder_name))

    def _take(self) -> Library:
        with contextlib.suppress(queue.Empty):
            return self._idle.get_nowait()
        with self._lock:
            grow = not self._closed and 1 + len(self._opened) < self.size
            if grow:
                library = self.open_library()
                self._opened.append(library)
                return library
        try:
            return self._idle.get(timeout=self.timeout_s)
        except queue.Empty:
            raise PoolBusy(
                f"the server is busy: all {self.size} library connections stayed in use for "
                f"{self.timeout_s:g} s; try again"
            ) from None

    @contextlib.contextmanager
    def checkout(self) -> Iterator[Library]:
        """Yield a Library for this thread's use only; it goes back to the pool afterwards.

        Raises:
            PoolBusy: none became free within ``timeout_s``.
        """
        library = self._take()
        try:
            yield library
        finally:
            self._idle.put(library)

    @contextlib.contextmanager
    def searching(self) -> Iterator[None]:
        """Hold one of the process's ``SEARCH_SLOTS`` while a search runs (see there).

        Raises:
            PoolBusy: no slot became free within ``timeout_s``.
        """
        if not self._searches.acquire(timeout=self.timeout_s):
            raise PoolBusy(f"the server is busy: searches stayed queued for {self.timeout_s:g} s; try again")
        try:
            yield
        finally:
            self._searches.release()

    def warm(self, query: str = "graph neural networks") -> int:
        """Open every instance and load its search indexes with one search each; return how many.

        For a server's start (``paperscope serve`` runs it on a thread): each instance loads its
        own dense index and BM25 statistics on its first search (hundreds of ms at 20k papers,
        mostly under the GIL), which made the first seconds of a load test ten times slower than
        the rest. The instances are held together while warming so that the pool opens all of
        them; a failing search is left for the first request to report. Then the recommendation
        features are built when the queue will need them (:meth:`Library.warm_recommendations`).
        """
        held = []
        try:
            for _ in range(self.size):
                held.append(self._take())
            for library in held:
                with contextlib.suppress(Exception):
                    library.search(query, limit=1)
            if held:  # the features are the process's: one instance builds them for all
                with contextlib.suppress(Exception):
                    held[0].warm_recommendations()
        finally:
            for library in held:
                self._idle.put(library)
        return len(held)

    def close(self) -> None:
        """Close the instances this pool opened (not the caller's ``library``)."""
        with self._lock:
            self._closed = True
            opened, self._opened = self._opened, []
        for library in opened:
            library.close()
