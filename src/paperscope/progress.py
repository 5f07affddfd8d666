"""Progress of long work on stderr: a tqdm bar in a terminal or notebook, a line every ~10 s elsewhere.

Every stage that can take more than a few seconds (reading files, cards, embeddings, topics,
eval, int8 preparation) reports through :func:`progress` (items counted) or :func:`steps`
(named steps of one job), and the command ends with one :func:`summary` line of wall time and
throughput. Where stderr is not a terminal (CI, a log file, a pipe) a bar would print hundreds
of carriage returns, and where it is one that cannot draw a bar (``TERM=dumb``, or a terminal
that reports 0 columns, where tqdm draws nothing at all: issue 29) a bar is useless, so a plain
line is written instead: every ``LINE_INTERVAL_S`` seconds (``$PAPERSCOPE_PROGRESS_INTERVAL_S``
when set) for counted items (``cards: 1,200/4,302 (28%), 150 papers/s, ETA 21 s``), and at the
start of each step of a :func:`steps` progress (``topics: 1/6 steps (reduce: UMAP to 5D), 2 s``),
so a step that runs for a minute is never silent about what it is doing.

Stable API for other stages::

    from paperscope.progress import progress, summary
    with progress(total=len(items), desc="cards", unit="papers", enabled=show) as bar:
        for item in items:
            ...
            bar.update(1)
    summary("cards", len(items), elapsed_s, unit="papers", enabled=show)
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, TypeVar

__all__ = [
    "Progress",
    "progress",
    "steps",
    "track",
    "summary",
    "format_rate",
    "format_duration",
    "LINE_INTERVAL_S",
    "in_notebook",
    "observe",
    "is_observed",
    "Observer",
]

#: ``observer(desc, unit, done, total)``: told of every count of the progresses of one thread.
Observer = Callable[[str, str, int, "int | None"], None]
_local = threading.local()


def is_observed() -> bool:
    """Return True when an :func:`observe` block is active in this thread (counting is then worth it)."""
    return getattr(_local, "observer", None) is not None


@contextlib.contextmanager
def observe(observer: Observer) -> Iterator[None]:
    """Tell ``observer`` of every progress made in this thread while the block runs.

    Every :class:`Progress` started in the block calls ``observer(desc, unit, done, total)``
    when it starts and on each update, whether or not it prints (``enabled=False`` too): the
    web app's ingest job reads its live counts this way. Progresses started in other threads
    are not observed. The observer must be quick (it runs inside the work's loop) and must not
    raise.
    """
    previous = getattr(_local, "observer", None)
    _local.observer = observer
    try:
        yield
    finally:
        _local.observer = previous


T = TypeVar("T")

#: Seconds between two progress lines when stderr cannot draw a bar (not a terminal, a dumb one,
#: or one of 0 columns). ``$PAPERSCOPE_PROGRESS_INTERVAL_S``, when set to a positive number of
#: seconds, replaces it (a log that wants a line a second; the tests' short runs).
LINE_INTERVAL_S = 10.0
#: The environment variable that overrides :data:`LINE_INTERVAL_S`.
_INTERVAL_ENV = "PAPERSCOPE_PROGRESS_INTERVAL_S"


def _line_interval_s() -> float:
    """Return ``$PAPERSCOPE_PROGRESS_INTERVAL_S`` when it is a positive number, else :data:`LINE_INTERVAL_S`."""
    try:
        seconds = float(os.environ.get(_INTERVAL_ENV, ""))
    except ValueError:
        return LINE_INTERVAL_S
    return seconds if seconds > 0 else LINE_INTERVAL_S


def in_notebook() -> bool:
    """Return True inside a Jupyter kernel (tqdm.auto then draws a widget instead of text)."""
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    ipython = getattr(shell, "get_ipython", lambda: None)()
    return ipython is not None and "IPKernelApp" in getattr(ipython, "config", {})


def format_rate(count: float, elapsed_s: float, unit: str) -> str:
    """Return the throughput as text: ``"152 papers/s"``, ``"3.5 papers/s"``, ``"0.042 papers/s"``.

    Args:
        count: items done.
        elapsed_s: seconds they took; ``"- papers/s"`` when no time has passed.
        unit: what is counted, plural.
    """
    if elapsed_s <= 0:
        return f"- {unit}/s"
    rate = count / elapsed_s
    if rate >= 10:
        return f"{rate:,.0f} {unit}/s"
    return f"{rate:.1f} {unit}/s" if rate >= 1 else f"{rate:.2g} {unit}/s"


def format_duration(seconds: float) -> str:
    """Return a duration for people: ``"21 s"``, ``"4 min 05 s"``, ``"2 h 07 min"``."""
    if seconds < 59.5:
        return f"{seconds:.0f} s"
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes} min {secs:02d} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _draws_bar(stream: IO[str]) -> bool:
    """Return True when ``stream`` is a terminal a bar can be drawn on.

    Not on ``TERM=dumb`` (no cursor movement; Emacs shells, some CI consoles), and not on a
    terminal that reports 0 columns (a serial console, some containers' pseudo-terminals): tqdm
    sizes its bar from the reported width and draws nothing there, so the work ran silent
    (issue 29). A terminal whose size cannot be read (no file descriptor) keeps the bar.
    """
    if not _isatty(stream) or os.environ.get("TERM") == "dumb":
        return False
    try:
        return os.get_terminal_size(stream.fileno()).columns > 0
    except (AttributeError, OSError, ValueError):
        return True


class Progress:
    """One piece of long work being counted; made by :func:`progress` or :func:`steps`.

    Args:
        total: how many items the work has (None when unknown: no percentage, no ETA).
        desc: what is being done, e.g. ``"embedding"``.
        unit: what is counted, plural (``"papers"``, ``"windows"``, ``"lines"``).
        enabled: False prints nothing at all (counting still works).
        stream: where to write (default ``sys.stderr``). A notebook widget is drawn only for
            the default stream.
        interval_s: seconds between lines when ``stream`` cannot draw a bar (default
            ``$PAPERSCOPE_PROGRESS_INTERVAL_S``, else :data:`LINE_INTERVAL_S`, read when the
            progress starts).
        clock: returns the time in seconds (default ``time.perf_counter``; tests pass a fake).
        is_steps: count named steps (see :func:`steps`): a line is written at each
            :meth:`stage` instead of every ``interval_s``, and bars show no rate or ETA.

    Attributes:
        count: items done so far.
        stage_name: what is being done now (:meth:`stage`), or None.
    """

    def __init__(
        self,
        total: int | None,
        desc: str,
        unit: str = "papers",
        enabled: bool = True,
        stream: IO[str] | None = None,
        interval_s: float | None = None,
        *,
        clock: Callable[[], float] = time.perf_counter,
        is_steps: bool = False,
    ):
        self.total = total
        self.desc = desc
        self.unit = unit
        self.count = 0
        self.stage_name: str | None = None
        self._clock = clock
        self.started = clock()
        self._stream = stream if stream is not None else sys.stderr
        self._interval_s = _line_interval_s() if interval_s is None else interval_s
        self._last_line = self.started
        self._is_steps = is_steps
        self._bar: Any = None
        self._enabled = enabled
        self._observer: Observer | None = getattr(_local, "observer", None)
        if self._observer is not None:
            self._observer(desc, unit, 0, total)
        if not enabled:
            return
        notebook = stream is None and in_notebook()
        if notebook or _draws_bar(self._stream):
            if notebook:
                from tqdm.auto import tqdm
            else:
                from tqdm import tqdm
            bar_format = "{desc}: {n_fmt}/{total_fmt} steps{postfix} [{elapsed}]" if is_steps else None
            self._bar = tqdm(
                total=total,
                desc=desc,
                unit=f" {unit}",
                file=self._stream,
                leave=False,
                dynamic_ncols=True,
                bar_format=bar_format,
            )

    @property
    def elapsed_s(self) -> float:
        """Seconds since the work started."""
        return self._clock() - self.started

    def update(self, n: int = 1) -> None:
        """Count ``n`` more items (or steps) done."""
        self.count += n
        if self._observer is not None:
            self._observer(self.desc, self.unit, self.count, self.total)
        if not self._enabled:
            return
        if self._bar is not None:
            self._bar.update(n)
            return
        if self._is_steps:
            return  # steps write their line when the next one starts (stage)
        now = self._clock()
        if now - self._last_line >= self._interval_s:
            self._last_line = now
            self._write(self.line())

    def stage(self, name: str) -> None:
        """Say what is being done now: a step's name, or the file being read.

        A bar shows it after the count. In line mode a :func:`steps` progress writes its line
        at once (``topics: 2/6 steps (cluster), 31 s``); a counting one adds ``[name]`` to its
        next periodic line.
        """
        self.stage_name = name
        if not self._enabled:
            return
        if self._bar is not None:
            self._bar.set_postfix_str(name, refresh=True)
            return
        if self._is_steps:
            self._last_line = self._clock()
            self._write(self.line())

    def line(self) -> str:
        """Return the plain progress line for the state now (what line mode writes).

        Counting: ``cards: 1,200/4,302 (28%), 150 papers/s, ETA 21 s`` (``[stage]`` appended
        when one is set; no percentage or ETA without a total). Steps:
        ``topics: 2/6 steps (cluster), 31 s``.
        """
        elapsed = self.elapsed_s
        if self._is_steps:
            done = f"{self.count}/{self.total}" if self.total else str(self.count)
            now = f" ({self.stage_name})" if self.stage_name else ""
            return f"{self.desc}: {done} steps{now}, {format_duration(elapsed)}"
        head = f"{self.desc}: {self.count:,}"
        if self.total:
            head += f"/{self.total:,} ({self.count / self.total:.0%})"
        parts = [head, format_rate(self.count, elapsed, self.unit)]
        if self.total and 0 < self.count < self.total:
            parts.append(f"ETA {format_duration((self.total - self.count) * elapsed / self.count)}")
        text = ", ".join(parts)
        return f"{text} [{self.stage_name}]" if self.stage_name else text

    def _write(self, text: str) -> None:
        print(text, file=self._stream, flush=True)

    def close(self) -> None:
        """Remove the bar (a terminal keeps only the summary line, if one is printed)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress(
    iterable: Iterable[Any] | None = None,
    *,
    total: int | None = None,
    desc: str,
    unit: str = "papers",
    enabled: bool = True,
    stream: IO[str] | None = None,
    interval_s: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Progress:
    """Return a :class:`Progress` counting ``total`` items (``len(iterable)`` when it has one).

    Use it as a context manager and call ``update``; to wrap an iterable, use :func:`track`.

    Args:
        iterable: only read for its length when ``total`` is None.
        total: how many items (None: unknown).
        desc: what is being done.
        unit: what is counted, plural.
        enabled: False prints nothing.
        stream: where to write (default ``sys.stderr``).
        interval_s: seconds between lines when ``stream`` cannot draw a bar (default
            ``$PAPERSCOPE_PROGRESS_INTERVAL_S``, else :data:`LINE_INTERVAL_S`).
        clock: returns the time in seconds.
    """
    if total is None and iterable is not None and hasattr(iterable, "__len__"):
        total = len(iterable)
    return Progress(total, desc, unit, enabled, stream, interval_s, clock=clock)


def steps(
    total: int,
    *,
    desc: str,
    enabled: bool = True,
    stream: IO[str] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Progress:
    """Return a :class:`Progress` over the ``total`` named steps of one job.

    Call ``stage(name)`` as each step starts and ``update()`` as it ends. A step can run for
    a minute without any count to report (fitting the topics of a large library), so line mode
    writes ``topics: 1/6 steps (reduce: UMAP to 5D), 2 s`` when each step starts.

    Args:
        total: how many steps.
        desc: the job, e.g. ``"topics"``.
        enabled: False prints nothing.
        stream: where to write (default ``sys.stderr``).
        clock: returns the time in seconds.
    """
    return Progress(total, desc, "steps", enabled, stream, clock=clock, is_steps=True)


def track(iterable: Iterable[T], *, desc: str, **options: Any) -> Iterator[T]:
    """Yield the items of ``iterable``, counting each in a :class:`Progress` closed at the end.

    Args:
        iterable: the items; its length is the total unless ``total`` is given.
        desc: what is being done.
        **options: ``total``, ``unit``, ``enabled``, ``stream``, ``interval_s``, ``clock``, as
            for :func:`progress`.
    """
    with progress(iterable, desc=desc, **options) as bar:
        for item in iterable:
            yield item
            bar.update(1)


def summary(
    desc: str,
    count: int,
    elapsed_s: float,
    unit: str = "papers",
    enabled: bool = True,
    stream: IO[str] | None = None,
) -> str:
    """Print and return the one closing line of a long command.

    ``cards: 4,302 papers in 28.7 s (150 papers/s)``; from a minute on the time reads
    ``in 4 min 05 s``.

    Args:
        desc: the work done.
        count: items done.
        elapsed_s: wall time in seconds.
        unit: what was counted, plural.
        enabled: False returns the line without printing it.
        stream: where to print (default ``sys.stderr``).

    Returns:
        The line, without a newline.
    """
    took = f"{elapsed_s:.1f} s" if elapsed_s < 59.5 else format_duration(elapsed_s)
    line = f"{desc}: {count:,} {unit} in {took} ({format_rate(count, elapsed_s, unit)})"
    if enabled:
        print(line, file=stream if stream is not None else sys.stderr, flush=True)
    return line
