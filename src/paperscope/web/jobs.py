"""Ingest jobs of the web app: uploaded files are read, carded and embedded on a background thread.

One job runs at a time (ingest writes, and two would only wait for each other's SQLite write
lock); later uploads queue behind it in arrival order, up to ``MAX_QUEUED_JOBS``, beyond which
an upload is refused with a 409. A job opens its own Library on the same file, so searches, page
views and marks keep running on the pooled instances meanwhile and see the new papers as soon
as the job's transactions commit (their caches are keyed on the library's fingerprints). A
``:memory:`` library has only one instance: its job checks it out, and requests wait for it.

Job state lives in memory (a restarted server forgets its jobs; the papers stay stored). A
server of several worker processes (``serve --workers N``) also writes each job's snapshot to a
:class:`~paperscope.web.job_board.JobBoard` in the uploads folder, so any worker answers for any
job, the queue limit counts every worker's jobs, and a lock file there keeps one job running at a
time across the workers.

Retention: an uploaded file is deleted as soon as its job ends, done or failed (or is dropped
from the queue when the server stops), unless the upload asked to keep it (``keep=true``), in
which case it stays in the uploads folder until someone deletes it. The papers' provenance
names the file either way.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from ..config import cache_dir
from ..errors import InputError, ModelUnavailable, NotFound, PaperscopeError
from ..library import Library
from ..models import IngestReport
from ..progress import observe
from .job_board import JobBoard
from .pool import LibraryPool

__all__ = [
    "IngestJob",
    "IngestJobs",
    "QueueFull",
    "MAX_QUEUED_JOBS",
    "MAX_UPLOAD_BYTES",
    "safe_file_name",
    "NAME_PATTERN",
    "uploads_dir_for",
]

#: Jobs that may wait behind the running one.
MAX_QUEUED_JOBS = 8
#: Default upload limit: 50 MiB (the largest list of ../shared/data, all of ICLR, is 30 MB);
#: ``PAPERSCOPE_MAX_UPLOAD_MB`` changes it.
MAX_UPLOAD_BYTES = int(float(os.environ.get("PAPERSCOPE_MAX_UPLOAD_MB", "50") or 50) * 1024 * 1024)
#: Finished jobs kept for GET /api/ingest/{job_id}; older ones are forgotten.
KEPT_JOBS = 100
#: (progress desc, unit) of the ingest's stages → the job's phase (other progresses are inner steps).
_PHASES = {("reading", "lines"): "read", ("cards", "papers"): "cards", ("embedding", "papers"): "embed"}
_NAME_CHARS = re.compile(r"[^\w.\- ]+")
#: What an upload's ``name`` must match (ECMA-262, as in JSON Schema): an ASCII letter or digit
#: after the last slash or backslash.
NAME_PATTERN = r"[A-Za-z0-9][^/\\]*$"
_MAX_NAME_CHARS = 120
#: Seconds between two board writes of one job's progress (phase changes are written at once).
BOARD_PROGRESS_INTERVAL_S = 0.25


class QueueFull(PaperscopeError):
    """``MAX_QUEUED_JOBS`` uploads are already waiting (the web app answers 409)."""

    http_status = 409


def safe_file_name(name: str) -> str:
    """Return ``name`` as a plain file name that cannot leave its folder.

    Only the part after the last forward or back slash is kept, and it must hold an ASCII letter
    or digit (:data:`NAME_PATTERN`, the rule ``/openapi.json`` states). Characters other than
    letters, digits, ``.``, ``-``, ``_`` and spaces become ``_``, leading dots and spaces go (no
    hidden files, no ``..``), and the name is cut to 120 characters keeping its extension
    (format detection reads it).

    Raises:
        InputError: the last part of the name holds no ASCII letter or digit.
    """
    base = re.split(r"[/\\]", name)[-1]
    if not re.search(r"[A-Za-z0-9]", base):
        raise InputError(
            f"name {name!r} is not a usable file name: give the list's own name, e.g. ?name=papers.txt"
        )
    base = _NAME_CHARS.sub("_", base).strip().lstrip(". ")
    if len(base) > _MAX_NAME_CHARS:
        stem, dot, ext = base.rpartition(".")
        ext = ext[:16] if dot else ""
        keep = _MAX_NAME_CHARS - len(ext) - 1
        head = (stem if dot else base)[:keep]
        if not re.search(r"[A-Za-z0-9]", head + ext):  # the letters are further on: keep those
            head = (stem if dot else base)[-keep:]
        base = head.strip().lstrip(". ") + (f".{ext}" if ext else "")
    return base


def uploads_dir_for(db_path: str) -> Path:
    """Return the folder uploads of the library at ``db_path`` are stored in.

    ``NAME.uploads`` beside the database file ``NAME.db``; for a ``:memory:`` library a
    folder of its own under ``$PAPERSCOPE_CACHE/uploads``.
    """
    if db_path == ":memory:":
        return cache_dir() / "uploads" / f"memory-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    db = Path(db_path)
    return db.with_name(f"{db.stem}.uploads")


@dataclass
class IngestJob:
    """One uploaded file on its way into the library (fields as in the API's IngestJobModel)."""

    job_id: str
    name: str
    path: Path
    state: str = "queued"
    phase: str | None = None
    done: int = 0
    total: int | None = None
    report: dict[str, Any] | None = None
    new_paper_ids: list[str] = field(default_factory=list)
    error: str | None = None
    #: Whether the uploaded file stays after the job ends (else it is deleted then).
    keep: bool = False
    started_at: float | None = None
    finished_at: float | None = None
    #: Unix time of the upload (orders jobs across the workers of one server).
    created: float = field(default_factory=JobBoard.now)
    #: Held while the worker changes the job and while a snapshot reads it (shared with IngestJobs).
    lock: Any = field(default_factory=threading.Lock, repr=False)

    def set_phase(self, phase: str, done: int, total: int | None) -> None:
        """Set the phase and its counts together (a snapshot never mixes two phases)."""
        with self.lock:
            self.phase, self.done, self.total = phase, done, total


class IngestJobs:
    """The queue of ingest jobs of one app, run one at a time on a worker thread.

    Args:
        pool: the app's library pool (a job opens its own instance, or checks out the only one).
        uploads_dir: where uploads are stored (created on first use).
        shared: this app is one of several worker processes on the library: jobs are written to
            the uploads folder's :class:`JobBoard` and run one at a time across the workers.
    """

    def __init__(self, pool: LibraryPool, uploads_dir: Path, shared: bool = False):
        self.pool = pool
        self.uploads_dir = uploads_dir
        self.board = JobBoard(uploads_dir) if shared else None
        self._published: dict[str, tuple[float, str | None]] = {}
        self._jobs: dict[str, IngestJob] = {}
        self._order: list[str] = []
        self._queue: queue.Queue[IngestJob | None] = queue.Queue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- uploads ----------------------------------------------------------------------------
    def new_upload_path(self, name: str) -> Path:
        """Reserve a free path for the upload ``name`` in the uploads folder and return it.

        The path is ``name``, else ``stem-2.ext``, ``stem-3.ext``, …; an empty file is created
        there at once, so two uploads of one name never share a path (the caller replaces it
        with the upload, or deletes it).

        Raises:
            InputError: the name is not usable (see :func:`safe_file_name`).
        """
        name = safe_file_name(name)
        self.uploads_dir.mkdir(parents=True, exist_ok=True)
        stem, dot, ext = name.rpartition(".")
        if not dot:
            stem, ext = name, ""
        for n in range(1, 10_000):
            candidate = name if n == 1 else (f"{stem}-{n}.{ext}" if ext else f"{stem}-{n}")
            path = self.uploads_dir / candidate
            if path.resolve().parent != self.uploads_dir.resolve():  # cannot happen after safe_file_name
                raise InputError(f"name {name!r} would leave the uploads folder")
            try:
                path.open("xb").close()
            except FileExistsError:
                continue
            return path
        raise InputError(f"too many uploads named {name!r}; rename the file")

    # -- jobs -------------------------------------------------------------------------------
    def submit(self, path: Path, keep: bool = False) -> IngestJob:
        """Queue the stored upload at ``path``; return its job.

        Args:
            path: the stored upload (in the uploads folder).
            keep: keep the file after the job ends; by default it is deleted then.

        Raises:
            QueueFull: ``MAX_QUEUED_JOBS`` jobs are already waiting.
        """
        self.sweep_abandoned()
        with self._lock:
            if self._closed:
                raise QueueFull("the server is shutting down; upload again after it restarts")
            if self.board is not None:
                waiting = self.board.count_live(("queued",))
            else:
                waiting = sum(1 for j in self._jobs.values() if j.state == "queued")
            if waiting >= MAX_QUEUED_JOBS:
                raise QueueFull(
                    f"{waiting} uploads are already waiting to be ingested; upload again when one is done"
                )
            job = IngestJob(
                job_id=uuid.uuid4().hex[:16], name=path.name, path=path, keep=keep, lock=self._lock
            )
            self._jobs[job.job_id] = job
            self._order.append(job.job_id)
            self._forget_old()
            self._publish(job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="paperscope-ingest", daemon=True)
                self._thread.start()
        self._queue.put(job)
        return job

    def get(self, job_id: str) -> dict[str, Any]:
        """Return a snapshot of the job (the IngestJobModel shape).

        Raises:
            NotFound: no job has this id (or it finished long ago and was forgotten).
        """
        with self._lock:
            job = self._jobs.get(job_id)
            if job is not None:
                return self._snapshot(job)
        shared = None
        if self.board is not None:
            self.sweep_abandoned()  # another worker's job: it may have died with it
            shared = self.board.get(job_id)
        if shared is None:
            raise NotFound(f"no ingest job {job_id!r} (jobs are forgotten when the server restarts)")
        return shared

    def sweep_abandoned(self) -> int:
        """Fail the board's jobs whose worker died and delete their uploads (unless kept); return how many.

        A worker killed mid-job (OOM, ``kill -9``) never reaches its own clean-up, so the live
        workers do it: on each upload and each lookup of a job this worker does not hold. A
        no-op without a board (one process: its jobs die with it, and a restarted server
        cannot tell a left-over upload from a kept one). A board that cannot be read is skipped.
        """
        if self.board is None:
            return 0
        try:
            claimed = self.board.claim_abandoned()
        except sqlite3.Error:
            return 0
        for snapshot in claimed:
            name = str(snapshot.get("name") or "")
            if name and not snapshot.get("keep") and PurePath(name).name == name and name[0] != ".":
                (self.uploads_dir / name).unlink(missing_ok=True)
        return len(claimed)

    def _snapshot(self, job: IngestJob) -> dict[str, Any]:
        """The job as the API shows it (the caller holds ``self._lock``)."""
        ahead = 0
        if job.state == "queued" and self.board is not None:
            ahead = self.board.count_live(("queued", "running"), before=job.created)
        elif job.state == "queued":
            ahead = sum(
                1
                for other in self._order[: self._order.index(job.job_id)]
                if self._jobs[other].state in ("queued", "running")
            )
        now = job.finished_at or time.perf_counter()
        return {
            "job_id": job.job_id,
            "name": job.name,
            "state": job.state,
            "phase": job.phase,
            "done": job.done,
            "total": job.total,
            "report": job.report,
            "new_paper_ids": list(job.new_paper_ids),
            "error": job.error,
            "keep": job.keep,
            "queued_ahead": ahead,
            "elapsed_s": round(now - job.started_at, 3) if job.started_at is not None else None,
        }

    def _publish(self, job: IngestJob, progress: bool = False) -> None:
        """Write the job's snapshot to the board (if any); ``progress`` writes are throttled.

        The caller holds ``self._lock``. A failed write (a locked or deleted board) is skipped:
        the next change writes again, and the worker that holds the job answers from memory.
        """
        if self.board is None:
            return
        now = time.monotonic()
        last, phase = self._published.get(job.job_id, (0.0, None))
        if progress and phase == job.phase and now - last < BOARD_PROGRESS_INTERVAL_S:
            return
        self._published[job.job_id] = (now, job.phase)
        with contextlib.suppress(sqlite3.Error):
            self.board.put(self._snapshot(job), job.created)

    def wait(self, job_id: str, timeout_s: float = 60.0) -> dict[str, Any]:
        """Return the job once it is done or failed (for tests and scripts), polling every 20 ms.

        Raises:
            NotFound: no such job.
            TimeoutError: it is still queued or running after ``timeout_s``.
        """
        deadline = time.monotonic() + timeout_s
        while True:
            snapshot = self.get(job_id)
            if snapshot["state"] in ("done", "failed"):
                return snapshot
            if time.monotonic() > deadline:
                raise TimeoutError(f"ingest job {job_id} still {snapshot['state']} after {timeout_s} s")
            time.sleep(0.02)

    def close(self, timeout_s: float = 5.0) -> None:
        """Stop taking jobs, give the running one ``timeout_s`` to finish, drop the queued ones.

        A job still running then dies with the process: its file's open transaction is rolled
        back by SQLite, and uploading the file again ingests it (re-ingest is idempotent).
        """
        with self._lock:
            self._closed = True
            thread = self._thread
            for job in self._jobs.values():
                if job.state == "queued":
                    job.state, job.error = "failed", "the server stopped before this upload was ingested"
                    self._discard_upload(job)
                    self._publish(job)
        self._queue.put(None)
        if thread is not None:
            thread.join(timeout_s)

    def _forget_old(self) -> None:
        finished = [j for j in self._order if self._jobs[j].state in ("done", "failed")]
        for job_id in finished[: max(0, len(finished) - KEPT_JOBS)]:
            self._order.remove(job_id)
            del self._jobs[job_id]
            self._published.pop(job_id, None)
        if self.board is not None:
            with contextlib.suppress(sqlite3.Error):
                self.board.forget(KEPT_JOBS)

    # -- the worker -------------------------------------------------------------------------
    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            if job.state != "queued":
                continue
            with self._one_at_a_time():
                self._work_on(job)

    @contextlib.contextmanager
    def _one_at_a_time(self) -> Iterator[None]:
        """Across the workers of a shared server, hold the uploads folder's ingest lock."""
        if self.board is None:
            yield
            return
        from filelock import FileLock

        with FileLock(self.uploads_dir / ".ingest.lock"):
            yield

    def _work_on(self, job: IngestJob) -> None:
        with self._lock:
            job.state, job.started_at = "running", time.perf_counter()
            self._publish(job)
        try:
            try:
                with self._library() as library:
                    self._run(job, library)
            finally:  # before the state says the job ended: a client never sees it otherwise
                self._discard_upload(job)
        except Exception as exc:  # reported in the job's error; the worker goes on
            with self._lock:
                job.state, job.error = "failed", self._scrub(job, f"{type(exc).__name__}: {exc}")
                if isinstance(exc, PaperscopeError):
                    job.error = self._scrub(job, str(exc))
        else:
            with self._lock:
                job.state = "done"
        finally:
            with self._lock:
                job.finished_at = time.perf_counter()
                self._publish(job)

    @staticmethod
    def _discard_upload(job: IngestJob) -> None:
        """Delete the job's uploaded file unless it was uploaded with ``keep`` (see the module doc)."""
        if not job.keep:
            job.path.unlink(missing_ok=True)

    @contextlib.contextmanager
    def _library(self) -> Iterator[Library]:
        if self.pool.is_shareable:
            library = self.pool.open_library()
            try:
                yield library
            finally:
                library.close()
        else:
            with self.pool.checkout() as library:
                yield library

    def _run(self, job: IngestJob, library: Library) -> None:
        """Read, card and embed the job's file, keeping its phase and counts live."""
        conn = library.store.conn
        (before,) = conn.execute("SELECT coalesce(max(rowid), 0) FROM papers").fetchone()

        def seen(desc: str, unit: str, done: int, total: int | None) -> None:
            phase = _PHASES.get((desc, unit))
            if phase is not None:
                job.set_phase(phase, done, total)
                with self._lock:
                    self._publish(job, progress=True)

        job.set_phase("read", 0, None)
        with observe(seen):
            report = library.ingest([job.path], embed=False)
            if not report.rolled_back:
                started = time.perf_counter()
                try:
                    embedded = library.embed()
                except ModelUnavailable as exc:  # no model here: the papers are stored, BM25 finds them
                    report.warnings.append(f"not embedded ({exc}); keyword search finds the new papers")
                    embedded = 0
                report.phases["embed"] = {"count": embedded, "elapsed_s": time.perf_counter() - started}
        job.new_paper_ids = [
            r[0]
            for r in conn.execute("SELECT paper_id FROM papers WHERE rowid > ? ORDER BY rowid", (before,))
        ]
        job.report = self._report(job, report)
        failed = [f.error for f in report.files if f.error]
        if failed:  # the job's one file could not be read: the job failed, and says why
            raise InputError(failed[0])
        job.set_phase("done", job.done, job.total)

    def _scrub(self, job: IngestJob, text: str) -> str:
        """Return ``text`` with the uploads folder cut from every path (file names only leave).

        The folder is cut in each form a reader may print it: as given (relative, with a relative
        ``--db``), absolute and with links resolved, longest first.
        """
        for form in _path_forms(job.path):
            text = text.replace(form, job.name)
        for form in _path_forms(self.uploads_dir):
            text = text.replace(form + os.sep, "").replace(form, "uploads")
        return text

    def _report(self, job: IngestJob, report: IngestReport) -> dict[str, Any]:
        """Return the ingest report as JSON, with file names instead of local paths."""
        data = report.to_dict()

        def skips(items: list[Any]) -> list[dict[str, Any]]:
            return [
                {"path": job.name, "line": s.line, "unit": s.unit, "reason": self._scrub(job, s.reason)}
                for s in items
            ]

        data["warnings"] = [self._scrub(job, w) for w in report.warnings]
        data["files"] = [
            {
                "path": PurePath(f.path).name,  # the job reads one file: its name, never a folder
                "format": f.format,
                "read": f.read,
                "new": f.new,
                "present": f.present,
                "merged": f.merged,
                "skipped": skips(f.skipped),
                "repaired": skips(f.repaired),
                # Kept as two papers: a shared id with clearly different text (no local path inside).
                "conflicts": [c.to_dict() for c in getattr(f, "conflicts", [])],
                "error": self._scrub(job, f.error) if f.error else None,
                "ignored": f.ignored,
            }
            for f in report.files
        ]
        return data


def _path_forms(path: Path) -> list[str]:
    """Return ``path`` as given, absolute and resolved: the forms a message may hold, longest first."""
    return sorted({str(path), str(path.absolute()), str(path.resolve())}, key=len, reverse=True)
