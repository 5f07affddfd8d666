"""Worker processes that die with their parent: a SIGKILLed paperscope leaves no worker behind.

``multiprocessing`` and ``concurrent.futures`` workers wait on a pipe that they hold open
themselves, so a parent killed with SIGKILL (no ``atexit``, no ``finally``) left its forked card
workers (245 MB each) running for minutes (issue 13). Every pool paperscope starts runs
:func:`die_with_parent` in each worker first.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

__all__ = ["die_with_parent", "process_running", "POLL_S"]

#: Seconds between a worker's checks that its parent is still alive (where prctl is missing).
POLL_S = 0.5
_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """Make this (worker) process end as soon as ``parent_pid`` is gone.

    On Linux the kernel sends SIGKILL when the parent dies (``prctl(PR_SET_PDEATHSIG)``); a
    daemon thread also checks every ``POLL_S`` seconds that the parent is still this process's
    parent (elsewhere, and in case the pool was started from a thread that ended), and exits
    at once when it is not. Call it as the pool's ``initializer`` with ``os.getpid()`` of the
    parent.
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before the line above ran
        os._exit(1)
    threading.Thread(target=_watch, args=(parent_pid,), name="paperscope-parent-watch", daemon=True).start()


def _watch(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(POLL_S)
    os._exit(1)


def process_running(pid: int) -> bool:
    """Return True when a process with id ``pid`` exists on this host (signal 0 sends nothing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by another user
        return True
    return True
