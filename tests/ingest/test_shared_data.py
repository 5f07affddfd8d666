"""The real exports in ../shared/data: one command ingests them all; counts follow from facts about the files."""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli


def _csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def everything(tmp_path_factory: pytest.TempPathFactory, shared_data: Path):
    """A library with all of ../shared/data ingested by one CLI command, and that command's output."""
    db = tmp_path_factory.mktemp("all") / "all.db"
    result = CliRunner().invoke(cli, ["--db", str(db), "ingest", str(shared_data)], catch_exceptions=False)
    lib = Library(db)
    yield lib, result
    lib.close()


@pytest.mark.slow
def test_one_command_ingests_the_whole_folder_and_prints_the_report(everything, shared_data: Path) -> None:
    lib, result = everything
    assert result.exit_code == 0
    out = result.stdout.splitlines()
    data_files = sorted(
        p
        for sub in ("airas-papers-db", "iclr2026-primary-area", "icml2026", "papercopilot-paperlists")
        for p in (shared_data / sub).iterdir()
    )
    assert [line.split(": read ")[0] for line in out[:-1]] == [str(p) for p in data_files]
    records = sum(len(json.loads(p.read_text(encoding="utf-8"))) for p in data_files if p.suffix == ".json")
    records += sum(len(_csv_rows(p)) for p in data_files if p.suffix == ".csv")
    records += 95
    assert out[-1].startswith(f"total: read {records}, new {len(lib)}, ")
    assert "files failed 0" in out[-1] and "files ignored 4" in out[-1]
    ignored = [line for line in result.stderr.splitlines() if line.startswith("ignored: ")]
    assert [line.split(": ")[1] for line in ignored] == [
        str(shared_data / "gold" / "iclr2026_primary_areas.txt"),
        str(shared_data / "gold" / "icml2026_cards_dev.jsonl"),
        str(shared_data / "gold" / "icml2026_queries_dev.jsonl"),
        str(shared_data / "scifact-beir"),
    ]


@pytest.mark.slow
def test_airas_icml_2022_holds_every_paper_twice(everything, shared_data: Path) -> None:
    lib, _ = everything
    path = str(shared_data / "airas-papers-db" / "icml_2022.json")
    rows = lib.store.conn.execute(
        "SELECT paper_id, count(*) FROM sources WHERE path = ? GROUP BY paper_id", (path,)
    ).fetchall()
    assert len(rows) == 1233
    assert Counter(n for _, n in rows) == {2: 1233}
    assert sum(n for _, n in rows) == 2466


@pytest.mark.slow
def test_iclr2026_csvs_give_one_paper_per_openreview_forum(everything, shared_data: Path) -> None:
    lib, _ = everything
    forums = {
        row["openreview_url"].rsplit("id=", 1)[1]
        for p in (shared_data / "iclr2026-primary-area").glob("*.csv")
        for row in _csv_rows(p)
    }
    assert len(forums) == 4302
    stored = [p.external_ids.get("openreview") for p in lib.papers() if (p.venue, p.year) == ("ICLR", 2026)]
    assert len(stored) == 4302
    assert set(stored) == forums


@pytest.mark.slow
@pytest.mark.parametrize("name", ["iclr2017.json", "iclr2018.json"])
def test_iclr_2017_2018_decisions_are_a_filterable_field(everything, shared_data: Path, name: str) -> None:
    lib, _ = everything
    path = shared_data / "papercopilot-paperlists" / name
    raw = json.loads(path.read_text(encoding="utf-8"))
    with_abstract = [r for r in raw if r.get("abstract", "").strip()]
    expected = Counter(r["status"] for r in with_abstract)
    assert {"Reject", "Poster", "Oral", "Workshop"} <= set(expected)
    year = int(name[4:8])
    stored = Counter(p.decision for p in lib.papers() if (p.venue, p.year) == ("ICLR", year))
    # Two records with one abstract are one paper: count papers, keeping the first record's status.
    firsts = {}
    for r in with_abstract:
        firsts.setdefault(" ".join(r["abstract"].split()).casefold(), r["status"])
    assert stored == Counter(firsts.values())
    rejected = list(lib.papers(decision="reject"))
    assert sum(1 for p in rejected if p.year == year) == stored["Reject"]


@pytest.mark.slow
def test_every_stored_paper_is_reachable_by_search_show_and_export(
    everything, tmp_path: Path, shared_data: Path
) -> None:
    lib, _ = everything
    papers = list(lib.papers())
    sample = papers[:: max(1, len(papers) // 40)]
    for paper in sample:
        assert lib.get(paper.paper_id).paper_id == paper.paper_id
        query = paper.title or " ".join(paper.clean_text.split()[:12])
        assert paper.paper_id in [h.paper_id for h in lib.search(query, limit=50)], query
    out = tmp_path / "export.jsonl"
    result = CliRunner().invoke(
        cli,
        ["--db", str(lib.store.path), "export", "--format", "jsonl", "--out", str(out)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["paper_id"] for r in rows] == [p.paper_id for p in papers]
    profile = {
        "email",
        "gender",
        "homepage",
        "orcid",
        "linkedin",
        "position",
        "aff",
        "dblp",
        "google_scholar",
    }
    assert not any(profile & set(r) for r in rows)
    text = out.read_text(encoding="utf-8")
    raw = json.loads((shared_data / "papercopilot-paperlists" / "iclr2018.json").read_text(encoding="utf-8"))
    emails = {e for r in raw for e in r["authorids"].split(";") if "@" in e}
    assert len(emails) > 500
    exported_addresses = set(re.findall(r"[\w.+-]+@[\w-]+\.[\w.-]+", text))
    assert not emails & exported_addresses


@pytest.mark.slow
def test_reingesting_everything_adds_nothing_and_keeps_marks(everything, shared_data: Path) -> None:
    lib, _ = everything
    ids = [p.paper_id for p in lib.papers()]
    starred, tagged, noted = ids[0], ids[len(ids) // 2], ids[-1]
    lib.star(starred)
    lib.tag(tagged, "to-read")
    lib.set_note(noted, "compare with APM")
    before = {t: lib.store.count(t) for t in ("papers", "sources", "cards")}
    report = lib.ingest([shared_data])
    assert (report.new, report.merged, report.failed) == (0, 0, [])
    assert report.present == report.read - len(report.skipped)
    assert {t: lib.store.count(t) for t in before} == before
    assert lib.marks(starred) == {"starred": True, "tags": [], "note": None, "triage": None}
    assert lib.marks(tagged) == {"starred": False, "tags": ["to-read"], "note": None, "triage": None}
    assert lib.marks(noted) == {"starred": False, "tags": [], "note": "compare with APM", "triage": None}
