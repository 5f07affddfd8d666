"""Ingest: files → Records → Papers, deduplicated and stored one transaction per batch of records.

Each file is read by the reader its content calls for (``formats.detect_format``), record by
record; records are cleaned, checked, fingerprinted and stored in batches, so memory stays
bounded however large the file. Stars, tags and notes are never written.

Folders are walked recursively in sorted order. Only data files are considered (``.txt``,
``.json``, ``.jsonl``, ``.ndjson``, ``.csv``, ``.tsv``, ``.bib``; never hidden files, ``.md``
files or documentation such as ``README.txt``), and a data file is read only if it is a paper
list: a structured file needs an abstract field or column (``--map`` can name one), a text file
a venue header line or a prose first paragraph. Other files (queries, qrels, label lists) are reported as *ignored*,
not as errors. A folder holding a ``qrels/`` folder is a retrieval test collection (the BEIR
layout: corpus, queries, qrels) and is ignored as a whole; name its corpus file to ingest it.
A file named on the command line is always read, and is an error if it is not a paper list.
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import os
import pickle
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..models import Card, Conflict, FileReport, IngestReport, Paper, Record, Skip
from ..progress import Progress, is_observed
from ..progress import progress as progress_bar
from ..store import Store, cleanup, papers, search_fts
from ..text import (
    CONTROL_CHARS,
    clean_text,
    decode_entities,
    identity_text,
    normalise_for_hash,
    strip_controls,
    strip_invisible,
)
from ..worker_guard import die_with_parent
from . import dedup, files, paperlist_json, text_list
from .fields import parse_column_map
from .formats import NotAPaperList, detect_format, get_reader, is_paper_list_text
from .keyset import StoredKeys

__all__ = [
    "ingest_paths",
    "paper_id_for",
    "content_hash_for",
    "expand_paths",
    "record_to_paper",
    "repair_record",
    "DATA_SUFFIXES",
    "MAX_ABSTRACT_CHARS",
]

#: Longest clean abstract kept (characters). Real abstracts run to about 3,000 (OpenReview caps
#: them at 5,000, arXiv at 1,920); a record far beyond is a full text or a file read wrongly,
#: which would cost minutes to embed. Such records are skipped with their size.
MAX_ABSTRACT_CHARS = 20_000
_BATCH = 1000
#: Files at least this large use worker processes (below it, forking costs more than it saves).
_POOL_MIN_BYTES = 2**20
#: Worker processes at most (one per core up to this).
_MAX_WORKERS = 2
#: Batches whose cards may still be building; bounds memory when cards are the slow step.
_CARD_JOBS_IN_FLIGHT = 2
#: SQLite page cache while ingesting (bytes): holds the hash-keyed indexes of ~500k papers.
_CACHE_BYTES = 256 * 2**20
#: Card builders slower than this (seconds per paper) run in the workers.
_OFFLOAD_CARD_S = 0.0003
#: File extensions a folder walk considers; everything else in a folder is left alone.
DATA_SUFFIXES = frozenset({".txt", ".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".bib"})
#: Documentation file names (any extension) a folder walk never reads.
_DOC_STEMS = frozenset({"readme", "license", "licence", "changelog", "contributing", "notice"})
#: Fields of a stored paper whose change by a merge rebuilds its card (the card reads them).
_CARD_FIELDS = frozenset({"title", "venue", "year", "clean_text"})
#: An abstract without TeX (no ``\``, ``$``, ``{`` or backtick): its clean text is its identity text.
_PLAIN_RE = re.compile(r"[^\\${`]*")
# Lone surrogates and the non-characters U+FFFE/U+FFFF: they break SQLite's UTF-8 and carry no text.
_NON_TEXT_RE = re.compile("[\ud800-\udfff\ufffe\uffff]")
# What repair_record reports as removed: those and the control characters (text.CONTROL_CHARS).
_INVALID_RE = re.compile(f"[{CONTROL_CHARS}\ud800-\udfff\ufffe\uffff]")


def paper_id_for(identity: str) -> str:
    """Return the stable ``paper_id``: the first 12 hex digits of SHA-1 of the normalised abstract.

    ``identity`` is :func:`paperscope.text.identity_text` of the original abstract (not its
    ``clean_text``, whose rendering may improve between releases). 48 bits keep the chance of any
    collision among 100k papers near 2e-5 (birthday bound).
    """
    return hashlib.sha1(normalise_for_hash(identity).encode("utf-8")).hexdigest()[:12]


def content_hash_for(title: str | None, clean: str) -> str:
    """Return the hash of the indexed content (title and clean text), the key of cached vectors."""
    return hashlib.sha256(f"{title or ''}\n{clean}".encode()).hexdigest()[:32]


def _is_data_file(path: Path) -> bool:
    return (
        path.suffix.lower() in DATA_SUFFIXES
        and not path.name.startswith(".")
        and path.stem.lower() not in _DOC_STEMS
    )


def expand_paths(paths: Iterable[str | Path]) -> Iterator[tuple[Path, bool, str | None]]:
    """Yield ``(path, from_folder, ignore_reason)`` for each input the paths name.

    A file is yielded as given (``from_folder`` False). A folder yields its data files
    recursively in sorted order, and each retrieval test collection inside it (a folder with a
    ``qrels/`` folder) once, with the reason it is not read. Paths are made absolute and
    normalised (``./a/../b.txt`` → ``/cwd/b.txt``), so one file named two ways is one source.
    """
    for raw in paths:
        root = Path(os.path.abspath(raw))
        if not root.is_dir():
            yield root, False, None
            continue
        found: list[tuple[Path, str | None]] = []
        for dirpath, dirnames, filenames in os.walk(root):
            folder = Path(dirpath)
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            if "qrels" in dirnames:
                found.append(
                    (
                        folder,
                        "retrieval test collection (BEIR layout with qrels/), not a paper list; "
                        "name its corpus file to ingest it",
                    )
                )
                dirnames[:] = []
                continue
            found.extend((folder / name, None) for name in filenames if _is_data_file(folder / name))
        for path, reason in sorted(found):
            yield path, True, reason


def repair_record(record: Record) -> list[str]:
    r"""Remove invalid characters from every text field of ``record``; return what was removed.

    Invalid means the control characters of :func:`paperscope.text.strip_controls` (C0/C1
    controls other than tab and line feed; each CRLF or lone CR becomes a line feed, which is not
    reported), lone UTF-16 surrogates (from JSON ``\ud800`` escapes) and the non-characters
    U+FFFE/U+FFFF. Every reader's records pass here, so every format stores the same text.
    """
    removed: list[str] = []

    def fix(value: str | None) -> str | None:
        if value is None or (not _INVALID_RE.search(value) and "\r" not in value):
            return value
        removed.extend(_INVALID_RE.findall(value))
        return strip_controls(_NON_TEXT_RE.sub("", value))

    record.abstract = fix(record.abstract) or ""
    record.title = fix(record.title)
    record.venue = fix(record.venue)
    record.decision = fix(record.decision)
    record.source_area = fix(record.source_area)
    record.authors = [a for a in (fix(a) for a in record.authors) if a]
    record.keywords = [k for k in (fix(k) for k in record.keywords) if k]
    record.urls = [u for u in (fix(u) for u in record.urls) if u]
    record.external_ids = {k: v for k, v in ((k, fix(v)) for k, v in record.external_ids.items()) if v}
    return removed


def record_to_paper(record: Record) -> Paper | None:
    """Return the Paper of ``record``, or None when its abstract has no letter or digit.

    HTML entities are decoded here, exactly once (case 5), before the original text is kept.
    Every field that is indexed, matched or grouped on (clean text, title, authors, keywords,
    venue, decision, area) loses its invisible code points (``text.strip_invisible``: zero-width
    spaces, soft hyphens, bidi marks, BOMs); the original abstract, shown as written, keeps them.
    """
    abstract = decode_entities(record.abstract or "")
    clean = clean_text(abstract)
    if not any(ch.isalnum() for ch in clean):
        return None
    title = clean_text(decode_entities(record.title)) if record.title else None

    def short(value: str | None) -> str | None:
        visible = strip_invisible(value) if value else value
        # Fields without invisible characters come back exactly as the source wrote them.
        return value if visible is value else (" ".join(visible.split()) or None)

    return Paper(
        paper_id=paper_id_for(clean if _PLAIN_RE.fullmatch(abstract) else identity_text(abstract)),
        abstract=abstract,
        clean_text=clean,
        title=title or None,
        authors=[a for a in (short(decode_entities(a)) for a in record.authors) if a],
        venue=short(record.venue),
        year=record.year,
        decision=short(record.decision),
        keywords=[k for k in (short(decode_entities(k)) for k in record.keywords) if k],
        source_area=short(record.source_area),
        urls=record.urls,
        external_ids=record.external_ids,
        sources=[record.source],
    )


@dataclass
class _Known:
    """What matching needs of a paper already known (stored, or new in this batch).

    ``ids`` are its external ids in canonical spelling (``dedup.normalise_ids``); ``text`` is its
    clean text (rule 6 reads a title-less paper's lead from it).
    """

    title_key: int | None
    ids: dict[str, str]
    shingles: np.ndarray
    title: str | None = None
    text: str = ""


class _BatchStore:
    """Stores one batch of Papers: exact duplicates, near-duplicates (``dedup``) and new papers."""

    def __init__(
        self,
        store: Store,
        report: FileReport,
        workers: _Workers,
        use_pool: bool,
        stored_keys: StoredKeys | None = None,
    ):
        self.conn = store.conn
        #: The library's keys in memory (``load``): only keys some paper holds are looked up.
        self.stored_keys = stored_keys
        self.report = report
        self.workers = workers
        self.build_card = workers.build_card
        self.use_pool = use_pool
        self.pending_cards: list[tuple[list[str], Callable[[], list[Card]]]] = []
        #: paper_ids this file's ingest inserted (removed again if the file fails part-way).
        self.inserted: list[str] = []
        #: Papers whose fields a merge changed, as they were before this file changed them
        #: (put back if the file fails part-way: :func:`paperscope.store.cleanup.restore_papers`).
        self.before: dict[str, papers.PaperSnapshot] = {}

    def store(
        self,
        batch: list[Paper],
        prints: Mapping[str, dedup.Fingerprint],
        analysed: Mapping[str, tuple[str, str, str]] | None = None,
    ) -> None:
        """Store a batch; ``prints`` maps each paper_id to its ``dedup.fingerprints`` (made in a worker).

        Of two papers of one paper_id in ``batch`` the later one's fingerprint is the one given.
        ``analysed``: lexical index rows made already, by content hash (``load``: made by
        ``build``; see ``store.papers.insert_papers``).
        """
        conn = self.conn
        stored = papers.existing_ids(conn, {p.paper_id for p in batch})
        unseen = list({p.paper_id: p for p in batch if p.paper_id not in stored}.values())
        fps = [prints[p.paper_id] for p in unseen]
        prints = dict(zip((p.paper_id for p in unseen), fps, strict=True))
        lookups = {k for pid, fp in prints.items() for k in (*fp.keys, *fp.lead_keys, dedup.alias_key(pid))}
        db_keys = papers.find_dedup_keys(conn, self._held(lookups))
        # A shared id (a volume DOI on many papers) is no evidence: load one of its holders, to
        # name it in a conflict, not all of them as candidates.
        shared_keys = {
            k
            for fp in prints.values()
            for k in fp.id_keys
            if len(db_keys.get(k, ())) >= dedup.SHARED_ID_PAPERS
        }
        known = self._load_known(
            {pid for key, pids in db_keys.items() for pid in (pids[:1] if key in shared_keys else pids)}
        )
        # Which of the candidates' own ids are shared (a shared id must not keep papers apart).
        own_keys = {dedup.id_key(k, v) for other in known.values() for k, v in other.ids.items()}
        db_keys.update(papers.find_dedup_keys(conn, self._held(own_keys - set(db_keys))))
        new: dict[str, Paper] = {}
        batch_keys: dict[int, list[str]] = {}
        batch_alias: dict[str, str] = {}
        new_keys: list[tuple[int, str]] = []
        self.loaded: dict[str, Paper] = {}
        self.changed: dict[str, set[str]] = {}
        for paper in batch:
            pid = paper.paper_id
            if pid in stored:
                self.report.present += 1
                self._attach(pid, paper, new)
                continue
            if pid in new or pid in batch_alias:
                self.report.present += 1
                self._attach(batch_alias.get(pid, pid), paper, new)
                continue
            alias = db_keys.get(dedup.alias_key(pid))
            if alias:
                self.report.present += 1
                self._attach(alias[0], paper, new)
                continue
            fp = prints[pid]
            target, collisions = self._best_match(paper, fp, db_keys, batch_keys, known)
            self._report_conflicts(paper, target, collisions, known)
            keys = fp.keys
            if target is None:
                new[pid] = paper
                known[pid] = _Known(fp.title_key, dict(fp.ids), fp.shingles, paper.title, paper.clean_text)
                target = pid
            else:
                self.report.merged += 1
                self._attach(target, paper, new)
                batch_alias[pid] = target
                keys = [*keys, dedup.alias_key(pid)]
                for kind, value in fp.ids.items():  # as merge_fields: the first value of a kind stays
                    known[target].ids.setdefault(kind, value)
            for key in keys:
                batch_keys.setdefault(key, []).append(target)
            new_keys.extend((key, target) for key in keys)
        fresh = list(new.values())
        papers.insert_papers(conn, fresh, [content_hash_for(p.title, p.clean_text) for p in fresh], analysed)
        self.inserted.extend(p.paper_id for p in fresh)
        # Cards are the slowest step (extractors): built in the workers, saved a few batches later.
        self.pending_cards.append(([p.paper_id for p in fresh], self.workers.cards(fresh, self.use_pool)))
        while len(self.pending_cards) > _CARD_JOBS_IN_FLIGHT:
            self._save_cards()
        papers.add_dedup_keys(conn, sorted(new_keys))  # in key order: B-tree pages are touched once
        if self.stored_keys is not None:
            self.stored_keys.add(key for key, _ in new_keys)
        if any(fields & _CARD_FIELDS for fields in self.changed.values()):
            self.flush()  # a card still building must not overwrite the one rebuilt below
        for pid, fields in self.changed.items():
            paper = self.loaded[pid]
            new_hash = (
                content_hash_for(paper.title, paper.clean_text) if fields & {"title", "clean_text"} else None
            )
            if pid not in self.before:
                self.before[pid] = papers.paper_snapshot(conn, pid)
            papers.update_paper_fields(conn, paper, fields, new_hash)
            if fields & _CARD_FIELDS:
                papers.save_cards(conn, [(pid, self.build_card(paper))])
        self.report.new += len(fresh)

    def _held(self, keys: set[int]) -> set[int]:
        """The keys worth a lookup: all of them, or those ``stored_keys`` says some paper holds."""
        return keys if self.stored_keys is None else self.stored_keys.stored(keys)

    def _save_cards(self) -> None:
        paper_ids, result = self.pending_cards.pop(0)
        papers.save_cards(self.conn, list(zip(paper_ids, result(), strict=True)))

    def flush(self) -> None:
        """Save the cards still being built (call before the file's transaction commits)."""
        while self.pending_cards:
            self._save_cards()

    def _load_known(self, paper_ids: set[str]) -> dict[str, _Known]:
        rows = papers.dedup_rows(self.conn, paper_ids)
        ids = list(rows)
        sets = dedup.batch_shingles([rows[pid][1] for pid in ids])
        return {
            pid: _Known(
                dedup.title_key(rows[pid][0]),
                dedup.normalise_ids(rows[pid][2]),
                s,
                rows[pid][0],
                rows[pid][1],
            )
            for pid, s in zip(ids, sets, strict=True)
        }

    def _best_match(
        self,
        paper: Paper,
        fp: dedup.Fingerprint,
        db_keys: Mapping[int, list[str]],
        batch_keys: Mapping[int, list[str]],
        known: Mapping[str, _Known],
    ) -> tuple[str | None, dict[tuple[str, str], str]]:
        """Return the paper a record is (None for a new paper) and the ids it shares with others.

        The second value maps each ``(kind, value)`` id the record shares with a paper judged
        different to that paper (the most similar one); ``_report_conflicts`` lists them.
        """

        def holders(key: int) -> set[str]:
            return {*db_keys.get(key, ()), *batch_keys.get(key, ())}

        shared_ids = {
            (kind, value)
            for kind, value in fp.ids.items()
            if len(holders(dedup.id_key(kind, value))) >= dedup.SHARED_ID_PAPERS
        }
        collisions: dict[tuple[str, str], tuple[float, str]] = {}
        candidates: set[str] = set()
        shared_keys = {dedup.id_key(kind, value): (kind, value) for kind, value in shared_ids}
        for key in (*fp.keys, *fp.lead_keys):  # most keys have no hit: test before building anything
            if key in shared_keys:  # no evidence: its holders are not candidates, one is named
                first = (db_keys.get(key) or batch_keys[key])[0]  # the holder store() loaded
                collisions[shared_keys[key]] = (-1.0, first)
                continue
            if key in db_keys:
                candidates.update(db_keys[key])
            if key in batch_keys:
                candidates.update(batch_keys[key])
        best: tuple[bool, float, str] | None = None
        for cid in sorted(candidates):
            other = known.get(cid)
            if other is None:
                continue
            similarity, shortest = dedup.similarity(fp.shingles, other.shingles)
            shared = shared_ids | {
                (kind, value)
                for kind, value in other.ids.items()
                if len(holders(dedup.id_key(kind, value))) >= dedup.SHARED_ID_PAPERS
            }
            lead = dedup.lead_similarity(
                paper.title, paper.clean_text, fp.shingles, other.title, other.text, other.shingles
            )
            verdict = dedup.judge(
                fp.ids, other.ids, fp.title_key, other.title_key, similarity, shortest, shared, lead
            )
            if not verdict.same:
                if verdict.conflict and similarity > collisions.get(verdict.conflict, (-2.0, ""))[0]:
                    collisions[verdict.conflict] = (similarity, cid)
                continue
            score = (verdict.rule == 1, max(similarity, lead or 0.0), cid)
            if best is None or score[:2] > best[:2]:
                best = score
        return (best[2] if best else None), {pair: cid for pair, (_, cid) in collisions.items()}

    def _report_conflicts(
        self,
        paper: Paper,
        target: str | None,
        collisions: Mapping[tuple[str, str], str],
        known: Mapping[str, _Known],
    ) -> None:
        """List a conflict for each id the record shares with a paper it was kept apart from.

        ``target`` is the paper the record merges into (None: it is a new paper). An id that
        paper already holds is no conflict: the record found its paper, and the id's other
        holders are papers sharing a volume DOI.
        """
        held = known[target].ids if target else {}
        for (kind, value), other_id in sorted(collisions.items()):
            if held.get(kind) == value:
                continue
            source = paper.sources[0]
            other = known.get(other_id)
            self.report.conflicts.append(
                Conflict(
                    path=source.path,
                    line=source.line,
                    kind=kind,
                    value=value,
                    paper_id=target or paper.paper_id,
                    other_id=other_id,
                    other_title=other.title if other else None,
                    unit="record" if source.format == paperlist_json.FORMAT_ARRAY else "line",
                )
            )

    def _attach(self, target: str, paper: Paper, new: dict[str, Paper]) -> None:
        """Add ``paper``'s sources to ``target`` and fill ``target``'s fields from it."""
        if target in new:
            held = new[target]
            held.sources.extend(s for s in paper.sources if s not in held.sources)
            dedup.merge_fields(held, paper)
            return
        if not papers.add_sources(self.conn, [(target, s) for s in paper.sources]):
            return  # this (path, line) was stored before: nothing new to merge
        stored = self.loaded.get(target) or papers.get_paper(self.conn, target)
        changed = dedup.merge_fields(stored, paper)
        if changed:
            self.loaded[target] = stored
            self.changed.setdefault(target, set()).update(changed)


def _batches(items: Iterator[Record | Skip], size: int) -> Iterator[list[Record | Skip]]:
    batch: list[Record | Skip] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


_Prepared = tuple[list[tuple[Paper | None, list[str]]], list[dedup.Fingerprint]]


def _prepare(records: list[Record]) -> _Prepared:
    """Repair and clean records, and fingerprint the papers they give for dedup.

    Returns ``(paper or None when blank, invalid characters removed)`` per record, and the
    ``dedup.fingerprints`` of the papers in order (shingles, MinHash band keys, exact keys).
    The costly step of ingest (LaTeX conversion in ``clean_text``): it runs in a worker
    process for large files, so the one writer only looks the keys up.
    """
    out = []
    for record in records:
        removed = repair_record(record)
        out.append((record_to_paper(record), removed))
    return out, dedup.fingerprints([p for p, _ in out if p is not None])


def _build_cards(papers_: list[Paper], build_card: Callable[[Paper], Card]) -> list[Card]:
    return [build_card(p) for p in papers_]


def _idle_cores() -> float:
    """Return how many cores the last minute left idle (cores − 1-minute load average)."""
    try:
        return (os.cpu_count() or 1) - os.getloadavg()[0]
    except OSError:
        return 0.0


class _Workers:
    """Forked worker processes for the costly steps: cleaning records and building cards.

    With two cores, the workers clean batch k + 1 and build the cards of batch k while this
    process deduplicates and stores. Everything runs inline instead for files under
    ``_POOL_MIN_BYTES``, without ``fork``, or when no core is idle (the 1-minute load average
    is at least cores − 1: a worker would only queue, and shipping records to it costs about
    0.15 ms per paper). Cards go to the workers only when building one costs more than that
    (measured on the first batch) and the card builder can be pickled. Workers end with this
    process, even when it is killed with SIGKILL (:func:`paperscope.worker_guard.die_with_parent`).
    """

    def __init__(self, build_card: Callable[[Paper], Card]) -> None:
        self.build_card = build_card
        self.pool: Any = None
        self.pool_allowed: bool | None = None
        self.card_cost_s: float | None = None
        try:
            pickle.dumps(build_card)
            self.cards_picklable = True
        except (pickle.PicklingError, AttributeError, TypeError):
            self.cards_picklable = False

    def clean(self, records: list[Record], use_pool: bool) -> Callable[[], _Prepared]:
        if use_pool and self._ensure_pool():
            return self.pool.apply_async(_prepare, (records,)).get  # type: ignore[no-any-return]
        done = _prepare(records)
        return lambda: done

    def cards(self, papers_: list[Paper], use_pool: bool) -> Callable[[], list[Card]]:
        offload = self.cards_picklable and (self.card_cost_s or 0.0) >= _OFFLOAD_CARD_S
        if papers_ and use_pool and offload and self._ensure_pool():
            return self.pool.apply_async(_build_cards, (papers_, self.build_card)).get  # type: ignore[no-any-return]
        started = time.perf_counter()
        done = _build_cards(papers_, self.build_card)
        if papers_ and self.card_cost_s is None:
            self.card_cost_s = (time.perf_counter() - started) / len(papers_)
        return lambda: done

    def _ensure_pool(self) -> bool:
        if self.pool is None:
            if self.pool_allowed is None:
                self.pool_allowed = (
                    "fork" in multiprocessing.get_all_start_methods()
                    and (os.cpu_count() or 1) >= 2
                    and _idle_cores() >= 1
                )
            if not self.pool_allowed:
                return False
            self.pool = multiprocessing.get_context("fork").Pool(
                min(os.cpu_count() or 1, _MAX_WORKERS), initializer=die_with_parent, initargs=(os.getpid(),)
            )
        return True

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool.join()
            self.pool = None


class _LineProgress:
    """Lines read across the files of one ingest: the honest total of the read phase.

    Every reader except the JSON array one numbers its records by the line they start on, so
    the lines behind the last record give how far into the file reading is; a JSON array
    (numbered by record) counts its lines when it is done. Totals are counted only when
    progress is shown or observed (:func:`paperscope.progress.observe`, the web ingest job), so
    a silent ingest reads each file once, as before.
    """

    def __init__(self, inputs: list[tuple[Path, bool, str | None]], enabled: bool) -> None:
        counted = enabled or is_observed()
        self.per_file = (
            {path: files.count_lines(path) for path, _, ignored in inputs if not ignored} if counted else {}
        )
        total = sum(self.per_file.values())
        self.bar: Progress = progress_bar(total=total or None, desc="reading", unit="lines", enabled=enabled)
        self._file_lines = 0
        self._file_done = 0

    @contextlib.contextmanager
    def reading(self, path: Path) -> Iterator[None]:
        """Show ``path`` as the file being read; on leaving, count its lines not yet counted.

        A file rejected or passed over is done too: its lines join the count at once.
        """
        self.bar.stage(path.name)
        self._file_lines = self.per_file.get(path, 0)
        self._file_done = 0
        try:
            yield
        finally:
            self.reach(self._file_lines)

    def reach(self, line: int) -> None:
        """Count the current file's lines up to ``line`` (never past its counted total)."""
        done = min(line, self._file_lines)
        if done > self._file_done:
            self.bar.update(done - self._file_done)
            self._file_done = done

    def follow(self, items: Iterator[Record | Skip], by_line: bool) -> Iterator[Record | Skip]:
        """Yield ``items``, counting lines up to each one's line when ``by_line``."""
        if not self.bar.total or not by_line:
            yield from items
            return
        for item in items:
            self.reach(item.line if isinstance(item, Skip) else item.source.line)
            yield item


def _ingest_file(
    store: Store,
    path: Path,
    fmt: str,
    column_map: dict[str, str] | None,
    lines: _LineProgress,
    workers: _Workers,
    strict: bool,
    report: FileReport,
) -> FileReport:
    """Read one file into ``store``, committing each batch of ``_BATCH`` records on its own.

    A write transaction lasts one batch (about a second), so another writer (a second ingest,
    a star from the web app) waits that long at most, not a whole file. A file that fails
    part-way (a malformed line, bytes that are not UTF-8) raises InputError after its committed
    batches are removed again (:func:`paperscope.store.cleanup.undo_file`): it leaves no paper
    of its own, and papers stored before it that it merged into are put back as they were
    (:func:`paperscope.store.cleanup.restore_papers`). An ingest killed or interrupted keeps its committed batches; running it again
    reports them as already present and stores the rest. With ``strict`` the caller holds one
    transaction for everything and no batch commits.

    ``report`` is the FileReport filled in: after an InputError its ``read`` still counts the
    records read before the failure.
    """
    if strict:
        return _ingest_file_batches(
            store, path, fmt, column_map, lines, workers, contextlib.nullcontext, report
        )
    watermark = cleanup.source_watermark(store.conn)
    inserted: list[str] = []
    before: dict[str, papers.PaperSnapshot] = {}
    try:
        return _ingest_file_batches(
            store, path, fmt, column_map, lines, workers, store.transaction, report, inserted, before
        )
    except InputError:
        with store.transaction() as conn:
            cleanup.restore_papers(conn, before.values())  # fields it filled into papers stored before
            cleanup.undo_file(conn, str(path), watermark, inserted)
        raise


def _ingest_file_batches(
    store: Store,
    path: Path,
    fmt: str,
    column_map: dict[str, str] | None,
    lines: _LineProgress,
    workers: _Workers,
    transaction: Callable[[], contextlib.AbstractContextManager[Any]],
    report: FileReport,
    inserted: list[str] | None = None,
    before: dict[str, papers.PaperSnapshot] | None = None,
) -> FileReport:
    reader = get_reader(fmt)
    unit = "record" if fmt == paperlist_json.FORMAT_ARRAY else "line"
    use_pool = path.stat().st_size >= _POOL_MIN_BYTES
    batch_store = _BatchStore(store, report, workers, use_pool)
    if inserted is not None:
        batch_store.inserted = inserted
    if before is not None:
        batch_store.before = before
    items = lines.follow(reader(path, column_map), by_line=fmt != paperlist_json.FORMAT_ARRAY)

    def finish(batch: list[Record | Skip], result: Callable[[], _Prepared]) -> None:
        results, fps = result()
        prepared = iter(results)
        prints = dict(zip((p.paper_id for p, _ in results if p is not None), fps, strict=True))
        ready: list[Paper] = []
        for item in batch:
            if isinstance(item, Skip):
                report.skipped.append(item)
                continue
            paper, removed = next(prepared)
            if removed:
                codes = ", ".join(sorted({f"U+{ord(c):04X}" for c in removed}))
                reason = f"removed {len(removed)} invalid characters ({codes})"
                report.repaired.append(Skip(str(path), item.source.line, reason, unit))
            if paper is None:
                reason = "empty abstract (no letter or digit)"
                report.skipped.append(Skip(str(path), item.source.line, reason, unit))
                continue
            if len(paper.clean_text) > MAX_ABSTRACT_CHARS:
                reason = (
                    f"abstract is {len(paper.clean_text):,} characters, more than {MAX_ABSTRACT_CHARS:,}: "
                    "a full text or a broken file, not an abstract"
                )
                report.skipped.append(Skip(str(path), item.source.line, reason, unit))
                continue
            ready.append(paper)
        with transaction():
            batch_store.store(ready, prints)

    seen = 0

    def counted() -> Iterator[Record | Skip]:
        nonlocal seen
        for item in items:
            seen += 1
            yield item

    pending = None
    try:
        for batch in _batches(counted(), _BATCH):
            job = workers.clean([i for i in batch if isinstance(i, Record)], use_pool)
            if pending is not None:
                finish(*pending)
            pending = (batch, job)
    finally:
        report.read = seen  # every record read (before a failure: stored or still in a batch)
    if pending is not None:
        finish(*pending)
    with transaction():
        batch_store.flush()
    return report


def _index_missing_keys(store: Store) -> None:
    """Compute near-duplicate keys for stored papers that have none.

    Papers stored before the keys existed (schema 3) have none, and schema migration 7 dropped
    every key when ``dedup`` changed how keys are computed: each ingest first indexes them, 1,000
    papers at a time (4.3 s for the 21,490 papers of ../shared/data on a busy 2-core machine).
    """
    while True:
        missing = papers.papers_missing_dedup_keys(store.conn, _BATCH)
        if not missing:
            return
        keys = [
            (k, p.paper_id)
            for p, fp in zip(missing, dedup.fingerprints(missing), strict=True)
            for k in fp.keys
        ]
        papers.add_dedup_keys(store.conn, keys)
        papers.mark_dedup_indexed(store.conn, [p.paper_id for p in missing])


def _resolve_format(path: Path, from_folder: bool, fmt: str | None, column_map: dict[str, str] | None) -> str:
    """Return the format to read ``path`` with; raise NotAPaperList for a folder's non-paper file."""
    if fmt:
        get_reader(fmt)
        return fmt
    detected = detect_format(path, column_map)
    if from_folder and detected == text_list.FORMAT and not is_paper_list_text(path):
        raise NotAPaperList("not a paper list: no venue header line and no prose paragraph", str(path))
    return detected


def ingest_paths(
    store: Store,
    paths: Iterable[str | Path],
    build_card: Callable[[Paper], Card],
    fmt: str | None = None,
    progress: bool = False,
    column_map: Mapping[str, str] | str | None = None,
    strict: bool = False,
) -> IngestReport:
    """Ingest files and folders into ``store``; return per-file figures.

    Each file is stored a batch of 1,000 records per transaction (so writers queue for about a
    second, not a file); a file that fails (missing, binary, empty, not UTF-8, malformed JSON
    or CSV) still leaves no paper of its own (its committed batches are removed), is reported
    with its file and line, and the other files still ingest. A killed ingest keeps the batches
    it committed, and running it again stores the rest. Stars, tags and notes are never written.

    Args:
        store: the open library.
        paths: files or folders (see the module docstring for what a folder walk reads).
        build_card: turns a new Paper into its Card (``paperscope.extract.build_card``).
        fmt: a format name from ``formats.READERS``; None detects it per file.
        progress: show the read phase's progress on stderr (:mod:`paperscope.progress`: a
            bar in a terminal, a line every 10 s elsewhere) in lines of the files to read,
            counted first (one extra pass over each file; none when False).
        column_map: field → column names for CSV/JSON (``{"title": "Paper"}`` or the
            ``--map`` text ``"title=Paper,abstract=Summary"``); others are inferred.
        strict: all or nothing: if any record would be skipped or any file fails, nothing is
            written (the report lists every skip and failure, and ``rolled_back`` is True).

    Returns:
        The IngestReport; a rejected file has ``error`` set and counts nothing. Its
        ``read`` (records) and ``elapsed_s`` (wall time in seconds) make the summary line.

    Raises:
        InputError: ``fmt`` is not a known format or ``column_map`` is malformed.

    """
    started = time.perf_counter()
    columns = parse_column_map(column_map) if isinstance(column_map, str) else dict(column_map or {})
    if fmt:
        get_reader(fmt)
    report = IngestReport()
    outer = store.transaction() if strict else contextlib.nullcontext()
    workers = _Workers(build_card)
    papers.set_cache_size(store.conn, _CACHE_BYTES)
    inputs = list(expand_paths(paths))
    lines = _LineProgress(inputs, progress)
    try:
        with outer:
            with store.transaction() if not strict else contextlib.nullcontext():
                search_fts.resume_abandoned(store.conn)  # a load that died paused it
                _index_missing_keys(store)
            for path, from_folder, ignored in inputs:
                if ignored:
                    report.files.append(FileReport(path=str(path), ignored=ignored))
                    continue
                with lines.reading(path):
                    try:
                        file_fmt = _resolve_format(path, from_folder, fmt, columns)
                    except NotAPaperList as exc:
                        if from_folder:
                            report.files.append(FileReport(path=str(path), ignored=exc.reason))
                            continue
                        report.files.append(FileReport(path=str(path), error=str(exc)))
                        continue
                    except InputError as exc:
                        report.files.append(FileReport(path=str(path), error=str(exc)))
                        continue
                    file_report = FileReport(path=str(path), format=file_fmt)
                    try:
                        _ingest_file(store, path, file_fmt, columns, lines, workers, strict, file_report)
                    except InputError as exc:
                        # Nothing of the file stays (it was undone); what was read before is said.
                        failed = FileReport(path=str(path), format=file_fmt, read=file_report.read)
                        failed.error = str(exc)
                        report.files.append(failed)
                        continue
                report.files.append(file_report)
            if strict and (report.skipped or report.failed):
                raise _StrictAbort
    except _StrictAbort:
        report.rolled_back = True
    finally:
        workers.close()
        lines.bar.close()
    report.elapsed_s = time.perf_counter() - started
    return report


class _StrictAbort(Exception):
    """Raised inside the strict-mode transaction to roll it back."""
