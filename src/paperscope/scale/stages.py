"""The stages of ``paperscope build``, as pure functions over one chunk of a file's records.

A chunk is ``CHUNK_ITEMS`` consecutive items (records and reader skips) of one input file,
the same batches ``paperscope ingest`` stores, so ``load`` can store them batch for batch as
ingest would. Every engine runs the same functions: :func:`read_chunks` (the ingest readers,
streaming), :func:`prepare` (repair, clean, the ``MAX_ABSTRACT_CHARS`` skip, full cards) and
:func:`embed` (the text ``paperscope embed`` would embed, in its batches of ``EMBED_BATCH``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..extract import build_card
from ..ingest import paperlist_json
from ..ingest.fields import parse_column_map
from ..ingest.formats import NotAPaperList, get_reader
from ..ingest.pipeline import (
    MAX_ABSTRACT_CHARS,
    _resolve_format,
    expand_paths,
    record_to_paper,
    repair_record,
)
from ..models import Card, Paper, Record, Skip

__all__ = [
    "CHUNK_ITEMS",
    "Input",
    "Prepared",
    "plan_inputs",
    "read_chunks",
    "prepare",
    "embed",
    "embedder_name",
    "load_embedder",
]

#: Items (records and skips) per chunk: ingest's batch (``pipeline._BATCH``), so ``load`` stores
#: the same batches in the same transactions as ``ingest`` would.
CHUNK_ITEMS = 1000


@dataclass
class Input:
    """One input file of a build: its position in source order and how to read it.

    ``error`` or ``ignored`` is set for a file that is not read (as ingest reports them).
    """

    index: int
    path: str
    fmt: str | None = None
    size: int = 0
    mtime_ns: int = 0
    error: str | None = None
    ignored: str | None = None

    @property
    def key(self) -> str:
        """What identifies this file's content for the build manifest: path, size and mtime."""
        return f"{self.path}\x00{self.size}\x00{self.mtime_ns}"


@dataclass
class Prepared:
    """One chunk after :func:`prepare`: its papers (with item index), their cards, its skips."""

    file: int
    start: int
    read: int
    items: list[int] = field(default_factory=list)
    papers: list[Paper] = field(default_factory=list)
    cards: list[Card] = field(default_factory=list)
    skipped: list[tuple[int, str, str]] = field(default_factory=list)
    repaired: list[tuple[int, str, str]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)


def plan_inputs(
    sources: list[str], fmt: str | None = None, column_map: Mapping[str, str] | str | None = None
) -> list[Input]:
    """Return the input files ``sources`` name, in ingest's order, each with its format.

    Folders are walked as ingest walks them (:func:`paperscope.ingest.pipeline.expand_paths`);
    a file that cannot be read or is not a paper list gets ``error`` (named on the command
    line) or ``ignored`` (met in a folder), as in an ingest report.

    Raises:
        InputError: ``fmt`` is not a known format or ``column_map`` is malformed.
    """
    columns = parse_column_map(column_map) if isinstance(column_map, str) else dict(column_map or {})
    if fmt:
        get_reader(fmt)
    out: list[Input] = []
    for path, from_folder, ignored in expand_paths(sources):
        item = Input(index=len(out), path=str(path), ignored=ignored)
        out.append(item)
        if ignored:
            continue
        try:
            item.fmt = _resolve_format(path, from_folder, fmt, columns)
            stat = path.stat()
            item.size, item.mtime_ns = stat.st_size, stat.st_mtime_ns
        except NotAPaperList as exc:
            if from_folder:
                item.ignored = exc.reason
            else:
                item.error = str(exc)
        except (InputError, OSError) as exc:
            item.error = str(exc)
    return out


def read_chunks(
    item: Input, column_map: Mapping[str, str] | None = None
) -> Iterator[tuple[int, list[Record | Skip]]]:
    """Yield ``(start, items)``: the file's records and skips, ``CHUNK_ITEMS`` at a time, streaming.

    Raises:
        InputError: the file is malformed part-way (its chunks so far are not to be kept).
    """
    reader = get_reader(item.fmt or "")
    chunk: list[Record | Skip] = []
    start = 0
    for entry in reader(Path(item.path), dict(column_map) if column_map else None):
        chunk.append(entry)
        if len(chunk) >= CHUNK_ITEMS:
            yield start, chunk
            start += len(chunk)
            chunk = []
    if chunk:
        yield start, chunk


def prepare(file: int, start: int, items: list[Record | Skip], fmt: str) -> Prepared:
    """Repair and clean each record, skip what ingest skips, and build each paper's full card.

    The card is :func:`paperscope.extract.build_card` of the paper without a vector (the
    text-only area), as ``Library.build_cards`` builds it right after an ingest.
    """
    unit = "record" if fmt == paperlist_json.FORMAT_ARRAY else "line"
    out = Prepared(file=file, start=start, read=len(items))
    began = time.perf_counter()
    for offset, entry in enumerate(items):
        if isinstance(entry, Skip):
            out.skipped.append((entry.line, entry.reason, entry.unit))
            continue
        removed = repair_record(entry)
        paper = record_to_paper(entry)
        line = entry.source.line
        if removed:
            codes = ", ".join(sorted({f"U+{ord(c):04X}" for c in removed}))
            out.repaired.append((line, f"removed {len(removed)} invalid characters ({codes})", unit))
        if paper is None:
            out.skipped.append((line, "empty abstract (no letter or digit)", unit))
            continue
        if len(paper.clean_text) > MAX_ABSTRACT_CHARS:
            reason = (
                f"abstract is {len(paper.clean_text):,} characters, more than {MAX_ABSTRACT_CHARS:,}: "
                "a full text or a broken file, not an abstract"
            )
            out.skipped.append((line, reason, unit))
            continue
        out.items.append(start + offset)
        out.papers.append(paper)
    out.seconds["normalise"] = time.perf_counter() - began
    began = time.perf_counter()
    out.cards = [build_card(p) for p in out.papers]
    out.seconds["cards"] = time.perf_counter() - began
    return out


def embedder_name() -> str:
    """The embedder a library opened now would use: ``$PAPERSCOPE_EMBEDDER``, else ``minilm``."""
    return os.environ.get("PAPERSCOPE_EMBEDDER") or "minilm"


def load_embedder(name: str, cpus: int | None = None) -> Any:
    """Load embedder ``name`` once for this process, preparing its int8 model first if needed.

    ``cpus`` caps the parallel inference calls (``MiniLMEmbedder.streams``) to the CPUs this
    worker was given, so two workers on two cores do not each start two streams.
    """
    from ..index.embed import get_embedder, prepare_embedder

    prepare_embedder(name)
    embedder = get_embedder(name)
    if cpus and hasattr(embedder, "streams"):
        embedder.streams = max(1, int(cpus))
    return embedder


def embed(papers: list[Paper], embedder: Any) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(vectors float32 (n, dim), n_chunks int32 (n,))`` of ``papers``.

    The text is :func:`paperscope.index.dense.embedding_text`, in calls of ``EMBED_BATCH``
    papers as ``ensure_vectors`` makes them (the grouping moves vectors in the 4th decimal).
    """
    from ..index.dense import EMBED_BATCH, embedding_text

    texts = [embedding_text(p.title, p.clean_text, embedder.languages) for p in papers]
    vectors: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    for begin in range(0, len(texts), EMBED_BATCH):
        v, n = embedder.embed_documents(texts[begin : begin + EMBED_BATCH])
        vectors.append(np.asarray(v, dtype=np.float32))
        counts.append(np.asarray(n, dtype=np.int32))
    if not vectors:
        return np.zeros((0, 0), dtype=np.float32), np.zeros(0, dtype=np.int32)
    return np.concatenate(vectors), np.concatenate(counts)
