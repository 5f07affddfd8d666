"""A label says it is a label (issue 23): ``title_source``, and the marker in the CLI, the JSON API
and every export format, pandoc's rendering of the BibTeX and CSL-JSON read back.

One library: the first ICML 2026 list (no titles: each paper's label is the card's) and one CSV
paper with a title. Two papers are starred: APM (title-less) and the titled one; exports of the
starred papers hold exactly those two.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import bibtexparser
import icalendar
import pytest
import rispy
from bibtexparser.middlewares import LatexDecodingMiddleware
from click.testing import CliRunner
from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.cli import cli
from paperscope.models import LABEL_MARKER, TITLE_SOURCES, Paper
from paperscope.store.sessions import save_sessions
from paperscope.triage.entry import LABEL_NOTE
from paperscope.triage.export import EXPORT_FORMATS
from paperscope.triage.markdown_out import md
from paperscope.web.app import create_app

PANDOC = shutil.which("pandoc")
#: The title of the paper in the ``titled_csv`` fixture (tests/conftest.py).
TITLE = "Distilling Datasets into a Handful of Synthetic Images"


@pytest.fixture(scope="module")
def mixed(
    tmp_path_factory: pytest.TempPathFactory, icml_dir: Path, titled_csv: tuple[Path, str]
) -> Iterator[tuple[Library, Paper, Paper]]:
    """``(library, APM: a title-less paper, the titled CSV paper)``, both starred."""
    folder = tmp_path_factory.mktemp("title-source")
    assert titled_csv[1] == TITLE
    lib = Library(folder / "mixed.db")
    lib.ingest([icml_dir / "000_9f997565051fc2a1.txt", titled_csv[0]])
    apm_id = lib.search("analytic parameter matching", mode="bm25", limit=1)[0].paper_id
    titled_id = next(p.paper_id for p in lib.papers() if p.title == TITLE)
    lib.star(apm_id)
    lib.star(titled_id)
    yield lib, lib.get(apm_id), lib.get(titled_id)
    lib.close()


def _export(lib: Library, fmt: str) -> str:
    return "".join(lib.export(fmt, starred=True))


def test_title_source_is_derived_from_the_title(mixed) -> None:
    lib, apm, titled = mixed
    assert TITLE_SOURCES == ("source", "program", "generated")
    assert (apm.title, apm.title_source) == (None, "generated")
    assert apm.label.startswith("APM") and apm.display_label == f"{LABEL_MARKER} {apm.label}"
    assert (titled.title_source, titled.label, titled.display_label) == ("source", TITLE, TITLE)
    by_id = {p.paper_id: p.title_source for p in lib.papers()}  # iter_papers reads it too
    assert by_id[apm.paper_id] == "generated" and by_id[titled.paper_id] == "source"
    assert sorted(by_id.values()).count("generated") == 19
    hits = {h.paper_id: h for h in lib.search("dataset distillation", mode="bm25", limit=20)}
    assert hits[apm.paper_id].title_source == "generated" and hits[titled.paper_id].title_source == "source"
    assert hits[apm.paper_id].display_label == apm.display_label


def test_every_export_format_marks_the_generated_label(mixed) -> None:
    lib, apm, titled = mixed
    marked = f"{LABEL_MARKER} {apm.label}"
    checked = set()

    entries = bibtexparser.parse_string(_export(lib, "bibtex"), append_middleware=[LatexDecodingMiddleware()])
    bib = {e.fields_dict["title"].value: e.fields_dict for e in entries.entries}
    assert set(bib) == {marked, TITLE}
    assert bib[marked]["titleaddon"].value == LABEL_NOTE and bib[marked]["note"].value == LABEL_NOTE
    assert "titleaddon" not in bib[TITLE] and "note" not in bib[TITLE]
    checked.add("bibtex")

    items = {i["title"]: i for i in json.loads(_export(lib, "csl-json"))}
    assert set(items) == {marked, TITLE}
    assert items[marked]["genre"] == LABEL_NOTE and items[marked]["note"] == LABEL_NOTE
    assert "genre" not in items[TITLE] and "note" not in items[TITLE]
    checked.add("csl-json")

    records = {r["title"]: r for r in rispy.loads(_export(lib, "ris"))}
    assert set(records) == {marked, TITLE}
    assert records[marked]["notes"] == [LABEL_NOTE] and "notes" not in records[TITLE]
    checked.add("ris")

    rows = {r["paper_id"]: r for r in csv.DictReader(io.StringIO(_export(lib, "csv")))}
    assert (rows[apm.paper_id]["label"], rows[apm.paper_id]["title"]) == (marked, "")
    assert (rows[titled.paper_id]["label"], rows[titled.paper_id]["title"]) == (TITLE, TITLE)
    assert [rows[p]["title_source"] for p in (apm.paper_id, titled.paper_id)] == ["generated", "source"]
    checked.add("csv")

    lines = {r["paper_id"]: r for r in map(json.loads, _export(lib, "jsonl").splitlines())}
    assert (lines[apm.paper_id]["title"], lines[apm.paper_id]["label"]) == (
        None,
        apm.label,
    )  # no label as title
    assert lines[apm.paper_id]["title_source"] == "generated"
    assert (lines[titled.paper_id]["title"], lines[titled.paper_id]["title_source"]) == (TITLE, "source")
    checked.add("jsonl")

    text = _export(lib, "markdown")
    assert f"**{md(marked)}**" in text and "**\\[Label\\] APM" in text  # brackets escaped: no link
    assert f"**{md(TITLE)}**" in text and text.count("\\[Label\\]") == 1
    checked.add("markdown")

    headings = re.findall(r"<h3>(.*?)</h3>", _export(lib, "html"))
    assert sorted(html.unescape(h) for h in headings) == sorted([marked, TITLE])
    checked.add("html")

    # A calendar event's summary names the paper as the other formats do. A title-less paper
    # has no session unless one is stored for it (enrich gives a title with its sessions), so
    # one is stored here through the store, as attach does.
    session = {
        "kind": "poster",
        "name": "Poster 1",
        "starts_at": "2026-07-14T11:00:00-07:00",
        "ends_at": "2026-07-14T13:30:00-07:00",
        "timezone": None,
        "room": None,
        "url": None,
        "line": 2,
    }
    with lib.store.conn:
        save_sessions(lib.store.conn, apm.paper_id, "program.csv", 2, [session])
    events = icalendar.Calendar.from_ical(_export(lib, "ics")).walk("VEVENT")
    assert [str(e["summary"]) for e in events] == [f"Poster: {marked}"]
    checked.add("ics")

    assert checked == set(EXPORT_FORMATS)


def _pandoc_plain(bibliography: Path) -> str:
    """Return pandoc's plain-text bibliography of every entry (``--citeproc``, its default Chicago style)."""
    if PANDOC is None:
        pytest.skip("pandoc is not installed: apt-get install pandoc (`make test` installs it as root)")
    document = bibliography.with_suffix(".md")
    document.write_text('---\nnocite: "@*"\n---\n', encoding="utf-8")
    done = subprocess.run(
        [PANDOC, "--citeproc", "--bibliography", str(bibliography), "-t", "plain", str(document)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return " ".join(done.stdout.split())


@pytest.mark.parametrize("fmt, suffix", [("bibtex", ".bib"), ("csl-json", ".json")])
def test_pandoc_renders_the_marker_and_the_note(mixed, tmp_path: Path, fmt: str, suffix: str) -> None:
    lib, apm, _ = mixed
    path = tmp_path / f"starred{suffix}"
    path.write_text(_export(lib, fmt), encoding="utf-8")
    shown = _pandoc_plain(path)
    # Two entries, each title in quotes; citeproc title-cases the label's words, not the marker.
    titles = re.findall(r"“(.*?)\.?”", shown)
    assert len(titles) == 2, shown
    (label,) = [t for t in titles if t.startswith(LABEL_MARKER)]
    note = LABEL_NOTE.rstrip(".").casefold()
    # BibTeX's `titleaddon` is printed after the title, inside its quotes (CSL-JSON's genre after).
    addon = f". {note}" if fmt == "bibtex" else ""
    assert label.casefold() == f"{LABEL_MARKER} {apm.label}".casefold() + addon
    assert TITLE in titles
    # The note follows the marked title, and only it.
    assert shown.casefold().count(note) == 1 and shown.casefold().index(note) > shown.index(LABEL_MARKER)
    assert shown.count(LABEL_MARKER) == 1


def test_cli_marks_the_label_in_show_search_and_list(mixed) -> None:
    lib, apm, titled = mixed
    db = str(lib.store.path)

    def run(*args: str) -> str:
        result = CliRunner().invoke(cli, ["--db", db, *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout

    shown = run("show", apm.paper_id).splitlines()
    assert shown[:2] == [
        f"{apm.paper_id}  {LABEL_MARKER} {apm.label}",
        f"title:   none in the source list ({LABEL_MARKER}: a label paperscope made)",
    ]
    assert run("show", titled.paper_id).splitlines()[:2] == [
        f"{titled.paper_id}  {TITLE}",
        f"title:   {TITLE}",
    ]
    found = [
        line for line in run("search", "dataset distillation", "--mode", "bm25").splitlines() if "  " in line
    ]
    assert any(line.endswith(f"  {LABEL_MARKER} {apm.label}") and apm.paper_id in line for line in found)
    assert any(line.endswith(f"  {TITLE}") and titled.paper_id in line for line in found)
    listed = run("list", "--starred").splitlines()
    assert any(line.startswith(f"{apm.paper_id}  {LABEL_MARKER} {apm.label}  [ICML 2026]") for line in listed)
    assert any(line.startswith(f"{titled.paper_id}  {TITLE}  [ICLR 2026]") for line in listed)
    hits = json.loads(
        run("search", "analytic parameter matching", "--mode", "bm25", "--limit", "1", "--json")
    )
    assert (hits[0]["title"], hits[0]["label"], hits[0]["title_source"]) == (None, apm.label, "generated")


def test_json_api_gives_title_source_and_never_a_label_as_title(mixed) -> None:
    lib, apm, titled = mixed
    with TestClient(create_app(lib)) as client:
        paper = client.get(f"/api/papers/{apm.paper_id}").json()["data"]
        assert (paper["title"], paper["label"], paper["title_source"]) == (None, apm.label, "generated")
        other = client.get(f"/api/papers/{titled.paper_id}").json()["data"]
        assert (other["title"], other["label"], other["title_source"]) == (TITLE, TITLE, "source")
        hits = client.get("/api/search", params={"q": "dataset distillation", "mode": "bm25"}).json()["data"]
        by_id = {h["paper_id"]: h for h in hits}
        assert (by_id[apm.paper_id]["title"], by_id[apm.paper_id]["title_source"]) == (None, "generated")
        assert by_id[titled.paper_id]["title_source"] == "source"
        assert all(h["title"] is None for h in hits if h["title_source"] == "generated")
        assert not any(LABEL_MARKER in (h["label"] + (h["title"] or "")) for h in hits)  # data, unmarked
