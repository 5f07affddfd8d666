"""Say what a wait is doing: a step without a progress bar that outlasts 2 s names itself on stderr.

Counted work reports through :mod:`paperscope.progress`. Some steps have nothing to count (fitting
the recommender's features, loading a model): they are marked with :func:`doing`, which costs
nothing unless a :func:`watch` is active (the CLI runs every command inside one). Under a watch, a
marked step still running after :data:`WAIT_NOTICE_S` seconds prints one line,
``recommend: scoring 4,302 papers against 5 kept papers…``, and nothing when it ends sooner, so
quick commands stay quiet and no command sits silent for longer than that.

    from paperscope.waits import doing
    with doing(f"scoring {n:,} papers against {k} kept papers"):
        ...
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import IO

__all__ = ["WAIT_NOTICE_S", "doing", "watch"]

#: Seconds a marked step may run before it says what it is doing (issue 25: no silent wait over 2 s).
WAIT_NOTICE_S = 2.0


class _Watch:
    def __init__(self, command: str, stream: IO[str], after_s: float) -> None:
        self.command, self.stream, self.after_s = command, stream, after_s
        self.lock = threading.Lock()

    def announce(self, what: str) -> None:
        with self.lock:
            print(f"{self.command}: {what}…", file=self.stream, flush=True)


_active: _Watch | None = None


@contextlib.contextmanager
def doing(what: str) -> Iterator[None]:
    """Mark the block as ``what`` (lower case, no final period): named on stderr if it outlasts the watch's delay.

    Without an active :func:`watch` (the Python API, the web app) it does nothing.
    """
    current = _active
    if current is None:
        yield
        return
    timer = threading.Timer(current.after_s, current.announce, args=(what,))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


@contextlib.contextmanager
def watch(command: str, *, stream: IO[str] | None = None, after_s: float = WAIT_NOTICE_S) -> Iterator[None]:
    """Let the :func:`doing` steps of the block name themselves after ``after_s`` seconds.

    Args:
        command: the prefix of each line (the CLI command's name).
        stream: where lines go (default: ``sys.stderr`` as it is when the block starts).
        after_s: seconds a step runs before its line is printed.
    """
    global _active
    previous = _active
    _active = _Watch(command, stream if stream is not None else sys.stderr, after_s)
    try:
        yield
    finally:
        _active = previous
