"""Readers: JSON arrays and lines, arXiv snapshot lines, CSV/TSV, BibTeX; fields kept and fields never kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperscope.errors import InputError
from paperscope.ingest.arxiv_jsonl import read_arxiv_jsonl
from paperscope.ingest.bibtex import read_bibtex
from paperscope.ingest.csv_table import read_csv
from paperscope.ingest.fields import parse_column_map, split_venue
from paperscope.ingest.paperlist_json import read_json_array, read_json_lines
from paperscope.models import Record, Skip

PROFILE_KEYS = (
    "email",
    "gender",
    "homepage",
    "orcid",
    "linkedin",
    "position",
    "dblp",
    "google_scholar",
    "aff",
)


def test_papercopilot_record_keeps_paper_fields_only(shared_data: Path) -> None:
    path = shared_data / "papercopilot-paperlists" / "iclr2017.json"
    raw = json.loads(path.read_text(encoding="utf-8"))[0]
    record = next(iter(read_json_array(path)))
    assert isinstance(record, Record)
    assert record.title == raw["title"] == "Prototypical Networks for Few-shot Learning"
    assert record.authors == raw["author"].split(";")
    assert record.keywords == raw["keywords"].split(";")
    assert (record.venue, record.year, record.decision) == ("ICLR", 2017, raw["status"])
    assert record.urls == [raw["site"]]
    assert record.external_ids == {"openreview": raw["id"]}
    assert (record.source.line, record.source.format) == (1, "json")
    stored_text = json.dumps(record.__dict__, default=str)
    for key in PROFILE_KEYS:
        values = [v for v in str(raw.get(key, "")).split(";") if len(v) > 3]
        assert not any(v in stored_text for v in values), key


def test_json_array_streams_record_numbers_and_skips_non_objects(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text(
        json.dumps([{"title": "A", "abstract": "First."}, 7, {"title": "No abstract"}, {"summary": "S."}]),
        encoding="utf-8",
    )
    items = list(read_json_array(path))
    assert [type(i).__name__ for i in items] == ["Record", "Skip", "Skip", "Record"]
    assert [(i.line, i.reason, i.unit) for i in items if isinstance(i, Skip)] == [
        (2, "not a JSON object (int)", "record"),
        (3, "no abstract", "record"),
    ]
    assert items[3].abstract == "S."


def test_malformed_json_array_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text(
        '[\n{"title": "a", "abstract": "x"},\n{"title": "b" "abstract": "y"}\n]\n', encoding="utf-8"
    )
    with pytest.raises(InputError) as info:
        list(read_json_array(path))
    assert info.value.path == str(path)
    assert info.value.line == 3
    assert "malformed JSON" in str(info.value)


def test_json_lines_skip_a_bad_line_and_read_openreview_notes(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    note = {
        "id": "abc123XYZ",
        "forum": "abc123XYZ",
        "content": {
            "title": {"value": "Graph Things"},
            "abstract": {"value": "We study graphs."},
            "keywords": {"value": ["graphs", "GNN"]},
            "venue": {"value": "ICLR 2024 poster"},
            "authors": {"value": ["Ann Lee", "Bo Chen"]},
        },
    }
    path.write_text(
        json.dumps(note) + "\n{not json\n\n" + json.dumps({"abstract": "Plain."}) + "\n", encoding="utf-8"
    )
    items = list(read_json_lines(path))
    assert isinstance(items[0], Record) and isinstance(items[1], Skip) and isinstance(items[2], Record)
    first = items[0]
    assert (first.title, first.venue, first.year, first.decision) == ("Graph Things", "ICLR", 2024, "poster")
    assert first.keywords == ["graphs", "GNN"] and first.authors == ["Ann Lee", "Bo Chen"]
    assert first.external_ids == {"openreview": "abc123XYZ"}
    assert (items[1].line, items[1].reason.startswith("invalid JSON")) == (2, True)
    assert items[2].source.line == 4


def test_arxiv_snapshot_line(tmp_path: Path) -> None:
    path = tmp_path / "arxiv.jsonl"
    record = {
        "id": "2101.00001v2",
        "submitter": "X",
        "authors": "C. Bal\\'azs, E. Berger and P. Nadolsky",
        "title": "A  Fully\n  Differential Study",
        "comments": None,
        "journal-ref": None,
        "doi": "10.1103/PhysRevD.76.013009",
        "categories": "hep-ph cs.LG",
        "abstract": "  A fully differential calculation\nin perturbative QCD.\n",
        "versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"}],
        "update_date": "2008-11-13",
        "authors_parsed": [["Balázs", "C.", ""], ["Berger", "E. L.", ""]],
    }
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    (item,) = list(read_arxiv_jsonl(path))
    assert item.abstract == "A fully differential calculation\nin perturbative QCD."
    assert item.title == "A Fully Differential Study"
    assert item.authors == ["C. Balázs", "E. L. Berger"]
    assert (item.venue, item.year, item.source_area) == ("arXiv", 2007, "hep-ph")
    assert item.external_ids == {"arxiv": "2101.00001", "doi": "10.1103/physrevd.76.013009"}
    assert item.urls == ["https://arxiv.org/abs/2101.00001"]


def test_arxiv_author_string_latex_accents(tmp_path: Path) -> None:
    path = tmp_path / "arxiv.jsonl"
    path.write_text(
        json.dumps(
            {
                "id": "0704.0001",
                "abstract": "x y z",
                "authors": "C. Bal\\'azs, J. M\\\"uller and A. Smith",
                "categories": "math.CO",
                "update_date": "2008-11-13",
            }
        ),
        encoding="utf-8",
    )
    (item,) = list(read_arxiv_jsonl(path))
    assert item.authors == ["C. Balázs", "J. Müller", "A. Smith"]
    assert item.year == 2007


def test_case9_csv_with_bom_crlf_and_multiline_cell(tmp_path: Path) -> None:
    path = tmp_path / "f9.csv"
    body = (
        'title,abstract,url\r\n"APM: Adaptive Pruning","First paragraph on pruning.\r\n\r\n'
        'Second paragraph, with a comma.",https://github.com/acme/apm\r\n"Second Paper","Plain abstract.",\r\n'
    )
    path.write_bytes(b"\xef\xbb\xbf" + body.encode("utf-8"))
    first, second = list(read_csv(path))
    assert first.title == "APM: Adaptive Pruning"
    assert first.abstract == "First paragraph on pruning.\n\nSecond paragraph, with a comma."
    assert first.urls == ["https://github.com/acme/apm"]
    assert (second.title, second.abstract, second.urls) == ("Second Paper", "Plain abstract.", [])
    assert (first.source.line, second.source.line) == (2, 5)


def test_iclr2026_csv_columns_inferred(shared_data: Path) -> None:
    path = shared_data / "iclr2026-primary-area" / "primary_area__learning-theory.csv"
    records = list(read_csv(path))
    assert len(records) == 190
    first = records[0]
    assert (first.venue, first.year) == ("ICLR", 2026)
    assert first.decision in {"Oral", "Poster"}
    assert first.source_area == "learning theory"
    assert set(first.external_ids) == {"openreview"}
    assert first.urls == [f"https://openreview.net/forum?id={first.external_ids['openreview']}"]


def test_tsv_and_column_map(tmp_path: Path) -> None:
    path = tmp_path / "list.tsv"
    path.write_text("Paper\tBody\tYear\nA Title\tAn abstract here.\t2024\n", encoding="utf-8")
    with pytest.raises(InputError, match="no abstract column"):
        list(read_csv(path))
    (record,) = list(read_csv(path, parse_column_map("title=paper, abstract=BODY")))
    assert (record.title, record.abstract, record.year) == ("A Title", "An abstract here.", 2024)
    with pytest.raises(InputError, match="no such column; the columns are: Paper, Body, Year"):
        list(read_csv(path, {"abstract": "Summary"}))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("title", "is not FIELD=COLUMN"),
        ("colour=Paper", "unknown field 'colour'; choose from: title, abstract"),
    ],
)
def test_bad_column_map(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_column_map(spec)


def test_case10_bibtex_accents_braces_and_url(tmp_path: Path) -> None:
    path = tmp_path / "f10.bib"
    path.write_text(
        "% exported\n@inproceedings{key1,\n"
        '  title     = {{APM}: Adaptive Pruning for {\\"U}ber-Large Models},\n'
        "  author    = {Jos{\\'e} Ejemplo and B{\\\"o}rk Platz and {\\^I}le Nom},\n"
        "  booktitle = {ICML 2026},\n"
        "  abstract  = {We show a 9.6$\\times$ speedup on CIFAR-10. Code: \\url{https://github.com/acme/apm}},\n"
        "  year      = {2026}\n}\n\n"
        "@article{key2, title={No Abstract}, author={Doe, Jane}}\n"
        "@misc{key3, title={Tilde}, author={Jo{\\~{a}}o Silva}, abstract={Short.}, eprint={2101.00001v3}}\n",
        encoding="utf-8",
    )
    first, second, third = list(read_bibtex(path))
    assert first.title == "APM: Adaptive Pruning for Über-Large Models"
    assert first.authors == ["José Ejemplo", "Börk Platz", "Île Nom"]
    assert (first.venue, first.year, first.source.line) == ("ICML", 2026, 2)
    assert isinstance(second, Skip) and (second.line, second.reason) == (10, "no abstract")
    assert third.authors == ["João Silva"] and third.external_ids == {"arxiv": "2101.00001"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ICLR 2026 Oral", ("ICLR", 2026, "Oral")),
        ("NeurIPS 2023 (spotlight)", ("NeurIPS", 2023, "spotlight")),
        ("icml", ("ICML", None, None)),
        (
            "Proceedings of Machine Learning Research",
            ("Proceedings of Machine Learning Research", None, None),
        ),
        ("", (None, None, None)),
    ],
)
def test_split_venue(text: str, expected: tuple) -> None:
    assert split_venue(text) == expected


def test_unclosed_bibtex_entry_does_not_swallow_the_next_one(tmp_path: Path) -> None:
    path = tmp_path / "unclosed.bib"
    path.write_text(
        "@article{a,\n  title = {First},\n  abstract = {We keep this one.},\n}\n\n"
        "@inproceedings{b,\n  title = {Unclosed {brace,\n  abstract = {Never closed.\n}\n\n"
        '@article{c,\n  title = "Third",\n  abstract = "We keep this one too."\n}\n',
        encoding="utf-8",
    )
    first, broken, third = list(read_bibtex(path))
    assert (first.title, third.title) == ("First", "Third")
    assert (broken.line, broken.reason.startswith("BibTeX entry not parsed")) == (6, True)


def test_bibtex_entry_cut_short_is_skipped_with_its_reason_and_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / "cut.bib"
    path.write_text(
        "@article{a,\n  title = {Kept},\n  abstract = {We keep this one.},\n}\n\n"
        "@article{b,\n  title = {Cut,\n  abstract = {We lose this one.\n",
        encoding="utf-8",
    )
    kept, cut = list(read_bibtex(path))
    assert kept.title == "Kept"
    assert (cut.path, cut.line) == (str(path), 6)
    assert cut.reason == "BibTeX entry not parsed: Unexpectedly reached end of file."
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""
