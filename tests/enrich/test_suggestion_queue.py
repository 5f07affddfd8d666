"""The review queue: an entry is offered to its few likeliest papers, a title taken closes the rest, undo counts."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli
from paperscope.enrich.attach import open_suggestions, reject_suggestion, save_suggestions
from paperscope.enrich.match import SUGGESTIONS
from paperscope.enrich.program import ProgramEntry

from .conftest import write_program

#: Titles made of words every abstract of the fixture uses: each is about as likely for all 30 papers.
VAGUE = (
    "Large Models for Strong Baselines and Accuracy",
    "Costly Training of Large Models",
    "Benchmarks with Strong Baselines",
    "Releasing Code for Behaviour Analysis",
)


def _per_entry(lib: Library) -> Counter:
    return Counter((s["program"], s["entry"].line) for s in lib.enrich_suggestions())


def test_a_vague_entry_is_suggested_to_a_few_papers_only(enrich_lib: Library, tmp_path: Path) -> None:
    one = enrich_lib.enrich(write_program(tmp_path / "one.csv", [], extra=VAGUE[:1]))
    assert one.attached == [] and 1 <= one.suggestions <= SUGGESTIONS
    decoys = write_program(tmp_path / "decoys.csv", [], extra=VAGUE[1:])
    enrich_lib.enrich(decoys)
    again = enrich_lib.enrich(decoys)  # a rerun replaces its suggestions, under the same cap
    assert 1 <= again.suggestions <= 3 * SUGGESTIONS
    assert max(_per_entry(enrich_lib).values()) <= SUGGESTIONS
    ranks: dict[tuple[str, str], list[int]] = {}
    for s in enrich_lib.enrich_suggestions():
        ranks.setdefault((s["paper_id"], s["program"]), []).append(s["rank"])
    assert all(sorted(r) == list(range(1, len(r) + 1)) for r in ranks.values())  # counted again from 1


def test_a_title_taken_closes_its_other_suggestions(enrich_lib: Library, tmp_path: Path) -> None:
    enrich_lib.enrich(write_program(tmp_path / "a.csv", [], extra=VAGUE[:2]))
    enrich_lib.enrich(write_program(tmp_path / "b.csv", [], extra=VAGUE[:1]))
    open_now = enrich_lib.enrich_suggestions()
    chosen = next(s for s in open_now if s["entry"].title == VAGUE[0] and s["program"].endswith("a.csv"))
    assert any(s["entry"].title == VAGUE[0] and s["paper_id"] != chosen["paper_id"] for s in open_now)
    assert enrich_lib.review_enrich(chosen["suggestion_id"], accept=True)
    left = enrich_lib.enrich_suggestions()
    assert [s for s in left if s["entry"].title == VAGUE[0]] == []  # of both programs
    assert [s for s in left if s["paper_id"] == chosen["paper_id"]] == []
    assert enrich_lib.enrich(tmp_path / "b.csv").suggestions == 0  # the title is the library's now


def test_undo_says_what_it_removed(enrich_lib: Library, tmp_path: Path) -> None:
    program = write_program(tmp_path / "one.csv", [], extra=VAGUE[:2])
    stored = enrich_lib.enrich(program).suggestions
    assert stored > 0
    db = str(enrich_lib.store.path)
    result = CliRunner().invoke(cli, ["--db", db, "enrich", "--undo", "--program", str(program)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == (
        f"undone: 0 papers restored; removed {stored} open suggestions and 0 sessions (program {program})"
    )
    enrich_lib.enrich(program)
    result = CliRunner().invoke(cli, ["--db", db, "enrich", "--undo", "--json"])
    assert json.loads(result.stdout) == {
        "restored": [],
        "changed_since": [],
        "suggestions_removed": stored,
        "sessions_removed": 0,
    }


def test_a_copy_of_the_program_does_not_double_the_review_queue(enrich_lib: Library, tmp_path: Path) -> None:
    # Two programs suggest the same titles to the same papers (a copy under another file name):
    # the queue lists each pairing once, and rejecting it rejects its twin.
    conn = enrich_lib.store.conn
    papers = [pid for (pid,) in conn.execute("SELECT paper_id FROM papers ORDER BY paper_id LIMIT 3")]
    entries = [ProgramEntry(line=n + 2, title=f"A Title Number {n}") for n in range(3)]
    for program in ("program.csv", "program-copy.csv"):
        with conn:
            save_suggestions(
                conn, program, [(pid, e, 1, 0.5) for pid, e in zip(papers, entries, strict=True)]
            )
    assert conn.execute("SELECT count(*) FROM enrich_suggestions WHERE status = 'open'").fetchone()[0] == 6
    listed = open_suggestions(conn)
    assert sorted((s["paper_id"], s["entry"].title) for s in listed) == sorted(
        (pid, e.title) for pid, e in zip(papers, entries, strict=True)
    )
    with conn:
        reject_suggestion(conn, listed[0]["suggestion_id"])
    assert len(open_suggestions(conn)) == 2
    assert listed[0]["paper_id"] not in {s["paper_id"] for s in open_suggestions(conn)}
