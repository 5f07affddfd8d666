"""What a fresh-user trial of enrich found (issue 15 item 5): open-world evidence, wrong title columns, messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli
from paperscope.enrich.match import match_program, title_evidence
from paperscope.enrich.program import ProgramEntry, parse_program_map, read_program
from paperscope.enrich.run import library_bm25, title_less_papers
from paperscope.errors import InputError
from paperscope.index.bm25 import MemoryBM25, query_terms

from .conftest import ICML_COLUMNS, N_PAPERS, abstract, title, words, write_library_list, write_program


def _index(titles: list[str]) -> MemoryBM25:
    return MemoryBM25.build(((str(i), None, t) for i, t in enumerate(titles)), title_weight=1.0)


def test_title_evidence_is_the_idf_share_of_the_title_the_abstract_holds() -> None:
    index = _index(["alpha beta", "alpha gamma", "alpha delta"])
    terms = query_terms("alpha beta")
    assert title_evidence(terms, set(query_terms("alpha beta here")), index) == pytest.approx(1.0)
    assert title_evidence(terms, set(query_terms("nothing shared")), index) == 0.0
    half = title_evidence(terms, set(query_terms("beta only")), index)
    rare_weight = float(index.idf[index.vocabulary["beta"]])
    common_weight = float(index.idf[index.vocabulary["alpha"]])
    assert half == pytest.approx(rare_weight / (rare_weight + common_weight))  # the rare word counts more


def test_orphans_agreeing_by_margins_alone_are_held_back_by_the_evidence_floor() -> None:
    # Paper 0's entry is missing and one entry sharing a single word with it has no paper: the
    # two are each other's only candidates, so both margins are large; the evidence is small.
    a = words(0)
    text = abstract(0)
    orphan_title = f"{a[0].capitalize()} Wholly Unrelated Quantum Chemistry Surrogates"
    entries = [ProgramEntry(line=2, title=orphan_title), ProgramEntry(line=3, title=title(1))]
    papers = [("p0", text)]
    index = MemoryBM25.build([("p0", None, text), ("p1", None, abstract(1))], title_weight=2.0)
    loose = match_program(
        papers, entries, index, thresholds=(0.0, 0.0), evidence_floor=0.0, matcher="margins"
    )
    assert [p.entry for p in loose.attached] == [0]  # the margins alone let it through
    strict = match_program(
        papers, entries, index, thresholds=(0.0, 0.0), evidence_floor=0.5, matcher="margins"
    )
    assert strict.attached == [] and strict.agreed[0].evidence < 0.5
    assert strict.suggestions["p0"][0].entry == 0  # still offered for review


def test_no_suggestion_without_positive_evidence(tmp_path: Path) -> None:
    lib = Library(tmp_path / "lib.db")
    lib.ingest([write_library_list(tmp_path / "papers.txt", [0, 1, 2])], cards=False, embed=False)
    entries = [ProgramEntry(line=2, title="zzqx"), ProgramEntry(line=3, title="yywv")]
    papers = title_less_papers(lib)
    result = match_program(papers, entries, library_bm25(lib))
    assert result.attached == [] and result.ranked == {}
    lib.close()


def test_a_program_whose_titles_match_nothing_is_one_clear_error(tmp_path: Path) -> None:
    # The trial: a file "name,slot" with one row "foo" gave 150 score-0 suggestions.
    db = tmp_path / "lib.db"
    with Library(db) as lib:
        lib.ingest([write_library_list(tmp_path / "papers.txt", list(range(5)))], cards=False, embed=False)
    program = tmp_path / "slots.csv"
    program.write_text("name,slot\nfoo,1\nbar,2\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["--db", str(db), "enrich", "--program", str(program)])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.output
    assert "slots.csv" in lines[0] and "title column: name; columns: name, slot" in lines[0]
    with Library(db) as lib:
        assert lib.enrich_suggestions() == [] and all(p.title is None for p in lib.papers())


def test_a_json_program_without_titles_names_its_keys(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"slot": 1, "room": "A"}\n', encoding="utf-8")
    with pytest.raises(
        InputError,
        match=r"p\.jsonl: no program entry has a title \(title column: none; columns: slot, room\)",
    ):
        read_program(path)


def test_map_error_lists_session_and_unused_columns_are_named(tmp_path: Path) -> None:
    with pytest.raises(
        InputError, match=r"choose from: .*, session, kind, start, end, room, timezone, institutions$"
    ):
        parse_program_map(["colour=Hall"])
    path = write_program(tmp_path / "p.csv", [0])
    text = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([text[0] + ",room,slot", text[1] + ",Hall 2,7"]) + "\n", encoding="utf-8")
    program = read_program(path)
    assert program.unused_columns == ["slot"]  # room is the session's room
    assert program.entries[0].sessions[0].room == "Hall 2"
    assert program.title_columns == ["title"]


def test_rerun_counts_the_papers_still_without_a_title(tmp_path: Path) -> None:
    db = tmp_path / "lib.db"
    with Library(db) as lib:
        lib.ingest([write_library_list(tmp_path / "papers.txt", list(range(N_PAPERS)))])
    program = write_program(tmp_path / "program.csv", list(range(N_PAPERS // 2)), rest=True)
    runner = CliRunner()
    first = runner.invoke(cli, ["--db", str(db), "enrich", "--program", str(program), "--json"])
    report = json.loads(first.output[: first.output.rindex("}") + 1])
    assert report["untitled"] == N_PAPERS and len(report["attached"]) == N_PAPERS // 2
    second = runner.invoke(cli, ["--db", str(db), "enrich", "--program", str(program)])
    assert second.exit_code == 0, second.output
    assert f"{N_PAPERS - N_PAPERS // 2} papers without a title" in second.output


def test_review_counts_agree_with_the_library_and_unknown_keys_are_answered(tmp_path: Path) -> None:
    # Paper 30's title is not in the program; a decoy sharing words with it is suggested.
    from .conftest import decoy_title

    db = tmp_path / "lib.db"
    with Library(db) as lib:
        lib.ingest([write_library_list(tmp_path / "papers.txt", list(range(N_PAPERS + 1)))])
    program = write_program(
        tmp_path / "program.csv", list(range(N_PAPERS)), extra=(decoy_title(30, 5),), rest=True
    )
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", str(db), "enrich", "--program", str(program)]).exit_code == 0
    with Library(db) as lib:
        total = len(lib.enrich_suggestions())
    assert total >= 1
    result = runner.invoke(cli, ["--db", str(db), "enrich", "--review"], input="x\n" + "s\n" * total)
    assert result.exit_code == 0, result.output
    assert "unknown key 'x': the keys are [a] accept" in result.output
    # a skip keeps the total: [1/n] ... [n/n], and the end counts the skipped ones as open
    assert all(f"[{i}/{total}]" in result.output for i in range(1, total + 1))
    with Library(db) as lib:
        assert len(lib.enrich_suggestions()) == total
    assert f"No suggestions left to review ({total} skipped, still open)." in result.output


def test_a_header_only_program_names_its_columns(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text(",".join(ICML_COLUMNS) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_program(path)
    assert str(caught.value) == (
        f"{path}:1: the program has a header but no rows (title column: title; columns: {', '.join(ICML_COLUMNS)})"
    )


def test_the_report_reads_as_english(tmp_path: Path) -> None:
    db = tmp_path / "lib.db"
    with Library(db) as lib:
        lib.ingest([write_library_list(tmp_path / "papers.txt", list(range(N_PAPERS)))])
    program = write_program(tmp_path / "program.csv", [0])
    lines = program.read_text(encoding="utf-8").splitlines()
    program.write_text("\n".join([*lines, ",,,Poster,"]) + "\n", encoding="utf-8")  # line 3: no title
    result = CliRunner().invoke(cli, ["--db", str(db), "enrich", "--program", str(program), "--no-dense"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == (
        f"{program}: 1 entry (0 already in the library), {N_PAPERS} papers without a title;"
        " matched by words only"
    )
    assert "note: 1 program row has no title (line 3)" in result.stderr.splitlines()
    two = write_program(tmp_path / "two.csv", [1, 2])
    lines = two.read_text(encoding="utf-8").splitlines()
    two.write_text("\n".join([*lines, ",,,Poster,", ",,,Oral,"]) + "\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["--db", str(db), "enrich", "--program", str(two)])
    assert result.stdout.splitlines()[0].startswith(f"{two}: 2 entries (")
    assert result.stdout.splitlines()[0].endswith("; matched with the embeddings")
    assert "note: 2 program rows have no title (lines 4, 5)" in result.stderr.splitlines()
