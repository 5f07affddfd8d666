"""Reading a conference program: titles, authors, sessions, decisions and links, without abstracts.

A program is a CSV/TSV with a header row, a JSON array of objects, JSON Lines, or a JSON object
holding one such array (``{"notes": [...]}``, as OpenReview dumps are). Column names are resolved
by the ingest alias table (:data:`paperscope.ingest.fields.FIELD_ALIASES`: ``title``/``paper_title``,
``authors``/``author``, ``decision``/``status``, ``site``/``openreview_url``/``url``…) and the value
parsers of ``ingest/fields.py`` (author lists, ``ICLR 2026 Poster`` → venue, year and decision,
OpenReview/arXiv ids from links), so a program reads like a paper list; two program fields are
added here: ``session`` (:data:`SESSION_ALIASES`) and ``name`` as a last title alias (the
conference sites' own exports call the title ``name``). ``--map title=COL,session=COL`` names
columns that are not the usual ones.

The official ICML 2026 program (``event_id,event_type,title,decision,topic,session,starttime,
endtime,url,paper_url,authors,institutions``) reads without ``--map``: authors split on ``;``,
institutions are kept on the entry, ``topic`` is the source area, ``paper_url`` the OpenReview
link, and ``event_type``/``session``/``starttime``/``endtime`` (with ``room`` or ``timezone``
where a program has them) make each row's session (:mod:`.sessions`). Rows that are one paper
(the Oral and the Poster row of an oral) become one entry that keeps every session.

Unlike ingest, a program file is small and read whole, and it is strict: a malformed row or line
is an :class:`~paperscope.errors.InputError` naming the file and the line, never a skipped
record, because a wrong line would silently become a wrong title.
"""

from __future__ import annotations

import csv
import dataclasses
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..ingest.csv_table import split_header
from ..ingest.fields import (
    flatten_openreview,
    mapping_to_record,
    normalise_key,
    parse_column_map,
    resolve_columns,
)
from ..ingest.files import (
    TooLong,
    check_text_file,
    iter_lines,
    json_decoder,
    json_error_reason,
    open_text,
    read_head,
    read_text_file,
)
from ..ingest.json_stream import Oversized, Undecodable, array_elements
from ..models import Record, Source
from ..text import clean_text, decode_entities
from .sessions import (
    SESSION_FIELD_ALIASES,
    ProgramSession,
    institutions_of,
    merge_entries,
    read_session,
    session_fields,
    time_zone,
)

__all__ = [
    "ProgramEntry",
    "Program",
    "read_program",
    "parse_program_map",
    "describe_columns",
    "SESSION_ALIASES",
]

#: Column names a session goes by (after ``normalise_key``), best first.
SESSION_ALIASES = ("session", "sessions", "session_name", "session_title", "poster_session", "oral_session")
#: Title aliases tried after the ingest table's: conference-site exports call the title ``name``.
_EXTRA_TITLE_ALIASES = ("name", "paper_name")
#: The key ``mapping_to_record`` reads the abstract from: a program has none, so a stand-in.
_NO_ABSTRACT = "\x00program-has-no-abstract"


@dataclass(frozen=True)
class ProgramEntry:
    """One paper of a program.

    Attributes:
        line: 1-based line of the row (CSV, JSON Lines) or record number (JSON array).
        title: the title, whitespace collapsed; never empty.
        authors: author names in order.
        venue, year, decision: as the row states them (``ICLR 2026 Poster`` → ICLR, 2026, Poster).
        session: the session name, when the program has one (every session's, ``; ``-joined,
            for an entry made of several rows).
        urls: every link of the row (OpenReview, PDF, project, code).
        external_ids: ``{"openreview": id, "arxiv": id, "doi": doi}`` read from the row.
        institutions: the authors' institutions as the program lists them.
        area: the program's topic (``Deep Learning->Generative Models``), the paper's source area.
        sessions: every presentation of the paper, in time order (:class:`ProgramSession`).
        lines: every program line this entry was read from (an oral's Oral and Poster rows).

    """

    line: int
    title: str
    authors: tuple[str, ...] = ()
    venue: str | None = None
    year: int | None = None
    decision: str | None = None
    session: str | None = None
    urls: tuple[str, ...] = ()
    external_ids: Mapping[str, str] = field(default_factory=dict)
    institutions: tuple[str, ...] = ()
    area: str | None = None
    sessions: tuple[ProgramSession, ...] = ()
    lines: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON shape stored beside an attachment or suggestion and printed by ``--json``."""
        return {
            "line": self.line,
            "title": self.title,
            "authors": list(self.authors),
            "venue": self.venue,
            "year": self.year,
            "decision": self.decision,
            "session": self.session,
            "urls": list(self.urls),
            "external_ids": dict(self.external_ids),
            "institutions": list(self.institutions),
            "area": self.area,
            "sessions": [s.to_dict() for s in self.sessions],
            "lines": list(self.lines or (self.line,)),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ProgramEntry:
        """Rebuild an entry from :meth:`to_dict` output (a stored suggestion)."""
        return cls(
            line=int(data["line"]),
            title=str(data["title"]),
            authors=tuple(data.get("authors") or ()),
            venue=data.get("venue"),
            year=data.get("year"),
            decision=data.get("decision"),
            session=data.get("session"),
            urls=tuple(data.get("urls") or ()),
            external_ids=dict(data.get("external_ids") or {}),
            institutions=tuple(data.get("institutions") or ()),
            area=data.get("area"),
            sessions=tuple(ProgramSession.from_dict(s) for s in data.get("sessions") or ()),
            lines=tuple(data.get("lines") or ()),
        )


@dataclass
class Program:
    """A program file as read: its entries and the rows passed over (no title), by line.

    ``columns``: the column (key) names met, in file order; ``title_columns``: those read as the
    title; ``unused_columns``: those no field read (dropped, said once in the report).
    """

    path: Path
    entries: list[ProgramEntry]
    without_title: list[int] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    title_columns: list[str] = field(default_factory=list)
    used_columns: set[str] = field(default_factory=set)

    @property
    def unused_columns(self) -> list[str]:
        return [c for c in self.columns if c not in self.used_columns]

    @property
    def key(self) -> str:
        """How the library names this program: the file's resolved path."""
        return str(self.path.resolve())


def parse_program_map(specs: Iterable[str] | str | None) -> dict[str, str]:
    """Parse ``--map`` values (``title=Paper`` pairs, comma-separated or repeated) for a program.

    Accepts the ingest fields (:data:`paperscope.ingest.fields.FIELDS`), ``session`` and the
    session parts (:data:`~paperscope.enrich.sessions.SESSION_FIELD_ALIASES`: ``kind``, ``start``,
    ``end``, ``room``, ``timezone``, ``institutions``).

    Raises:
        InputError: a pair has no ``=`` or names an unknown field.

    """
    if specs is None:
        return {}
    if isinstance(specs, str):
        specs = [specs]
    out: dict[str, str] = {}
    rest: list[str] = []
    for spec in specs:
        for pair in spec.split(","):
            name, sep, column = pair.partition("=")
            if sep and column.strip() and normalise_key(name) in ("session", *SESSION_FIELD_ALIASES):
                out[normalise_key(name)] = column.strip()
            elif pair.strip():
                rest.append(pair)
    try:
        out.update(parse_column_map(",".join(rest)))
    except InputError as exc:
        if "choose from: " not in exc.reason:
            raise
        raise InputError(
            exc.reason + ", session, " + ", ".join(SESSION_FIELD_ALIASES), exc.path, exc.line
        ) from None
    return out


def read_program(
    path: str | Path, column_map: Mapping[str, str] | None = None, timezone: str | None = None
) -> Program:
    """Read a program file (CSV/TSV, JSON array, JSON Lines, or an object holding an array).

    Args:
        path: the program file.
        column_map: ``{field: column}`` from :func:`parse_program_map`.
        timezone: the program's IANA time zone (``Asia/Seoul``): times without a UTC offset are
            read in it and every time is shown in it (a ``timezone`` column wins over it).

    Returns:
        The Program; rows without a title are left out and their lines listed in
        ``without_title``; rows that are one paper are one entry (:func:`.sessions.merge_entries`).

    Raises:
        InputError: the file is missing, empty, binary, UTF-16 or not UTF-8; it is malformed
            (the message names the line); a ``--map`` column is not there; no column holds
            titles; no row has a title; the time zone is unknown; or a time is not a time, has
            no offset while no time zone is known, or ends before it starts (file and line).

    """
    path = Path(path)
    column_map = dict(column_map or {})
    zone = time_zone(timezone, str(path))
    # where a CSV's header is and its columns (set by _csv_rows): errors about columns name them
    header: dict[str, Any] = {"line": 1, "columns": []}
    head = read_head(path).lstrip()
    if head.startswith("[") or (head.startswith("{") and path.suffix.lower() == ".json"):
        rows: Iterator[tuple[int, Any]] = _json_rows(path, head)
        fmt = "json"
    elif head.startswith("{"):
        rows, fmt = _json_line_rows(path), "jsonl"
    else:
        rows, fmt = _csv_rows(path, header), "csv"
    program = Program(path, [])
    resolved: dict[frozenset[str], tuple[dict[str, list[str]], list[str]]] = {}
    for line, item in rows:
        if not isinstance(item, Mapping):
            raise InputError(f"not a JSON object ({type(item).__name__})", str(path), line)
        item = flatten_openreview(item)
        keys = frozenset(k for k in item if isinstance(k, str))
        if keys not in resolved:
            try:
                resolved[keys] = _columns(
                    path, sorted(keys), column_map, header["line"] if fmt == "csv" else line, fmt
                )
            except InputError as exc:
                if exc.line is not None:
                    raise
                raise InputError(exc.reason, str(path), header["line"] if fmt == "csv" else line) from None
        columns, session_columns = resolved[keys]
        parts = session_fields(sorted(keys), column_map)
        missing = [k for k in column_map if k in SESSION_FIELD_ALIASES and k not in parts]
        if missing and fmt == "csv":
            raise InputError(
                f"--map {missing[0]}={column_map[missing[0]]}: no such column; the columns are:"
                f" {', '.join(item)}",
                str(path),
                header["line"],
            )
        program.columns += [k for k in item if isinstance(k, str) and k not in program.columns]
        used = [c for name, cs in columns.items() if name != "abstract" for c in cs]
        program.used_columns.update([*used, *session_columns, *parts.values()])
        program.title_columns += [c for c in columns.get("title", []) if c not in program.title_columns]
        record = mapping_to_record({**item, _NO_ABSTRACT: "-"}, Source(str(path), line, fmt), columns)
        assert isinstance(record, Record)  # the stand-in abstract is always there
        entry = _entry(record, item, session_columns, line)
        if entry is None:
            program.without_title.append(line)
        else:
            session = read_session(item, parts, entry.session, entry.urls, zone, str(path), line)
            program.entries.append(
                dataclasses.replace(
                    entry,
                    institutions=institutions_of(item, parts),
                    area=record.source_area,
                    sessions=(session,) if session is not None else (),
                    lines=(line,),
                )
            )
    program.entries = merge_entries(program.entries)
    if not program.columns and header["columns"]:  # a header and no row: name the header's columns
        program.columns = list(header["columns"])
        program.title_columns = _columns(path, program.columns, column_map, header["line"], fmt)[0].get(
            "title", []
        )
        raise InputError(
            f"the program has a header but no rows ({describe_columns(program)})", str(path), header["line"]
        )
    if not program.entries:
        raise InputError(f"no program entry has a title ({describe_columns(program)})", str(path))
    return program


def describe_columns(program: Program) -> str:
    """Return ``title column: X; columns: a, b, c`` for an error or note about ``program``."""
    titles = ", ".join(program.title_columns) or "none"
    return f"title column: {titles}; columns: {', '.join(program.columns) or 'none'}"


def _columns(
    path: Path, names: list[str], column_map: Mapping[str, str], line: int, fmt: str
) -> tuple[dict[str, list[str]], list[str]]:
    """Return the ingest columns and the session columns of a row with these field names."""
    mapped = {k: v for k, v in column_map.items() if k != "session" and k not in SESSION_FIELD_ALIASES}
    if fmt != "csv":  # a JSON record without a mapped key: that field is simply empty in it
        present = {normalise_key(n) for n in names}
        mapped = {k: v for k, v in mapped.items() if normalise_key(v) in present}
    columns = resolve_columns(names, mapped, str(path))
    by_key = {normalise_key(n): n for n in names}
    if "title" not in columns:
        extra = [by_key[a] for a in _EXTRA_TITLE_ALIASES if a in by_key]
        if extra:
            columns["title"] = extra
        elif fmt == "csv":
            raise InputError(
                f"no title column (columns: {', '.join(names)}); name it with --map title=COLUMN",
                str(path),
                line,
            )
    columns["abstract"] = [_NO_ABSTRACT]
    if "session" in column_map:
        wanted = normalise_key(column_map["session"])
        if wanted not in by_key:
            if fmt == "csv":
                raise InputError(
                    f"--map session={column_map['session']}: no such column; the columns are: {', '.join(names)}",
                    str(path),
                    line,
                )
            return columns, []
        return columns, [by_key[wanted]]
    return columns, [by_key[a] for a in SESSION_ALIASES if a in by_key]


def _entry(
    record: Record, item: Mapping[str, Any], session_columns: list[str], line: int
) -> ProgramEntry | None:
    # Cleaned as ingest cleans a title (pipeline: LaTeX, markdown, entities, invisible marks), so
    # "Best-of-$N$" or "\\textbf{X}" matches the library's "Best-of-N" / "X" and an attached
    # title never shows raw LaTeX.
    title = " ".join(clean_text(decode_entities(record.title)).split()) if record.title else ""
    if not title:
        return None
    session = None
    for name in session_columns:
        value = item.get(name)
        if isinstance(value, list):
            value = "; ".join(str(v) for v in value if v)
        if value is not None and str(value).strip():
            session = " ".join(str(value).split())
            break
    return ProgramEntry(
        line=line,
        title=title,
        authors=tuple(record.authors),
        venue=record.venue,
        year=record.year,
        decision=record.decision,
        session=session,
        urls=tuple(record.urls),
        external_ids=dict(record.external_ids),
    )


def _csv_rows(path: Path, header_at: dict[str, int]) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield ``(first line, {column: cell})`` per non-blank data row of a CSV/TSV with a header.

    ``header_at["line"]`` is set to the header's line (2 after an Excel ``sep=`` line) and
    ``header_at["columns"]`` to its column names.
    """
    lines = iter_lines(path)
    first: list[str] = []
    for number, text in lines:
        if isinstance(text, TooLong):
            raise InputError(f"line of {text.chars:,} characters: not a program row", str(path), number)
        first.append(text)
        if len(first) == 2 or not text.lower().startswith("sep="):
            break
    delimiter, header, header_line = split_header(path, first)
    header_at["line"] = header_line
    header_at["columns"] = [name for name in header if name.strip()]
    state = {"start": 0, "number": header_line}

    def feed() -> Iterator[str]:
        for number, text in lines:
            if isinstance(text, TooLong):
                raise InputError(f"line of {text.chars:,} characters: not a program row", str(path), number)
            state["number"] = number
            if not state["start"]:
                state["start"] = number
            yield text + "\n"

    reader = csv.reader(feed(), delimiter=delimiter, strict=True)
    try:
        for row in reader:
            start, state["start"] = state["start"], 0
            if not any(cell.strip() for cell in row):
                continue
            if len(row) > len(header) and any(cell.strip() for cell in row[len(header) :]):
                raise InputError(
                    f"row has {len(row)} cells but the header has {len(header)}", str(path), start
                )
            yield start, {name: cell for name, cell in zip(header, row, strict=False) if name.strip()}
    except csv.Error as exc:
        raise InputError(f"malformed CSV: {exc}", str(path), state["start"] or state["number"]) from exc


def _json_line_rows(path: Path) -> Iterator[tuple[int, Any]]:
    decoder = json_decoder()
    for number, text in iter_lines(path):
        if isinstance(text, TooLong):
            raise InputError(f"line of {text.chars:,} characters: not a program entry", str(path), number)
        if not text.strip():
            continue
        try:
            yield number, decoder.decode(text)
        except (ValueError, RecursionError) as exc:
            raise InputError(json_error_reason(exc), str(path), number) from None


def _json_rows(path: Path, head: str) -> Iterator[tuple[int, Any]]:
    """Yield ``(record number, object)`` of a JSON array, or of the one array a JSON object holds."""
    check_text_file(path)
    if head.startswith("{"):
        yield from _wrapped_array(path)
        return
    number = 0
    try:
        with open_text(path) as handle:
            for line, value in array_elements(str(path), handle):
                number += 1
                if isinstance(value, Oversized | Undecodable):
                    why = value.reason if isinstance(value, Undecodable) else "record too large"
                    raise InputError(f"record {number}: {why}", str(path), line)
                yield number, value
    except UnicodeDecodeError as exc:
        raise InputError("not UTF-8", str(path)) from exc


def _wrapped_array(path: Path) -> Iterator[tuple[int, Any]]:
    text = read_text_file(path)
    try:
        data = json_decoder().decode(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg} (column {exc.colno})", str(path), exc.lineno) from None
    except (ValueError, RecursionError) as exc:
        raise InputError(json_error_reason(exc), str(path)) from None
    arrays = [v for v in data.values() if isinstance(v, list) and v and isinstance(v[0], Mapping)]
    if len(arrays) != 1:
        raise InputError(
            'a JSON object must hold exactly one array of program entries (e.g. {"notes": [...]})',
            str(path),
            1,
        )
    yield from enumerate(arrays[0], start=1)
