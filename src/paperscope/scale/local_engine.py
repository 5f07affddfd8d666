"""The local engine of ``paperscope build``: the stages on this machine's processes (the default).

Records are read in this process, chunk by chunk; with one worker each chunk is prepared,
embedded and written here, with more each goes to a worker process (started with ``spawn``) that
loaded the embedder once (``workers`` chunks in flight at most, so memory stays bounded on any file).
Nothing here imports Ray.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..worker_guard import die_with_parent
from . import shards, stages

__all__ = ["ChunkDone", "run_chunk", "run_local"]


@dataclass
class ChunkDone:
    """What one finished chunk reports to the driver (see :mod:`.build`)."""

    file: int
    start: int
    shard: str
    read: int
    papers: int
    skipped: list[tuple[int, str, str]] = field(default_factory=list)
    repaired: list[tuple[int, str, str]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    #: The Ray node that embedded and wrote it ("" on the local engine).
    node: str = ""
    #: What embedded it on that node: "GPU 0" (the Ray actor's GPU ids), "CPU", or "" locally.
    device: str = ""
    #: The last input line the chunk reached (its papers' and skips' lines; 0 when records are
    #: not numbered by line, as in a JSON array): ``build``'s progress in lines of the total.
    lines: int = 0


def write_prepared(out_dir: Path, prepared: stages.Prepared, embedder: Any) -> ChunkDone:
    """Embed a prepared chunk and write its shard; return its report."""
    from ..extract import EXTRACTOR_VERSION

    began = time.perf_counter()
    vectors, n_chunks = stages.embed(prepared.papers, embedder)
    embedded = time.perf_counter()
    name = shards.write_shard(
        out_dir,
        prepared.file,
        prepared.start,
        prepared.items,
        prepared.papers,
        prepared.cards,
        vectors,
        n_chunks,
        embedder.model_id,
        EXTRACTOR_VERSION,
    )
    seconds = {**prepared.seconds, "embed": embedded - began, "write": time.perf_counter() - embedded}
    return ChunkDone(
        prepared.file,
        prepared.start,
        name,
        prepared.read,
        len(prepared.papers),
        prepared.skipped,
        prepared.repaired,
        seconds,
        lines=max(
            [s.line or 0 for p in prepared.papers for s in p.sources]
            + [skip[0] for skip in prepared.skipped],
            default=0,
        ),
    )


def run_chunk(out_dir: Path, file: int, start: int, items: list[Any], fmt: str, embedder: Any) -> ChunkDone:
    """Run every stage on one chunk and write its shard."""
    return write_prepared(out_dir, stages.prepare(file, start, items, fmt), embedder)


_WORKER: dict[str, Any] = {}


def _init_worker(parent: int, name: str, cpus: int) -> None:
    die_with_parent(parent)
    _WORKER["embedder"] = stages.load_embedder(name, cpus)


def _work(out_dir: Path, file: int, start: int, items: list[Any], fmt: str) -> ChunkDone:
    return run_chunk(out_dir, file, start, items, fmt, _WORKER["embedder"])


Event = tuple[str, Any]


def run_local(
    inputs: list[stages.Input],
    out_dir: Path,
    column_map: Mapping[str, str] | None,
    embedder_name: str,
    workers: int = 1,
    on_read: Callable[[int], None] | None = None,
) -> Iterator[Event]:
    """Build the chunks of ``inputs``; yield ``("chunk", ChunkDone)`` or ``("error", (file, reason))``.

    A file that fails part-way yields its error after the chunks it finished (the driver
    drops them). ``on_read`` is called with each chunk's item count as it is read.
    """
    if workers <= 1:
        embedder = stages.load_embedder(embedder_name)
        for item in inputs:
            try:
                for start, chunk in stages.read_chunks(item, column_map):
                    if on_read:
                        on_read(len(chunk))
                    yield "chunk", run_chunk(out_dir, item.index, start, chunk, item.fmt or "", embedder)
            except InputError as exc:
                yield "error", (item.index, str(exc))
        return
    from ..index.embed import prepare_embedder

    prepare_embedder(embedder_name)  # the int8 model is made once, before the workers fork
    cpus = max(1, (os.cpu_count() or 1) // workers)
    # spawn, not fork: a process that already ran the OpenVINO model (a Python caller's earlier
    # build or search) forks children whose first inference hangs (bench/build_stages.py, 2026-12-01).
    context = multiprocessing.get_context("spawn")
    with context.Pool(workers, initializer=_init_worker, initargs=(os.getpid(), embedder_name, cpus)) as pool:
        pending: list[Any] = []
        for item in inputs:
            try:
                for start, chunk in stages.read_chunks(item, column_map):
                    if on_read:
                        on_read(len(chunk))
                    pending.append(
                        pool.apply_async(_work, (out_dir, item.index, start, chunk, item.fmt or ""))
                    )
                    while len(pending) > workers:
                        yield "chunk", pending.pop(0).get()
            except InputError as exc:
                while pending:
                    yield "chunk", pending.pop(0).get()
                yield "error", (item.index, str(exc))
        while pending:
            yield "chunk", pending.pop(0).get()
