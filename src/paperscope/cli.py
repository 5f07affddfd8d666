"""Command line: parse input, call the Library, format output. Results on stdout, logs on stderr.

Imports are lazy: ``paperscope --help`` and every command load only what they use (the stages,
numpy and the embedding runtime cost most of a fresh process's time otherwise).
"""

from __future__ import annotations

import signal
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from . import __version__
from .cli_output import JsonError, device_option, emit_json, json_option, wants_json
from .errors import PaperscopeError
from .models import LABEL_MARKER, claim_text, marked_label
from .waits import watch

if TYPE_CHECKING:
    from .library import Library
    from .models import Hit, IngestReport, Paper

__all__ = ["cli"]


class _LazyChoice(click.Choice):
    """A ``click.Choice`` whose choices come from a registry read on first use, not at import."""

    def __init__(self, load: Callable[[], Iterable[str]], case_sensitive: bool = True):
        self._load = load
        self._choices: tuple[str, ...] | None = None
        self.case_sensitive = case_sensitive

    @property
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]
        if self._choices is None:
            self._choices = tuple(self._load())
        return self._choices

    @choices.setter
    def choices(self, value: Iterable[str]) -> None:
        self._choices = tuple(value)


def _reader_names() -> list[str]:
    from .ingest import READERS

    return sorted(READERS)


def _export_names() -> list[str]:
    from .triage import EXPORT_FORMATS

    return sorted(EXPORT_FORMATS)


def _contribution_types() -> tuple[str, ...]:
    from .extract.contributions import CONTRIBUTION_TYPES

    return CONTRIBUTION_TYPES


#: Commands whose work is written in batches and resumed by running them again.
_RESUMABLE = frozenset({"ingest", "embed", "cards", "build", "load", "demo", "doctor", "topics"})


#: ``ctx.meta`` key (shared by every context of one run): the command line asked for ``--json``.
_WANTS_JSON = "paperscope.json"


class _Group(click.Group):
    """Turn PaperscopeError into a one-line message and exit code 1 (no traceback).

    Under ``--json`` every error, a usage error included, is ``{"ok": false, "error": ...}`` on
    stdout instead (``cli_output.JsonError``), with the same exit status.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[_WANTS_JSON] = wants_json(args)
        try:
            return super().parse_args(ctx, args)
        except click.ClickException as exc:
            raise _as_json_error(ctx, exc) from exc

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return self._invoke(ctx)
        except click.ClickException as exc:
            raise _as_json_error(ctx, exc) from exc

    def _invoke(self, ctx: click.Context) -> Any:
        try:
            # A step with nothing to count names itself if it runs past 2 s (paperscope.waits).
            with watch("paperscope"):
                return super().invoke(ctx)
        except PaperscopeError as exc:
            raise click.ClickException(str(exc)) from exc
        except sqlite3.DatabaseError as exc:
            # A library damaged after it was opened (pages overwritten, a truncated copy), or a
            # write that reached SQLite on a read-only file.
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            reason = reason if len(reason) <= 120 else reason[:100] + "…"  # a damaged row's bytes
            if "readonly" in reason:
                raise click.ClickException(
                    f"the library is read-only ({reason}): nothing was written"
                ) from exc
            raise click.ClickException(
                f"the library database cannot be read ({reason}); run `paperscope doctor` to check it"
            ) from exc
        except KeyboardInterrupt:
            # Each file, card batch and vector batch is committed whole, so stopping loses nothing;
            # a mark is saved when its key is pressed.
            name = ctx.invoked_subcommand or ""
            if name in _RESUMABLE:
                why = (
                    "what was finished is stored (each file, card and vector batch is written whole);"
                    " run the same command again to finish the rest"
                )
            else:
                why = "nothing was changed by the step that was running; every mark made before it is saved"
            click.echo(f"\ninterrupted: {why}", err=True)
            if ctx.meta.get(_WANTS_JSON):
                raise JsonError(f"interrupted: {why}", exit_code=130) from None
            ctx.exit(130)


def _as_json_error(ctx: click.Context, exc: click.ClickException) -> click.ClickException:
    """Return ``exc`` as a :class:`JsonError` when the command line asked for ``--json``, else ``exc``."""
    if not ctx.meta.get(_WANTS_JSON) or isinstance(exc, JsonError):
        return exc
    return JsonError(exc.format_message(), exit_code=exc.exit_code)


def _db_path(ctx: click.Context) -> Path:
    """Return the library file the command names: ``--db``, else the default library."""
    from .config import default_db_path

    db = ctx.find_root().obj["db"]
    return Path(db) if db is not None else default_db_path()


def _choose_device(ctx: click.Context, device: str) -> None:
    """Make the library this command opens embed on ``device`` (``--device`` of embed and ingest)."""
    import os

    from .index.embed import DEFAULT_EMBEDDER, embedder_for_device

    name = embedder_for_device(os.environ.get("PAPERSCOPE_EMBEDDER") or DEFAULT_EMBEDDER, device)
    if name == "minilm-cuda":  # before any file is read or library made: no half-made library
        from .index.torch_minilm import require_cuda

        require_cuda()
    ctx.find_root().obj["embedder"] = name


def _library(ctx: click.Context, create: bool = False) -> Library:
    """Open the library; only ``create`` commands (ingest, demo) may make a new library file.

    Raises:
        click.ClickException: the library file does not exist and the command cannot create
            it (a typo in ``--db`` would otherwise silently search a new, empty library).
    """
    obj = ctx.find_root().obj
    if "library" not in obj:
        from .library import Library

        db = obj["db"]
        path = _db_path(ctx)
        if not create and str(path) != ":memory:" and not path.is_file():
            where = "--db or PAPERSCOPE_DB" if db is not None else "PAPERSCOPE_HOME or --db"
            raise click.ClickException(
                f"{path}: no library there; build one with `paperscope --db {path} ingest FILES` (or check {where})"
            )
        library = ctx.find_root().with_resource(Library(db, embedder=obj.get("embedder")))
        if library.damaged and library.read_only == "it is truncated":
            click.echo(
                f"warning: {library.store.path}: {library.damaged}; it is opened read-only: run"
                f" `paperscope --db {library.store.path} doctor --salvage NEW.db` to copy what it still holds",
                err=True,
            )
        elif library.damaged:
            click.echo(
                f"warning: {library.store.path} failed SQLite's quick check ({library.damaged}); it is"
                " opened read-only: run `paperscope doctor` to see what is wrong and how to repair it",
                err=True,
            )
        obj["library"] = library
    return obj["library"]


def _set_db(ctx: click.Context, _param: click.Parameter, value: Path | None) -> None:
    """Record a ``--db`` given after the command name (``paperscope search X --db lib.db``)."""
    if value is not None:
        ctx.find_root().obj["db"] = value


def _db_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """Accept ``--db PATH`` after the command as well as before it."""
    return click.option(
        "--db",
        type=click.Path(dir_okay=False, path_type=Path),
        expose_value=False,
        callback=_set_db,
        is_eager=True,
        help="Library database file (as before the command).",
    )(command)


def _command(*args: Any, **kwargs: Any) -> Callable[[Callable[..., Any]], click.Command]:
    """Register a command of ``cli`` that also takes ``--db`` after its name."""

    def decorate(function: Callable[..., Any]) -> click.Command:
        return cli.command(*args, **kwargs)(_db_option(function))

    return decorate


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
    ctx.obj.setdefault("db", None)
    if db is not None:
        ctx.obj["db"] = db
    if hasattr(signal, "SIGPIPE"):
        # `paperscope search … | head`: a closed pipe ends the command quietly, as for other CLI tools.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)


def _preload_embedder() -> None:
    """Start loading the query embedder now, while the library and its indexes open."""
    import os

    from .index.embed import DEFAULT_EMBEDDER, preload_embedder

    preload_embedder(os.environ.get("PAPERSCOPE_EMBEDDER") or DEFAULT_EMBEDDER, query=True)


def _summary(desc: str, count: int, elapsed_s: float, unit: str = "papers") -> None:
    from .progress import summary

    summary(desc, count, elapsed_s, unit=unit)


#: Conflicts listed per file in the ingest summary (a volume DOI can give one per record).
_CONFLICTS_SHOWN = 10


def _print_report(report: IngestReport) -> None:
    for f in report.files:
        if f.error:
            click.echo(f"error: {f.error}", err=True)
            if f.read:
                click.echo(
                    f"  {f.path}: {f.read:,} record{'s were' if f.read != 1 else ' was'} read before it;"
                    " none of this file is stored",
                    err=True,
                )
            continue
        if f.ignored:
            click.echo(f"ignored: {f.path}: {f.ignored}", err=True)
            continue
        click.echo(
            f"{f.path}: read {f.read}, new {f.new}, already present {f.present}, "
            f"merged {f.merged}, skipped {len(f.skipped)}"
            + (f", repaired {len(f.repaired)}" if f.repaired else "")
            + (f", conflicts {len(f.conflicts)}" if f.conflicts else "")
        )
        if f.read == 0:
            click.echo(
                f"  warning: {f.path}: no papers found (a header alone, or not in the format read)", err=True
            )
        for skip in f.skipped:
            click.echo(f"  skipped {skip}", err=True)
        for fix in f.repaired:
            click.echo(f"  repaired {fix}", err=True)
        for conflict in f.conflicts[:_CONFLICTS_SHOWN]:
            click.echo(f"  conflict {conflict}", err=True)
        if len(f.conflicts) > _CONFLICTS_SHOWN:
            click.echo(
                f"  … and {len(f.conflicts) - _CONFLICTS_SHOWN} more conflicts (--json lists every one)",
                err=True,
            )
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    failed = len(report.failed)
    click.echo(
        f"total: read {report.read}, new {report.new}, already present {report.present}, "
        f"skipped {len(report.skipped)}, files failed {failed}, merged {report.merged}, "
        f"files ignored {len(report.ignored)}"
        + (
            f", conflicts {len(report.conflicts)} (same id, different text: kept apart)"
            if report.conflicts
            else ""
        )
        + f" ({report.elapsed_s:.2f} s)"
    )
    if report.rolled_back:
        click.echo(
            f"nothing written (--strict): {len(report.skipped)} records would be skipped, {failed} files failed",
            err=True,
        )


@_command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=_LazyChoice(_reader_names),
    default=None,
    help="Input format (default: detected per file from its extension and first bytes).",
)
@click.option(
    "--map",
    "column_map",
    default=None,
    metavar="FIELD=COLUMN,...",
    help="Columns (CSV) or keys (JSON) for fields, e.g. title=Paper,abstract=Summary.",
)
@click.option(
    "--strict", is_flag=True, help="Write nothing if any record would be skipped or any file fails."
)
@click.option(
    "--cards/--no-cards",
    default=True,
    show_default=True,
    help="Build full cards right after ingest (else later, with `paperscope cards`).",
)
@click.option(
    "--embed/--no-embed",
    default=True,
    show_default=True,
    help="Embed new papers right after the cards (else later, with `paperscope embed`).",
)
@device_option()
@json_option("Print the report as JSON.")
@click.pass_context
def ingest(
    ctx: click.Context,
    paths: tuple[Path, ...],
    fmt: str | None,
    column_map: str | None,
    strict: bool,
    cards: bool,
    embed: bool,
    device: str,
    as_json: bool,
) -> None:
    """Read paper lists (files or folders) into the library.

    Text lists, paper-list JSON/JSONL, arXiv metadata JSONL, CSV/TSV and BibTeX are detected;
    near-duplicates are merged into one paper that keeps every source.

    Example: paperscope ingest examples/icml2026 papers.csv --map abstract=Summary
    """
    from .ingest.fields import parse_column_map

    try:
        parse_column_map(column_map)
    except PaperscopeError as exc:
        raise click.BadParameter(str(exc).removeprefix("--map: "), param_hint="--map") from None
    missing = [p for p in paths if not p.exists()]
    if len(missing) == len(paths):  # nothing to read: do not leave a new, empty library behind
        hint = ""
        if missing[0].as_posix().rstrip("/").endswith("examples/icml2026"):
            from .config import examples_dir

            # The README's and --help's example, run outside a checkout: the lists ship with paperscope.
            hint = f" (the example lists ship with paperscope: {examples_dir()})"
        raise click.ClickException(f"{missing[0]}: no such file or folder; nothing was ingested{hint}")
    if embed:
        _choose_device(ctx, device)
    db_path = _db_path(ctx)
    new_file = str(db_path) != ":memory:" and not db_path.exists()
    started = time.perf_counter()
    library = _library(ctx, create=True)
    report = library.ingest(
        paths, fmt=fmt, progress=True, column_map=column_map, strict=strict, cards=cards, embed=embed
    )
    if as_json:
        emit_json(report.to_dict())
    else:
        _print_report(report)
    _print_phases(report, time.perf_counter() - started)
    if (report.failed or report.rolled_back) and new_file and len(library) == 0:
        # Nothing was stored in a library this command made: do not leave an empty file behind
        # that later commands would open as if it were one.
        library.close()
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        click.echo(f"{db_path}: nothing was ingested, so no library was made", err=True)
    if report.failed or report.rolled_back:
        ctx.exit(1)


def _print_phases(report: IngestReport, elapsed_s: float, command: str = "ingest") -> None:
    """Print the closing line of an ingest (or ``load``): each phase's wall time and rate, then the total (stderr).

    ``load`` has no read phase of its own (its ``load`` phase stores the shards' papers).
    """

    def rate(count: float, seconds: float) -> str:
        return f" ({count / seconds:,.0f}/s)" if count and seconds >= 0.05 else ""

    parts = []
    if command == "ingest":
        parts.append(
            f"read {report.read:,} records in {report.elapsed_s:.1f} s{rate(report.read, report.elapsed_s)}"
        )
    accounted_s = report.elapsed_s if command == "ingest" else 0.0
    for name, phase in report.phases.items():
        prepare_s = float(phase.get("prepare_s", 0.0))
        if prepare_s >= 1.0:
            parts.append(f"first-run setup in {prepare_s:.1f} s (once per machine)")
        elif prepare_s >= 0.05:
            parts.append(f"model load in {prepare_s:.1f} s")
        count, seconds = int(phase["count"]), float(phase["elapsed_s"])
        parts.append(f"{name} {count:,} papers in {seconds:.1f} s{rate(count, seconds)}")
        accounted_s += seconds + prepare_s
    # The parts add up to the total: what no phase timed (opening the library, the indexes'
    # bookkeeping, printing) is named, not left out.
    if elapsed_s - accounted_s >= 0.05:
        parts.append(f"other {elapsed_s - accounted_s:.1f} s")
    click.echo(f"{command}: {'; '.join(parts)}; {elapsed_s:.1f} s in all", err=True)


def _print_hits(hits: list[Hit]) -> None:
    if not hits:
        click.echo("no results")
    for hit in hits:
        where = f"{hit.sources[0].file_name}:{hit.sources[0].line}" if hit.sources else ""
        click.echo(f"{hit.rank:>3}. {hit.paper_id}  {hit.score:7.3f}  {hit.display_label}")
        legs = "  ".join(f"{leg} #{int(v['rank'])} ({v['score']:.3f})" for leg, v in hit.legs.items())
        click.echo(f"     {where}  {legs}".rstrip())
        if hit.snippet:
            click.echo(f"     {hit.snippet}")
        if hit.terms:
            click.echo(f"     shared: {', '.join(hit.terms)}")


@_command()
@click.argument("query", required=False)
@click.option(
    "--like",
    default=None,
    metavar="PAPER_ID|FILE|-",
    help="Rank by the text of this paper (itself left out), of a UTF-8 text file, or of standard input (-).",
)
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 1000), help="Number of hits.")
@click.option("--mode", type=click.Choice(["hybrid", "bm25", "dense"]), default="hybrid", show_default=True)
@click.option("--venue", default=None, help="Only this venue (e.g. ICML).")
@click.option("--year", default=None, type=int, help="Only this year.")
@click.option("--decision", default=None, help="Only decisions containing this text (e.g. oral).")
@click.option("--source-area", default=None, help="Only areas given by the source containing this text.")
@click.option("--area", default=None, help="Only card areas (source's, else predicted) containing this text.")
@click.option("--has-code/--no-code", "has_code", default=None, help="Only papers with (without) code links.")
@click.option("--dataset", default=None, help="Only papers whose card names this dataset (e.g. CIFAR-10).")
@click.option(
    "--contribution",
    type=_LazyChoice(_contribution_types, case_sensitive=False),
    default=None,
    help="Only papers with this contribution type on their card.",
)
@click.option(
    "--topic", default=None, type=int, help="Only papers of this topic id (see `paperscope topics`)."
)
@click.option("--session", default=None, help="Only papers presented in this program session (`schedule`).")
@click.option("--day", default=None, metavar="YYYY-MM-DD", help="Only papers with a session on this day.")
@json_option("Print hits as JSON.")
@click.pass_context
def search(
    ctx: click.Context,
    query: str | None,
    like: str | None,
    limit: int,
    mode: str,
    venue: str | None,
    year: int | None,
    decision: str | None,
    source_area: str | None,
    area: str | None,
    has_code: bool | None,
    dataset: str | None,
    contribution: str | None,
    topic: int | None,
    session: str | None,
    day: str | None,
    as_json: bool,
) -> None:
    """Search the library (BM25 and embeddings fused; Chinese queries work too).

    With --like instead of QUERY, rank the library by the text of a paper, a file or a pasted
    paragraph (search by example); every filter applies.

    Example: paperscope search "dataset distillation" --limit 5 --has-code --contribution method
    """
    if (query is None) == (like is None):
        raise click.UsageError(
            "give a QUERY or --like PAPER_ID|FILE|-, not both" if query else "give a QUERY or --like"
        )
    if mode != "bm25":
        _preload_embedder()
    lib = _library(ctx)
    options: dict[str, Any] = dict(
        limit=limit,
        mode=mode,
        venue=venue,
        year=year,
        decision=decision,
        source_area=source_area,
        has_code=has_code,
        dataset=dataset,
        contribution=contribution,
        area=area,
        topic=topic,
        session=session,
        day=day,
    )
    if like is None:
        hits = lib.search(query or "", **options)
    else:
        from .example import MAX_EXAMPLE_BYTES, stdin_example

        if like == "-":
            example = stdin_example(sys.stdin.buffer.read(MAX_EXAMPLE_BYTES + 1))
        else:
            example = lib.example(like, files=True)
        hits = lib.search_like(example, **options)
    _print_notice(lib)
    if as_json:
        emit_json([h.to_dict() for h in hits])
    else:
        _print_hits(hits)


def _print_notice(lib: Library) -> None:
    """Print the last search's notices (what it is like, a cut query, a missing dense leg) on stderr, one a line."""
    for line in (lib.search_notice or "").splitlines():
        click.echo(f"note: {line}", err=True)


@_command()
@click.argument("paper_id")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 1000), help="Papers to list.")
@json_option("Print papers as JSON.")
@click.pass_context
def related(ctx: click.Context, paper_id: str, limit: int, as_json: bool) -> None:
    """List the papers most similar to one paper, with the words they share.

    Example: paperscope related 3f2a9c --limit 5
    """
    lib = _library(ctx)
    hits = lib.related(paper_id, limit=limit)
    _print_notice(lib)
    if as_json:
        emit_json([h.to_dict() for h in hits])
        return
    _print_hits(hits)


@_command()
@click.option(
    "--tag", default=None, help="Learn from papers with this tag instead of the starred and kept ones."
)
@click.option(
    "--like",
    "like_file",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Rank by similarity to the papers in this file (BibTeX, CSV, JSON, CSL-JSON, text list); not ingested.",
)
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 1000), help="Papers to list.")
@json_option("Print papers as JSON.")
@click.pass_context
def recommend(ctx: click.Context, tag: str | None, like_file: Path | None, limit: int, as_json: bool) -> None:
    """Recommend papers like the ones you starred or kept (or tagged), learning from rejects too.

    Each paper is explained by the terms that weighed most and the kept papers it is closest to.
    With --like FILE, rank the library by similarity to the papers in FILE instead.

    Example: paperscope recommend --limit 10; paperscope recommend --like my_papers.bib
    """
    lib = _library(ctx)
    missing = lib.missing_vectors()
    if missing and lib.read_only:
        raise click.ClickException(
            f"{missing:,} papers have no embedding yet, and recommendations compare embeddings; the"
            " library is read-only, so run `paperscope embed` where it can be written"
        )
    if missing:  # recommendations compare embeddings: make them first, with progress, and say so
        click.echo(f"{missing:,} papers have no embedding yet; embedding them first", err=True)
        started = time.perf_counter()
        done = lib.embed(progress=True)
        _summary("embed", done, time.perf_counter() - started)
    hits = lib.recommend_like(like_file, limit=limit) if like_file else lib.recommend(limit=limit, tag=tag)
    if like_file and lib.recommend_notice:
        click.echo(f"note: {lib.recommend_notice}", err=True)
    if as_json:
        emit_json([h.to_dict() for h in hits])
        return
    if not hits:
        click.echo("no results")
    for hit in hits:
        click.echo(f"{hit.rank:>3}. {hit.paper_id}  {hit.score:7.3f}  {hit.display_label}")
        if hit.like:
            click.echo(f"     like: {' | '.join(hit.like)}")
        if hit.terms:
            click.echo(f"     terms: {', '.join(hit.terms)}")


@_command()
@click.option(
    "--order",
    type=click.Choice(("recommended", "topic")),
    default="recommended",
    show_default=True,
    help="By recommendation (learns from what you keep and reject; topic by topic until you keep one) or topic by topic.",
)
@click.option("--topic", "topic_id", type=int, default=None, help="Only papers of this topic or subtopic id.")
@click.option("--tag", default=None, help="Recommend from the papers with this tag instead of the kept ones.")
@click.option("--next", "next_only", is_flag=True, help="Print the next papers (see --limit) and exit.")
@click.option(
    "--limit", default=1, show_default=True, type=click.IntRange(1, 1000), help="Papers --next prints."
)
@json_option("Print the queue as JSON and exit (as --next).")
@click.pass_context
def queue(
    ctx: click.Context,
    order: str,
    topic_id: int | None,
    tag: str | None,
    next_only: bool,
    limit: int,
    as_json: bool,
) -> None:
    """Go through the unseen papers one at a time: one key marks a paper and shows the next.

    Keys: 1 skimmed, 2 maybe, 3 keep, 4 reject, s skip, u undo, * star, t tag, n note, q quit.
    Every key is saved at once; `paperscope queue` resumes at the next unseen paper. With --next
    or --json, print what comes next and exit (mark with `paperscope mark ID STATE`).

    Example: paperscope queue; paperscope queue --order topic --topic 3; paperscope queue --next --limit 5
    """
    from .cli_queue import print_header, print_item, run_queue

    lib = _library(ctx)
    if as_json or next_only:
        found = lib.queue(order=order, limit=limit, topic_id=topic_id, tag=tag)
        if as_json:
            emit_json(found.to_dict())
            return
        print_header(found)
        for item in found.items:
            print_item(item, found.seen + item.hit.rank, found.total, lib)
        if not found.items:
            click.echo(f"Nothing left unseen here: {found.progress}.")
        return
    done = run_queue(lib, order, topic_id, tag)
    if done:
        click.echo("Marked: " + ", ".join(f"{state} {n}" for state, n in sorted(done.items())), err=True)


@_command()
@click.option(
    "--program",
    "program",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The conference program (CSV/TSV, JSON array, JSON Lines) with titles, authors, sessions, links.",
)
@click.option(
    "--map",
    "column_map",
    multiple=True,
    help="FIELD=COLUMN for a column not named as usual (title, authors, session, decision, url…); repeatable.",
)
@click.option(
    "--review",
    is_flag=True,
    help="Go through the suggestions one at a time: a accept, r reject, s skip, q quit.",
)
@click.option("--undo", is_flag=True, help="Undo what enrich attached (of --program FILE only, when given).")
@click.option("--list", "list_only", is_flag=True, help="List what enrich attached, with its provenance.")
@click.option(
    "--timezone",
    default=None,
    metavar="ZONE",
    help="The program's time zone (IANA, e.g. Asia/Seoul): session times without an offset are read in it.",
)
@click.option(
    "--dense/--no-dense",
    default=True,
    show_default=True,
    help="Use the stored vectors (dense cosines in the pair score).",
)
@json_option("Print the report (or the open suggestions, with --review) as JSON.")
@click.pass_context
def enrich(
    ctx: click.Context,
    program: Path | None,
    column_map: tuple[str, ...],
    review: bool,
    undo: bool,
    list_only: bool,
    timezone: str | None,
    dense: bool,
    as_json: bool,
) -> None:
    """Titles from the official program: match title-less papers to its entries one to one by a learned pair score.

    The rest are kept as suggestions for `paperscope enrich --review`; `--undo` restores exactly
    what was there before. Each attached paper keeps its sessions (see `paperscope schedule`).

    Example: paperscope enrich --program icml2026_program.csv --timezone Asia/Seoul
    """
    from .cli_enrich import print_report, print_undo, run_review
    from .enrich import parse_program_map

    lib = _library(ctx)
    if sum((review, undo, list_only)) > 1:
        raise click.UsageError("choose one of --review, --undo and --list")
    if undo:
        print_undo(lib.undo_enrich(program), program, as_json)
        return
    if list_only:
        found = lib.enrichments(program)
        if as_json:
            emit_json(found)
            return
        for item in found:
            click.echo(
                f"{item['paper_id']}  {item['title']}  ({item['method']}, score {item['score']:.2f},"
                f" {item['program']}:{item['entry_line']}, {item['attached_at']})"
            )
        click.echo(f"{len(found):,} papers enriched from a program", err=True)
        return
    if review:
        if as_json:
            emit_json([{**s, "entry": s["entry"].to_dict()} for s in lib.enrich_suggestions(program)])
            return
        done = run_review(lib, str(program) if program else None)
        click.echo("Reviewed: " + ", ".join(f"{k} {n}" for k, n in done.items()), err=True)
        return
    if program is None:
        raise click.UsageError("give --program FILE (or --review, --undo, --list)")
    started = time.perf_counter()
    report = lib.enrich(program, parse_program_map(column_map), dense=dense, timezone=timezone)
    if as_json:
        emit_json(report.to_dict())
    else:
        print_report(report)
    _summary("enrich", report.candidates, time.perf_counter() - started)


def _card_lines(card: dict[str, Any]) -> list[str]:
    """Return the card's fields as ``name: values`` lines (empty fields and unconfident items left out)."""
    from .confidence import shown_card

    card = shown_card(card)
    lines = []
    methods = [
        f"{m['name']} ({m['long_form']})" if m.get("long_form") else m["name"]
        for m in card.get("methods", [])
    ]
    named = {
        "methods": methods or card.get("method_names", []),
        "contribution": [t["type"] for t in card.get("contribution_types", [])],
        "tasks": [t["text"] for t in card.get("tasks", [])],
        "datasets": [d["name"] for d in card.get("datasets", [])],
        "claims": [claim_text(c) for c in card.get("claims", [])],
        "code": card.get("code_urls", []),
        "project": card.get("project_urls", []),
    }
    for name, values in named.items():
        if values:
            lines.append(f"{name + ':':<13} {'; '.join(values) if name == 'claims' else ', '.join(values)}")
    area = card.get("area")
    if area:
        lines.append(f"{'area:':<13} {area['label']} ({area['source']}, confidence {area['confidence']:.2f})")
    return lines


def _print_paper(paper: Paper, marks: dict[str, Any], attached: list[dict[str, Any]]) -> None:
    click.echo(f"{paper.paper_id}  {paper.display_label}")
    if paper.title:
        click.echo(
            f"title:   {paper.title}" + (" (from the program)" if paper.title_source == "program" else "")
        )
    else:
        click.echo(f"title:   none in the source list ({LABEL_MARKER}: a label paperscope made)")
    if paper.venue or paper.year:
        click.echo(f"venue:   {paper.venue or '?'} {paper.year or ''}".rstrip())
    card = paper.card.to_dict() if paper.card else {}
    for line in _card_lines(card):
        click.echo(line)
    for source in paper.sources:
        click.echo(f"source:  {source.path}:{source.line} ({source.format})")
    for row in attached:
        how = "confirmed in review" if row["method"] == "review" else "matched automatically"
        click.echo(f"program: {row['program']}:{row['entry_line']} ({', '.join(row['fields'])}; {how})")
        if row.get("session"):
            click.echo(f"session: {row['session']}")
    if marks["starred"] or marks["tags"] or marks["note"] or marks.get("triage"):
        starred = "yes" if marks["starred"] else "no"
        triage = f"  triage: {marks['triage']}" if marks.get("triage") else ""
        click.echo(f"starred: {starred}  tags: {', '.join(marks['tags']) or '-'}{triage}")
        if marks["note"]:
            click.echo(f"note:    {marks['note']}")
    click.echo("")
    click.echo(paper.clean_text)


@_command()
@click.argument("paper_id")
@json_option("Print the paper as JSON.")
@click.pass_context
def show(ctx: click.Context, paper_id: str, as_json: bool) -> None:
    """Show one paper's card, provenance and abstract.

    Example: paperscope show 3f2a9c
    """
    lib = _library(ctx)
    paper = lib.get(paper_id)
    marks = lib.marks(paper.paper_id)
    attached = lib.enrichments(paper_id=paper.paper_id)
    if as_json:
        emit_json({**paper.to_dict(), "marks": marks, "attached": attached})
    else:
        _print_paper(paper, marks, attached)


@_command()
@json_option("Print as JSON.")
@click.pass_context
def stats(ctx: click.Context, as_json: bool) -> None:
    """Show library counts.

    Example: paperscope stats --json
    """
    library = _library(ctx)
    data = library.stats()
    if as_json:
        emit_json(data)
        return
    click.echo(f"library: {data['db']} (schema {data['schema_version']})")
    for key in ("papers", "sources", "cards", "vectors", "topics", "stars", "tags", "notes"):
        model = f" ({data['embedder']})" if key == "vectors" and data[key] else ""
        click.echo(f"{key:>8}: {data[key]}{model}")
    if data["missing_cards"]:
        first = f" ({data['first_cards']:,} with only the quick first card)" if data["first_cards"] else ""
        click.echo(
            f"  {data['missing_cards']:,} papers lack a current full card{first}:"
            " run `paperscope cards` (or the ingest again)"
        )
    if data["missing_vectors"]:
        click.echo(
            f"  {data['missing_vectors']:,} papers have no current vector: run `{library.embed_command()}`"
        )
    if data["missing_topics"]:
        click.echo(
            f"  {data['missing_topics']:,} papers have no topic (added since the last fit):"
            " run `paperscope topics` to assign them"
        )
    for row in data["by_venue"]:
        click.echo(f"  {row['venue'] or '(no venue)'} {row['year'] or ''}: {row['papers']}")


#: The export format an --out file's extension names (``paperscope export --out keep.bib``).
_EXPORT_EXTENSIONS = {
    ".bib": "bibtex",
    ".bibtex": "bibtex",
    ".ris": "ris",
    ".json": "csl-json",
    ".csv": "csv",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".jsonl": "jsonl",
    ".ics": "ics",
}


@_command()
@click.option(
    "--format",
    "fmt",
    type=_LazyChoice(_export_names),
    default=None,
    help="Output format (default: from the --out file's extension: .bib .ris .json .csv .md .html"
    " .jsonl .ics; else jsonl).",
)
@click.option("--starred", is_flag=True, help="Only starred papers.")
@click.option("--tag", default=None, help="Only papers with this tag.")
@click.option(
    "--state", default=None, help="Only papers with this triage state (skimmed, maybe, keep, reject)."
)
@click.option("--topic", "topic_id", type=int, default=None, help="Only papers of this topic or subtopic id.")
@click.option(
    "--ids",
    "ids_file",
    type=click.File("r", encoding="utf-8"),
    default=None,
    help="Only the paper_ids in this file (one per line; - for stdin).",
)
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), default=None, help="File (default stdout)."
)
@click.pass_context
def export(
    ctx: click.Context,
    fmt: str | None,
    starred: bool,
    tag: str | None,
    state: str | None,
    topic_id: int | None,
    ids_file: Any,
    out: Path | None,
) -> None:
    """Export papers (all, or the starred/tagged/triaged ones, a topic, a list of ids).

    Formats: jsonl, csv, bibtex, ris, csl-json (Zotero, Pandoc), markdown, html, ics (a calendar
    of the papers' sessions, after `enrich --program`). Citation keys (lastname2026firstword)
    are the same in every export of this library.

    Example: paperscope export --format bibtex --state keep --out keep.bib
    """
    ids = [line.split()[0] for line in ids_file if line.strip()] if ids_file is not None else None
    if fmt is None:  # "--out keep.bib" means BibTeX: never JSON Lines in a .bib file
        fmt = _EXPORT_EXTENSIONS.get(out.suffix.lower(), "jsonl") if out is not None else "jsonl"
    lib = _library(ctx)
    chunks = lib.export(fmt, starred=starred, tag=tag, state=state, topic_id=topic_id, paper_ids=ids)
    if fmt == "ics" and not lib.last_export_events:
        raise click.ClickException(
            "no calendar written: these papers have no session with a time; attach the conference"
            " program first (paperscope enrich --program FILE) or choose papers that have sessions"
            " (paperscope schedule lists them)"
        )
    if out is None:
        for chunk in chunks:
            click.echo(chunk, nl=False)
        return
    if not out.parent.is_dir():
        raise click.UsageError(f"{out}: folder {out.parent} does not exist")
    tmp = out.with_name(out.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        handle.writelines(chunks)
    tmp.replace(out)
    n = lib.last_export_count
    if fmt == "ics":
        events, with_events = lib.last_export_events, lib.last_export_event_papers
        click.echo(
            f"wrote {events:,} event{'' if events == 1 else 's'}"
            f" ({with_events:,} paper{'' if with_events == 1 else 's'}) to {out}",
            err=True,
        )
    elif n:
        click.echo(f"wrote {n:,} paper{'' if n == 1 else 's'} to {out} ({fmt})", err=True)
    else:
        click.echo(f"wrote {out}: no paper matched the selection, so it is empty", err=True)


@_command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@json_option('Print {"path", "papers"} (papers whose marks were written) as JSON.')
@click.pass_context
def backup(ctx: click.Context, path: Path, as_json: bool) -> None:
    """Back up the marks (stars, tags, notes, triage states) to a JSON file.

    Example: paperscope backup marks.json
    """
    count = _library(ctx).backup(path)
    if as_json:
        emit_json({"path": str(path), "papers": count})
        return
    click.echo(f"backed up the marks of {count:,} papers to {path}")


@_command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@json_option("Print the report as JSON.")
@click.pass_context
def restore(ctx: click.Context, path: Path, as_json: bool) -> None:
    """Restore marks from a backup, matching papers by paper_id, else by title and abstract.

    Example: paperscope restore marks.json
    """
    report = _library(ctx).restore(path)
    if as_json:
        emit_json(report.to_dict())
        return
    click.echo(
        f"restored the marks of {report.by_id + report.by_content:,} of {report.entries:,} papers"
        f" ({report.by_id:,} by paper_id, {report.by_content:,} by content)"
    )
    if report.notes_replaced:
        click.echo(f"  {report.notes_replaced:,} notes replaced by the backup's")
    if report.unmatched:
        click.echo(f"  {len(report.unmatched):,} not in this library:")
        for entry in report.unmatched:
            click.echo(f"    {entry['paper_id']}  {entry['title'] or '(no title)'}")


_DEMO_QUERIES = ["dataset distillation", "CIFAR-10", "low-precision FP4 training", "机器遗忘", "剪枝"]


@_command()
@click.option("--examples", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None)
@click.pass_context
def demo(ctx: click.Context, examples: Path | None) -> None:
    """Build a fresh demo library from examples/icml2026, then summarise it and run sample searches.

    Example: paperscope demo
    """
    from .config import EXAMPLES_DIR, home_dir

    folder = examples or (Path("examples/icml2026") if Path("examples/icml2026").is_dir() else EXAMPLES_DIR)
    if not folder.is_dir():
        raise click.ClickException(f"{folder}: example folder not found; pass --examples DIR")
    db = ctx.obj["db"] or home_dir() / "demo.db"
    if ctx.obj["db"] is None:
        for suffix in ("", "-wal", "-shm"):
            Path(str(db) + suffix).unlink(missing_ok=True)
    ctx.obj["db"] = db
    lib = _library(ctx, create=True)
    click.echo(f"== ingest {folder} into {db}")
    started = time.perf_counter()
    report = lib.ingest([folder], progress=True)
    _print_report(report)
    _print_phases(report, time.perf_counter() - started)
    for query in _DEMO_QUERIES:
        click.echo(f"\n== search: {query}")
        _print_hits(lib.search(query, limit=3))
    click.echo("")
    _print_library_summary(lib, db)


def _program() -> str:
    """Return how to call this program: ``paperscope`` when that is on PATH, else the path it ran as."""
    import os
    import shutil

    ran = sys.argv[0]
    found = shutil.which("paperscope")
    if (
        os.path.basename(ran) != "paperscope"
        or not os.path.exists(ran)
        or (found and os.path.samefile(found, ran))
    ):
        return "paperscope"
    return os.path.relpath(ran)


def _print_library_summary(lib: Library, db: Path) -> None:
    """Print what the library holds (papers per venue, cards, vectors, topics) and what to try next."""
    data = lib.stats()
    venues = ", ".join(
        f"{row['venue'] or '(no venue)'}{' ' + str(row['year']) if row['year'] else ''}: {row['papers']}"
        for row in data["by_venue"]
    )
    click.echo(f"== the library {db} holds {data['papers']} papers from {data['sources']} sources ({venues})")
    click.echo(
        f"   cards: {data['cards']}, vectors: {data['vectors']}, topics: {data['topics'] or 'not fitted yet'}"
    )
    ps = f"{_program()} --db {db}"
    click.echo("== try next:")
    click.echo(f'   {ps} search "dataset distillation" --has-code')
    click.echo(f"   {ps} topics              # broad topics and subtopics")
    click.echo(f"   {ps} map --out map.html  # the interactive topic map")
    click.echo(f"   {ps} serve               # web app on http://127.0.0.1:8765/")


def _marks_of(lib: Library, paper_ids: Iterable[str]) -> list[dict[str, Any]]:
    """``[{"paper_id", "label", "title_source", "marks"}]`` of each paper (by id or prefix), in the order given."""
    rows = []
    for paper_id in paper_ids:
        paper = lib.get(paper_id)
        rows.append(
            {
                "paper_id": paper.paper_id,
                "label": paper.label,
                "title_source": paper.title_source,
                "marks": lib.marks(paper.paper_id),
            }
        )
    return rows


_JSON_MARKS_HELP = 'Print [{"paper_id", "label", "title_source", "marks"}] of the papers as JSON.'


@_command()
@click.argument("paper_ids", nargs=-1, required=True)
@click.option("--off", is_flag=True, help="Unstar instead.")
@json_option(_JSON_MARKS_HELP)
@click.pass_context
def star(ctx: click.Context, paper_ids: tuple[str, ...], off: bool, as_json: bool) -> None:
    """Star (or with --off, unstar) papers.

    Example: paperscope star 6dcd10ba875e c0aa3d6d38f6
    """
    lib = _library(ctx)
    _check_ids(lib, paper_ids)
    for paper_id in paper_ids:
        lib.star(paper_id, not off)
        if not as_json:
            click.echo(f"{lib.get(paper_id).paper_id} {'unstarred' if off else 'starred'}")
    if as_json:
        emit_json(_marks_of(lib, paper_ids))


@cli.group()
def tags() -> None:
    """Add, list and remove tags.

    Example: paperscope tags add 6dcd10ba875e to-read
    """


@tags.command("add")
@_db_option
@click.argument("paper_ids", nargs=-1, required=True)
@click.argument("tag")
@json_option(_JSON_MARKS_HELP)
@click.pass_context
def tags_add(ctx: click.Context, paper_ids: tuple[str, ...], tag: str, as_json: bool) -> None:
    """Tag papers (the last argument is the tag).

    Example: paperscope tags add 6dcd10ba875e c0aa3d6d38f6 to-read
    """
    lib = _library(ctx)
    _check_ids(lib, paper_ids)
    for paper_id in paper_ids:
        lib.tag(paper_id, tag)
        if not as_json:
            prefix = f"{lib.get(paper_id).paper_id}  " if len(paper_ids) > 1 else ""
            click.echo(prefix + ", ".join(lib.marks(paper_id)["tags"]))
    if as_json:
        emit_json(_marks_of(lib, paper_ids))


@tags.command("remove")
@_db_option
@click.argument("paper_ids", nargs=-1, required=True)
@click.argument("tag")
@json_option(_JSON_MARKS_HELP)
@click.pass_context
def tags_remove(ctx: click.Context, paper_ids: tuple[str, ...], tag: str, as_json: bool) -> None:
    """Remove a tag from papers (the last argument is the tag).

    Example: paperscope tags remove 6dcd10ba875e to-read
    """
    from .text import strip_controls

    lib = _library(ctx)
    _check_ids(lib, paper_ids)
    stored = strip_controls(tag).strip()  # as the tag was stored
    for paper_id in paper_ids:
        if stored.lower() not in {t.lower() for t in lib.marks(paper_id)["tags"]}:
            click.echo(f"{lib.get(paper_id).paper_id}: not tagged {stored!r}", err=True)
        lib.untag(paper_id, tag)
        if not as_json:
            prefix = f"{lib.get(paper_id).paper_id}  " if len(paper_ids) > 1 else ""
            click.echo(prefix + (", ".join(lib.marks(paper_id)["tags"]) or "(no tags)"))
    if as_json:
        emit_json(_marks_of(lib, paper_ids))


def _marks_text(marks: dict[str, Any]) -> str:
    """One line of a paper's marks: ★, the state, #tags and "note"."""
    parts = ["★"] if marks["starred"] else []
    parts += [marks["triage"]] if marks["triage"] else []
    parts += [f"#{t}" for t in marks["tags"]]
    parts += ["note"] if marks["note"] else []
    return " ".join(parts)


@_command("list")
@click.option("--starred", is_flag=True, help="Only starred papers.")
@click.option("--tag", default=None, help="Only papers with this tag (ignoring case).")
@click.option(
    "--state",
    type=click.Choice(("unseen", "skimmed", "maybe", "keep", "reject")),
    default=None,
    help="Only papers in this triage state (unseen: marked papers without one).",
)
@click.option("--noted", is_flag=True, help="Only papers with a note.")
@json_option('Print [{"paper_id", "label", "title_source", "venue", "year", "marks"}].')
@click.pass_context
def list_command(
    ctx: click.Context, starred: bool, tag: str | None, state: str | None, noted: bool, as_json: bool
) -> None:
    """List the marked papers, most recently marked first; the filters combine.

    With no filter every paper with any mark (star, tag, note, state) is listed.

    Example: paperscope list --starred --state keep
    """
    items = _library(ctx).reading_list(tag=tag, starred=starred, state=state, noted=noted)
    rows = [
        {
            "paper_id": item["paper"].paper_id,
            "label": item["paper"].label,
            "title_source": item["paper"].title_source,
            "venue": item["paper"].venue,
            "year": item["paper"].year,
            "marks": item["marks"],
        }
        for item in items
    ]
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        where = " ".join(str(v) for v in (row["venue"], row["year"]) if v)
        label = marked_label(row["label"], row["title_source"])
        click.echo(f"{row['paper_id']}  {label}  [{where or '-'}]  {_marks_text(row['marks'])}")
    click.echo(f"{len(rows)} paper(s)", err=True)


@tags.command("list")
@_db_option
@json_option("Print as JSON.")
@click.pass_context
def tags_list(ctx: click.Context, as_json: bool) -> None:
    """List tags with their paper counts.

    Example: paperscope tags list
    """
    counts = _library(ctx).tags()
    if as_json:
        emit_json([{"tag": t, "papers": n} for t, n in counts])
        return
    for tag, count in counts:
        click.echo(f"{count:>5}  {tag}")


@_command()
@click.option(
    "--repair", is_flag=True, help="Repair what can be repaired (indexes, orphan rows, cards, vectors)."
)
@click.option(
    "--salvage",
    "salvage_to",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Copy every readable row into this new library file and repair it there (for damage "
    "--repair cannot mend); the damaged file is not changed.",
)
@json_option("Print the findings as JSON.")
@click.pass_context
def doctor(ctx: click.Context, repair: bool, salvage_to: Path | None, as_json: bool) -> None:
    """Check the library: SQLite integrity, search index, cards, vectors, orphan rows.

    Each problem comes with how to repair it; --repair does it where it can. Exits 1 while a
    problem remains. Marks (stars, tags, notes, triage) are never deleted.

    Example: paperscope doctor --repair
    """
    if repair:
        from .config import default_db_path
        from .library import Library

        db = ctx.find_root().obj["db"]
        path = Path(db) if db is not None else default_db_path()
        if not path.is_file():
            raise click.ClickException(f"{path}: no library there")
        lib = ctx.find_root().with_resource(Library(db, read_only=False))
    else:
        lib = _library(ctx)
    started = time.perf_counter()
    if salvage_to is not None:
        salvaged, report = lib.salvage(salvage_to, progress=not as_json)
        if as_json:
            emit_json({"salvage": salvaged.to_dict(), **report.to_dict()})
            ctx.exit(0 if report.ok else 1)
        copied = ", ".join(f"{n:,} {t}" for t, n in salvaged.copied.items())
        click.echo(f"salvaged into {salvage_to}: {copied}")
        if salvaged.truncated:
            click.echo(f"  {salvaged.truncated}")
        walked = ", ".join(f"{n:,} {t}" for t, n in salvaged.walked.items() if n)
        if walked:
            click.echo(f"  of these, read from pages no b-tree still reaches: {walked}")
        lost = {t: n for t, n in salvaged.lost.items() if n}
        if lost or salvaged.unreadable:
            lost_text = ", ".join(f"{n:,} {t}" for t, n in lost.items()) or "nothing"
            unreadable = (
                f"; tables not read to their end: {', '.join(salvaged.unreadable)}"
                if salvaged.unreadable
                else ""
            )
            click.echo(f"  lost on damaged pages: {lost_text}{unreadable}")
        click.echo(
            f"  then repaired there ({len(report.repaired)} repairs); fit topics again with `paperscope --db {salvage_to} topics`"
        )
    else:
        report = lib.doctor(repair=repair, progress=repair and not as_json)
    if as_json:
        emit_json(report.to_dict())
    else:
        for line in report.repaired:
            click.echo(f"repaired: {line}")
        for finding in report.findings:
            mark = "ok     " if finding.ok else ("PROBLEM" if finding.problem else "note   ")
            click.echo(f"{mark} {finding.check}: {finding.message}")
            if finding.repair and not finding.ok:
                click.echo(f"        repair: {finding.repair}")
        repairs = [line for line in report.repaired if not line.startswith("could not")]
        done = f"{len(repairs)} repair(s) done, " if repair else ""
        click.echo(
            f"doctor: {done}{len(report.problems)} problem(s) found in {time.perf_counter() - started:.1f} s",
            err=True,
        )
    if not report.ok:
        ctx.exit(1)


@_command()
@click.argument("paper_id")
@click.argument("body", default="-")
@json_option(_JSON_MARKS_HELP)
@click.pass_context
def note(ctx: click.Context, paper_id: str, body: str, as_json: bool) -> None:
    """Set a paper's note (BODY, or - to read it from stdin; an empty note deletes it).

    One paper at a time: a note is about one paper (BODY would be mistaken for an id).

    Example: paperscope note 6dcd10ba875e "compare with APM"
    """
    text = sys.stdin.read() if body == "-" else body
    lib = _library(ctx)
    lib.set_note(paper_id, text.strip())
    if as_json:
        emit_json(_marks_of(lib, [paper_id]))
        return
    click.echo(lib.marks(paper_id)["note"] or "(note removed)")


#: The states `mark` takes: store.marks.ALL_TRIAGE_STATES (written out: the CLI starts without
#: importing the store), and ``clear``, the same as ``unseen``.
_MARK_CHOICES = ("unseen", "skimmed", "maybe", "keep", "reject", "clear")


def _check_ids(lib: Library, paper_ids: Iterable[str]) -> None:
    """Resolve every id before any mark is written: an unknown or ambiguous one changes nothing.

    Raises:
        NotFound / InputError: the first id that matches no paper, or more than one.
    """
    for paper_id in paper_ids:
        lib.get(paper_id)


def _mark(ctx: click.Context, paper_ids: tuple[str, ...], state: str, as_json: bool) -> None:
    lib = _library(ctx)
    _check_ids(lib, paper_ids)
    for paper_id in paper_ids:
        lib.set_triage(paper_id, None if state == "clear" else state)
        if not as_json:
            click.echo(f"{lib.get(paper_id).paper_id}  {lib.marks(paper_id)['triage'] or 'unseen'}")
    if as_json:
        emit_json(_marks_of(lib, paper_ids))


@_command()
@click.argument("paper_ids", nargs=-1, required=True)
@click.argument("state", type=click.Choice(_MARK_CHOICES))
@json_option(_JSON_MARKS_HELP)
@click.pass_context
def mark(ctx: click.Context, paper_ids: tuple[str, ...], state: str, as_json: bool) -> None:
    """Give papers a triage state: skimmed, maybe, keep or reject (unseen or clear removes it).

    The last argument is the state. Example: paperscope mark 6dcd10ba875e c0aa3d6d38f6 keep
    """
    _mark(ctx, paper_ids, state, as_json)


@_command()
@click.argument("paper_ids", nargs=-1, required=True)
@click.argument("state", type=click.Choice(_MARK_CHOICES))
@json_option(_JSON_MARKS_HELP)
@click.pass_context
def triage(ctx: click.Context, paper_ids: tuple[str, ...], state: str, as_json: bool) -> None:
    """The same as `paperscope mark` (its older name).

    Example: paperscope triage 6dcd10ba875e c0aa3d6d38f6 keep
    """
    _mark(ctx, paper_ids, state, as_json)


@_command()
@click.option("--rebuild", is_flag=True, help="Rebuild every card, not only missing or outdated ones.")
@click.option("--workers", default=None, type=click.IntRange(1, 64), help="Processes (default: auto).")
@json_option('Print {"cards", "elapsed_s"} (cards built) as JSON.')
@click.pass_context
def cards(ctx: click.Context, rebuild: bool, workers: int | None, as_json: bool) -> None:
    """Build paper cards (methods, datasets, claims, area...) that are missing or outdated.

    Example: paperscope cards --rebuild
    """
    started = time.perf_counter()
    count = _library(ctx).build_cards(rebuild=rebuild, workers=workers, progress=True)
    elapsed_s = time.perf_counter() - started
    if as_json:
        emit_json({"cards": count, "elapsed_s": round(elapsed_s, 3)})
    _summary("cards", count, elapsed_s)


@_command()
@click.option("--rebuild", is_flag=True, help="Embed every paper again, not only those without a vector.")
@device_option()
@json_option('Print {"embedded", "vectors", "elapsed_s"} (papers embedded now, vectors in all) as JSON.')
@click.pass_context
def embed(ctx: click.Context, rebuild: bool, device: str, as_json: bool) -> None:
    """Embed papers that have no vector yet (ingest does this unless --no-embed).

    On a new machine this first prepares the int8 embedding model (15-60 s, once).

    Example: paperscope embed --device cuda
    """
    _choose_device(ctx, device)
    lib = _library(ctx)
    started = time.perf_counter()
    count = lib.embed(rebuild=rebuild, progress=True)
    elapsed_s = time.perf_counter() - started
    if as_json:
        emit_json({"embedded": count, "vectors": lib.stats()["vectors"], "elapsed_s": round(elapsed_s, 3)})
    if count:
        _summary("embed", count, elapsed_s)
    else:
        click.echo(f"embed: every paper already has a vector ({lib.stats()['vectors']:,})", err=True)


@cli.group(invoke_without_command=True)
@click.option(
    "--task",
    "tasks",
    multiple=True,
    help="Retrieval task (repeatable; default all): scifact, iclr-title, iclr-keywords, iclr-zh, "
    "iclr-related, icml-dev-en, icml-dev-zh.",
)
@click.option(
    "--data",
    "data_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The shared data folder (default: $PAPERSCOPE_EVAL_DATA, else shared/data beside the paperscope checkout).",
)
@json_option("Print task → mode → metric → value as JSON.")
@click.pass_context
def eval(ctx: click.Context, tasks: tuple[str, ...], data_dir: Path | None, as_json: bool) -> None:  # noqa: A001
    """Run the retrieval benchmark: nDCG@10, MRR@10, Recall@k for bm25, dense and hybrid.

    Example: paperscope eval --task scifact   (cards: paperscope eval cards)
    """
    ctx.meta["eval_data"] = data_dir
    if ctx.invoked_subcommand is not None:
        return
    from .evaluation.retrieval import format_retrieval_eval, run_retrieval_eval

    data_dir = _eval_data(ctx)
    results = run_retrieval_eval(tasks=list(tasks) or None, data_dir=data_dir, progress=True)
    if as_json:
        emit_json(results)
    else:
        click.echo(format_retrieval_eval(results))
    _summary("eval", results.n_queries, results.elapsed_s, unit="queries")


def _eval_data(ctx: click.Context, *needed: Path) -> Path:
    """Return the evaluation data folder: ``eval --data``, else ``$PAPERSCOPE_EVAL_DATA``, else beside the checkout.

    A missing folder, or a missing one of the ``needed`` paths inside it, is one line naming both ways.
    """
    from .evaluation.paths import ENV_VAR, default_data_dir

    data_dir = ctx.meta.get("eval_data") or default_data_dir()
    sub = f" {ctx.info_name}" if ctx.info_name != "eval" else ""
    for path in (data_dir, *(data_dir / n for n in needed)):
        if not path.exists():
            raise click.ClickException(
                f"{path}: the evaluation data is not there; name the folder (../shared/data) with"
                f" paperscope eval --data DIR{sub}, or set {ENV_VAR}"
            )
    return data_dir


@eval.command("cards")
@click.option("--no-iclr", is_flag=True, help="Skip the held-out ICLR 2026 area run (about a minute).")
@click.option(
    "--silver",
    is_flag=True,
    help="Also score the silver test splits of ../shared/data: method names from 'Name: subtitle' "
    "titles, keyphrases from ICLR 2026 author keywords (card tasks, YAKE, TF-IDF; about 2 minutes).",
)
@json_option("Print the figures as JSON.")
@click.option(
    "--gold",
    "gold_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Gold JSONL to score against (default: the ICML 2026 dev gold), or cards_gold: the "
    "hand-labelled set of issue 27 (four venues; P/R/F1 of what is shown, beside the last release).",
)
@click.option(
    "--split",
    type=click.Choice(["dev", "test", "holdout"]),
    default=None,
    help="Part of cards_gold to score (implies --gold cards_gold; default dev): tune on dev; test and"
    " holdout (80 abstracts of four more venues, labelled later) are scored once.",
)
@click.option("--no-baseline", is_flag=True, help="With cards_gold: skip the last release's extractor.")
@click.option(
    "--examples",
    "examples_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Folder of the paper lists the gold's `file` fields name (default: examples/icml2026).",
)
@click.option(
    "--area-vectors",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="A library holding the ICLR 2026 papers' MiniLM vectors: the held-out area run also scores "
    "the text model fused with the embedding block (stored vectors, nothing is embedded).",
)
@click.pass_context
def eval_cards(
    ctx: click.Context,
    no_iclr: bool,
    silver: bool,
    as_json: bool,
    gold_path: Path | None,
    examples_dir: Path | None,
    area_vectors: Path | None = None,
    split: str | None = None,
    no_baseline: bool = False,
) -> None:
    """Score card extraction against the hand-labelled dev gold (P/R/F1) and area accuracy.

    With --silver, also on thousands of silver-labelled papers (method-name recall and primary-name
    accuracy; keyphrase P/R/F1@5 beside YAKE and TF-IDF), printed after the gold tables.
    With --gold cards_gold (or --split), only the issue 27 set: method names, datasets, tasks and
    claims as shown, as in the whole card, and as the last release (v0.2.0) extracts them.

    Example: paperscope eval cards --no-iclr --gold my_gold.jsonl
    Example: paperscope eval cards --gold cards_gold --split dev
    """
    if split is not None or str(gold_path) == "cards_gold":
        _eval_cards_gold(split or "dev", not no_baseline, as_json)
        return
    if gold_path is not None and not gold_path.is_file():
        raise click.BadParameter(f"{gold_path}: no such file", param_hint="--gold")
    from .config import examples_dir as examples_default
    from .evaluation.cards import format_cards_eval, run_cards_eval
    from .evaluation.paths import GOLD_NAME, ICLR_NAME

    needed = ([] if gold_path else [GOLD_NAME]) + ([] if no_iclr and not silver else [ICLR_NAME])
    needed += [Path("airas-papers-db")] if silver else []
    # A named gold file without the ICLR and silver runs reads nothing of the evaluation data.
    data_dir = _eval_data(ctx, *needed) if needed else Path()
    result = run_cards_eval(
        gold_path=gold_path or data_dir / GOLD_NAME,
        examples_dir=examples_dir or examples_default(),
        iclr_dir=None if no_iclr else data_dir / ICLR_NAME,
        progress=True,
        area_vectors=area_vectors,
    )
    scored = result["n_dev_papers"] + (result.get("area_iclr") or {}).get("n_test", 0)
    if silver:
        from .evaluation.silver_eval import format_silver_eval, run_silver_eval

        result["silver"] = run_silver_eval(data_dir=data_dir, progress=True)
        result["elapsed_s"] += result["silver"]["elapsed_s"]
        sizes = result["silver"]["sizes"]
        scored += sizes["method_test"] + sizes["keyphrase_test"]
    if as_json:
        emit_json(result)
    else:
        click.echo(format_cards_eval(result))
        if silver:
            click.echo("\n" + format_silver_eval(result["silver"]))
    _summary("eval cards", scored, result["elapsed_s"])


def _eval_cards_gold(split: str, baseline: bool, as_json: bool) -> None:
    """Score the cards on one half of cards_gold and print the table (or JSON)."""
    from .evaluation.cards_gold import format_cards_gold_eval, run_cards_gold_eval

    result = run_cards_gold_eval(split, baseline=baseline)
    if as_json:
        emit_json(result)
    else:
        click.echo(format_cards_gold_eval(result))
    _summary("eval cards", result["n_papers"], result["elapsed_s"])


@eval.command("enrich")
@click.option(
    "--dense",
    is_flag=True,
    help="Use dense cosines too, the hybrid pair model (embeds 4,302 abstracts: minutes).",
)
@json_option("Print the figures as JSON.")
@click.pass_context
def eval_enrich(ctx: click.Context, dense: bool, as_json: bool) -> None:
    """Score titles from the program on ICLR 2026: both matchers' precision and coverage per setting.

    Example: paperscope eval enrich
    """
    from .evaluation.enrich import format_enrich_eval, run_enrich_eval
    from .evaluation.paths import ICLR_NAME

    result = run_enrich_eval(_eval_data(ctx, ICLR_NAME) / ICLR_NAME, dense=dense)
    if as_json:
        emit_json(result)
    else:
        click.echo(format_enrich_eval(result))
    _summary("eval enrich", result["papers"], result["elapsed_s"])


@_command()
@click.option(
    "--refit",
    is_flag=True,
    help="Fit again, keeping the ids of topics that keep their papers (default: assign new papers to"
    " the stored topics; a refit happens by itself past 25% of the library assigned since the fit).",
)
@click.option(
    "--n-topics", type=click.IntRange(1, 200), default=None, help="Broad topics (default: automatic)."
)
@click.option("--seed", type=int, default=42, show_default=True, help="Seed of every random step.")
@json_option("Print topics as JSON.")
@click.pass_context
def topics(ctx: click.Context, refit: bool, n_topics: int | None, seed: int, as_json: bool) -> None:
    """List topics with sizes, names and representative papers (fitting them first if needed).

    Example: paperscope topics --n-topics 15
    """
    lib = _library(ctx)
    if refit or lib.topics_are_stale():
        _update_topics(lib, refit=refit, n_topics=n_topics, seed=seed)
    found = lib.topics()
    if as_json:
        emit_json({"run": lib.topic_run(), "topics": [t.to_dict() for t in found]})
        return
    run = lib.topic_run()
    n_broad = sum(t.level == 0 and not t.is_unassigned for t in found)
    click.echo(
        f"{n_broad} topics over {sum(t.size for t in found if t.level == 0)} papers; "
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
            click.echo(f"      {pid}  {lib.get(pid).display_label}")
        for c in children.get(t.topic_id, []):
            click.echo(f"   [{c.topic_id}] {c.name}  ({c.size})")


def _update_topics(lib: Library, refit: bool = False, **settings: Any) -> None:
    """Assign new papers to the stored topics or refit (embedding missing papers first); say which."""
    if lib.missing_vectors():
        started = time.perf_counter()
        _summary("embed", lib.embed(progress=True), time.perf_counter() - started)
    started = time.perf_counter()
    update = lib.update_topics(refit=refit, progress=True, **settings)
    if update.model is not None:
        _summary("topics", len(update.model.paper_ids), update.model.elapsed_s)
    elif update.action == "assigned":
        _summary("topics", update.n_assigned, time.perf_counter() - started)
    if update.notice():
        click.echo(update.notice(), err=True)


@_command("map")
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
@json_option('Print {"out", "png"} (the files written; png null without --png) as JSON.')
@click.pass_context
def map_command(
    ctx: click.Context, out: Path, png: Path | None, color_by: str, title: str | None, as_json: bool
) -> None:
    """Write the topic map: one offline HTML file (zoom, hover cards, search) and optionally a PNG.

    Example: paperscope map --out map.html --png map.png
    """
    lib = _library(ctx)
    if png is not None:  # before a topic fit of minutes, not after it
        from .map import require_matplotlib

        require_matplotlib()
    if lib.topics_are_stale():
        _update_topics(lib)
    lib.write_map(out, png=png, color_by=color_by, title=title)
    if as_json:
        emit_json({"out": str(out), "png": str(png) if png else None})
    click.echo(f"wrote {out}" + (f" and {png}" if png else ""), err=True)


def _register_build_commands() -> None:
    """Add ``build`` and ``load`` (batch builds on local processes or Ray; see cli_build.py)."""
    from .cli_build import register

    register(cli, _command, _library)


_register_build_commands()


def _register_schedule_command() -> None:
    """Add ``schedule`` (the attendee's day plan; see cli_schedule.py)."""
    from .cli_schedule import register

    register(cli, _command, _library)


_register_schedule_command()


def _register_serve_command() -> None:
    """Add ``serve`` (the web app and JSON API; see cli_serve.py)."""
    from .cli_serve import register

    register(cli, _command, _library)


_register_serve_command()
