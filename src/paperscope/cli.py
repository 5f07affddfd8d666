"""Command line: parse input, call the Library, format output. Results on stdout, logs on stderr."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from . import __version__
from .config import EXAMPLES_DIR, home_dir
from .errors import PaperscopeError
from .library import Library
from .models import Hit, IngestReport, Paper

__all__ = ["cli"]


def _emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


class _Group(click.Group):
    """Turn PaperscopeError into a one-line message and exit code 1 (no traceback)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except PaperscopeError as exc:
            raise click.ClickException(str(exc)) from exc


def _library(ctx: click.Context) -> Library:
    if "library" not in ctx.obj:
        ctx.obj["library"] = ctx.with_resource(Library(ctx.obj["db"]))
    return ctx.obj["library"]


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="paperscope")
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="PAPERSCOPE_DB",
    help="Library database file (default: $PAPERSCOPE_HOME/library.db).",
)
@click.pass_context
def cli(ctx: click.Context, db: Path | None) -> None:
    """Turn conference paper lists into a searchable local library.

    Example: paperscope ingest examples/icml2026 && paperscope search "dataset distillation"
    """
    ctx.ensure_object(dict)
    ctx.obj["db"] = db


def _print_report(report: IngestReport) -> None:
    for f in report.files:
        if f.error:
            click.echo(f"error: {f.error}", err=True)
            continue
        click.echo(
            f"{f.path}: read {f.read}, new {f.new}, already present {f.present}, skipped {len(f.skipped)}"
        )
        for skip in f.skipped:
            click.echo(f"  skipped {skip}", err=True)
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    failed = len(report.failed)
    click.echo(
        f"total: read {report.read}, new {report.new}, already present {report.present}, "
        f"skipped {len(report.skipped)}, files failed {failed} ({report.elapsed_s:.2f} s)"
    )


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", default=None, help="Input format (default: detected per file).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def ingest(ctx: click.Context, paths: tuple[Path, ...], fmt: str | None, as_json: bool) -> None:
    """Read paper lists (files or folders) into the library.

    Example: paperscope ingest examples/icml2026
    """
    report = _library(ctx).ingest(paths, fmt=fmt, progress=sys.stderr.isatty())
    if as_json:
        _emit_json(report.to_dict())
    else:
        _print_report(report)
    if report.failed:
        ctx.exit(1)


def _print_hits(hits: list[Hit]) -> None:
    if not hits:
        click.echo("no results")
    for hit in hits:
        where = f"{hit.sources[0].path}:{hit.sources[0].line}" if hit.sources else ""
        click.echo(f"{hit.rank:>3}. {hit.paper_id}  {hit.score:7.3f}  {hit.label}")
        click.echo(f"     {where}")


@cli.command()
@click.argument("query")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 1000), help="Number of hits.")
@click.option("--json", "as_json", is_flag=True, help="Print hits as JSON.")
@click.pass_context
def search(ctx: click.Context, query: str, limit: int, as_json: bool) -> None:
    """Search the library.

    Example: paperscope search "dataset distillation" --limit 5
    """
    hits = _library(ctx).search(query, limit=limit)
    if as_json:
        _emit_json([h.to_dict() for h in hits])
    else:
        _print_hits(hits)


def _print_paper(paper: Paper, marks: dict[str, Any]) -> None:
    click.echo(f"{paper.paper_id}  {paper.label}")
    if paper.title:
        click.echo(f"title:   {paper.title}")
    if paper.venue or paper.year:
        click.echo(f"venue:   {paper.venue or '?'} {paper.year or ''}".rstrip())
    card = paper.card.to_dict() if paper.card else {}
    for name in ("method_names", "code_urls", "project_urls"):
        if card.get(name):
            click.echo(f"{name.replace('_', ' ')}: {', '.join(card[name])}")
    for source in paper.sources:
        click.echo(f"source:  {source.path}:{source.line} ({source.format})")
    if marks["starred"] or marks["tags"] or marks["note"]:
        click.echo(f"starred: {marks['starred']}  tags: {', '.join(marks['tags']) or '-'}")
        if marks["note"]:
            click.echo(f"note:    {marks['note']}")
    click.echo("")
    click.echo(paper.clean_text)


@cli.command()
@click.argument("paper_id")
@click.option("--json", "as_json", is_flag=True, help="Print the paper as JSON.")
@click.pass_context
def show(ctx: click.Context, paper_id: str, as_json: bool) -> None:
    """Show one paper's card, provenance and abstract.

    Example: paperscope show 3f2a9c
    """
    lib = _library(ctx)
    paper = lib.get(paper_id)
    marks = lib.marks(paper.paper_id)
    if as_json:
        _emit_json({**paper.to_dict(), "marks": marks})
    else:
        _print_paper(paper, marks)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_context
def stats(ctx: click.Context, as_json: bool) -> None:
    """Show library counts.

    Example: paperscope stats --json
    """
    data = _library(ctx).stats()
    if as_json:
        _emit_json(data)
        return
    click.echo(f"library: {data['db']} (schema {data['schema_version']})")
    for key in ("papers", "sources", "cards", "stars", "tags", "notes"):
        click.echo(f"{key:>8}: {data[key]}")
    for row in data["by_venue"]:
        click.echo(f"  {row['venue'] or '(no venue)'} {row['year'] or ''}: {row['papers']}")


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["jsonl"]), default="jsonl", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None, help="File (default stdout).")
@click.pass_context
def export(ctx: click.Context, fmt: str, out: Path | None) -> None:
    """Export every paper, one JSON object per line.

    Example: paperscope export --format jsonl --out papers.jsonl
    """
    lib = _library(ctx)
    assigned = lib.paper_topics()
    keys = ("topic_id", "topic", "subtopic_id", "subtopic", "is_outlier")
    lines = (
        json.dumps(
            {
                **p.to_dict(),
                "topic": {k: assigned[p.paper_id][k] for k in keys} if p.paper_id in assigned else None,
            },
            ensure_ascii=False,
        )
        for p in lib.papers()
    )
    if out is None:
        for line in lines:
            click.echo(line)
        return
    tmp = out.with_name(out.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(line + "\n")
    tmp.replace(out)
    click.echo(f"wrote {out}", err=True)


_DEMO_QUERIES = ["dataset distillation", "CIFAR-10", "low-precision FP4 training", "机器遗忘", "剪枝"]


@cli.command()
@click.option("--examples", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None)
@click.pass_context
def demo(ctx: click.Context, examples: Path | None) -> None:
    """Build a fresh demo library from examples/icml2026, then summarise it and run sample searches.

    Example: paperscope demo
    """
    folder = examples or (Path("examples/icml2026") if Path("examples/icml2026").is_dir() else EXAMPLES_DIR)
    if not folder.is_dir():
        raise click.ClickException(f"{folder}: example folder not found; pass --examples DIR")
    db = ctx.obj["db"] or home_dir() / "demo.db"
    if ctx.obj["db"] is None:
        for suffix in ("", "-wal", "-shm"):
            Path(str(db) + suffix).unlink(missing_ok=True)
    ctx.obj["db"] = db
    lib = _library(ctx)
    click.echo(f"== ingest {folder} into {db}")
    _print_report(lib.ingest([folder], progress=sys.stderr.isatty()))
    click.echo("")
    data = lib.stats()
    click.echo(f"== library: {data['papers']} papers from {data['sources']} sources")
    for query in _DEMO_QUERIES:
        click.echo(f"\n== search: {query}")
        _print_hits(lib.search(query, limit=3))


def _topics_stale(lib: Library) -> bool:
    """Return True when no topics are stored or papers were added since the last fit."""
    return not lib.topics() or lib.topic_run().get("n_papers") != len(lib)


@cli.command()
@click.option("--refit", is_flag=True, help="Fit again even when topics are stored.")
@click.option(
    "--n-topics", type=click.IntRange(1, 200), default=None, help="Broad topics (default: automatic)."
)
@click.option("--seed", type=int, default=42, show_default=True, help="Seed of every random step.")
@click.option("--json", "as_json", is_flag=True, help="Print topics as JSON.")
@click.pass_context
def topics(ctx: click.Context, refit: bool, n_topics: int | None, seed: int, as_json: bool) -> None:
    """List topics with sizes, names and representative papers (fitting them first if needed).

    Example: paperscope topics --n-topics 15
    """
    lib = _library(ctx)
    if refit or _topics_stale(lib):
        click.echo("fitting topics…", err=True)
        lib.fit_topics(n_topics=n_topics, seed=seed)
    found = lib.topics()
    if as_json:
        _emit_json({"run": lib.topic_run(), "topics": [t.to_dict() for t in found]})
        return
    run = lib.topic_run()
    n_broad = sum(t.level == 0 and not t.is_unassigned for t in found)
    click.echo(
        f"{n_broad} topics over {run.get('n_papers', 0)} papers; "
        f"unassigned {run.get('unassigned_fraction', 0):.1%}, "
        f"placed by neighbours {run.get('outlier_fraction', 0):.1%}"
    )
    children: dict[int, list[Any]] = {}
    for t in found:
        if t.parent_id is not None:
            children.setdefault(t.parent_id, []).append(t)
    for t in found:
        if t.level != 0:
            continue
        click.echo(
            f"\n[{t.topic_id}] {t.name}  ({t.size} papers)"
            if not t.is_unassigned
            else f"\n{t.name}  ({t.size} papers)"
        )
        for pid in t.representative_ids:
            click.echo(f"      {pid}  {lib.get(pid).label}")
        for c in children.get(t.topic_id, []):
            click.echo(f"   [{c.topic_id}] {c.name}  ({c.size})")


@cli.command("map")
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="HTML file to write."
)
@click.option(
    "--png", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Also write a PNG."
)
@click.option(
    "--color-by",
    type=click.Choice(["topic", "area", "venue"]),
    default="topic",
    show_default=True,
    help="Colouring.",
)
@click.option("--title", default=None, help="Page title.")
@click.pass_context
def map_command(ctx: click.Context, out: Path, png: Path | None, color_by: str, title: str | None) -> None:
    """Write the topic map: one offline HTML file (zoom, hover cards, search) and optionally a PNG.

    Example: paperscope map --out map.html --png map.png
    """
    lib = _library(ctx)
    if _topics_stale(lib):
        click.echo("fitting topics…", err=True)
        lib.fit_topics()
    lib.write_map(out, png=png, color_by=color_by, title=title)
    click.echo(f"wrote {out}" + (f" and {png}" if png else ""), err=True)
