"""The paper-list text reader: headers, paragraph splitting, provenance lines, messy whitespace."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperscope.errors import InputError
from paperscope.ingest.text_list import HEADING_REASON, parse_header, read_text_list
from paperscope.models import Record, Skip


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("ICML 2026 Papers", ("ICML", 2026)),
        ("ICML 2026 论文列表", ("ICML", 2026)),
        ("NeurIPS 2025 Accepted Papers", ("NeurIPS", 2025)),
        ("  ICLR 2024  ", ("ICLR", 2024)),
        ("We propose a method that improves 2026 baselines.", None),
        ("Multi-modal dataset distillation (MDD) seeks to compress large-scale data", None),
    ],
)
def test_parse_header(line: str, expected: tuple[str, int] | None) -> None:
    assert parse_header(line) == expected


def test_five_example_lists_give_19_papers_each_with_icml_2026_header(icml_dir: Path) -> None:
    files = sorted(icml_dir.glob("*.txt"))
    assert len(files) == 5
    for path in files:
        records = list(read_text_list(path))
        assert len(records) == 19, path.name
        assert {(r.venue, r.year) for r in records} == {("ICML", 2026)}
        lines = path.read_text(encoding="utf-8").split("\n")
        for record in records:
            # The provenance line is the first line of the abstract, and the line before is blank.
            assert lines[record.source.line - 1].strip() == record.abstract.split("\n")[0]
            assert lines[record.source.line - 2].strip() == ""


def test_crlf_bom_nbsp_and_repeated_blank_lines(tmp_path: Path) -> None:
    body = "\ufeffICML 2026 Papers\r\n\r\nFirst abstract line one.  \r\nline two.\r\n\u00a0\r\n \r\n\r\nSecond abstract.\r\n"
    path = tmp_path / "messy.txt"
    path.write_bytes(body.encode("utf-8"))
    records = list(read_text_list(path))
    assert [(r.abstract, r.source.line) for r in records] == [
        ("First abstract line one.\nline two.", 3),
        ("Second abstract.", 8),
    ]
    assert records[0].venue == "ICML"


def test_file_without_header_has_no_venue(tmp_path: Path) -> None:
    path = tmp_path / "plain.txt"
    path.write_text("An abstract about graphs.\n\nAnother about sets.\n", encoding="utf-8")
    records = list(read_text_list(path))
    assert [(r.venue, r.year, r.source.line) for r in records] == [(None, None, 1), (None, None, 3)]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        (b"", "empty file"),
        (b"  \n\n \r\n", "empty file"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00", "binary file"),
        ("ICML 2026 Papers\n\nGood line.\n\nBad caf\xe9 line.\n".encode("latin-1"), "not UTF-8"),
    ],
)
def test_bad_files_raise_input_error_naming_the_file(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    path = tmp_path / "bad.txt"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(InputError) as info:
        list(read_text_list(path))
    assert message in str(info.value)
    assert str(path) in str(info.value)
    if message == "not UTF-8":
        assert info.value.line == 5


@pytest.mark.parametrize(
    ("content", "stored_lines", "heading_line"),
    [
        (
            "Lab Paper List\n\nWe propose a method for graphs. It works.\n\nA second abstract, on sets.\n",
            [3, 5],
            1,
        ),
        ("\n  实验室论文列表  \n\n我们提出了一种新方法。\n", [4], 2),
        # A one-line first abstract is a sentence: it stays a paper.
        ("We study graphs.\n\nA second abstract, on sets.\n", [1, 3], None),
        # A heading alone, or a title alone, is no abstract either.
        ("Graph neural networks for molecules\n", [], 1),
        ("Lab Paper List\n\n", [], 1),
        # Two lines are the start of an abstract, not a heading.
        ("Graph neural networks\nfor molecules are studied here\n\nMore.\n", [1, 4], None),
    ],
)
def test_a_first_line_that_reads_as_a_heading_is_named_not_stored(
    tmp_path: Path, content: str, stored_lines: list[int], heading_line: int | None
) -> None:
    """A header without venue and year ("Lab Paper List") is no paper: it is a skip that says why."""
    path = tmp_path / "list.txt"
    path.write_text(content, encoding="utf-8")
    out = list(read_text_list(path))
    assert [r.source.line for r in out if isinstance(r, Record)] == stored_lines
    skips = [s for s in out if isinstance(s, Skip)]
    if heading_line is None:
        assert skips == []
    else:
        assert [(s.line, s.reason) for s in skips] == [(heading_line, HEADING_REASON)]
        assert "heading" in str(skips[0]) and str(path) in str(skips[0])
