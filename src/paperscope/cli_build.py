"""``paperscope build`` and ``paperscope load``: batch-build shards (locally or on Ray), then merge them.

Registered on the ``cli`` group by :func:`register` (called from ``cli.py``). Errors are one
line (``PaperscopeError`` becomes a ``ClickException`` in the group), never a traceback.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .cli_output import device_option, emit_json, json_option

if TYPE_CHECKING:
    from .scale.build import BuildReport

__all__ = ["register"]

#: Skips and repairs listed per file (the manifest keeps them all).
_LISTED = 10


def _print_build(report: BuildReport) -> None:
    """Print each file built, kept or failed, the totals and each stage's throughput (stderr)."""
    from .progress import summary
    from .scale.build import STAGES

    for item in report.failed:
        click.echo(f"error: {item['error']}", err=True)
    for item in report.ignored:
        click.echo(f"ignored: {item['path']}: {item['ignored']}", err=True)
    for entry in report.built:
        click.echo(
            f"{entry['path']}: read {entry['read']}, papers {entry['papers']}, skipped {len(entry['skipped'])},"
            f" shards {len(entry['shards'])}"
        )
        # As ingest does: each skip and repair with its line (or record number), ten per kind.
        for kind, rows in (("skipped", entry["skipped"]), ("repaired", entry["repaired"])):
            for line, reason, unit in sorted(rows)[:_LISTED]:
                click.echo(f"  {kind}: {entry['path']}: {unit} {line}: {reason}", err=True)
            if len(rows) > _LISTED:
                click.echo(
                    f"  … and {len(rows) - _LISTED} more {kind} (manifest.json lists them all)", err=True
                )
    for entry in report.kept:
        click.echo(f"{entry['path']}: built before, kept ({entry['papers']} papers)")
    for stage in STAGES:
        if stage in report.seconds:
            summary(
                f"build {stage} (busy time over {report.engine} workers)",
                report.papers,
                report.seconds[stage],
            )
    where = f"{report.engine}, {len(report.nodes)} nodes" if report.nodes else report.engine
    summary(f"build ({where})", report.read, report.elapsed_s, unit="records")


def _build_dict(report: BuildReport) -> dict[str, Any]:
    """Return the build report as JSON-ready data (the Ray node ids as a sorted list)."""
    from dataclasses import asdict

    return {**asdict(report), "nodes": sorted(report.nodes), "devices": sorted(report.devices)}


def register(cli: click.Group, command: Any, library: Any) -> None:
    """Add ``build`` and ``load`` to ``cli``; ``command`` is cli.py's ``_command``, ``library`` its ``_library``."""

    @command("build")
    @click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))
    @click.option(
        "--out",
        type=click.Path(file_okay=False, path_type=Path),
        required=True,
        help="Shard folder to write.",
    )
    @click.option(
        "--engine",
        type=click.Choice(["local", "ray"]),
        default="local",
        show_default=True,
        help="Where the stages run: processes here, or a Ray cluster (pip install 'paperscope[ray]').",
    )
    @click.option(
        "--address",
        default=None,
        help="Ray cluster to use (auto, HOST:6379 or ray://HOST:10001); default: a local one for this build.",
    )
    @click.option(
        "--workers",
        default=None,
        type=click.IntRange(1, 1024),
        help="Local processes (default 1), or CPUs of the local Ray cluster (default all).",
    )
    @click.option("--format", "fmt", default=None, help="Input format (default: detected per file).")
    @click.option("--map", "column_map", default=None, metavar="FIELD=COLUMN,...", help="As for ingest.")
    @device_option()
    @json_option("Print the report (files built, kept, failed; records, papers, stage times) as JSON.")
    def build(
        sources: tuple[Path, ...],
        out: Path,
        engine: str,
        address: str | None,
        workers: int | None,
        fmt: str | None,
        column_map: str | None,
        device: str,
        as_json: bool,
    ) -> None:
        """Build Parquet shards (papers, cards, vectors) of paper lists, on local processes or Ray.

        Load them into a library with `paperscope load DIR`. Building the same sources again
        with more files builds only the new files.

        Example: paperscope build arxiv/*.jsonl --out shards --engine ray --address auto
        """
        from .index.embed import embedder_for_device
        from .scale import stages
        from .scale.build import run_build

        embedder = embedder_for_device(stages.embedder_name(), device)
        if embedder == "minilm-cuda" and engine == "local":  # Ray checks the cluster's GPUs
            from .index.torch_minilm import require_cuda

            require_cuda()

        missing = [p for p in sources if not p.exists()]
        if len(missing) == len(sources):
            raise click.ClickException(f"{missing[0]}: no such file or folder; nothing was built")
        report = run_build(
            [str(s) for s in sources],
            out,
            engine=engine,
            address=address,
            workers=workers,
            fmt=fmt,
            column_map=column_map,
            progress=True,
            embedder=embedder,
        )
        if as_json:
            emit_json(_build_dict(report))
        else:
            _print_build(report)
        if not report.built and not report.kept:
            what = "every file failed" if report.failed else "no paper list found in the sources"
            raise click.ClickException(f"{what}; nothing was built")
        click.echo(f"wrote {out}; load it with: paperscope load {out}", err=True)
        if report.failed:
            raise SystemExit(1)

    @command("load")
    @click.argument("shard_dir", type=click.Path(file_okay=False, path_type=Path))
    @json_option("Print the report as JSON (as ingest --json).")
    @click.pass_context
    def load(ctx: click.Context, shard_dir: Path, as_json: bool) -> None:
        """Merge a build's shards into the library (dedup as ingest; cards and vectors as built).

        Example: paperscope --db big.db load shards
        """
        from .cli import _print_phases, _print_report
        from .scale.load import load_shards
        from .scale.shards import MANIFEST

        if not (shard_dir / MANIFEST).is_file():
            raise click.ClickException(
                f"{shard_dir}: no {MANIFEST}, not a folder `paperscope build --out` wrote; nothing was loaded"
            )
        from .scale.shards import load_manifest

        if not sum(int(e.get("papers") or 0) for e in load_manifest(shard_dir).get("inputs", [])):
            raise click.ClickException(
                f"{shard_dir}: the build stored no paper (every file failed or held none); nothing was loaded"
            )
        started = time.perf_counter()
        report = load_shards(library(ctx, create=True), shard_dir, progress=True)
        if as_json:
            emit_json(report.to_dict())
        else:
            _print_report(report)
        _print_phases(report, time.perf_counter() - started, command="load")
