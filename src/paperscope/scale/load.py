"""``paperscope load``: merge a build's shards into a library, as ``ingest`` would have stored them.

The shards' papers are fed, file by file in source order and chunk by chunk (ingest's own
batches), through ingest's dedup and store code (``ingest.pipeline._BatchStore``), so
paper_ids, merges, sources and conflicts equal a local ingest of the same files. Instead of
building cards and embedding, the prebuilt ones are stored: a paper's card is rebuilt only
when a merge changed a field the card reads, and its vector is left to ``embed`` only when a
merge changed the embedded text (title). Stars, tags and notes are never written. The cards'
areas are then refined with the vectors (``Library.refine_areas``, as after a local embed)
and the search indexes built once at the end.

A bulk load pauses the full-text index kept for other tools (``store.search_fts``) and rebuilds
it once at the end, stores ten shards per transaction, and lets the WAL grow to 256 MB between
checkpoints: together 69 s -> 44-47 s for 100,000 papers (``bench/build_stages.py --load``).
"""

from __future__ import annotations

import contextlib
import sqlite3
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..analyzer import LEXICAL_ANALYZER
from ..errors import InputError, StoreError
from ..extract import EXTRACTOR_VERSION, build_card
from ..ingest import dedup
from ..ingest.keyset import StoredKeys
from ..ingest.pipeline import _CACHE_BYTES, _BatchStore, _index_missing_keys, _Workers
from ..model_ids import compatible_model_ids
from ..models import Card, FileReport, IngestReport, Paper, Skip
from ..progress import progress as progress_bar
from ..store import papers, search_fts
from ..store import vectors as stored_vectors
from . import shards

if TYPE_CHECKING:
    from ..library import Library
    from ..store.db import Store

__all__ = ["load_shards"]

#: A load pauses the full-text index for other tools (``store.search_fts``) when it brings at
#: least a quarter as many records as the library holds. Keeping that index by trigger cost
#: about 0.2 ms per paper (20 s of an 85 s load of 100,000 papers, 2026-12-07); rebuilding it
#: at the end costs about 0.04 ms per paper stored (new and old), so pausing pays from about
#: one new paper per five stored, and a quarter leaves a margin.
_PAUSE_SHARE = 4
#: WAL pages between checkpoints while loading (SQLite's default is 1,000: 4 MB). A load's
#: transactions write ~10 MB each, so with the default every one copied the log back into the
#: file; 65,536 pages (256 MB of log at most, on disk for the load's duration) took the commits
#: of a 100,000-paper load from 13 s to 8 s (2026-12-07, bench/build_stages.py --load).
_LOAD_CHECKPOINT_PAGES = 65_536
_CHECKPOINT_PAGES = 1_000
#: Shards (about 1,000 papers each) stored per transaction. Each commit rewrites every page the
#: transaction touched, and a shard's ~16,000 near-duplicate keys land all over their B-tree, so
#: one transaction per shard rewrote most of it 100 times in a 100,000-paper load: ten per
#: transaction took 48.8-53.1 s to 43.6-46.9 s (2026-12-07, paired runs, load average 1.3). A
#: load killed part-way keeps the transactions committed; loading again finds those papers present.
_SHARDS_PER_TRANSACTION = 10


def _card_fields(paper: Paper) -> int:
    """A hash of the fields ``build_card`` reads besides the text (which a merge never changes).

    A hash, not the fields: ``load`` keeps one per paper (8 bytes, not a few hundred, at 1M papers).
    """
    return hash(
        (paper.title, paper.venue, paper.year, tuple(paper.keywords), paper.source_area, tuple(paper.urls))
    )


class _BuiltCard(Card):
    """A card as ``build`` stored it, saved by ``load`` without decoding and encoding it again.

    Only ``label``, ``extractor_version``, :meth:`to_json` and :meth:`to_dict` are meant to be
    read: the card goes from :class:`_Cards` straight to ``store.papers.save_cards``. Decoding
    and encoding every card cost 6 s of a 100,000-paper load (2026-12-07).
    """

    def __init__(self, text: str, label: str, extractor_version: str) -> None:
        super().__init__(label=label, extractor_version=extractor_version)
        self._text = text

    def to_json(self) -> str:
        return self._text

    def to_dict(self) -> dict[str, Any]:
        return shards.card_from_json(self._text).to_dict()


class _Cards:
    """The card builder handed to ingest's store code: the prebuilt card while the paper is as built."""

    def __init__(self) -> None:
        #: paper_id -> (card JSON, label or None for shards written before ``card_label``).
        self.prebuilt: dict[str, tuple[str, str | None]] = {}
        self.fields: dict[str, int] = {}
        self.rebuilt = 0

    def add(self, paper: Paper, card_json: str, label: str | None, extractor_version: str) -> None:
        if paper.paper_id not in self.fields:  # the first record of a paper_id is the one stored
            self.fields[paper.paper_id] = _card_fields(paper)
            if extractor_version == EXTRACTOR_VERSION:
                self.prebuilt[paper.paper_id] = (card_json, label)

    def __call__(self, paper: Paper) -> Card:
        built = self.prebuilt.get(paper.paper_id)
        if built is not None and self.fields.get(paper.paper_id) == _card_fields(paper):
            text, label = built
            if label is None:
                return shards.card_from_json(text)
            return _BuiltCard(text, label, EXTRACTOR_VERSION)
        self.rebuilt += 1
        return build_card(paper)


def load_shards(library: Library, shard_dir: str | Path, progress: bool = False) -> IngestReport:
    """Store the papers, cards and vectors of the build in ``shard_dir`` into ``library``.

    Args:
        library: the open, writable library (new or not: papers already in it are merged into).
        shard_dir: a folder ``paperscope build --out`` wrote.
        progress: show the papers stored, then the vectors and index steps.

    Returns:
        An IngestReport with one FileReport per built input file (``read``, ``new``,
        ``present``, ``merged``, skips and conflicts, as ``ingest`` reports them) and
        ``phases`` ``load``, ``cards`` (rebuilt after a merge), ``embed`` (vectors made again
        because a merge changed the text) and ``indexes``.

    Raises:
        InputError: ``shard_dir`` holds no build manifest, or a shard cannot be read.
        StoreError: the library cannot be written.
    """
    started = time.perf_counter()
    out = Path(shard_dir)
    if not (out / shards.MANIFEST).is_file():
        raise InputError(f"no {shards.MANIFEST} here: not a folder `paperscope build --out` wrote", str(out))
    manifest = shards.load_manifest(out)
    library.store.require_writable()
    store = library.store
    model_id = library._model_id()
    built_with = str(manifest.get("model_id") or "")
    if built_with and built_with != model_id and compatible_model_ids(built_with, model_id):
        if not store.conn.execute(
            "SELECT 1 FROM embeddings WHERE model_id = ? LIMIT 1", (model_id,)
        ).fetchone():
            # Shards embedded on a GPU (``build --device cuda``) into a library without vectors yet:
            # their vectors are kept under their own id, and the library is searched by them.
            model_id = built_with
    cards = _Cards()
    report = IngestReport()
    total = sum(e["read"] for e in manifest["inputs"])
    papers.set_cache_size(store.conn, _CACHE_BYTES)
    with store.transaction() as conn:
        search_fts.resume_abandoned(conn)
        _index_missing_keys(store)
        stored = conn.execute("SELECT count(*) FROM papers").fetchone()[0]
        paused = total * _PAUSE_SHARE >= stored
        if paused:
            search_fts.pause(conn)
    stored_keys = StoredKeys(store.conn)  # most keys of a new paper are held by none: no lookup
    changed: set[str] = set()
    store.conn.execute(f"PRAGMA wal_autocheckpoint = {_LOAD_CHECKPOINT_PAGES}")
    try:
        _load_files(store, out, manifest, model_id, cards, stored_keys, changed, report, progress, total)
        if paused:
            _resume_search_fts(store, progress)
    except Exception:
        if paused:  # a clean error (a shard that cannot be read) leaves the library indexed
            with contextlib.suppress(sqlite3.Error, StoreError):  # else the next writer resumes it
                _resume_search_fts(store, False)
        raise
    finally:
        store.conn.execute(f"PRAGMA wal_autocheckpoint = {_CHECKPOINT_PAGES}")
    library._bm25 = None
    report.elapsed_s = time.perf_counter() - started
    report.phases["load"] = {"count": report.new, "elapsed_s": report.elapsed_s}
    _finish(library, cards, changed, report, progress)
    return report


def _resume_search_fts(store: Store, progress: bool) -> None:
    """Rebuild the full-text index for other tools that the load paused, saying so when ``progress``."""
    if progress:
        print(
            "rebuilding the full-text index for other tools (papers_search_fts)…", file=sys.stderr, flush=True
        )
    with store.transaction() as conn:
        search_fts.resume(conn)


def _load_files(
    store: Store,
    out: Path,
    manifest: dict[str, Any],
    model_id: str,
    cards: _Cards,
    stored_keys: StoredKeys,
    changed: set[str],
    report: IngestReport,
    progress: bool,
    total: int,
) -> None:
    """Store each built file's shards, in source order, through ingest's dedup and store code."""
    workers = _Workers(cards)
    with progress_bar(total=total, desc="load", unit="records", enabled=progress) as bar:
        for entry in sorted(manifest["inputs"], key=lambda e: e["index"]):
            path = entry["path"]
            file_report = FileReport(path=path, format=entry["format"] or "", read=entry["read"])
            file_report.skipped = [Skip(path, line, reason, unit) for line, reason, unit in entry["skipped"]]
            file_report.repaired = [
                Skip(path, line, reason, unit) for line, reason, unit in entry["repaired"]
            ]
            batch_store = _BatchStore(store, file_report, workers, use_pool=False, stored_keys=stored_keys)
            names = sorted(entry["shards"])
            for first in range(0, len(names), _SHARDS_PER_TRANSACTION):
                with store.transaction() as conn:
                    for shard in names[first : first + _SHARDS_PER_TRANSACTION]:
                        stored = _store_shard(out / shard, batch_store, cards, changed, conn, model_id)
                        bar.update(stored)
            with store.transaction():
                batch_store.flush()
            report.files.append(file_report)
            bar.update(len(entry["skipped"]))


def _store_shard(
    path: Path, batch_store: _BatchStore, cards: _Cards, changed: set[str], conn: Any, model_id: str
) -> int:
    """Store one shard's papers, cards and vectors (inside the caller's transaction); return its rows."""
    rows = sorted(shards.read_shard(path), key=lambda r: r["item"])
    batch = [shards.paper_from_json(r["paper"]) for r in rows]
    vectors: dict[str, tuple[Any, int]] = {}
    analysed: dict[str, tuple[str, str, str]] = {}
    for paper, row in zip(batch, rows, strict=True):
        cards.add(paper, row["card"], row.get("card_label"), row["extractor_version"])
        if row["model_id"] == model_id:
            vectors.setdefault(row["content_hash"], (row["vector"], int(row["n_chunks"])))
        if row.get("analyzer") == LEXICAL_ANALYZER:  # shards of older builds have none
            analysed[row["content_hash"]] = (row["fts_title"], row["fts_body"], row["fts_exact"])
    prints = dict(zip((p.paper_id for p in batch), _fingerprints(batch, rows), strict=True))
    before = len(batch_store.inserted)
    batch_store.store(batch, prints, analysed)
    cards.prebuilt.clear()  # store() built this batch's cards inline (no pool)
    changed.update(batch_store.changed)
    _save_vectors(conn, model_id, batch_store.inserted[before:], vectors)
    return len(rows)


def _fingerprints(batch: list[Paper], rows: list[dict[str, Any]]) -> list[dedup.Fingerprint]:
    """The dedup fingerprint of each paper: the one ``build`` stored, or made here.

    Made here for a shard of an older build (no ``dd_*`` columns) or of another
    ``dedup.FINGERPRINT_VERSION``, and when the shard's first paper, fingerprinted again here,
    does not give what the shard holds (a change to dedup that kept the version).
    """
    if not batch:
        return []
    if all(row.get("dedup_version") == dedup.FINGERPRINT_VERSION for row in rows):
        stored = [shards.fingerprint_from_row(row) for row in rows]
        (check,) = dedup.fingerprints(batch[:1])
        first = stored[0]
        if (
            check.keys == first.keys
            and check.lead_keys == first.lead_keys
            and np.array_equal(check.shingles, first.shingles)
        ):
            return stored
    return dedup.fingerprints(batch)


def _save_vectors(
    conn: Any, model_id: str, paper_ids: list[str], vectors: dict[str, tuple[Any, int]]
) -> None:
    """Store the prebuilt vector of each newly inserted paper whose stored text is the embedded one."""
    if not paper_ids:
        return
    marks = ",".join("?" * len(paper_ids))
    rows = conn.execute(f"SELECT paper_id, content_hash FROM papers WHERE paper_id IN ({marks})", paper_ids)
    found = [(pid, h, *vectors[h]) for pid, h in rows if h in vectors]
    stored_vectors.save_vectors(conn, model_id, found)


def _finish(library: Library, cards: _Cards, changed: set[str], report: IngestReport, progress: bool) -> None:
    """Rebuild cards a later merge changed, embed texts a merge changed, refine areas, build indexes."""
    store = library.store
    began = time.perf_counter()
    redo: list[tuple[str, Card]] = []
    for pid in sorted(changed):
        paper = papers.get_paper(store.conn, pid)
        if cards.fields.get(pid) != _card_fields(paper):
            redo.append((pid, build_card(paper)))
    if redo:
        with store.transaction() as conn:
            papers.save_cards(conn, redo)
    rebuilt = library.build_cards(progress=progress)  # cards of another extractor version
    report.phases["cards"] = {
        "count": len(redo) + cards.rebuilt + rebuilt,
        "elapsed_s": time.perf_counter() - began,
    }
    began = time.perf_counter()
    missing = stored_vectors.count_missing_vectors(store.conn, library._model_id())
    if missing:
        # A merge changed these papers' title (the embedded text): embed them as `embed` would.
        embedded = library.embed(progress=progress)
    else:
        embedded = 0
        library.refine_areas()
        library._dense = None
        library.build_search_indexes(progress=progress)
    report.phases["embed"] = {"count": embedded, "elapsed_s": time.perf_counter() - began}
