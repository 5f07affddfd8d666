"""paperscope enrich on a small library: attach on agreement, provenance, undo, idempotence, review, marks."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli

from .conftest import (
    N_PAPERS,
    REST_OF_PROGRAM,
    decoy_title,
    dump,
    title,
    title_word,
    truth,
    write_library_list,
    write_program,
)


def _program(tmp_path: Path, **kwargs) -> Path:
    return write_program(tmp_path / "program.csv", list(range(N_PAPERS + 10)), rest=True, **kwargs)


def test_assigned_entries_are_attached_with_their_fields_and_provenance(
    enrich_lib: Library, tmp_path: Path
) -> None:
    program = _program(tmp_path)
    report = enrich_lib.enrich(program)
    assert report.mode == "hybrid"  # every paper has a (fake) vector
    assert report.entries == N_PAPERS + 10 + len(REST_OF_PROGRAM) and report.candidates == N_PAPERS
    index_of = truth(enrich_lib)
    assert {a["paper_id"]: a["title"] for a in report.attached} == {
        pid: title(i) for pid, i in index_of.items()
    }
    pid, i = next((pid, i) for pid, i in index_of.items() if i == 5)
    paper = enrich_lib.get(pid)
    assert paper.label == paper.title == title(5)
    assert paper.authors == ["Ada Author5", "Bo Writer5"]
    assert paper.decision == "Oral"
    assert paper.external_ids["openreview"] == "paper0005x"
    assert paper.card is not None and paper.card.label  # rebuilt with the title
    provenance = {e["paper_id"]: e for e in enrich_lib.enrichments()}[pid]
    assert provenance["program"] == str(program.resolve()) and provenance["entry_line"] == 7
    assert provenance["session"] == "Poster session 3" and provenance["method"] == "agreed"
    assert 0 < provenance["score"] <= 1 and provenance["attached_at"].endswith("Z")
    assert {"title", "authors", "decision", "urls", "external_ids"} <= set(provenance["fields"])


def test_search_and_exports_see_the_attached_title(enrich_lib: Library, tmp_path: Path) -> None:
    pid = next(pid for pid, i in truth(enrich_lib).items() if i == 3)
    word = title_word(3)  # in the title only, never in an abstract
    assert not enrich_lib.search(word, mode="bm25")
    enrich_lib.enrich(_program(tmp_path))
    hits = enrich_lib.search(word, mode="bm25")
    assert [h.paper_id for h in hits] == [pid] and hits[0].label == title(3)
    assert enrich_lib.missing_vectors() == 0  # the attached papers were embedded again
    exported = [json.loads(line) for line in "".join(enrich_lib.export(fmt="jsonl")).splitlines()]
    assert {p["paper_id"]: p["title"] for p in exported}[pid] == title(3)


def test_rerunning_enrich_changes_nothing(enrich_lib: Library, tmp_path: Path) -> None:
    program = _program(tmp_path)
    first = enrich_lib.enrich(program)
    after_first = dump(enrich_lib)
    second = enrich_lib.enrich(program)
    assert len(first.attached) == N_PAPERS and second.attached == []
    assert dump(enrich_lib) == after_first
    assert len(enrich_lib.enrichments()) == N_PAPERS


def test_undo_restores_every_byte_and_marks_survive(enrich_lib: Library, tmp_path: Path) -> None:
    ids = sorted(truth(enrich_lib))
    enrich_lib.star(ids[0])
    enrich_lib.tag(ids[1], "to read")
    enrich_lib.set_note(ids[2], "check the proof")
    enrich_lib.set_triage(ids[3], "keep")
    marks = {pid: enrich_lib.marks(pid) for pid in ids}
    before = dump(enrich_lib)
    enrich_lib.enrich(_program(tmp_path))
    assert dump(enrich_lib)["papers"] != before["papers"]
    assert {pid: enrich_lib.marks(pid) for pid in ids} == marks
    restored, kept = enrich_lib.undo_enrich(tmp_path / "program.csv")
    assert sorted(restored) == ids and kept == []
    after = dump(enrich_lib)
    assert after == before
    assert {pid: enrich_lib.marks(pid) for pid in ids} == marks
    assert enrich_lib.enrichments() == []


def test_undo_gives_back_the_vectors_of_the_old_content(enrich_lib: Library, tmp_path: Path) -> None:
    # enrich embeds the attached papers again (new content hash, row replaced); undo must not
    # leave them without a current vector (the trial: 150 vectors -> 53, next run BM25 only).
    assert enrich_lib.missing_vectors() == 0
    vectors = dump(enrich_lib)["embeddings"]
    report = enrich_lib.enrich(_program(tmp_path))
    assert report.mode == "hybrid" and len(report.attached) == N_PAPERS
    assert enrich_lib.missing_vectors() == 0 and dump(enrich_lib)["embeddings"] != vectors
    enrich_lib.undo_enrich()
    assert enrich_lib.missing_vectors() == 0 and dump(enrich_lib)["embeddings"] == vectors
    assert enrich_lib.enrich(_program(tmp_path)).mode == "hybrid"


def test_undo_of_an_attachment_saved_without_vectors_embeds_again(
    enrich_lib: Library, tmp_path: Path
) -> None:
    enrich_lib.enrich(_program(tmp_path))
    conn = enrich_lib.store.conn
    for enrichment_id, before in conn.execute("SELECT enrichment_id, before FROM enrichments").fetchall():
        state = json.loads(before)
        del state["vectors"]  # as attachments made before the vectors were saved
        conn.execute(
            "UPDATE enrichments SET before = ? WHERE enrichment_id = ?", (json.dumps(state), enrichment_id)
        )
    enrich_lib.undo_enrich()
    assert enrich_lib.missing_vectors() == 0


def test_undo_leaves_a_field_changed_since(enrich_lib: Library, tmp_path: Path) -> None:
    enrich_lib.enrich(_program(tmp_path))
    pid = sorted(truth(enrich_lib))[0]
    enrich_lib.store.conn.execute("UPDATE papers SET decision = 'Spotlight' WHERE paper_id = ?", (pid,))
    restored, kept = enrich_lib.undo_enrich()
    assert pid in restored and kept == [pid]
    paper = enrich_lib.get(pid)
    assert paper.title is None and paper.decision == "Spotlight"


def test_disagreement_leaves_a_suggestion_that_review_settles(tmp_path: Path) -> None:
    # Paper 30's title is not in the program; a decoy sharing two of its words (and all of paper
    # 5's) must not be attached to it: it is a suggestion, which review can reject.
    listing = write_library_list(tmp_path / "papers.txt", list(range(N_PAPERS + 1)))
    db = tmp_path / "lib.db"
    with Library(db) as lib:
        lib.ingest([listing])
        index_of = truth(lib)
    program = write_program(
        tmp_path / "program.csv", list(range(N_PAPERS)), extra=(decoy_title(30, 5),), rest=True
    )
    runner = CliRunner()
    result = runner.invoke(cli, ["--db", str(db), "enrich", "--program", str(program), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output[: result.output.rindex("}") + 1])
    attached = {a["paper_id"]: a["title"] for a in report["attached"]}
    assert all(title(index_of[pid]) == t for pid, t in attached.items())  # never a wrong title
    orphan = next(pid for pid, i in index_of.items() if i == 30)
    assert orphan not in attached
    listed = json.loads(runner.invoke(cli, ["--db", str(db), "enrich", "--review", "--json"]).output)
    mine = [s for s in listed if s["paper_id"] == orphan]
    assert mine and mine[0]["entry"]["title"] == decoy_title(30, 5)
    keys = "".join("r\n" if s["paper_id"] == orphan else "s\n" for s in listed) + "q\n"
    result = runner.invoke(cli, ["--db", str(db), "enrich", "--review"], input=keys)
    assert result.exit_code == 0, result.output
    assert "→ rejected" in result.output
    with Library(db) as lib:
        assert lib.get(orphan).title is None
        assert orphan not in {
            s["paper_id"]
            for s in lib.enrich_suggestions()
            if s["rank"] == 1 and s["entry"].title == decoy_title(30, 5)
        }
        rerun = lib.enrich(program)  # a rejected pairing is not suggested again
        assert not [
            s
            for s in lib.enrich_suggestions()
            if s["paper_id"] == orphan and s["entry"].title == decoy_title(30, 5)
        ]
        assert orphan not in {a["paper_id"] for a in rerun.attached}


def test_review_accept_attaches_with_method_review(tmp_path: Path) -> None:
    listing = write_library_list(tmp_path / "papers.txt", list(range(N_PAPERS + 1)))
    db = tmp_path / "lib.db"
    with Library(db) as lib:
        lib.ingest([listing])
        orphan = next(pid for pid, i in truth(lib).items() if i == 30)
        lib.enrich(
            write_program(
                tmp_path / "program.csv", list(range(N_PAPERS)), extra=(decoy_title(30, 5),), rest=True
            )
        )
        pending = lib.enrich_suggestions()
    keys = "".join("a\n" if s["paper_id"] == orphan else "s\n" for s in pending) + "q\n"
    result = CliRunner().invoke(cli, ["--db", str(db), "enrich", "--review"], input=keys)
    assert result.exit_code == 0, result.output
    with Library(db) as lib:
        assert lib.get(orphan).title == decoy_title(30, 5)
        assert {e["paper_id"]: e["method"] for e in lib.enrichments()}[orphan] == "review"
        assert not [s for s in lib.enrich_suggestions() if s["paper_id"] == orphan]
        assert lib.missing_vectors() == 0  # the accepted paper was embedded again
        lib.undo_enrich()
        assert lib.get(orphan).title is None
        assert lib.missing_vectors() == 0


def test_cli_report_list_and_undo(enrich_lib: Library, tmp_path: Path) -> None:
    program = _program(tmp_path, rename={"title": "Paper", "session": "Slot"})
    db = str(enrich_lib.store.path)
    enrich_lib.close()
    runner = CliRunner()
    result = runner.invoke(
        cli,
        ["--db", db, "enrich", "--program", str(program), "--map", "title=Paper", "--map", "session=Slot"],
    )
    assert result.exit_code == 0, result.output
    assert f"attached {N_PAPERS} titles" in result.output
    listed = json.loads(runner.invoke(cli, ["--db", db, "enrich", "--list", "--json"]).output)
    assert len(listed) == N_PAPERS and {e["session"] for e in listed} == {
        "Poster session 1",
        "Poster session 2",
        "Poster session 3",
    }
    result = runner.invoke(cli, ["--db", db, "enrich", "--undo", "--program", str(program)])
    assert result.exit_code == 0 and f"undone: {N_PAPERS} papers restored" in result.output
    result = runner.invoke(cli, ["--db", db, "enrich"])
    assert result.exit_code == 2 and "--program FILE" in result.output


def test_a_small_program_is_matched_by_the_margins_and_says_so(enrich_lib: Library, tmp_path: Path) -> None:
    # Without the filler titles the program has N_PAPERS + 10 entries: too few for the pair model.
    small = write_program(tmp_path / "small.csv", list(range(N_PAPERS + 10)))
    large = _program(tmp_path)
    db = str(enrich_lib.store.path)
    enrich_lib.close()
    runner = CliRunner()
    result = runner.invoke(cli, ["--db", db, "enrich", "--program", str(small)])
    assert result.exit_code == 0, result.output
    assert f"the program has {N_PAPERS + 10} entries to match, fewer than 250" in result.output
    assert "paperscope enrich --list" in result.output
    runner.invoke(cli, ["--db", db, "enrich", "--undo", "--program", str(small)])
    result = runner.invoke(cli, ["--db", db, "enrich", "--program", str(large)])
    assert result.exit_code == 0 and "fewer than 250" not in result.output
