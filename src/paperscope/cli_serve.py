"""``paperscope serve``: the web app and JSON API, on loopback unless a token guards it.

Registered on the ``cli`` group by :func:`register` (called from ``cli.py``), as ``build`` is.
Whether a host is loopback and whether a token is long enough is decided in
:mod:`paperscope.web.security`; this module parses the options and starts uvicorn.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from .errors import InputError

#: Seconds an idle keep-alive connection stays open (uvicorn's default is 5). Longer than an
#: HTTP client's own idle limit (httpx: 5 s), so the client closes an idle connection first:
#: with both at 5 s a request sent on a connection the server was closing at that moment failed
#: ("server disconnected", about 1 in 1,000 requests of ``bench/serve_load.py``).
KEEP_ALIVE_S = 65

if TYPE_CHECKING:
    from .library import Library

__all__ = ["register"]


def register(
    cli: click.Group,
    command: Callable[..., Callable[[Callable[..., Any]], click.Command]],
    library: Callable[[click.Context], Library],
) -> None:
    """Add ``serve`` to ``cli``; ``command`` is cli.py's ``_command``, ``library`` its ``_library``."""

    @command()
    @click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
    @click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535))
    @click.option("--get", "get_path", default=None, help="Print the response to one GET path and exit.")
    @click.option(
        "--token",
        envvar="PAPERSCOPE_TOKEN",
        default=None,
        help="Secret every request must carry, 32 characters or more (needed when --host"
        " resolves to any address outside 127.0.0.0/8 and ::1).",
    )
    @click.option(
        "--workers",
        default=1,
        show_default=True,
        type=click.IntRange(1, 64),
        help="Worker processes answering requests over the one library (indexes memory-mapped and"
        " shared, ingest jobs and query vectors shared; writes serialised by SQLite).",
    )
    @click.option(
        "--new-token",
        is_flag=True,
        help="Print a new random token (43 characters) and exit; nothing is served.",
    )
    @click.pass_context
    def serve(
        ctx: click.Context,
        host: str,
        port: int,
        get_path: str | None,
        token: str | None,
        workers: int,
        new_token: bool,
    ) -> None:
        """Serve the JSON API and the web UI (on 127.0.0.1 unless --host and --token say otherwise).

        Example: paperscope serve --port 8765   (or: paperscope serve --get "/api/search?q=pruning")

        A lab's server: paperscope serve --workers 2 --host 0.0.0.0 --token "$(paperscope serve --new-token)"
        """
        from .web import security

        if new_token:
            click.echo(security.new_token())
            return
        token = token or None  # PAPERSCOPE_TOKEN= (set but empty) is no token
        if token is not None:
            try:
                security.check_token(token)
            except InputError as exc:
                raise click.ClickException(f"--token: {exc}") from None
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]  # "[::1]", an IPv6 address as URLs write it: uvicorn binds "::1"
        try:
            loopback = security.is_loopback(host)
        except InputError as exc:
            raise click.ClickException(f"--host {exc}") from None
        if not loopback and token is None:
            raise click.ClickException(
                f"--host {host}: refusing to serve beyond this machine without --token (or PAPERSCOPE_TOKEN)"
                " (make one with `paperscope serve --new-token`)"
            )
        lib = library(ctx)
        if workers > 1 and get_path is None:
            if lib.store.path == ":memory:":
                raise click.ClickException("--workers: an in-memory library cannot be shared; give --db FILE")
            _serve_workers(lib, host, port, token, loopback, workers)
            return
        _serve(ctx, lib, host, port, get_path, token, loopback)


def _check_port(host: str, port: int) -> None:
    """Stop with one line when ``host:port`` cannot be listened on (before the start line).

    With one process uvicorn found a port in use only after the start line, then printed its own
    error and exited with status 3; with several, the workers' sockets share a port by design.

    Raises:
        click.ClickException: the port is in use or cannot be bound here (status 1).
    """
    from .serve_workers import check_free

    try:
        check_free(host, port)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def _serve_workers(
    lib: Library, host: str, port: int, token: str | None, loopback: bool, workers: int
) -> None:
    """Run uvicorn with ``workers`` processes, each building its app in :mod:`paperscope.web.workers`."""
    import os
    import sys

    from .serve_workers import reuse_port_balances
    from .web.security import LOOPBACK_HOSTS, MAX_REQUEST_LINE_BYTES
    from .web.workers import ENV_SETTINGS

    _check_port(host, port)
    db = str(lib.store.path)
    lib.close()  # each worker opens its own
    os.environ[ENV_SETTINGS] = json.dumps(
        {
            "db": db,
            "token": token,
            "allowed_hosts": sorted(LOOPBACK_HOSTS | {host}) if loopback else None,
        }
    )
    click.echo(
        f"paperscope serving {db} at {_base(host, port)}/ with {workers} worker processes"
        " (the web app; JSON API under /api/); Ctrl-C stops",
        err=True,
    )
    # The supervisor is a fresh interpreter (exec: same process id, so Ctrl-C and a service
    # manager's signals reach it). It imports no app, library or model code, so it holds
    # ~15 MB instead of this process's library, models and imports; the workers build their
    # apps themselves. On Linux each worker listens on its own SO_REUSEPORT socket, so the
    # kernel spreads connections over them (paperscope.serve_workers); elsewhere uvicorn's
    # --workers share one socket.
    sys.stdout.flush()
    sys.stderr.flush()
    if reuse_port_balances():
        os.execv(
            sys.executable,
            [
                sys.executable,
                "-m",
                "paperscope.serve_workers",
                f"--workers={workers}",
                f"--host={host}",
                f"--port={port}",
                "--timeout-graceful-shutdown=5",
                f"--timeout-keep-alive={KEEP_ALIVE_S}",
                f"--max-request-line={MAX_REQUEST_LINE_BYTES}",
            ],
        )
    os.execv(
        sys.executable,
        [
            sys.executable,
            "-m",
            "uvicorn",
            "paperscope.web.workers:app_from_environment",
            "--factory",
            f"--workers={workers}",
            f"--host={host}",
            f"--port={port}",
            "--log-level=warning",
            "--timeout-graceful-shutdown=5",
            f"--timeout-keep-alive={KEEP_ALIVE_S}",
            f"--h11-max-incomplete-event-size={MAX_REQUEST_LINE_BYTES}",
        ],
    )


def _base(host: str, port: int) -> str:
    return f"http://{'[' + host + ']' if ':' in host else host}:{port}"


def _serve(
    ctx: click.Context,
    lib: Library,
    host: str,
    port: int,
    get_path: str | None,
    token: str | None,
    loopback: bool,
) -> None:
    """Answer ``get_path`` in process, or run uvicorn on ``host:port`` until Ctrl-C."""
    from .web import create_app
    from .web.security import LOOPBACK_HOSTS, MAX_REQUEST_LINE_BYTES

    allowed = None if get_path is not None or not loopback else LOOPBACK_HOSTS | {host}
    app = create_app(lib, token=token, allowed_hosts=allowed, warm_map=get_path is None)
    if get_path is not None:
        from fastapi.testclient import TestClient

        # The one who holds the token asks: the response is what an authorised client gets.
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        with TestClient(app, raise_server_exceptions=False) as client:
            response = client.get(get_path, headers=headers)
        if response.headers.get("content-type", "").startswith("application/json"):
            click.echo(json.dumps(response.json(), ensure_ascii=False, indent=2))
        else:
            click.echo(response.text)
        if response.status_code >= 400:
            ctx.exit(1)
        return
    import uvicorn

    _check_port(host, port)
    base = _base(host, port)
    click.echo(
        f"paperscope serving {lib.store.path} at {base}/ (the web app;"
        f" JSON API under {base}/api/, its schema at {base}/openapi.json); Ctrl-C stops",
        err=True,
    )
    from threadpoolctl import threadpool_limits

    from .index import minilm

    # Many requests at once: one thread per query embedding and per BLAS call, so concurrent
    # searches share the cores instead of each spreading over all of them (bench/serve_load.py).
    minilm.PARALLEL_QUERIES = True
    with threadpool_limits(limits=1):
        uvicorn.run(
            app,
            host=host,
            port=port,
            log_level="warning",
            timeout_graceful_shutdown=5,
            timeout_keep_alive=KEEP_ALIVE_S,
            # A request line past h11's 16 KiB default got uvicorn's bare "Invalid HTTP request";
            # up to 4 MiB reaches the app, which cuts a long query with a notice and answers
            # a URL past MAX_URL_BYTES with a 414 in the JSON error shape.
            h11_max_incomplete_event_size=MAX_REQUEST_LINE_BYTES,
        )
