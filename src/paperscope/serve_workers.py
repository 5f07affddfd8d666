"""The supervisor of ``paperscope serve --workers N`` on Linux: N uvicorn processes, a socket each.

uvicorn's own ``--workers`` binds one listening socket in its supervisor and hands it to every
worker. A worker's event loop accepts every connection that is waiting when it wakes, so
connections opened together (a browser's six, a load test's fifty) all land on the worker that
woke first and stay there under keep-alive: in ``bench/serve_load.py --mix search=1`` one of two
workers ran at 0.79 of a core and the other at 0.21 (21.5k papers, this 2-core machine).

Here each worker binds its own socket to the same address with ``SO_REUSEPORT`` (Linux 3.9 and
later), and the kernel spreads new connections over the workers' sockets by a hash of the
client's address and port. Before it starts them the supervisor binds the address once without
``SO_REUSEPORT``, so a port that another program (or another ``serve``) holds is an error, not a
silent share; and it holds a lock file named by the port until it exits, so a second ``serve``
started a moment later (before the first one's workers listen) is refused too. A worker whose
supervisor is gone (killed with SIGKILL) stops within a second instead of keeping the port. A worker that exits after it was serving is started again; one that exits
before it is serving (its app could not be built: the error is printed) stops the server with
exit status 1. SIGINT and SIGTERM stop the workers
(each finishes its requests within ``--timeout-graceful-shutdown`` seconds) and then the
supervisor. It imports only this module and the light package root (no app, library or model
code): about 15 MB.

Run as ``python -m paperscope.serve_workers --workers N --host H --port P`` (``serve`` does);
the workers build their apps with :func:`paperscope.web.workers.app_from_environment`.
"""

from __future__ import annotations

import argparse
import multiprocessing
import signal
import socket
import sys
import time
from typing import Any

__all__ = ["main", "reuse_port_balances", "check_free", "APP"]

#: The app factory every worker calls (``uvicorn --factory``).
APP = "paperscope.web.workers:app_from_environment"
#: Seconds the supervisor waits for its workers after asking them to stop, before killing them.
STOP_WAIT_S = 15.0


def reuse_port_balances() -> bool:
    """True where ``SO_REUSEPORT`` spreads connections over sockets (Linux); else use uvicorn's workers."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _listening_socket(host: str, port: int, backlog: int) -> socket.socket:
    """Return a socket bound to ``host:port`` with ``SO_REUSEPORT`` and listening.

    Made with ``proto=IPPROTO_TCP``: asyncio sets ``TCP_NODELAY`` only on accepted sockets whose
    ``proto`` says TCP, and an accepted socket takes the listening one's. With ``proto`` 0 every
    response written in two parts (headers, then body) waited for the client's delayed ACK on
    a kept-alive connection: a 1 ms ``/api/papers/ID`` took 40-50 ms.
    """
    sock = socket.socket(_family(host), socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    return sock


def check_free(host: str, port: int) -> None:
    """Raise OSError when ``host:port`` cannot be bound by a socket without ``SO_REUSEPORT``.

    Raises:
        OSError: the address is in use (``errno.EADDRINUSE``) or cannot be bound here.
    """
    with socket.socket(_family(host), socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))


def _hold(port: int) -> Any:
    """Return an open file whose exclusive lock says this supervisor serves ``port``.

    A second supervisor of the same port (started a moment later, before the first one's workers
    listen) fails here. The lock goes with the process, even when it is killed.

    Raises:
        OSError: another ``serve`` holds the port (``errno.EADDRINUSE``).
    """
    import errno
    import fcntl
    import tempfile
    from pathlib import Path

    lock = (Path(tempfile.gettempdir()) / f"paperscope-serve-{port}.lock").open("a")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        raise OSError(errno.EADDRINUSE, "Address already in use (by another paperscope serve)") from None
    return lock


def _exit_with_parent(server: Any) -> None:
    """Ask ``server`` to stop once this process's parent (the supervisor) is gone."""
    import os

    parent = os.getppid()
    while not server.should_exit:
        if os.getppid() != parent:
            server.should_exit = True
            return
        time.sleep(0.5)


def _worker(options: dict[str, Any], serving: Any) -> None:
    """One worker process: bind its own socket and run uvicorn on it until told to stop.

    ``serving`` (a multiprocessing Event) is set once uvicorn has built the app and listens.
    """
    import threading

    import uvicorn

    sock = _listening_socket(options["host"], options["port"], options["backlog"])
    config = uvicorn.Config(
        APP,
        factory=True,
        host=options["host"],
        port=options["port"],
        log_level="warning",
        timeout_graceful_shutdown=options["graceful_s"],
        timeout_keep_alive=options["keep_alive_s"],
        h11_max_incomplete_event_size=options["max_line"],
        backlog=options["backlog"],
    )
    server = uvicorn.Server(config)

    def report_serving() -> None:
        while not server.started and not server.should_exit:
            time.sleep(0.05)
        if server.started:
            serving.set()

    threading.Thread(target=report_serving, daemon=True).start()
    threading.Thread(target=_exit_with_parent, args=(server,), daemon=True).start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        # Ctrl-C in a terminal signals the whole process group: uvicorn has shut this worker
        # down gracefully and raises the signal again; the supervisor reports the stop.
        pass


class _Supervisor:
    """Start, watch and stop the worker processes."""

    def __init__(self, workers: int, options: dict[str, Any]):
        self.count = workers
        self.options = options
        self.context = multiprocessing.get_context("spawn")
        self.processes: list[tuple[Any, Any]] = []  # (process, its "serving" event)
        self.stopping = False

    def _start(self) -> tuple[Any, Any]:
        serving = self.context.Event()
        process = self.context.Process(target=_worker, args=(self.options, serving), name="paperscope-worker")
        process.start()
        return process, serving

    def run(self) -> int:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._stop)
        self.processes = [self._start() for _ in range(self.count)]
        status = 0
        while not self.stopping:
            time.sleep(0.2)
            for index, (process, serving) in enumerate(self.processes):
                if self.stopping or process.is_alive():
                    continue
                if not serving.is_set():
                    print(
                        f"paperscope serve: worker {process.pid} failed to start (exit status"
                        f" {process.exitcode}); stopping the server",
                        file=sys.stderr,
                    )
                    self.stopping, status = True, 1
                    break
                print(
                    f"paperscope serve: worker {process.pid} stopped (exit status {process.exitcode});"
                    " starting another",
                    file=sys.stderr,
                )
                self.processes[index] = self._start()
        self._stop_all()
        return status

    def _stop(self, signum: int, frame: Any) -> None:
        self.stopping = True

    def _stop_all(self) -> None:
        for process, _ in self.processes:
            if process.is_alive():
                process.terminate()  # SIGTERM: uvicorn finishes its requests, then exits
        deadline = time.monotonic() + STOP_WAIT_S
        for process, _ in self.processes:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()


def main(argv: list[str] | None = None) -> int:
    """Run the supervisor; return its exit status (0 after a stop, 1 when it could not serve)."""
    parser = argparse.ArgumentParser(prog="python -m paperscope.serve_workers")
    parser.add_argument("--workers", type=int, required=True)
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--timeout-graceful-shutdown", type=int, default=5)
    parser.add_argument("--timeout-keep-alive", type=int, default=5)
    parser.add_argument("--max-request-line", type=int, default=16 * 1024)
    parser.add_argument("--backlog", type=int, default=2048)
    args = parser.parse_args(argv)
    try:
        guard = _hold(args.port)
        check_free(args.host, args.port)
    except OSError as exc:
        print(
            f"paperscope serve: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 1
    options = {
        "host": args.host,
        "port": args.port,
        "graceful_s": args.timeout_graceful_shutdown,
        "keep_alive_s": args.timeout_keep_alive,
        "max_line": args.max_request_line,
        "backlog": args.backlog,
    }
    with guard:
        return _Supervisor(max(1, args.workers), options).run()


if __name__ == "__main__":
    sys.exit(main())
