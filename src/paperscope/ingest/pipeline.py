"""Ingest: files → Records → Papers, stored one transaction per file, never touching user marks."""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from tqdm import tqdm

from ..errors import InputError
from ..models import Card, FileReport, IngestReport, Paper, Record, Skip
from ..store import Store, papers
from ..text import clean_text, has_cjk, normalise_for_hash
from .formats import detect_format, get_reader

__all__ = ["ingest_paths", "paper_id_for", "content_hash_for", "expand_paths", "record_to_paper"]

_BATCH = 2000
_INPUT_SUFFIXES = {".txt", ".md", ".json", ".jsonl", ".csv", ".tsv", ".bib"}


def paper_id_for(clean: str) -> str:
    """Return the stable ``paper_id``: the first 12 hex digits of SHA-1 of the normalised abstract.

    48 bits keep the chance of any collision among 100k papers near 2e-5 (birthday bound).
    """
    return hashlib.sha1(normalise_for_hash(clean).encode("utf-8")).hexdigest()[:12]


def content_hash_for(title: str | None, clean: str) -> str:
    """Return the hash of the indexed content (title and clean text), the key of cached vectors."""
    return hashlib.sha256(f"{title or ''}\n{clean}".encode()).hexdigest()[:32]


def expand_paths(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Yield files: each file as given, each folder's input files recursively in sorted order."""
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if (
                    child.is_file()
                    and child.suffix.lower() in _INPUT_SUFFIXES
                    and not child.name.startswith(".")
                ):
                    yield child
        else:
            yield path


def record_to_paper(record: Record) -> Paper | None:
    """Return the Paper of ``record``, or None when its abstract has no letter or digit."""
    clean = clean_text(record.abstract or "")
    if not any(ch.isalnum() for ch in clean):
        return None
    title = clean_text(record.title) if record.title else None
    return Paper(
        paper_id=paper_id_for(clean),
        abstract=record.abstract,
        clean_text=clean,
        title=title or None,
        authors=record.authors,
        venue=record.venue,
        year=record.year,
        decision=record.decision,
        keywords=record.keywords,
        source_area=record.source_area,
        urls=record.urls,
        external_ids=record.external_ids,
        sources=[record.source],
    )


def _batches(records: Iterator[Record], size: int) -> Iterator[list[Record]]:
    batch: list[Record] = []
    for record in records:
        batch.append(record)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _store_batch(
    store: Store, batch: list[Paper], report: FileReport, build_card: Callable[[Paper], Card]
) -> None:
    conn = store.conn
    stored = papers.existing_ids(conn, {p.paper_id for p in batch})
    new: dict[str, Paper] = {}
    for paper in batch:
        if paper.paper_id in stored:
            report.present += 1
            papers.add_sources(conn, [(paper.paper_id, s) for s in paper.sources])
            papers.fill_missing_fields(conn, paper)
        elif paper.paper_id in new:
            report.present += 1
            new[paper.paper_id].sources.extend(paper.sources)
        else:
            new[paper.paper_id] = paper
    for paper in new.values():
        paper.card = build_card(paper)
    fresh = list(new.values())
    papers.insert_papers(conn, fresh, [content_hash_for(p.title, p.clean_text) for p in fresh])
    report.new += len(fresh)


def _ingest_file(
    store: Store, path: Path, fmt: str, build_card: Callable[[Paper], Card], progress: bool
) -> tuple[FileReport, bool]:
    report = FileReport(path=str(path), format=fmt)
    reader = get_reader(fmt)
    saw_cjk = False
    with store.transaction():
        records = tqdm(
            reader(path), desc=path.name, unit=" papers", disable=not progress, file=sys.stderr, leave=False
        )
        for batch in _batches(iter(records), _BATCH):
            ready: list[Paper] = []
            for record in batch:
                report.read += 1
                paper = record_to_paper(record)
                if paper is None:
                    report.skipped.append(
                        Skip(str(path), record.source.line, "empty abstract (no letter or digit)")
                    )
                    continue
                saw_cjk = saw_cjk or has_cjk(paper.clean_text)
                ready.append(paper)
            _store_batch(store, ready, report, build_card)
    return report, saw_cjk


def ingest_paths(
    store: Store,
    paths: Iterable[str | Path],
    build_card: Callable[[Paper], Card],
    fmt: str | None = None,
    progress: bool = True,
) -> IngestReport:
    """Ingest files and folders into ``store``; return per-file figures.

    Each file is read and stored in one transaction: a file that fails (missing, binary,
    not UTF-8, unreadable record) leaves nothing half-written and the other files still ingest.
    Stars, tags and notes are never written.

    Args:
        store: the open library.
        paths: files or folders (folders are searched recursively for input files).
        build_card: turns a new Paper into its Card (``paperscope.extract.build_card``).
        fmt: a format name from ``formats.READERS``; None detects it per file.
        progress: show a tqdm progress bar on stderr.

    Returns:
        The IngestReport; a rejected file has ``error`` set and counts nothing.
    """
    started = time.perf_counter()
    report = IngestReport()
    saw_cjk = False
    for path in expand_paths(paths):
        try:
            file_report, cjk = _ingest_file(store, path, fmt or detect_format(path), build_card, progress)
        except InputError as exc:
            report.files.append(FileReport(path=str(path), format=fmt or "", error=str(exc)))
            continue
        saw_cjk = saw_cjk or cjk
        report.files.append(file_report)
    if saw_cjk:
        report.warnings.append("some abstracts are not in English (CJK text found)")
    report.elapsed_s = time.perf_counter() - started
    return report
