"""Search by example: ``paperscope search --like PAPER_ID|FILE|-`` and ``Library.search_like``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope import InputError, Library, NotFound
from paperscope.cli import cli


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory, icml_dir: Path) -> Path:
    path = tmp_path_factory.mktemp("like") / "like.db"
    with Library(path) as lib:
        lib.ingest([icml_dir])
    return path


@pytest.fixture
def run(db: Path):
    runner = CliRunner()

    def invoke(*args: str, stdin: str | bytes | None = None):
        return runner.invoke(cli, ["--db", str(db), "search", *args], input=stdin, catch_exceptions=False)

    return invoke


def _paper(db: Path, query: str = "dataset distillation"):
    with Library(db) as lib:
        return lib.get(lib.search(query, mode="bm25", limit=1)[0].paper_id)


def test_like_a_paper_ranks_by_its_text_without_it(run, db):
    paper = _paper(db)
    with Library(db) as lib:
        text = f"{paper.title}. {paper.clean_text}" if paper.title else paper.clean_text
        plain = [h.paper_id for h in lib.search(text, mode="bm25", limit=6)]
    assert plain[0] == paper.paper_id  # the paper's own text finds it first: it must be left out
    result = run("--like", paper.paper_id[:8], "--limit", "5", "--json", "--mode", "bm25")
    assert result.exit_code == 0
    assert [h["paper_id"] for h in json.loads(result.stdout)] == plain[1:6]
    assert result.stderr.splitlines()[0] == f"note: papers like {paper.display_label}"
    hybrid = json.loads(run("--like", paper.paper_id, "--limit", "5", "--json").stdout)
    assert len(hybrid) == 5 and paper.paper_id not in [h["paper_id"] for h in hybrid]
    assert [h["rank"] for h in hybrid] == [1, 2, 3, 4, 5]


def test_like_keeps_every_filter(run, db):
    paper = _paper(db)
    none = run("--like", paper.paper_id, "--venue", "NeurIPS")
    assert none.exit_code == 0 and none.stdout == "no results\n"
    code = json.loads(run("--like", paper.paper_id, "--has-code", "--limit", "20", "--json").stdout)
    assert code and all(h["links"].get("code") for h in code)


def test_like_a_file_and_standard_input_rank_by_their_text(run, db, tmp_path):
    paper = _paper(db)
    example = tmp_path / "paragraph.txt"
    example.write_text(paper.clean_text, encoding="utf-8")
    from_file = run("--like", str(example), "--limit", "3", "--json", "--mode", "bm25")
    assert from_file.exit_code == 0
    ids = [h["paper_id"] for h in json.loads(from_file.stdout)]
    assert ids[0] == paper.paper_id  # a file is not a paper of the library: nothing is left out
    assert from_file.stderr.splitlines()[0] == "note: papers like the text of paragraph.txt"
    piped = run("--like", "-", "--limit", "3", "--json", "--mode", "bm25", stdin=paper.clean_text)
    assert [h["paper_id"] for h in json.loads(piped.stdout)] == ids
    assert piped.stderr.splitlines()[0] == "note: papers like the text of standard input"
    plain = run("--like", str(example), "--limit", "1", "--mode", "bm25")
    assert plain.stdout.splitlines()[0].startswith(f"  1. {paper.paper_id}  ")


def test_like_a_bad_file_is_one_line_naming_it(run, tmp_path):
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("Résumé of a paper".encode("latin-1"))
    bad = run("--like", str(latin1))
    assert bad.exit_code == 1
    assert bad.stderr == f"Error: {latin1}: not UTF-8 text (byte 1 is 0xe9); save it as UTF-8\n"
    missing = run("--like", str(tmp_path / "nope.txt"))
    assert missing.exit_code == 1 and missing.stderr == (
        f"Error: {tmp_path / 'nope.txt'}: no such file, and no paper has this paper_id; give a paper_id"
        " (or a prefix of 4+ characters), a UTF-8 text file, or - for standard input\n"
    )
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n", encoding="utf-8")
    nul = tmp_path / "nul.dat"
    nul.write_bytes(b"\x00" * 2000)
    for result, where, what in (
        (run("--like", str(empty)), str(empty), "only blank or control characters"),
        (run("--like", str(nul)), str(nul), "only blank or control characters"),
        (run("--like", "-", stdin=""), "standard input", "empty"),
    ):
        assert result.exit_code == 1
        assert result.stderr == (
            f"Error: {where}: holds no text ({what}); give the paragraph or abstract to search by\n"
        )
    folder = run("--like", str(tmp_path))
    assert folder.exit_code == 1 and "is a folder" in folder.stderr


def test_like_and_query_are_one_or_the_other(run, db):
    paper = _paper(db)
    both = run("dataset distillation", "--like", paper.paper_id)
    assert both.exit_code == 2 and "give a QUERY or --like PAPER_ID|FILE|-, not both" in both.stderr
    neither = run()
    assert neither.exit_code == 2 and "give a QUERY or --like" in neither.stderr


def test_example_of_the_library_never_reads_files_without_being_asked(db, tmp_path):
    example = tmp_path / "abstract.txt"
    example.write_text("sparse attention", encoding="utf-8")
    with Library(db) as lib:
        with pytest.raises(InputError, match="is not a paper_id"):
            lib.example(str(example))
        with pytest.raises(NotFound, match="no paper with paper_id 'ffffffff'"):
            lib.example("ffffffff")
        assert lib.example(str(example), files=True).text == "sparse attention"


def test_exclude_removes_papers_before_ranking_and_composes_with_filters(db):
    with Library(db) as lib:
        top = [h.paper_id for h in lib.search("dataset distillation", mode="bm25", limit=3)]
        rest = lib.search("dataset distillation", mode="bm25", limit=2, exclude={top[0]})
        assert [h.paper_id for h in rest] == top[1:3] and [h.rank for h in rest] == [1, 2]
        filtered = lib.search("dataset distillation", mode="bm25", venue="ICML", limit=2, exclude={top[0]})
        assert [h.paper_id for h in filtered] == top[1:3]


def test_like_standard_input_that_is_not_utf8_is_one_line(run):
    bad = run("--like", "-", stdin="Résumé".encode("latin-1"))
    assert bad.exit_code == 1
    assert bad.stderr == "Error: standard input: not UTF-8 text (byte 1 is 0xe9); save it as UTF-8\n"
