"""Readers against what real tools write (issue 13): cases 20 and 21, and one test per kind on inputs of our own.

BibTeX as reference managers export it, CSV/TSV as spreadsheets write it, JSON as ``json.dump``
and pandas write it, format sniffing on any bytes and on prose, and records too large to hold.
"""

from __future__ import annotations

import json
import random
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli
from paperscope.errors import InputError
from paperscope.ingest.bibtex import read_bibtex
from paperscope.ingest.csv_table import read_csv
from paperscope.ingest.files import MAX_RECORD_CHARS, iter_lines
from paperscope.ingest.formats import RAW_ABSTRACT_MAX_CHARS, detect_format, get_reader
from paperscope.ingest.paperlist_json import read_json_array, read_json_lines
from paperscope.ingest.pipeline import MAX_ABSTRACT_CHARS
from paperscope.ingest.text_list import read_text_list
from paperscope.models import Record, Skip

# -- cases 20 and 21, exactly as in ../shared/bugs/CASES.md ------------------------------------

CASE20_CSV = (
    "title,abstract,abstract\n"
    "APM: Adaptive Pruning,We prune attention heads adaptively and keep accuracy on CIFAR-10.,\n"
    "Gated Mixers,We replace attention with gated token mixing for speech.,\n"
)
CASE20_JSON = (
    '[{"title": "APM: Adaptive Pruning", "abstract": "We prune attention heads adaptively and keep '
    'accuracy on CIFAR-10.", "abstract": ""}]'
)
CASE21_RECORDS = [
    '{"title": "Sparse Experts", "abstract": "We route tokens to sparse experts.", "year": NaN, "decision": NaN}',
    '{"title": "Empty One", "abstract": NaN}',
    '{"title": "Wide Nets", "abstract": "We widen residual networks for tabular data.", "year": Infinity, '
    '"keywords": NaN}',
]


def _ingest(tmp_path: Path, name: str, body: str | bytes):
    path = tmp_path / name
    if isinstance(body, bytes):
        path.write_bytes(body)
    else:
        path.write_text(body, encoding="utf-8")
    with Library(tmp_path / f"{name}.db") as lib:
        report = lib.ingest([path])
        papers = sorted(lib.papers(), key=lambda p: p.title or "")
    return path, report, papers


def test_case20_csv_repeated_abstract_column_uses_the_non_empty_cell(tmp_path: Path) -> None:
    path, report, papers = _ingest(tmp_path, "f20.csv", CASE20_CSV)
    assert (report.new, report.skipped, report.failed) == (2, [], [])
    assert [(p.title, p.abstract) for p in papers] == [
        ("APM: Adaptive Pruning", "We prune attention heads adaptively and keep accuracy on CIFAR-10."),
        ("Gated Mixers", "We replace attention with gated token mixing for speech."),
    ]
    assert sorted(s.line for p in papers for s in p.sources) == [2, 3]


def test_case20_json_repeated_key_uses_the_non_empty_value(tmp_path: Path) -> None:
    _, report, papers = _ingest(tmp_path, "f20.json", CASE20_JSON)
    assert (report.new, report.skipped, report.failed) == (1, [], [])
    assert papers[0].abstract == "We prune attention heads adaptively and keep accuracy on CIFAR-10."


@pytest.mark.parametrize(
    ("name", "body", "where"),
    [
        ("f21.json", "[" + ",\n ".join(CASE21_RECORDS) + "]", "record 2"),
        ("f21.jsonl", "\n".join(CASE21_RECORDS) + "\n", "2"),
    ],
)
def test_case21_nan_and_infinity_are_missing_values_in_arrays_and_lines_alike(
    tmp_path: Path, name: str, body: str, where: str
) -> None:
    path, report, papers = _ingest(tmp_path, name, body)
    assert report.failed == []
    assert (report.read, report.new) == (3, 2)
    sep = ": " if where.startswith("record") else ":"
    assert [str(s) for s in report.skipped] == [f"{path}{sep}{where}: no abstract"]
    assert [(p.title, p.year, p.decision, p.keywords) for p in papers] == [
        ("Sparse Experts", None, None, []),
        ("Wide Nets", None, None, []),
    ]
    assert sorted(s.line for p in papers for s in p.sources) == [1, 3]


# -- JSON: both paths read values alike ---------------------------------------------------------

MIXED = [
    {"title": {"value": "Dict Title"}, "abstract": "We study dict titles.", "year": "2026"},
    {"title": 42, "abstract": "We study numeric titles.", "year": float("-inf")},
    {"title": "Number abstract", "abstract": 12345},
    {"title": "List abstract", "abstract": ["First part.", "Second part."]},
    {"title": "Lone \ud800 surrogate", "abstract": "Text with a lone \udfff surrogate."},
    {"title": "Null abstract", "abstract": None, "Abstract": "We use the case variant."},
    {"title": "NA marker", "abstract": "N/A"},
    "just a string",
    {"title": "Big int", "abstract": "We keep going.", "year": 10**30, "decision": 1e400},
]


def _both_paths(tmp_path: Path, objects: list) -> tuple[list, list]:
    lines = [json.dumps(o) for o in objects]  # writes NaN, Infinity and -Infinity as json.dump does
    array = tmp_path / "mixed.json"
    array.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")
    jsonl = tmp_path / "mixed.jsonl"
    jsonl.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return list(read_json_array(array)), list(read_json_lines(jsonl))


def _shape(item: Record | Skip) -> tuple:
    if isinstance(item, Skip):
        return ("skip", item.reason)
    return (item.title, item.abstract, item.year, item.decision)


def test_json_array_and_lines_treat_mixed_types_nan_and_surrogates_identically(tmp_path: Path) -> None:
    from_array, from_lines = _both_paths(tmp_path, MIXED)
    assert [_shape(i) for i in from_array] == [_shape(i) for i in from_lines]
    assert [_shape(i) for i in from_array] == [
        ("Dict Title", "We study dict titles.", 2026, None),
        ("42", "We study numeric titles.", None, None),
        ("skip", "abstract is not text (int)"),
        ("List abstract", "First part.\n\nSecond part.", None, None),
        ("Lone \ud800 surrogate", "Text with a lone \udfff surrogate.", None, None),
        ("Null abstract", "We use the case variant.", None, None),
        ("skip", "no abstract"),
        ("skip", "not a JSON object (str)"),
        ("Big int", "We keep going.", None, None),
    ]
    # An array numbers its records (unit "record"); JSON Lines gives the line.
    assert [(i.line, i.unit) for i in from_array if isinstance(i, Skip)] == [
        (3, "record"),
        (7, "record"),
        (8, "record"),
    ]
    assert [i.line for i in from_lines if isinstance(i, Skip)] == [3, 7, 8]


def test_lone_surrogates_are_repaired_and_reported_at_their_record(tmp_path: Path) -> None:
    objects = [{"title": "Lone \ud800", "abstract": "We fix lone \udfff surrogates."}]
    path, report, papers = _ingest(tmp_path, "s.json", "[" + json.dumps(objects[0]) + "]")
    assert report.new == 1 and papers[0].title == "Lone"
    assert [str(r) for r in report.files[0].repaired][0].startswith(f"{path}: record 1: removed")


def test_pretty_printed_array_reports_record_numbers_and_the_syntax_error_line(tmp_path: Path) -> None:
    records = [{"title": f"P{i}", "abstract": f"We study thing {i}."} for i in range(3)]
    records[1]["abstract"] = float("nan")
    good = tmp_path / "pretty.json"
    good.write_text(json.dumps(records, indent=2), encoding="utf-8")
    items = list(read_json_array(good))
    assert [(type(i).__name__, i.line if isinstance(i, Skip) else i.source.line) for i in items] == [
        ("Record", 1),
        ("Skip", 2),
        ("Record", 3),
    ]
    broken = tmp_path / "broken.json"
    text = json.dumps(records, indent=2).replace('"title": "P2"', '"title" "P2"')
    broken.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        list(read_json_array(broken))
    expected = text.split("\n").index(next(x for x in text.split("\n") if '"title" "P2"' in x)) + 1
    assert info.value.line == expected
    assert "malformed JSON: Expecting ':' delimiter (column 13)" in str(info.value)


def test_json_values_too_deep_or_too_long_for_python_are_skipped_not_fatal(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    long_int = "1" * 5000
    body = [deep, "{" + f'"abstract": "We survive.", "n": {long_int}' + "}", '{"abstract": "We read on."}']
    array = tmp_path / "deep.json"
    array.write_text("[" + ",\n".join(body) + "]", encoding="utf-8")
    lines = tmp_path / "deep.jsonl"
    lines.write_text("\n".join(body) + "\n", encoding="utf-8")
    for items in (list(read_json_array(array)), list(read_json_lines(lines))):
        assert [i.reason if isinstance(i, Skip) else i.abstract for i in items] == [
            "invalid JSON: nested too deeply",
            "invalid JSON: Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits",
            "We read on.",
        ]


# -- CSV/TSV as spreadsheets write them -------------------------------------------------------------


def _records(items: list) -> list[tuple]:
    return [
        (i.source.line, i.title, i.abstract) if isinstance(i, Record) else (i.line, i.reason) for i in items
    ]


def test_case_variant_and_blank_columns_are_never_dropped(tmp_path: Path) -> None:
    path = tmp_path / "variants.csv"
    path.write_text(
        "title,abstract,Abstract,ABSTRACT ,,\n"
        "A,,We read the second spelling.,,,\n"
        "B,NaN,,We read the third spelling.,,\n"
        "C,We read the first.,Also here.,,x,\n",
        encoding="utf-8",
    )
    assert _records(list(read_csv(path))) == [
        (2, "A", "We read the second spelling."),
        (3, "B", "We read the third spelling."),
        (4, "C", "We read the first."),
    ]


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("semicolon.csv", "title;abstract\r\nA;We read, with commas, semicolons.\r\n"),
        ("pipe.csv", "title|abstract\nA|We read, with commas, pipes.\n"),
        ("tab.txt", "title\tabstract\nA\tWe read, with commas, tabs.\n"),
        ("excel.csv", "sep=;\r\ntitle;abstract\r\nA;We read, with commas, Excel's sep line.\r\n"),
        ("bom.csv", '\ufefftitle,abstract\r\nA,"We read, with commas, a BOM."\r\n'),
    ],
)
def test_sniffed_delimiters_and_excel_quirks(tmp_path: Path, name: str, body: str) -> None:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8", newline="")
    assert detect_format(path) == "csv"
    items = list(get_reader("csv")(path, None))
    assert len(items) == 1 and items[0].title == "A" and items[0].abstract.startswith("We read, with commas")
    assert items[0].source.line == body.count("\n")


def test_quoted_newlines_keep_each_rows_first_line(tmp_path: Path) -> None:
    path = tmp_path / "multi.csv"
    path.write_text(
        'title,abstract\r\nA,"Line one,\r\nline two."\r\nB,"One\nmore\nrow."\r\nC,Last.\r\n', encoding="utf-8"
    )
    assert _records(list(read_csv(path))) == [
        (2, "A", "Line one,\nline two."),
        (4, "B", "One\nmore\nrow."),
        (7, "C", "Last."),
    ]


def test_utf16_unicode_text_export_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "unicode.txt"
    path.write_bytes("title\tabstract\r\nA\tWe study.\r\n".encode("utf-16"))
    with pytest.raises(InputError, match="UTF-16 text; re-save the file as UTF-8"):
        detect_format(path)
    path.write_bytes("title\tabstract\r\nA\tWe study.\r\n".encode("utf-16-le"))
    with pytest.raises(InputError, match=r"UTF-16 text \(no byte-order mark\)"):
        detect_format(path)


# -- BibTeX as reference managers export it -----------------------------------------------------

BIB = r"""% Encoding: UTF-8  (JabRef writes this line)
@comment{jabref-meta: databaseType:bibtex;}
@preamble{"\newcommand{\noopsort}[1]{}"}
@string{icml = "International Conference on Machine Learning"}
@STRING{ pmlr = {PMLR} }

@inproceedings{muller26,
  title     = {{\"U}ber Graphs with 50\% Fewer Edges},
  author    = {M\"uller, J{\"o}rg and Stra{\ss}e, Ren\'{e} and de la Cruz, Ana},
  % JabRef keeps a comment line between fields
  booktitle = icml # " (ICML 2026)",
  month     = jan,
  crossref  = {icml26},
  abstract  = {We cut 50\% of the edges of {{nested} braces} graphs; 100% of the tests pass.},
}

@inproceedings{doe26,
  author    = "Doe, Jane",
  title     = "Second Paper",
  crossref  = {ICML26},
  abstract  = "We study the second thing, 5% faster.
               Over two lines.",
}

@article{xd1,
  title    = {With Xdata},
  xdata    = {venue-x},
  abstract = {We inherit from xdata.},
}

@xdata{venue-x, journal = {Journal of Tests}, year = 2024}

@proceedings{icml26,
  title     = {Proceedings of the 43rd } # icml,
  booktitle = {Proceedings of the 43rd International Conference on Machine Learning (ICML 2026)},
  year      = {2026},
  publisher = pmlr,
  doi       = {10.5555/icml.2026},
}
"""


def test_bibtex_as_reference_managers_export_it(tmp_path: Path) -> None:
    path = tmp_path / "export.bib"
    path.write_text(BIB, encoding="utf-8")
    items = list(read_bibtex(path))
    assert all(isinstance(i, Record) for i in items), [str(i) for i in items if isinstance(i, Skip)]
    first, second, third = items
    assert first.title == "Über Graphs with 50% Fewer Edges"
    assert first.authors == ["Jörg Müller", "René Straße", "Ana de la Cruz"]
    assert (first.venue, first.year) == ("ICML", 2026)  # own booktitle, via the macro and "#"
    assert first.abstract.startswith(r"We cut 50\% of the edges of {{nested} braces} graphs; 100% of")
    assert first.external_ids == {}  # the proceedings volume's DOI is not the paper's
    assert (second.title, second.authors, second.venue, second.year) == (
        "Second Paper",
        ["Jane Doe"],
        "ICML",
        2026,
    )
    assert "5% faster." in second.abstract and "Over two lines." in second.abstract
    assert (third.title, third.venue, third.year) == ("With Xdata", "Journal of Tests", 2024)
    assert [i.source.line for i in items] == [7, 17, 25]


def test_bibtex_parent_before_child_and_an_entry_with_no_abstract(tmp_path: Path) -> None:
    path = tmp_path / "dblp.bib"
    path.write_text(
        "@proceedings{conf, booktitle = {NeurIPS 2025}, year = 2025, publisher = {Curran}}\n"
        "@inproceedings{p1, title = {Child}, crossref = {conf}, abstract = {We inherit the venue.}}\n"
        "@inproceedings{p2, title = {No Abstract Here}, year = 2025}\n",
        encoding="utf-8",
    )
    items = list(read_bibtex(path))
    assert [(i.title, i.venue, i.year) if isinstance(i, Record) else (i.line, i.reason) for i in items] == [
        ("Child", "NeurIPS", 2025),
        (3, "no abstract"),
    ]


# -- format detection ---------------------------------------------------------------------------


def test_detection_never_crashes_on_any_bytes(tmp_path: Path) -> None:
    rng = random.Random(13)
    seeds = [b"[", b"{", b"@", b"title,abstract\n", b"sep=;\n", b"\xef\xbb\xbf", b"\xff\xfe", b"ICML 2026\n"]
    path = tmp_path / "random.txt"
    outcomes: set[str] = set()
    for i in range(400):
        size = rng.randrange(0, 300)
        if i % 2:  # valid UTF-8: random code points, structure characters among them
            alphabet = '[]{}",:;\t\n\r@=#%\\ aé€😀\u200b\ufeff'
            tail = "".join(
                rng.choice(alphabet) if rng.random() < 0.5 else chr(rng.randrange(32, 0x2FFF))
                for _ in range(size)
            )
            body = rng.choice(seeds) + tail.encode("utf-8", "surrogatepass")
        else:
            body = rng.choice(seeds) + bytes(rng.randrange(256) for _ in range(size))
        path.write_bytes(body)
        for name in ("random.txt", "random.json", "random.csv", "random.bib"):
            target = path.rename(tmp_path / name)
            try:
                fmt = detect_format(target)
                for _ in get_reader(fmt)(target, None):
                    pass
                outcomes.add(fmt)
            except InputError as exc:
                outcomes.add(type(exc).__name__)
            path = target
    assert len(outcomes) >= 3  # formats and refusals, and nothing but InputError escaped


def _one_abstract_files(abstracts: list[str]) -> list[str]:
    bodies = []
    for text in abstracts:
        bodies += ["ICML 2026 Papers\n\n" + text + "\n", text + "\n", textwrap.fill(text, 80) + "\n"]
    return bodies


def test_prose_text_lists_are_never_taken_for_csv(tmp_path: Path, icml_dir: Path) -> None:
    abstracts = [r.abstract for f in sorted(icml_dir.glob("*.txt")) for r in read_text_list(f)]
    # Prose that opens like a header row: short clauses between commas.
    abstracts += [
        "Recently, transformers, diffusion models, and graph networks have changed how we learn.",
        "However,we find,that models,trained this way,fail on long inputs,as we show.",
        "Abstract, summary, and title are the fields we study in this work on metadata.",
    ]
    path = tmp_path / "one.txt"
    for body in _one_abstract_files(abstracts):
        path.write_text(body, encoding="utf-8")
        assert detect_format(path) == "text-list", body[:80]


def test_prose_from_the_shared_data_is_never_taken_for_csv(tmp_path: Path, shared_data: Path) -> None:
    abstracts = []
    for name in ("iclr_2020.json", "icml_2020.json"):
        abstracts += [r["abstract"] for r in json.loads((shared_data / "airas-papers-db" / name).read_text())]
    path = tmp_path / "one.txt"
    for body in _one_abstract_files([a for a in abstracts if a]):
        path.write_text(body, encoding="utf-8")
        assert detect_format(path) == "text-list", body[:80]


# -- records too large to hold --------------------------------------------------------------------

_HUGE = MAX_RECORD_CHARS + 1000


@pytest.mark.parametrize(
    ("name", "body", "expected"),
    [
        (
            "huge.json",
            '[{"abstract": "We keep this."},\n {"abstract": "'
            + "x" * _HUGE
            + '"},\n {"abstract": "And this."}]',
            [("Record", 1), ("Skip", 2, "record is"), ("Record", 3)],
        ),
        (
            "huge.jsonl",
            '{"abstract": "We keep this."}\n{"abstract": "' + "x" * _HUGE + '"}\n{"abstract": "And this."}\n',
            [("Record", 1), ("Skip", 2, "line is"), ("Record", 3)],
        ),
        (
            "huge.csv",
            'title,abstract\nA,We keep this.\nB,"' + "x, y\n" * (_HUGE // 5) + '"\nC,And this.\n',
            [("Record", 2), ("Skip", 3, "row is"), ("Record", _HUGE // 5 + 4)],
        ),
        (
            "huge.bib",
            "@article{a, abstract={We keep this.}}\n@article{b, abstract={" + "x" * _HUGE + "}}\n"
            "@article{c, abstract={And this.}}\n",
            [("Record", 1), ("Skip", 2, "entry is"), ("Record", 3)],
        ),
        (
            "huge.txt",
            "ICML 2026 Papers\n\nWe keep this.\n\n" + "x" * _HUGE + "\n\nAnd this.\n",
            [("Record", 3), ("Skip", 5, "paragraph is"), ("Record", 7)],
        ),
    ],
)
def test_a_record_too_large_to_hold_is_skipped_with_its_size(
    tmp_path: Path, name: str, body: str, expected: list
) -> None:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    items = list(get_reader(detect_format(path))(path, None))
    got = [
        ("Skip", i.line, i.reason.split(" ")[0] + " is") if isinstance(i, Skip) else ("Record", i.source.line)
        for i in items
    ]
    assert got == expected
    skip = next(i for i in items if isinstance(i, Skip))
    assert f"more than the {MAX_RECORD_CHARS:,} a record may take" in skip.reason


def test_an_abstract_over_the_raw_limit_is_skipped_before_cleaning(tmp_path: Path) -> None:
    assert RAW_ABSTRACT_MAX_CHARS >= 5 * MAX_ABSTRACT_CHARS
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps({"abstract": "word " * 30_000}) + "\n", encoding="utf-8")
    (item,) = get_reader("jsonl")(path, None)
    assert isinstance(item, Skip) and item.reason.startswith(
        "abstract is 150,000 characters, more than 20,000"
    )


def test_a_line_too_long_is_not_built(tmp_path: Path) -> None:
    path = tmp_path / "oneline.txt"
    path.write_text("a" * (_HUGE) + '"{\nshort\n', encoding="utf-8")
    (first, line), second = iter_lines(path)
    assert (first, line.chars, line.quotes, line.braces, line.head) == (1, _HUGE + 2, 1, 1, "a" * 256)
    assert second == (2, "short")


def test_url_fields_give_links_inside_markdown_and_without_a_scheme(tmp_path: Path) -> None:
    path = tmp_path / "links.json"
    record = {
        "abstract": "We count objects in images.",
        "github": "[![github](/images/github_icon.svg) Cyanogenoid/vqa-counting]"
        "(https://github.com/Cyanogenoid/vqa-counting)",
        "code": "github.com/zjrao/DEDN",
        "site": "https://openreview.net/forum?id=abc123XYZ",
    }
    path.write_text(json.dumps([record]), encoding="utf-8")
    (item,) = read_json_array(path)
    assert sorted(item.urls) == [
        "https://github.com/Cyanogenoid/vqa-counting",
        "https://github.com/zjrao/DEDN",
        "https://openreview.net/forum?id=abc123XYZ",
    ]
    assert item.external_ids == {"openreview": "abc123XYZ"}


def test_comments_in_every_form_jabref_and_bibdesk_write_are_skipped_not_broken(tmp_path: Path) -> None:
    """Kind 8 of issue 26: brace-less, braced, parenthesised and multi-line ``@comment`` blocks."""
    path = Path(__file__).parent / "data" / "comments.bib"
    items = list(read_bibtex(path))
    assert [str(i) for i in items if isinstance(i, Skip)] == []
    assert [(i.title, i.source.line) for i in items if isinstance(i, Record)] == [
        ("Sparse Attention for Long Documents", 8),
        ("Calibrated Retrieval", 18),
    ]
    result = CliRunner().invoke(
        cli, ["ingest", "--db", str(tmp_path / "lib.db"), "--strict", "--no-embed", "--no-cards", str(path)]
    )
    assert result.exit_code == 0, result.output
    with Library(tmp_path / "lib.db") as lib:
        assert sorted(p.title or "" for p in lib.papers()) == [
            "Calibrated Retrieval",
            "Sparse Attention for Long Documents",
        ]
