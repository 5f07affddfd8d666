"""The app of one worker process of ``paperscope serve --workers N``.

uvicorn starts each worker as a fresh process (``spawn``) and builds its app by calling
:func:`app_from_environment`, which reads what ``serve`` decided from environment variables
(the library file, the token, the allowed hosts), opens the library and builds the app with
``shared_jobs=True``. What the workers share, and how:

- the library file: each worker has its own SQLite connections; writes are serialised by
  SQLite's lock as with one worker, and every worker sees committed papers on its next search
  (the caches are keyed on the library's fingerprints);
- the indexes: the dense vectors and the BM25 postings are memory-mapped from the cache folder,
  so their pages are the operating system's page cache, held once for all workers;
- ingest jobs: the job board in the uploads folder (:mod:`paperscope.web.job_board`);
- query vectors: a SQLite cache beside the index caches (``query_vectors.sqlite``), so a query
  one worker embedded is not embedded again by another (:mod:`paperscope.index.query_cache`).
"""

from __future__ import annotations

import json
import os
from typing import Any

from fastapi import FastAPI

__all__ = ["app_from_environment", "ENV_SETTINGS", "WORKER_HEADER"]

#: The response header naming the worker process that answered.
WORKER_HEADER = "X-Paperscope-Worker"

#: The environment variable ``serve`` passes its settings to the workers in (JSON:
#: ``db``, ``token``, ``allowed_hosts``).
ENV_SETTINGS = "PAPERSCOPE_SERVE_SETTINGS"


def app_from_environment() -> FastAPI:
    """Open the library named in ``$PAPERSCOPE_SERVE_SETTINGS`` and return its shared-worker app.

    Raises:
        KeyError: the variable is not set (this factory is only for ``serve --workers``).
    """
    from ..index import minilm, query_cache
    from ..library import Library
    from . import create_app
    from .security import HttpMiddleware

    settings = json.loads(os.environ[ENV_SETTINGS])
    from threadpoolctl import threadpool_limits

    # As with one worker (cli_serve.py): one thread per query embedding and per BLAS call.
    minilm.PARALLEL_QUERIES = True
    threadpool_limits(limits=1)
    query_cache.share_query_vectors()
    library = Library(settings["db"])
    hosts = settings.get("allowed_hosts")
    app = create_app(
        library,
        token=settings.get("token"),
        allowed_hosts=set(hosts) if hosts is not None else None,
        warm_map=True,
        shared_jobs=True,
    )
    worker = str(os.getpid())

    header = (WORKER_HEADER.lower().encode("latin-1"), worker.encode("latin-1"))

    class _NameTheWorker(HttpMiddleware):
        # Which process answered: for logs and for the test that ingests through one worker
        # and reads through another (a process id says nothing beyond this machine).
        async def http(self, scope: Any, receive: Any, send: Any) -> None:
            async def named(message: Any) -> None:
                if message["type"] == "http.response.start":
                    message["headers"] = [*message.get("headers", ()), header]
                await send(message)

            await self.inner(scope, receive, named)

    app.add_middleware(_NameTheWorker)

    return app
