"""Fuzzing the readers and format detection: any input gives Records, Skips or an ``InputError``.

For every reader of ``ingest.formats.READERS`` (text list, JSON array, JSON Lines, arXiv JSONL,
CSV/TSV, BibTeX) and for ``detect_format``, Hypothesis feeds random bytes, random Unicode,
inputs shaped like the format (its syntax, its field names, the values real tools write:
``NaN``, lone surrogate escapes, repeated columns, string macros, ``crossref`` loops …), and
real records from ``../shared/data`` truncated and mutated. The property: the reader yields
only ``Record``s and ``Skip``s whose line lies in the file, the pipeline's own cleaning of each
record (``repair_record``, ``record_to_paper``) does not raise, and the only exception is an
``InputError`` naming the file. Anything else is a traceback a user would see.

Profiles and sizes: see ``conftest.py``. A crash found here goes to the readers' owner with its
minimal input (Hypothesis prints it, and ``print_blob`` a reproduction line).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from hypothesis import currently_in_test_context, event, given, settings
from hypothesis import strategies as st

from paperscope.errors import InputError
from paperscope.ingest.fields import FIELD_ALIASES
from paperscope.ingest.formats import READERS, detect_format, get_reader
from paperscope.ingest.pipeline import paper_id_for, record_to_paper, repair_record
from paperscope.models import Record, Skip

from .conftest import examples

#: The suffix each reader's files carry (TSV is the CSV reader on a ``.tsv`` file).
SUFFIX = {
    "text-list": ".txt",
    "json": ".json",
    "jsonl": ".jsonl",
    "arxiv-jsonl": ".jsonl",
    "csv": ".csv",
    "tsv": ".tsv",
    "bibtex": ".bib",
}
READER_OF = {name: ("csv" if name == "tsv" else name) for name in SUFFIX}
assert set(READER_OF.values()) == set(READERS), "a reader is not fuzzed"


# --- the property ------------------------------------------------------------------------------


def _note(what: str) -> None:
    """Count an outcome for ``--hypothesis-show-statistics`` (inside a Hypothesis test only)."""
    if currently_in_test_context():
        event(what)


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n") + 1


def check_reader(kind: str, path: Path, data: bytes) -> list[Record | Skip]:
    """Read ``path`` with the reader of ``kind``; fail on anything but Records, Skips or an InputError."""
    path.write_bytes(data)
    items: list[Record | Skip] = []
    try:
        for item in get_reader(READER_OF[kind])(path, None):
            items.append(item)
    except InputError as exc:
        assert exc.path == str(path), f"an InputError that does not name the file: {exc!r}"
        assert exc.reason
        assert exc.line is None or exc.line >= 1
        _note(f"InputError: {exc.reason.split(':')[0].split('(')[0][:40]}")
        return items
    by_line = READER_OF[kind] != "json"  # a JSON array counts records, every other format lines
    last_line = _line_count(data)
    for item in items:
        assert isinstance(item, (Record, Skip)), f"reader yielded {type(item).__name__}"
        line = item.line if isinstance(item, Skip) else item.source.line
        assert line is None or line >= 1, f"line {line} of {item!r}"
        if by_line and line is not None:
            assert line <= last_line, f"line {line} beyond the file's {last_line} lines: {item!r}"
        if isinstance(item, Record):
            assert isinstance(item.abstract, str)
            repair_record(item)
            paper = record_to_paper(item)
            if paper is not None:
                paper_id_for(paper.clean_text)
                paper.clean_text.encode("utf-8")
    records = sum(isinstance(i, Record) for i in items)
    _note("read: " + ("records" if records else "skips only" if items else "nothing"))
    return items


def check_detect(path: Path, data: bytes) -> str | None:
    """Detect the format of ``data`` (written to ``path``); fail on anything but a format or an InputError."""
    path.write_bytes(data)
    try:
        fmt = detect_format(path)
    except InputError as exc:
        assert exc.path == str(path), f"an InputError that does not name the file: {exc!r}"
        _note("detect: InputError")
        return None
    assert fmt in READERS
    _note(f"detect: {fmt}")
    return fmt


# --- strategies ----------------------------------------------------------------------------------

ALIASES = sorted({name for names in FIELD_ALIASES.values() for name in names})
#: Field names as sources write them: the alias table, case and spacing variants, arXiv's and
#: OpenReview's own keys, and a few nobody reads.
KEYS = st.one_of(
    st.sampled_from(ALIASES),
    st.sampled_from(["Abstract", "ABSTRACT", " abstract ", "Title", "\ufeffabstract", "abstract.1"]),
    st.sampled_from(["id", "versions", "authors_parsed", "categories", "update_date", "submitter"]),
    st.sampled_from(["content", "forum", "note", "email", "rating", ""]),
    st.text(max_size=8),
)
#: Pieces real files hold that break naive readers.
NASTY = [
    "NaN",
    "Infinity",
    "-Infinity",
    "null",
    "1e400",
    "\\ud800",
    "\\udc00x",
    "\\u0000",
    "\ufeff",
    "\u200b",
    "\u00ad",
    "\u202e",
    "\x00",
    "\x1b[31m",
    "\r",
    "\r\n",
    "\n\n",
    '"',
    "'",
    ",",
    ";",
    "\t",
    "|",
    "{",
    "}",
    "[",
    "]",
    "@",
    "#",
    "%",
    "\\",
    "$",
    "&amp;",
    "N/A",
    "sep=;",
    "=",
    "https://github.com/acme/apm/",
    "github.com/a/b.git",
]
#: An integer past Python's 4,300-digit limit for int() (a ValueError, not a JSONDecodeError).
HUGE_NUMBER = st.integers(4301, 4400).map(lambda n: "9" * n)
SHORT_TEXT = st.one_of(st.text(max_size=30), st.sampled_from(NASTY), HUGE_NUMBER)
PROSE = st.sampled_from(
    [
        "We propose a method that prunes large language models adaptively and keeps accuracy.",
        "Graph neural networks struggle with long-range dependencies; we study rewiring.",
        "Diffusion models are slow to sample. We distil them into a one-step generator, 10x faster.",
        "本文提出一种高效的检索增强生成方法。",
        "",
    ]
)
TEXT_VALUE = st.one_of(
    PROSE, SHORT_TEXT, st.builds("".join, st.lists(st.one_of(PROSE, SHORT_TEXT), max_size=5))
)

JSON_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT_VALUE,
)
JSON_VALUE = st.recursive(
    JSON_SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)
PAPER_OBJECT = st.dictionaries(KEYS, st.one_of(TEXT_VALUE, JSON_VALUE), max_size=8)


@st.composite
def mutated(draw: st.DrawFn, base: bytes) -> bytes:
    """Return ``base`` truncated, with bytes deleted, inserted, replaced or repeated at random places."""
    data = bytearray(base)
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["truncate", "delete", "insert", "replace", "repeat"]))
        if op == "truncate":
            del data[at:]
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 64))]
        elif op == "insert":
            piece = draw(st.one_of(st.sampled_from(NASTY).map(str.encode), st.binary(min_size=1, max_size=8)))
            data[at:at] = piece
        elif op == "replace" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif op == "repeat":
            data[at:at] = data[at : at + draw(st.integers(1, 200))]
    return bytes(data)


def maybe_mutated(base: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    """The inputs of ``base``, as written and mutated."""
    return st.one_of(base, base.flatmap(mutated))


def _json_text(value: object, ascii_only: bool) -> str:
    return json.dumps(value, allow_nan=True, ensure_ascii=ascii_only)


JSON_ARRAY = st.builds(
    lambda items, ascii_only, indent: json.dumps(
        items, allow_nan=True, ensure_ascii=ascii_only, indent=indent
    ).encode("utf-8", "surrogatepass"),
    st.lists(st.one_of(PAPER_OBJECT, JSON_VALUE), max_size=6),
    st.booleans(),
    st.sampled_from([None, 0, 2]),
)
JSON_LINES = st.builds(
    lambda items, ascii_only, end: (end.join(_json_text(i, ascii_only) for i in items) + end).encode(
        "utf-8", "surrogatepass"
    ),
    st.lists(st.one_of(PAPER_OBJECT, JSON_VALUE, st.just("")), max_size=6),
    st.booleans(),
    st.sampled_from(["\n", "\r\n", "\n\n"]),
)
ARXIV_RECORD = st.fixed_dictionaries(
    {
        "id": st.one_of(st.sampled_from(["2101.00001", "2101.00001v2", "math/0501001", ""]), SHORT_TEXT),
        "abstract": st.one_of(PROSE, JSON_VALUE),
        "versions": st.one_of(
            st.lists(st.fixed_dictionaries({"version": st.just("v1"), "created": SHORT_TEXT}), max_size=2),
            JSON_VALUE,
        ),
    },
    optional={
        "title": TEXT_VALUE,
        "authors": st.one_of(TEXT_VALUE, JSON_VALUE),
        "authors_parsed": JSON_VALUE,
        "categories": st.one_of(st.sampled_from(["cs.LG", "cs.CL stat.ML", ""]), JSON_VALUE),
        "doi": st.one_of(st.sampled_from(["10.1000/xyz", ""]), JSON_VALUE),
        "update_date": st.one_of(st.sampled_from(["2021-01-05", "x"]), JSON_VALUE),
        "journal-ref": JSON_VALUE,
    },
)
ARXIV_JSONL = st.builds(
    lambda items: ("\n".join(json.dumps(i, allow_nan=True) for i in items) + "\n").encode(
        "utf-8", "surrogatepass"
    ),
    st.lists(ARXIV_RECORD, min_size=1, max_size=4),
)

CELL = st.one_of(TEXT_VALUE, st.sampled_from(["", "NaN", "N/A", "null", "-", "nan"]))


@st.composite
def csv_bytes(draw: st.DrawFn, delimiter: str | None = None) -> bytes:
    """Return a CSV/TSV file: a header of real and odd column names, rows of odd cells, Excel's habits."""
    header = draw(st.lists(KEYS, min_size=1, max_size=6))
    width = len(header)
    rows = draw(st.lists(st.lists(CELL, min_size=0, max_size=width + 2), max_size=5))
    sep = delimiter or draw(st.sampled_from([",", "\t", ";", "|"]))
    out = io.StringIO()
    writer = csv.writer(
        out,
        delimiter=sep,
        quoting=draw(st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL, csv.QUOTE_NONNUMERIC])),
        lineterminator=draw(st.sampled_from(["\r\n", "\n"])),
    )
    writer.writerow(header)
    writer.writerows(rows)
    text = out.getvalue()
    if draw(st.booleans()):
        text = f"sep={sep}\n" + text if sep != "\t" else text
    data = text.encode("utf-8", "surrogatepass")
    return (b"\xef\xbb\xbf" + data) if draw(st.booleans()) else data


BIB_VALUE = st.one_of(
    TEXT_VALUE.map(lambda t: "{" + t + "}"),
    TEXT_VALUE.map(lambda t: '"' + t.replace('"', "") + '"'),
    st.sampled_from(
        ["jan", "feb", "iclr", "undefinedmacro", "2021", "{{Nested {deep}}}", "{unbalanced", "}"]
    ),
    st.builds(
        lambda a, b: f"{a} # {b}",
        st.sampled_from(["iclr", '"x"', "{y}", "jan"]),
        st.sampled_from(["{ 2021}", '"z"', "iclr"]),
    ),
)
BIB_FIELD_NAMES = st.one_of(
    st.sampled_from(
        ["title", "author", "abstract", "booktitle", "journal", "year", "month", "url", "doi", "eprint"]
        + ["keywords", "crossref", "xdata", "publisher", "note", "Abstract", "ABSTRACT"]
    ),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-", min_size=1, max_size=8),
)


@st.composite
def bibtex_bytes(draw: st.DrawFn) -> bytes:
    """Return a .bib file: entries, @string macros, crossref/xdata chains (loops too), comments."""
    keys = draw(st.lists(st.sampled_from(["a", "b", "c", "conf", "a:1", "x y"]), min_size=1, max_size=4))
    chunks: list[str] = []
    for i, key in enumerate(keys):
        kind = draw(
            st.sampled_from(
                [
                    "article",
                    "inproceedings",
                    "proceedings",
                    "misc",
                    "xdata",
                    "string",
                    "comment",
                    "preamble",
                    "InProceedings",
                    "unknown",
                ]
            )
        )
        if kind == "string":
            chunks.append(f"@string{{{draw(st.sampled_from(['iclr', 'jan', 'x']))} = {draw(BIB_VALUE)}}}")
            continue
        if kind in ("comment", "preamble"):
            chunks.append(f"@{kind}{{{draw(TEXT_VALUE)}}}")
            continue
        fields = draw(st.lists(st.tuples(BIB_FIELD_NAMES, BIB_VALUE), max_size=6))
        if draw(st.booleans()):
            fields.append(("abstract", "{" + draw(PROSE) + "}"))
        if draw(st.booleans()):
            fields.append(
                (draw(st.sampled_from(["crossref", "xdata"])), "{" + draw(st.sampled_from(keys)) + "}")
            )
        body = ",\n  ".join(f"{name} = {value}" for name, value in fields)
        close = draw(st.sampled_from(["}", ")", "", "}}"]))
        opener = "(" if close == ")" else "{"
        chunks.append(f"@{kind}{opener}{key}{i},\n  {body}\n{close}")
    between = draw(st.sampled_from(["\n", "\n\n", "\n% a comment\n", "\r\n", " junk text \n"]))
    return between.join(chunks).encode("utf-8", "surrogatepass")


TEXT_LIST = st.builds(
    lambda lines, end: end.join(lines).encode("utf-8", "surrogatepass"),
    st.lists(
        st.one_of(
            st.sampled_from(
                [
                    "ICML 2026 Papers",
                    "NeurIPS 2025 Accepted Papers",
                    "ICLR 2024 (oral)",
                    "",
                    " ",
                    "\u00a0",
                    "\u3000",
                ]
            ),
            PROSE,
            TEXT_VALUE,
        ),
        max_size=12,
    ),
    st.sampled_from(["\n", "\r\n", "\r"]),
)

STRUCTURED = {
    "text-list": TEXT_LIST,
    "json": JSON_ARRAY,
    "jsonl": JSON_LINES,
    "arxiv-jsonl": ARXIV_JSONL,
    "csv": csv_bytes(),
    "tsv": csv_bytes("\t"),
    "bibtex": bibtex_bytes(),
}
RANDOM_UNICODE = st.text(st.characters(codec=None, exclude_categories=["Cs"]), max_size=400).map(str.encode)


# --- the tests -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(SUFFIX))
@settings(max_examples=examples(400))
@given(data=st.data())
def test_reader_survives_inputs_shaped_like_its_format(
    kind: str, fuzz_dir: Path, data: st.DataObject
) -> None:
    check_reader(
        kind, fuzz_dir / f"shaped{SUFFIX[kind]}", data.draw(maybe_mutated(STRUCTURED[kind]), label=kind)
    )


@pytest.mark.parametrize("kind", sorted(SUFFIX))
@settings(max_examples=examples(150))
@given(raw=st.binary(max_size=600))
def test_reader_survives_random_bytes(kind: str, fuzz_dir: Path, raw: bytes) -> None:
    check_reader(kind, fuzz_dir / f"bytes{SUFFIX[kind]}", raw)


@pytest.mark.parametrize("kind", sorted(SUFFIX))
@settings(max_examples=examples(150))
@given(raw=RANDOM_UNICODE)
def test_reader_survives_random_unicode(kind: str, fuzz_dir: Path, raw: bytes) -> None:
    check_reader(kind, fuzz_dir / f"unicode{SUFFIX[kind]}", raw)


@pytest.mark.parametrize("kind", ["text-list", "json", "jsonl", "arxiv-jsonl", "csv", "bibtex"])
@settings(max_examples=examples(300))
@given(data=st.data())
def test_reader_survives_truncated_and_mutated_real_records(
    kind: str, fuzz_dir: Path, real_seeds: dict[str, list[bytes]], data: st.DataObject
) -> None:
    seed = data.draw(st.sampled_from(real_seeds[kind]), label="seed")
    check_reader(kind, fuzz_dir / f"real{SUFFIX[kind]}", data.draw(mutated(seed), label="mutated"))


def test_real_seeds_read_as_papers(fuzz_dir: Path, real_seeds: dict[str, list[bytes]]) -> None:
    """The unmutated seeds are good records: the mutations above start from inputs that read."""
    for kind, seeds in real_seeds.items():
        for seed in seeds:
            items = check_reader(kind, fuzz_dir / f"seed{SUFFIX[kind]}", seed)
            assert items and all(isinstance(i, Record) for i in items), (kind, items[:2])


SUFFIXES = st.sampled_from(["", ".txt", ".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".bib", ".TXT"])


@settings(max_examples=examples(800))
@given(
    raw=st.one_of(st.binary(max_size=600), RANDOM_UNICODE, *(maybe_mutated(s) for s in STRUCTURED.values())),
    suffix=SUFFIXES,
)
def test_detect_format_never_crashes_and_its_reader_reads(fuzz_dir: Path, raw: bytes, suffix: str) -> None:
    """Any bytes under any name: a format (whose reader then reads the file) or an InputError."""
    path = fuzz_dir / f"detect{suffix}"
    fmt = check_detect(path, raw)
    if fmt is not None:
        kind = "tsv" if fmt == "csv" and suffix == ".tsv" else fmt
        check_reader(kind, path, raw)
