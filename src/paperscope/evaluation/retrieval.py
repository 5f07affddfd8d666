"""The retrieval benchmark behind ``paperscope eval``: bm25, dense and hybrid side by side.

Tasks (data in ``../shared/data``, see its SOURCES.md):

- ``scifact``: BEIR SciFact, 5,183 abstracts (title + text), the 300 test queries of
  ``qrels/test.tsv``. Published anchors: BM25 nDCG@10 0.665 (Thakur et al., 2021),
  all-MiniLM-L6-v2 about 0.645 (MTEB).
- ``iclr-title``: ICLR 2026, 4,302 abstracts indexed without their titles; each test title
  must find its own abstract.
- ``iclr-keywords``: the same library; each paper's author keywords must find the paper.
- ``iclr-zh``: the same library; the first sentence of each paper's Chinese summary
  (``explain_zh``, written by an LLM for the source repository: a realistic Chinese query,
  not a label) must find the English abstract. Its training quarter tunes the fusion of
  glossed (Chinese) queries.
- ``icml-dev-en`` / ``icml-dev-zh``: the hand-labelled dev queries over the 95 ICML 2026
  abstracts (graded 2/1), English and Chinese reported apart.
- ``iclr-related``: the same ICLR library; each paper is a query for ``related``, and its
  related papers are those sharing author keywords with it
  (:func:`paperscope.evaluation.qrels.related_qrels`). bm25 is the "more like this" leg, dense
  the embedding neighbours, hybrid the product's fusion of both.

Each corpus is loaded into its own library under ``workdir`` through the product's own store,
embedding and search code, so the figures measure what users run. Libraries are kept, so a
rerun embeds nothing. ICLR items are split by a fixed hash (:func:`is_training_item`): a
quarter of the titles/keywords are training queries, the rest are the test queries reported;
SciFact's train qrels are its training queries. Fusion weights are tuned on training queries
only (:mod:`paperscope.evaluation.fusion_tuning`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..config import home_dir
from ..errors import InputError
from ..index.fusion import DEFAULT_FUSION, Fusion
from ..index.related import RELATED_FUSION, related_legs
from ..index.search import Legs, collect_legs, fuse_legs
from ..ingest.pipeline import content_hash_for, record_to_paper
from ..ingest.text_list import read_text_list
from ..library import Library
from ..models import Paper, Record, Source
from ..progress import track
from ..store import papers as stored_papers
from .metrics import METRICS, evaluate_run
from .paths import default_data_dir
from .qrels import (
    IclrPaper,
    chinese_problem_statement,
    is_training_item,
    read_beir_queries,
    read_dev_queries,
    read_iclr_papers,
    read_qrels_tsv,
    read_scifact_corpus,
    related_qrels,
)
from .text_queries import ABSTRACT_QUERIES, METHOD_QUERIES, method_sentences, split_keys, title_records

__all__ = [
    "TASKS",
    "EVAL_MODES",
    "EvalTask",
    "RetrievalResults",
    "default_data_dir",
    "load_tasks",
    "run_retrieval_eval",
    "format_retrieval_eval",
    "query_legs",
]

#: Task name → what it measures (table titles).
TASKS = {
    "scifact": "SciFact (BEIR test, 300 claims → 5,183 abstracts)",
    "iclr-title": "ICLR 2026 title → abstract (test 3/4 of 4,302 papers)",
    "iclr-keywords": "ICLR 2026 keywords → paper (test 3/4 of 4,302 papers)",
    "iclr-zh": "ICLR 2026 Chinese problem statement (from explain_zh) → abstract (test 3/4)",
    "icml-dev-en": "ICML 2026 dev queries, English (95 abstracts)",
    "icml-dev-zh": "ICML 2026 dev queries, Chinese (95 abstracts)",
    "iclr-related": "ICLR 2026 related papers: a paper → papers sharing its author keywords (test 3/4)",
    "iclr-abstract": "ICLR 2026 whole abstract → its title among 10k+ titles (600 test abstracts)",
    "iclr-method": "ICLR 2026 method sentences → papers sharing the paper's author keywords (800 test)",
}
#: Modes reported: the product's three, plus plain RRF (k = 60) as the reference fusion.
EVAL_MODES = ("bm25", "dense", "hybrid", "rrf")
_DEPTH = 100


@dataclass
class EvalTask:
    """One benchmark task: a library, its test queries and qrels (keyed by paper_id), training ones."""

    name: str
    library_name: str
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    train_queries: dict[str, str] = field(default_factory=dict)
    train_qrels: dict[str, dict[str, int]] = field(default_factory=dict)
    #: query id → a paper left out of that query's ranking (the paper a text query was taken from).
    exclude: dict[str, str] = field(default_factory=dict)


class RetrievalResults(dict[str, dict[str, dict[str, float]]]):
    """What :func:`run_retrieval_eval` returns: task → mode → metric → value, plus its cost.

    A plain dict to everything that reads it (JSON, :func:`format_retrieval_eval`); the
    attributes carry the summary line's figures and are not part of the JSON.

    Attributes:
        n_queries: test queries run, over all tasks (each through every mode).
        elapsed_s: wall time of the whole run in seconds, loading and embedding included.
    """

    n_queries: int = 0
    elapsed_s: float = 0.0


def _add_records(lib: Library, records: Iterable[Record]) -> dict[str, str]:
    """Store ``records`` in one transaction (no cards); return the source key → paper_id map.

    The key of a record is its ``external_ids["key"]``. Records with the same abstract share a
    paper_id, as at ingest.
    """
    by_id: dict[str, Paper] = {}
    key_to_id: dict[str, str] = {}
    for record in records:
        paper = record_to_paper(record)
        if paper is None:
            continue
        key_to_id[record.external_ids["key"]] = paper.paper_id
        if paper.paper_id in by_id:
            by_id[paper.paper_id].sources.extend(paper.sources)
        else:
            by_id[paper.paper_id] = paper
    fresh = list(by_id.values())
    with lib.store.transaction() as conn:
        stored_papers.insert_papers(conn, fresh, [content_hash_for(p.title, p.clean_text) for p in fresh])
    return key_to_id


def _open_library(
    workdir: Path, name: str, build: Callable[[Library], object], embedder: str | None
) -> Library:
    """Open ``workdir/name.db``, building it first when missing (built aside, then renamed in)."""
    path = workdir / f"{name}.db"
    if not path.exists():
        workdir.mkdir(parents=True, exist_ok=True)
        tmp = workdir / f"{name}.db.building"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{tmp}{suffix}").unlink(missing_ok=True)
        with Library(tmp, embedder="fake") as lib:
            build(lib)
        os.replace(tmp, path)
    return Library(path, embedder=embedder)


def _id_map(lib: Library) -> dict[str, str]:
    """Return external key → paper_id for a library built by :func:`_add_records`."""
    out: dict[str, str] = {}
    for paper in lib.papers():
        for source in paper.sources:
            out[f"{source.path}#{source.line}"] = paper.paper_id
    return out


def _scifact(data: Path, workdir: Path, embedder: str | None) -> tuple[Library, list[EvalTask]]:
    folder = data / "scifact-beir"
    corpus_path = folder / "corpus_train.csv"

    def build(lib: Library) -> None:
        _add_records(
            lib,
            (
                Record(
                    abstract=text,
                    title=title,
                    source=Source(str(corpus_path), int(doc_id), "scifact"),
                    external_ids={"key": doc_id},
                )
                for doc_id, title, text in read_scifact_corpus(corpus_path)
            ),
        )

    lib = _open_library(workdir, "scifact", build, embedder)
    doc_to_paper = {key.rsplit("#", 1)[1]: pid for key, pid in _id_map(lib).items()}
    queries = read_beir_queries(folder / "queries.jsonl")

    def convert(qrels: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for qid, docs in qrels.items():
            for doc, grade in docs.items():
                pid = doc_to_paper[doc]
                out.setdefault(qid, {})[pid] = max(grade, out.get(qid, {}).get(pid, 0))
        return out

    test = convert(read_qrels_tsv(folder / "qrels" / "test.tsv"))
    train = convert(read_qrels_tsv(folder / "qrels" / "train.tsv"))
    task = EvalTask(
        name="scifact",
        library_name="scifact",
        queries={q: queries[q] for q in test},
        qrels=test,
        train_queries={q: queries[q] for q in train},
        train_qrels=train,
    )
    return lib, [task]


def _iclr(data: Path, workdir: Path, embedder: str | None) -> tuple[Library, list[EvalTask]]:
    folder = data / "iclr2026-primary-area"
    items = read_iclr_papers(folder)
    if not items:
        raise InputError(f"{folder}: no primary_area__*.csv files with abstracts")

    def build(lib: Library) -> None:
        # Titles are withheld: the title→abstract task must not be a string match on the title.
        _add_records(
            lib,
            (
                Record(
                    abstract=item.abstract,
                    source=Source(str(folder), number, "iclr-csv"),
                    venue="ICLR",
                    year=2026,
                    decision=item.decision,
                    source_area=item.primary_area,
                    keywords=[k.strip() for k in item.keywords.split(",") if k.strip()],
                    external_ids={"key": item.paper_key},
                )
                for number, item in enumerate(items, start=1)
            ),
        )

    lib = _open_library(workdir, "iclr2026", build, embedder)
    by_line = {int(key.rsplit("#", 1)[1]): pid for key, pid in _id_map(lib).items()}
    tasks = []
    fields: list[tuple[str, Callable[[IclrPaper], str]]] = [
        ("iclr-title", lambda it: it.title),
        ("iclr-keywords", lambda it: it.keywords.replace(",", " ")),
        ("iclr-zh", lambda it: chinese_problem_statement(it.explain_zh)),
    ]
    for name, field_of in fields:
        task = EvalTask(name=name, library_name="iclr2026", queries={}, qrels={})
        for number, item in enumerate(items, start=1):
            text = field_of(item).strip()
            if not text or number not in by_line:
                continue
            queries, qrels = (
                (task.train_queries, task.train_qrels)
                if is_training_item(item.paper_key)
                else (task.queries, task.qrels)
            )
            queries[item.paper_key] = text
            qrels[item.paper_key] = {by_line[number]: 1}
        tasks.append(task)
    related = EvalTask(name="iclr-related", library_name="iclr2026", queries={}, qrels={})
    pid_of = {item.paper_key: by_line[n] for n, item in enumerate(items, start=1) if n in by_line}
    for key, judged in related_qrels(items).items():
        if key not in pid_of:
            continue
        queries, qrels = (
            (related.train_queries, related.train_qrels)
            if is_training_item(key)
            else (related.queries, related.qrels)
        )
        queries[key] = pid_of[key]  # the query is a paper: its paper_id
        qrels[key] = {pid_of[k]: grade for k, grade in judged.items() if k in pid_of}
    tasks.append(related)
    tasks.append(_method_task(items, pid_of))
    return lib, tasks


def _method_task(items: list[IclrPaper], pid_of: dict[str, str]) -> EvalTask:
    """Return ``iclr-method``: a paper's method sentences → the papers sharing its author keywords."""
    task = EvalTask(name="iclr-method", library_name="iclr2026", queries={}, qrels={})
    judged = {k: v for k, v in related_qrels(items).items() if k in pid_of}
    by_key = {item.paper_key: item for item in items}
    usable = [k for k in judged if method_sentences(by_key[k].abstract)]
    test, train = split_keys(usable, METHOD_QUERIES)
    for keys, queries, qrels in (
        (test, task.queries, task.qrels),
        (train, task.train_queries, task.train_qrels),
    ):
        for key in keys:
            queries[key] = method_sentences(by_key[key].abstract)
            qrels[key] = {pid_of[k]: grade for k, grade in judged[key].items() if k in pid_of}
            task.exclude[key] = pid_of[key]
    return task


def _abstract_titles(data: Path, workdir: Path, embedder: str | None) -> tuple[Library, list[EvalTask]]:
    """Return the titles library and ``iclr-abstract``: an ICLR 2026 abstract → its own title."""
    items = read_iclr_papers(data / "iclr2026-primary-area")
    if not items:
        raise InputError(f"{data / 'iclr2026-primary-area'}: no primary_area__*.csv files with abstracts")
    lib = _open_library(
        workdir, "titles", lambda lib: _add_records(lib, title_records(items, data)), embedder
    )
    by_source = {}
    for paper in lib.papers():
        for source in paper.sources:
            if source.path == "iclr2026-titles":
                by_source[source.line] = paper.paper_id
    keyed = {item.paper_key: (n, item) for n, item in enumerate(items, start=1) if n in by_source}
    test, train = split_keys(sorted(keyed), ABSTRACT_QUERIES)
    task = EvalTask(name="iclr-abstract", library_name="titles", queries={}, qrels={})
    for keys, queries, qrels in (
        (test, task.queries, task.qrels),
        (train, task.train_queries, task.train_qrels),
    ):
        for key in keys:
            number, item = keyed[key]
            queries[key] = item.abstract
            qrels[key] = {by_source[number]: 1}
    return lib, [task]


def _icml_dev(data: Path, workdir: Path, embedder: str | None) -> tuple[Library, list[EvalTask]]:
    folder = data / "icml2026"
    lib = _open_library(workdir, "icml2026", lambda lib: lib.ingest([folder], embed=False), embedder)
    # Positions resolve through the stored sources (file, line), not by re-hashing the text: a
    # library built by an older clean_text keeps its paper_ids (ingest merges the new text in).
    stored = {
        (str(Path(src.path).resolve()), src.line): paper.paper_id
        for paper in lib.papers()
        for src in paper.sources
    }
    position: dict[tuple[str, int], str] = {}
    for path in sorted(folder.glob("*.txt")):
        for index, record in enumerate(read_text_list(path)):
            key = (str(Path(record.source.path).resolve()), record.source.line)
            if key in stored:
                position[(path.name, index)] = stored[key]
    tasks = {
        lang: EvalTask(name=f"icml-dev-{lang}", library_name="icml2026", queries={}, qrels={})
        for lang in ("en", "zh")
    }
    for row in read_dev_queries(data / "gold" / "icml2026_queries_dev.jsonl"):
        task = tasks["zh" if row["lang"] == "zh" else "en"]
        task.queries[row["qid"]] = row["query"]
        task.qrels[row["qid"]] = {position[(f, i)]: grade for f, i, grade in row["relevant"]}
    return lib, list(tasks.values())


_LOADERS = {"scifact": _scifact, "iclr": _iclr, "icml": _icml_dev, "titles": _abstract_titles}
_TASK_LOADER = {
    "scifact": "scifact",
    "iclr-title": "iclr",
    "iclr-keywords": "iclr",
    "iclr-zh": "iclr",
    "icml-dev-en": "icml",
    "icml-dev-zh": "icml",
    "iclr-related": "iclr",
    "iclr-method": "iclr",
    "iclr-abstract": "titles",
}


def load_tasks(
    names: Sequence[str] | None = None,
    data_dir: Path | None = None,
    workdir: Path | None = None,
    embedder: str | None = None,
    progress: bool = False,
) -> list[tuple[Library, EvalTask]]:
    """Build (or reopen) the libraries of the named tasks, embed them, and return them with their tasks.

    Raises:
        InputError: a task name is unknown, or a data file is missing or malformed.
    """
    names = list(names or TASKS)
    unknown = [n for n in names if n not in TASKS]
    if unknown:
        raise InputError(f"unknown eval task {unknown[0]!r}; choose from: {', '.join(TASKS)}")
    data = data_dir or default_data_dir()
    if not data.is_dir():
        raise InputError(f"{data}: eval data folder not found; set PAPERSCOPE_EVAL_DATA")
    work = workdir or home_dir() / "eval"
    out: list[tuple[Library, EvalTask]] = []
    for loader in dict.fromkeys(_TASK_LOADER[n] for n in names):
        lib, tasks = _LOADERS[loader](data, work, embedder)
        lib.embeddings(progress=progress)
        out.extend((lib, t) for t in tasks if t.name in names)
    return out


def _legs(lib: Library, text: str, depth: int, mode: str = "hybrid") -> Legs:
    """Return the legs of one query as :meth:`Library.search` collects them (the query bounded first)."""
    bounded = lib.bound_query(text)
    return collect_legs(
        lib.store,
        bounded.lexical,
        depth,
        mode,
        None,
        lib.query_embedder,
        lib.dense_index,
        lambda: lib.memory_bm25(build=False),
        dense_text=bounded.dense,
    )


def query_legs(
    lib: Library, queries: dict[str, str], depth: int, progress: bool = False, label: str = "legs"
) -> dict[str, Legs]:
    """Return query id → the legs of that query, each leg ``depth`` deep (see :func:`_legs`)."""
    return {
        qid: _legs(lib, text, depth)
        for qid, text in track(queries.items(), desc=label, unit="queries", enabled=progress)
    }


def _runs(
    lib: Library,
    queries: dict[str, str],
    modes: Sequence[str],
    fusion: Fusion,
    progress: bool,
    label: str,
    exclude: dict[str, str] | None = None,
) -> dict[str, dict[str, list[str]]]:
    """Return mode → query id → ranked paper_ids (top 100) through the product's search code.

    The legs are collected once per query in hybrid mode: its BM25 list is exactly bm25 mode's,
    and its dense list starts with dense mode's top 100 (the extra BM25 candidates it scores
    rank below them). Only when BM25 matches nothing (hybrid then drops weak dense hits) is
    dense mode asked on its own. ``exclude`` maps a query id to a paper left out of its ranking.
    """
    runs: dict[str, dict[str, list[str]]] = {m: {} for m in modes}
    rrf = replace(fusion, method="rrf", weights={"bm25": 1.0, "dense": 1.0})
    depth = max(_DEPTH, fusion.candidates) + 1
    for qid, text in track(queries.items(), desc=f"eval {label}", unit="queries", enabled=progress):
        legs = _legs(lib, text, depth)
        for mode in modes:
            if mode == "bm25":
                ranked = [pid for pid, _ in legs.lists.get("bm25", [])]
            elif mode == "dense" and legs.lists.get("bm25"):
                ranked = [pid for pid, _ in legs.lists["dense"]]
            elif mode == "dense":
                ranked = [r.paper_id for r in fuse_legs(_legs(lib, text, depth, "dense"), depth, "dense")]
            else:
                ranked = [
                    r.paper_id for r in fuse_legs(legs, depth, "hybrid", rrf if mode == "rrf" else fusion)
                ]
            left_out = (exclude or {}).get(qid)
            runs[mode][qid] = [pid for pid in ranked if pid != left_out][:_DEPTH]
    return runs


def _related_runs(
    lib: Library, queries: dict[str, str], modes: Sequence[str], progress: bool, label: str
) -> dict[str, dict[str, list[str]]]:
    """Return mode → query id → ranked paper_ids for related-paper queries (a paper_id each).

    The legs are the product's (:func:`paperscope.index.related.related_legs`): dense is the
    paper's embedding neighbours, bm25 its "more like this" query, hybrid their fusion with
    :data:`RELATED_FUSION`. Duplicate filtering is left out (ICLR has no duplicate abstracts).
    """
    runs: dict[str, dict[str, list[str]]] = {m: {} for m in modes}
    rrf = replace(RELATED_FUSION, method="rrf", weights={"bm25": 1.0, "dense": 1.0})
    index, memory = lib.dense_index(), lib.memory_bm25()
    for qid, paper_id in track(queries.items(), desc=f"eval {label}", unit="queries", enabled=progress):
        legs = related_legs(lib.store, index, lib.get(paper_id), _DEPTH, memory)
        for mode in modes:
            fusion = rrf if mode == "rrf" else RELATED_FUSION
            ranked = fuse_legs(legs, _DEPTH, "hybrid" if mode == "rrf" else mode, fusion)
            runs[mode][qid] = [r.paper_id for r in ranked]
    return runs


def run_retrieval_eval(
    tasks: Sequence[str] | None = None,
    modes: Sequence[str] = EVAL_MODES,
    data_dir: Path | None = None,
    workdir: Path | None = None,
    embedder: str | None = None,
    fusion: Fusion = DEFAULT_FUSION,
    progress: bool = False,
) -> RetrievalResults:
    """Run the benchmark; return task → mode → metric → value (metrics: :data:`METRICS`).

    Args:
        tasks: names from :data:`TASKS` (default all).
        modes: from :data:`EVAL_MODES`.
        data_dir: the shared data folder (default :func:`default_data_dir`).
        workdir: where the task libraries are kept (default ``$PAPERSCOPE_HOME/eval``).
        embedder: embedder name (default the library default, ``minilm``).
        fusion: the hybrid fusion to measure.
        progress: show progress on stderr (:mod:`paperscope.progress`): embedding, then
            each task's queries (``eval scifact: 120/300 (40%), 18 queries/s, ETA 10 s``).

    Returns:
        The results, with ``n_queries`` and ``elapsed_s`` for the summary line.

    Raises:
        InputError: unknown task or mode, or missing data.
    """
    bad = [m for m in modes if m not in EVAL_MODES]
    if bad:
        raise InputError(f"unknown eval mode {bad[0]!r}; choose from: {', '.join(EVAL_MODES)}")
    started = time.perf_counter()
    results = RetrievalResults()
    loaded = load_tasks(tasks, data_dir, workdir, embedder, progress)
    for lib, task in loaded:
        if task.name == "iclr-related":
            runs = _related_runs(lib, task.queries, modes, progress, task.name)
        else:
            runs = _runs(lib, task.queries, modes, fusion, progress, task.name, task.exclude)
        results[task.name] = {mode: evaluate_run(runs[mode], task.qrels, METRICS) for mode in modes}
        results.n_queries += len(task.queries)
    for lib in {id(lib): lib for lib, _ in loaded}.values():
        lib.close()
    results.elapsed_s = time.perf_counter() - started
    return results


def format_retrieval_eval(results: dict[str, dict[str, dict[str, float]]]) -> str:
    """Return one plain-text table per task: a row per mode, a column per metric (3 decimals)."""
    blocks = []
    for task, by_mode in results.items():
        metrics = list(next(iter(by_mode.values())).keys()) if by_mode else []
        lines = [TASKS.get(task, task), f"{'mode':<8}" + "".join(f"{m:>11}" for m in metrics)]
        for mode, values in by_mode.items():
            lines.append(f"{mode:<8}" + "".join(f"{values[m]:>11.3f}" for m in metrics))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
