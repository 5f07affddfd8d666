"""`paperscope doctor`: every check finds its damage, --repair fixes it, marks are never deleted."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from click.testing import CliRunner
from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.cli import cli
from paperscope.extract import EXTRACTOR_VERSION, FIRST_CARD_VERSION
from paperscope.web import create_app


def _library(tmp_path: Path, icml_dir: Path) -> Path:
    db = tmp_path / "lib.db"
    with Library(db) as lib:
        lib.ingest([icml_dir])
        first = next(iter(lib.papers())).paper_id
        lib.star(first)
        lib.tag(first, "read")
        lib.set_note(first, "compare")
    return db


def _damage(db: Path) -> None:
    """Damage of every kind doctor repairs: what a killed run or a foreign tool leaves."""
    conn = sqlite3.connect(db)
    conn.execute("UPDATE cards SET extractor_version = ? WHERE rowid % 3 = 0", (FIRST_CARD_VERSION,))
    conn.execute(
        "UPDATE cards SET extractor_version = '0.1' WHERE paper_id IN"
        " (SELECT paper_id FROM cards WHERE extractor_version = ? LIMIT 5)",
        (EXTRACTOR_VERSION,),
    )
    conn.execute("DELETE FROM papers_fts WHERE rowid % 10 = 0")
    conn.execute("INSERT INTO papers_fts (paper_id, title, body) VALUES ('0123456789ab', 'ghost', 'ghost')")
    conn.execute("INSERT INTO sources VALUES ('0123456789ab', 'gone.txt', 1, 'text')")
    conn.execute("INSERT INTO dedup_keys VALUES (42, '0123456789ab')")
    conn.execute("INSERT INTO stars (paper_id) VALUES ('0123456789ab')")
    conn.execute("DELETE FROM embeddings WHERE rowid % 7 = 0")
    conn.commit()
    conn.close()


def _by_check(report: dict) -> dict[str, dict]:
    return {f["check"]: f for f in report["findings"] if not f["ok"]}


def test_a_clean_library_passes_every_check(tmp_path: Path, icml_dir: Path) -> None:
    db = _library(tmp_path, icml_dir)
    result = CliRunner().invoke(cli, ["--db", str(db), "doctor", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ok"] and report["problems"] == 0
    assert {f["check"] for f in report["findings"]} == {
        "integrity",
        "fts",
        "search_fts",
        "cards",
        "vectors",
        "orphans",
        "topics",
        "marks",
    }


def test_doctor_finds_each_kind_of_damage_and_repair_fixes_it(tmp_path: Path, icml_dir: Path) -> None:
    db = _library(tmp_path, icml_dir)
    _damage(db)
    runner = CliRunner()
    found = runner.invoke(cli, ["--db", str(db), "doctor", "--json"])
    assert found.exit_code == 1
    problems = _by_check(json.loads(found.stdout))
    assert problems["cards"]["count"] == 37 and problems["cards"]["problem"]
    assert problems["vectors"]["count"] == 13
    assert problems["fts"]["count"] == 9 + 1  # 9 papers missing, one ghost row
    assert problems["orphans"]["count"] == 2  # the ghost's source and dedup key
    assert not problems["marks"]["problem"]  # a note: marks are the user's and stay
    assert all("doctor --repair" in problems[c]["repair"] for c in ("cards", "vectors", "fts", "orphans"))
    text = runner.invoke(cli, ["--db", str(db), "doctor"])
    assert "PROBLEM cards: 37 papers lack a full card" in text.stdout and "Traceback" not in text.output

    stats = runner.invoke(cli, ["--db", str(db), "stats", "--json"])
    data = json.loads(stats.stdout)
    assert (data["missing_cards"], data["first_cards"], data["missing_vectors"]) == (37, 32, 13)

    repaired = runner.invoke(cli, ["--db", str(db), "doctor", "--repair", "--json"])
    assert repaired.exit_code == 0, repaired.output
    report = json.loads(repaired.stdout)
    assert report["ok"] and len(report["repaired"]) == 4
    with Library(db) as lib:
        assert lib.stage_counts()["unfinished"] == 0
        first = next(iter(lib.papers())).paper_id
        assert lib.marks(first) == {"starred": True, "tags": ["read"], "note": "compare", "triage": None}
        assert lib.store.conn.execute("SELECT count(*) FROM stars").fetchone()[0] == 2  # the ghost's star too
        assert [h.paper_id for h in lib.search("ghost", mode="bm25")] == []
        assert len(lib.search("diffusion", mode="bm25", limit=100)) > 0


def test_a_corrupted_page_is_a_problem_without_a_traceback(tmp_path: Path, icml_dir: Path) -> None:
    db = _library(tmp_path, icml_dir)
    with Library(db):
        pass  # checkpointed: every page is in the main file
    broken = tmp_path / "broken.db"
    shutil.copy(db, broken)
    data = bytearray(broken.read_bytes())
    page = 4096
    for start in range(3 * page, min(len(data), 12 * page), page):
        data[start + 8 : start + 200] = b"\x5a" * 192  # cell pointers and cells of b-tree pages
    broken.write_bytes(bytes(data))
    result = CliRunner().invoke(cli, ["--db", str(broken), "doctor"])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "PROBLEM integrity: SQLite integrity check failed" in result.stdout
    repaired = CliRunner().invoke(cli, ["--db", str(broken), "doctor", "--repair"])
    assert repaired.exit_code == 1 and "Traceback" not in repaired.output
    assert "doctor --salvage NEW.db" in repaired.stdout  # damage REINDEX cannot mend: how to salvage the rows


def test_stats_and_the_api_show_what_each_stage_lacks(tmp_path: Path, icml_dir: Path) -> None:
    db = tmp_path / "lib.db"
    with Library(db) as lib:
        lib.ingest([icml_dir], cards=False, embed=False)
        counts = lib.stats()
        assert (counts["missing_cards"], counts["first_cards"], counts["missing_vectors"]) == (95, 95, 95)
        assert (counts["missing_topics"], counts["topics_fitted"], counts["unfinished"]) == (0, False, 190)
        with TestClient(create_app(lib)) as client:
            body = client.get("/api/stats").json()["data"]
        assert (body["missing_cards"], body["first_cards"], body["missing_vectors"]) == (95, 95, 95)
        assert body["unfinished"] == 190
        text = CliRunner().invoke(cli, ["--db", str(db), "stats"]).stdout
        assert "95 papers lack a current full card (95 with only the quick first card)" in text
        lib.ingest([icml_dir])  # any ingest finishes the stages earlier runs left
        assert lib.stage_counts()["unfinished"] == 0
