"""Format sniffing (extension plus first bytes) and what a folder walk reads, ignores or rejects."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from paperscope import Library
from paperscope.errors import InputError
from paperscope.ingest.formats import READERS, NotAPaperList, detect_format
from paperscope.ingest.pipeline import expand_paths


@pytest.mark.parametrize(
    ("name", "body", "expected"),
    [
        ("a.json", '[{"title": "t", "abstract": "a"}]', "json"),
        ("a.txt", ' \n[{"title": "t", "abstract": "a"}]', "json"),
        ("a.json", '{"abstract": "a"}\n{"abstract": "b"}\n', "jsonl"),
        ("a.json", '[{"title": "withdrawn"}, {"title": "u", "abstract": "a"}]', "json"),
        ("a.jsonl", '{"title": "withdrawn"}\n{"title": "u", "summary": "a"}\n', "jsonl"),
        (
            "a.data",
            '{"id": "0704.0001", "abstract": "a", "versions": [], "categories": "cs.LG"}\n',
            "arxiv-jsonl",
        ),
        ("a.csv", "title,abstract\nT,A\n", "csv"),
        ("a.tsv", "title\tabstract\nT\tA\n", "csv"),
        ("a.txt", "title,abstract,url\nT,A,\n", "csv"),
        ("a.bib", "@article{k, title={T}, abstract={A}}\n", "bibtex"),
        ("a.txt", "@inproceedings{k, title={T}, abstract={A}}\n", "bibtex"),
        ("a.txt", "ICML 2026 Papers\n\nWe study graphs, sets, and more.\n", "text-list"),
        ("a", "We study graphs, sets, and more.\n", "text-list"),
    ],
)
def test_detect_format(tmp_path: Path, name: str, body: str, expected: str) -> None:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    assert detect_format(path) == expected
    assert expected in READERS


@pytest.mark.parametrize(
    ("name", "body", "message"),
    [
        (
            "q.jsonl",
            '{"_id": "0", "text": "a claim", "metadata": {}}\n',
            "no abstract field (_id, text, metadata)",
        ),
        (
            "qrels.tsv",
            "query-id\tcorpus-id\tscore\r\n1\t2\t1\r\n",
            "no abstract column (query-id, corpus-id, score)",
        ),
        ("obj.json", '{\n  "papers": []\n}\n', "one JSON object, expected an array of papers"),
    ],
)
def test_structured_files_without_abstracts_are_not_paper_lists(
    tmp_path: Path, name: str, body: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    with pytest.raises(NotAPaperList, match=re.escape(message)):
        detect_format(path)


def test_folder_walk_reads_paper_lists_and_ignores_the_rest(tmp_path: Path, icml_dir: Path) -> None:
    root = tmp_path / "data"
    (root / "beir" / "qrels").mkdir(parents=True)
    (root / "beir" / "corpus.csv").write_text("title,abstract\nT,Some abstract text.\n", encoding="utf-8")
    (root / "beir" / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n", encoding="utf-8")
    (root / "lists").mkdir()
    (root / "lists" / "icml.txt").write_text(
        (icml_dir / "000_9f997565051fc2a1.txt").read_text(), encoding="utf-8"
    )
    (root / "lists" / "areas.txt").write_text("# areas\nlearning theory\noptimization\n", encoding="utf-8")
    (root / "lists" / "labels.jsonl").write_text('{"qid": "q1", "query": "x"}\n', encoding="utf-8")
    (root / "README.md").write_text("ICML 2026 Papers\n\nNot a list, documentation.\n", encoding="utf-8")
    (root / "lists" / ".hidden.json").write_text("[]", encoding="utf-8")
    walked = [
        (p.relative_to(root).as_posix(), from_folder, bool(reason))
        for p, from_folder, reason in expand_paths([root])
    ]
    assert walked == [
        ("beir", True, True),
        ("lists/areas.txt", True, False),
        ("lists/icml.txt", True, False),
        ("lists/labels.jsonl", True, False),
    ]
    with Library(tmp_path / "lib.db") as lib:
        report = lib.ingest([root])
        assert [(Path(f.path).name, f.ignored is not None, f.error) for f in report.files] == [
            ("beir", True, None),
            ("areas.txt", True, None),
            ("icml.txt", False, None),
            ("labels.jsonl", True, None),
        ]
        assert report.files[0].ignored.startswith("retrieval test collection (BEIR layout")
        assert (report.read, report.new) == (19, 19)
        # Named on the command line, a non-paper file is an error, and a corpus file is read.
        named = lib.ingest([root / "lists" / "labels.jsonl", root / "beir" / "corpus.csv"])
        assert named.files[0].error.startswith(f"{root / 'lists' / 'labels.jsonl'}: not a paper list")
        assert (named.files[1].new, named.files[1].error) == (1, None)


def test_explicit_format_overrides_sniffing(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text("ICML 2026 Papers\n\nAn abstract in a file with the wrong extension.\n", encoding="utf-8")
    with Library(tmp_path / "lib.db") as lib:
        assert lib.ingest([path]).failed[0].error.startswith(f"{path}:1: malformed JSON")
        report = lib.ingest([path], fmt="text-list")
        assert (report.new, report.failed) == (1, [])
        assert json.loads(json.dumps(report.to_dict()))["files"][0]["format"] == "text-list"


@pytest.mark.parametrize("first_line_bytes", [70_000, 1_000_000, 6_000_000])
@pytest.mark.parametrize("arxiv", [False, True])
def test_a_json_lines_file_reads_as_json_lines_whatever_its_first_lines_length(
    tmp_path: Path, first_line_bytes: int, arxiv: bool
) -> None:
    """Kind 4 of issue 26: a first line of 70 kB, 1 MB or 6 MB (past 4 MiB of look-ahead) is JSON Lines."""
    topics = ("the first line's length", "sniffing formats from a prefix", "reading records lazily")
    rows: list[dict[str, object]] = []
    for i, topic in enumerate(topics):
        abstract = f"We study {topic} in JSON Lines files and what format detection makes of it."
        row: dict[str, object] = (
            {
                "id": f"2601.0000{i}",
                "title": f"Paper {i}",
                "abstract": abstract,
                "categories": "cs.LG",
                "update_date": "2026-01-05",
            }
            if arxiv
            else {"title": f"Paper {i}", "abstract": abstract, "venue": "ICML 2026"}
        )
        rows.append(row)
    rows[0]["comments"] = (
        "x" * first_line_bytes
    )  # a field no reader keeps, long enough to pass the look-ahead
    path = tmp_path / "long.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert detect_format(path) == ("arxiv-jsonl" if arxiv else "jsonl")
    with Library(tmp_path / "lib.db") as lib:
        report = lib.ingest([path], embed=False, cards=False)
        assert sorted(p.title or "" for p in lib.papers()) == ["Paper 0", "Paper 1", "Paper 2"], report


def test_a_long_broken_first_line_is_reported_by_line_not_as_one_json_object(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    good = json.dumps({"title": "Fine", "abstract": "A paper whose line is valid JSON."})
    broken = '{"title": "Broken" "abstract": "' + "y" * 200_000 + '"}'  # a comma missing
    path.write_text(broken + "\n" + good + "\n", encoding="utf-8")
    assert detect_format(path) == "jsonl"
    with Library(tmp_path / "lib.db") as lib:
        report = lib.ingest([path], embed=False, cards=False)
        assert [p.title for p in lib.papers()] == ["Fine"]
    (file,) = report.files
    assert file.error is None and len(file.skipped) == 1, file
    assert str(file.skipped[0]).startswith(f"{path}:1: "), file.skipped


@pytest.mark.parametrize("name", ["cut.jsonl", "cut.txt", "cut.ndjson"])
@pytest.mark.parametrize("broken", ['{"title": "Cut", "abstract": "a string never closed', '{"title": "Cut"'])
def test_a_broken_first_line_is_skipped_whatever_its_end(tmp_path: Path, name: str, broken: str) -> None:
    """A first line cut short (no closing brace) is a broken record, not "one JSON object"."""
    good = [
        json.dumps({"title": f"Fine {i}", "abstract": f"A valid line number {i} about topic {i}."})
        for i in (2, 3)
    ]
    path = tmp_path / name
    path.write_text("\n".join([broken, *good]) + "\n", encoding="utf-8")
    assert detect_format(path) == "jsonl"
    with Library(tmp_path / "lib.db") as lib:
        report = lib.ingest([path], embed=False, cards=False)
        assert sorted(p.title or "" for p in lib.papers()) == ["Fine 2", "Fine 3"]
    (file,) = report.files
    assert file.error is None and [str(s).split(": ")[0] for s in file.skipped] == [f"{path}:1"], file


def test_a_truncated_json_object_is_reported_as_malformed_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    path.write_text('{\n  "papers": [\n    {"title": "A", "abstract": "B"},\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"malformed JSON: .*") as caught:
        detect_format(path)
    assert caught.value.line == 4 and "one JSON object" not in str(caught.value)
