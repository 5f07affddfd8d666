"""Topics through the Library and the CLI: storage, refits, search facet, export, map files."""

from __future__ import annotations

import json
from importlib.util import find_spec
from pathlib import Path

import pytest
from click.testing import CliRunner
from topics_helpers import assert_clean_name, library_embeddings, real_embed

from paperscope import Library
from paperscope.cli import cli
from paperscope.errors import InputError, NotFound
from paperscope.store import SCHEMA_VERSION
from paperscope.topics import UNASSIGNED_NAME

needs_png = pytest.mark.skipif(
    find_spec("matplotlib") is None, reason="the map's PNG needs the png extra: pip install 'paperscope[png]'"
)


@pytest.fixture
def fitted(icml_library: Library) -> Library:
    icml_library.fit_topics(library_embeddings(icml_library))
    return icml_library


def counts(lib: Library) -> tuple[int, int, int]:
    conn = lib.store.conn
    return tuple(
        conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("topics", "paper_topics", "stars")
    )


def test_migration_creates_topic_tables(fresh_library: Library):
    tables = {
        r[0] for r in fresh_library.store.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
    }
    assert {"topics", "paper_topics", "topic_runs"} <= tables
    assert fresh_library.store.schema_version == SCHEMA_VERSION
    assert fresh_library.topics() == [] and fresh_library.paper_topics() == {}


def test_fit_stores_every_paper_and_the_topics(fitted: Library):
    assigned = fitted.paper_topics()
    assert len(assigned) == len(fitted) == 95
    stored = fitted.topics()
    broad = [t for t in stored if t.level == 0 and not t.is_unassigned]
    assert sum(t.size for t in stored if t.level == 0) == 95
    assert [t.topic_id for t in broad] == list(range(len(broad)))
    some = next(iter(assigned.values()))
    assert set(some) == {"topic_id", "topic", "subtopic_id", "subtopic", "is_outlier", "x", "y"}
    run = fitted.topic_run()
    assert run["n_papers"] == 95 and run["settings"]["clusterer"] == "hdbscan"
    for t in broad:
        assert {assigned[pid]["topic_id"] for pid in t.representative_ids} == {t.topic_id}


def test_refit_replaces_topics_and_keeps_marks(fitted: Library):
    pid = next(iter(fitted.paper_topics()))
    fitted.star(pid)
    fitted.tag(pid, "to-read")
    before = counts(fitted)
    fitted.fit_topics(library_embeddings(fitted), n_topics=3)
    assert len(fitted.topics(level=0)) == 3 + any(t.is_unassigned for t in fitted.topics())
    assert counts(fitted)[1:] == before[1:]
    assert fitted.marks(pid)["tags"] == ["to-read"]


def test_fit_without_embeddings_uses_the_library_embedder(icml_library: Library):
    model = icml_library.fit_topics()
    assert sorted(model.paper_ids) == sorted(p.paper_id for p in icml_library.papers())
    assert icml_library.topic_run()["n_papers"] == 95


def test_fit_with_unknown_paper_is_refused_and_stores_nothing(icml_library: Library):
    paper_ids, matrix = library_embeddings(icml_library)
    with pytest.raises(
        InputError, match="1 embedded papers are not in the library \\(first: ffffffffffff\\)"
    ):
        icml_library.fit_topics((["ffffffffffff", *paper_ids[1:]], matrix))
    assert counts(icml_library)[:2] == (0, 0)


def test_search_topic_filter_and_facets(fitted: Library):
    hits = fitted.search("pruning", limit=20, mode="bm25")
    assigned = fitted.paper_topics()
    facets = fitted.topic_facets(hits)
    assert sum(f["count"] for f in facets) == len(hits)
    assert [f["count"] for f in facets] == sorted((f["count"] for f in facets), reverse=True)
    top = facets[0]["topic_id"]
    # The topic filter applies before the top-k cut: it returns every match of the topic.
    only = fitted.search("pruning", limit=20, topic=top, mode="bm25")
    every = fitted.search("pruning", limit=1000, mode="bm25")
    in_topic = [h.paper_id for h in every if assigned[h.paper_id]["topic_id"] == top]
    assert [h.paper_id for h in only] == in_topic[:20]
    assert len(only) >= facets[0]["count"]
    with pytest.raises(NotFound, match="no topic 999"):
        fitted.search("pruning", topic=999)


def test_export_rows_carry_the_topic(fitted: Library, tmp_path: Path):
    out = tmp_path / "papers.jsonl"
    result = CliRunner().invoke(cli, ["--db", str(fitted.path), "export", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assigned = fitted.paper_topics()
    assert len(rows) == 95
    for row in rows:
        expected = assigned[row["paper_id"]]
        assert row["topic"]["topic_id"] == expected["topic_id"]
        assert row["topic"]["topic"] == expected["topic"]
        assert row["topic"]["topic"] != UNASSIGNED_NAME or expected["topic_id"] == -1


def test_export_before_any_fit_has_null_topic(icml_library: Library):
    result = CliRunner().invoke(cli, ["--db", str(icml_library.path), "export"])
    assert result.exit_code == 0
    assert {json.loads(line)["topic"] is None for line in result.output.splitlines()} == {True}


def test_cli_topics_lists_stored_topics(fitted: Library):
    result = CliRunner().invoke(cli, ["--db", str(fitted.path), "topics"])
    assert result.exit_code == 0, result.output
    first = fitted.topics(level=0)[0]
    assert f"[0] {first.name}  ({first.size} papers)" in result.output
    assert result.output.splitlines()[0].endswith(
        "papers; unassigned 0.0%, placed by neighbours " + (f"{fitted.topic_run()['outlier_fraction']:.1%}")
    )
    as_json = json.loads(CliRunner().invoke(cli, ["--db", str(fitted.path), "topics", "--json"]).output)
    assert [t["name"] for t in as_json["topics"]] == [t.name for t in fitted.topics()]


def test_cli_topics_fits_with_the_library_embedder(icml_library: Library):
    result = CliRunner().invoke(cli, ["--db", str(icml_library.path), "topics", "--json"])
    assert result.exit_code == 0, result.output
    assert icml_library.topic_run()["n_papers"] == 95
    assert sum(t.size for t in icml_library.topics(level=0)) == 95


def test_write_map_before_fit_raises(icml_library: Library, tmp_path: Path):
    with pytest.raises(NotFound, match="no topics yet"):
        icml_library.write_map(tmp_path / "map.html")


@needs_png
def test_map_html_is_self_contained_and_escapes_text(fitted: Library, tmp_path: Path):
    folder = tmp_path / "out"
    folder.mkdir()
    out = fitted.write_map(folder / "map.html", png=folder / "map.png", title="ICML <2026> & co")
    page = out.read_text(encoding="utf-8")
    assert page.count("<script") == 2 and "src=" not in page and "<link" not in page
    assert "@import" not in page and "url(" not in page
    assert "<title>ICML &lt;2026&gt; &amp; co</title>" in page
    data = page.split('id="map-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data
    payload = json.loads(data)
    assert len(payload["papers"]["paper_id"]) == 95
    assert payload["title"] == "ICML <2026> & co"
    png = (folder / "map.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
    assert sorted(p.name for p in folder.iterdir()) == ["map.html", "map.png"]


def test_map_refuses_unknown_colouring_and_missing_folder(fitted: Library, tmp_path: Path):
    with pytest.raises(InputError, match="unknown colouring 'year'; choose one of: topic, area, venue"):
        fitted.write_map(tmp_path / "map.html", color_by="year")
    with pytest.raises(InputError, match="folder does not exist"):
        fitted.write_map(tmp_path / "missing" / "map.html")


@needs_png
def test_cli_map_writes_the_page_and_png(fitted: Library, tmp_path: Path):
    html, png = tmp_path / "m.html", tmp_path / "m.png"
    args = ["--db", str(fitted.path), "map", "--out", str(html), "--png", str(png), "--color-by", "venue"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert f"wrote {html} and {png}" in result.output
    payload = json.loads(html.read_text(encoding="utf-8").split('id="map-data">', 1)[1].split("</script>")[0])
    assert payload["color_by"] == "venue"
    assert payload["categories"]["venue"]["names"] == ["ICML 2026"]
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_cli_map_png_without_matplotlib_prints_one_line_and_writes_nothing(
    fitted: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "matplotlib" else real_find_spec(name, *a),
    )
    html, png = tmp_path / "m.html", tmp_path / "m.png"
    result = CliRunner().invoke(cli, ["--db", str(fitted.path), "map", "--out", str(html), "--png", str(png)])
    assert result.exit_code == 1
    assert result.output == "Error: the PNG of the map needs matplotlib; run: pip install 'paperscope[png]'\n"
    assert not html.exists() and not png.exists()


@pytest.mark.model
def test_icml2026_topic_names_are_content_words(icml_library: Library):
    icml_library.fit_topics(library_embeddings(icml_library, embed=real_embed))
    names = [t.name for t in icml_library.topics() if not t.is_unassigned]
    assert len(names) >= 5 and len(set(names)) == len(names)
    for name in names:
        assert_clean_name(name)
