"""``paperscope build``: plan the inputs, run an engine over their chunks, keep the manifest.

Inputs already built (same path, size and mtime, listed done in ``manifest.json``) are not
built again, so building the same sources plus new files builds only the new files. A file
that fails part-way (malformed JSON, bytes that are not UTF-8) is reported with its reason and
leaves no shard, as it leaves no paper in an ingest. Shards of files not marked done (a build
that was killed) are removed before the build starts, so nothing is ever counted twice.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..progress import progress as progress_bar
from . import shards, stages

__all__ = ["BuildReport", "run_build", "STAGES"]

#: The timed stages, in pipeline order (seconds summed over every worker).
STAGES = ("normalise", "cards", "embed", "write")


@dataclass
class BuildReport:
    """Figures of one build: files built, kept from earlier builds, failed; records and papers.

    ``seconds`` sums each stage's time over all workers (busy seconds); ``elapsed_s`` is wall time.
    """

    built: list[dict[str, Any]] = field(default_factory=list)
    kept: list[dict[str, Any]] = field(default_factory=list)
    failed: list[dict[str, Any]] = field(default_factory=list)
    ignored: list[dict[str, Any]] = field(default_factory=list)
    read: int = 0
    papers: int = 0
    skipped: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    elapsed_s: float = 0.0
    engine: str = "local"
    workers: int = 1
    #: Ray node ids that embedded chunks (empty on the local engine).
    nodes: set[str] = field(default_factory=set)
    #: What embedded the chunks on Ray: "CPU", or "GPU 0" per GPU actor (empty on the local engine).
    devices: set[str] = field(default_factory=set)
    #: The Ray engine's plan line: actors, devices and the expected rate ("" on the local engine).
    plan: str = ""


def _entry(item: stages.Input) -> dict[str, Any]:
    return {
        "index": item.index,
        "path": item.path,
        "key": item.key,
        "format": item.fmt,
        "status": "building",
        "shards": [],
        "read": 0,
        "papers": 0,
        "skipped": [],
        "repaired": [],
    }


def _clean_stale(out_dir: Path, done: set[int]) -> None:
    """Remove temporary files and the shards of every file not marked done."""
    for path in out_dir.glob(".*.tmp"):
        path.unlink(missing_ok=True)
    for path in out_dir.glob("f*-*.parquet"):
        try:
            file = int(path.name[1:6])
        except ValueError:
            continue
        if file not in done:
            path.unlink(missing_ok=True)


def run_build(
    sources: list[str],
    out_dir: str | Path,
    engine: str = "local",
    address: str | None = None,
    workers: int | None = None,
    fmt: str | None = None,
    column_map: Mapping[str, str] | str | None = None,
    progress: bool = False,
    embedder: str | None = None,
) -> BuildReport:
    """Build the Parquet shards of ``sources`` into ``out_dir``; return the figures.

    Args:
        sources: files and folders, as for ``paperscope ingest``.
        out_dir: the shard folder (made if missing; its manifest says what is built already).
        engine: ``"local"`` (processes here) or ``"ray"`` (a Ray cluster, the ``ray`` extra).
        address: the Ray cluster (``auto``, ``ray://host:10001``, ``host:6379``); None starts a
            local one for this build.
        workers: local processes (default 1), or Ray CPUs for a local cluster (default all).
        fmt: a format name, as ``paperscope ingest --format`` (None: detected per file).
        column_map: field → column names, as ``paperscope ingest --map``.
        progress: show the records built and, at the end, each stage's throughput.
        embedder: the registered embedder the shards' vectors come from (``build --device``
            picks it); default: ``$PAPERSCOPE_EMBEDDER``, else ``minilm``.

    Raises:
        InputError: pyarrow or (for ``ray``) Ray is missing, an unknown engine, format or
            column map, or a manifest of another embedder or layout.
    """
    started = time.perf_counter()
    if engine not in ("local", "ray"):
        raise InputError(f"unknown engine {engine!r}; choose local or ray")
    shards.require_pyarrow()
    from ..extract import EXTRACTOR_VERSION
    from ..index.embed import embedder_model_id
    from ..ingest.fields import parse_column_map

    columns = parse_column_map(column_map) if isinstance(column_map, str) else dict(column_map or {})
    out = Path(out_dir)
    name = embedder or stages.embedder_name()
    model_id = embedder_model_id(name)
    manifest = shards.load_manifest(out)
    if manifest.get("model_id") not in (None, model_id):
        raise InputError(
            f"these shards were embedded with {manifest['model_id']}, not {model_id}: build into a new --out folder",
            str(out),
        )
    report = BuildReport(engine=engine, workers=workers or 1)
    done = {e["key"]: e for e in manifest["inputs"] if e["status"] == "done"}
    planned = stages.plan_inputs(sources, fmt, columns)
    next_index = max((e["index"] for e in done.values()), default=-1) + 1
    todo: list[stages.Input] = []
    entries: dict[int, dict[str, Any]] = {}
    for item in planned:
        if item.ignored or item.error:
            info = {"path": item.path, "ignored": item.ignored, "error": item.error}
            (report.ignored if item.ignored else report.failed).append(info)
            continue
        if item.key in done:
            report.kept.append(done[item.key])
            continue
        item.index = next_index
        next_index += 1
        todo.append(item)
        entries[item.index] = _entry(item)
    # The first folder of ``out`` this run makes: removed again, with those under it, if the
    # build is refused before it wrote anything.
    made_out = next((p for p in reversed([out, *out.parents]) if not p.exists()), None)
    out.mkdir(parents=True, exist_ok=True)
    _clean_stale(out, {e["index"] for e in done.values()})
    # Progress in input lines, of a total counted first (about 1 s per 4 GB): chunks report the
    # last line they reached, so the bar has a total and an ETA on either engine.
    from ..ingest.files import count_lines

    total_lines = sum(count_lines(Path(item.path)) for item in todo) if progress else 0
    bar = progress_bar(total=total_lines or None, desc="build", unit="lines", enabled=progress)
    reached: dict[int, int] = {}
    try:
        if engine == "ray":
            from .ray_engine import run_ray

            events = run_ray(todo, out, columns, name, address=address, cpus=workers)
        else:
            from .local_engine import run_local

            events = run_local(todo, out, columns, name, workers=workers or 1)
        for kind, value in events:
            if kind == "chunk" and value.lines > reached.get(value.file, 0):
                bar.update(value.lines - reached.get(value.file, 0))
                reached[value.file] = value.lines
            if kind == "plan":
                report.plan = value
                if progress:
                    print(value, file=sys.stderr, flush=True)
                continue
            if kind == "error":
                file, reason = value
                entries[file]["status"] = "failed"
                entries[file]["error"] = reason
                continue
            entry = entries[value.file]
            if value.node:
                report.nodes.add(value.node)
            if value.device:
                report.devices.add(value.device)
            entry["shards"].append(value.shard)
            entry["read"] += value.read
            entry["papers"] += value.papers
            entry["skipped"].extend(value.skipped)
            entry["repaired"].extend(value.repaired)
            for stage, seconds in value.seconds.items():
                report.seconds[stage] = report.seconds.get(stage, 0.0) + seconds
        if total_lines > sum(reached.values()):  # lines after each file's last record: read too
            bar.update(total_lines - sum(reached.values()))
    except BaseException:
        # E.g. --device cuda on a cluster without a GPU: refused before any shard was written.
        if made_out is not None and not any(out.iterdir()):
            for folder in [out, *out.parents]:
                folder.rmdir()
                if folder == made_out:
                    break
        raise
    finally:
        bar.close()
    for entry in entries.values():
        if entry["status"] == "failed":
            for shard in entry["shards"]:
                (out / shard).unlink(missing_ok=True)
            report.failed.append({"path": entry["path"], "error": entry.get("error")})
            continue
        entry["status"] = "done"
        entry["shards"].sort()  # chunks arrive in any order on Ray; the manifest keeps file order
        entry["skipped"].sort(key=lambda s: s[0])
        entry["repaired"].sort(key=lambda s: s[0])
        report.built.append(entry)
        report.read += entry["read"]
        report.papers += entry["papers"]
        report.skipped += len(entry["skipped"])
    # Earlier builds' files stay (a build of more files adds to them); a file built again
    # because it changed replaces its old entry, whose shards go.
    rebuilt = {e["path"] for e in report.built}
    for old in done.values():
        if old["path"] in rebuilt:
            for shard in old["shards"]:
                (out / shard).unlink(missing_ok=True)
    manifest["inputs"] = [*(e for e in done.values() if e["path"] not in rebuilt), *report.built]
    manifest["inputs"].sort(key=lambda e: e["index"])
    manifest["model_id"] = model_id
    manifest["extractor_version"] = EXTRACTOR_VERSION
    shards.save_manifest(out, manifest)
    report.elapsed_s = time.perf_counter() - started
    return report
