"""What the web pages read from the Library: hit metadata, browsing, facet counts, triage, reading list."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperscope import Library
from paperscope.errors import InputError
from paperscope.library import MAX_QUERY_CHARS, MAX_QUERY_TERMS, cut_query
from paperscope.links import paper_links

CSV_HEADER = "title,abstract,venue,year,decision,url,authors\n"


@pytest.fixture
def lib(tmp_path: Path, icml_dir: Path) -> Library:
    """The 95 ICML papers (no vectors: BM25 only) plus three CSV papers with metadata and links."""
    extra = tmp_path / "extra.csv"
    extra.write_text(
        CSV_HEADER
        + '"Graph Sparsifiers","We sparsify graph neural networks for molecule property prediction on QM9.",'
        'ICLR,2025,Oral,https://openreview.net/forum?id=AbCdE12345,"Ada Lovelace; Alan Turing"\n'
        '"Zeta Flows","Normalizing flows for protein design. Code: https://github.com/zeta/flows.",'
        "ICLR,2024,Poster,https://arxiv.org/abs/2401.01234,Grace Hopper\n"
        '"Alpha Tokens","We study tokenizers for graph transformers on QM9 and ZINC.",'
        "NeurIPS,2025,Poster,javascript:alert(1),Edsger Dijkstra\n",
        encoding="utf-8",
    )
    library = Library(tmp_path / "pages.db")
    library.ingest([icml_dir, extra], embed=False)
    yield library
    library.close()


def test_hits_carry_the_metadata_a_card_shows_and_no_local_path(lib: Library, tmp_path: Path) -> None:
    (hit,) = lib.search("sparsify graph neural networks molecule", limit=1, mode="bm25")
    assert (hit.title, hit.venue, hit.year, hit.decision) == ("Graph Sparsifiers", "ICLR", 2025, "Oral")
    assert hit.authors == ["Ada Lovelace", "Alan Turing"]
    assert hit.links["openreview"] == "https://openreview.net/forum?id=AbCdE12345"
    assert hit.links["pdf"] == "https://openreview.net/pdf?id=AbCdE12345"
    shown = str(hit.to_dict())
    assert str(tmp_path) not in shown and hit.to_dict()["sources"][0]["path"] == "extra.csv"
    code = lib.search("normalizing flows protein design", limit=1, mode="bm25")[0]
    assert code.has_code and code.links["code"].startswith("https://github.com/zeta/flows")
    assert code.links["arxiv"] == "https://arxiv.org/abs/2401.01234"
    unsafe = lib.search("tokenizers graph transformers ZINC", limit=1, mode="bm25")[0]
    assert unsafe.title == "Alpha Tokens" and all(u.startswith("https://") for u in unsafe.links.values())


def test_paper_links_keep_http_only_and_one_per_kind() -> None:
    links = paper_links(
        ["javascript:alert(1)", "https://example.org/a.pdf", "https://example.org/b.pdf", "ftp://x.org/y"],
        {"doi": "10.1000/xyz", "openreview": "bad id with spaces"},
        ["https://github.com/a/b"],
    )
    assert links == {
        "code": "https://github.com/a/b",
        "pdf": "https://example.org/a.pdf",
        "doi": "https://doi.org/10.1000/xyz",
    }


def test_browse_pages_sorts_and_filters(lib: Library) -> None:
    total, first = lib.browse(sort="title", limit=10)
    assert total == 98 and [h.rank for h in first] == list(range(1, 11))
    labels = [h.label.lower() for h in first]
    assert labels == sorted(labels)
    _, second = lib.browse(sort="title", limit=10, offset=10)
    assert second[0].rank == 11 and second[0].label.lower() >= labels[-1]
    total, iclr = lib.browse(sort="year", descending=True, venue="ICLR")
    assert total == 2 and [h.year for h in iclr] == [2025, 2024]
    with pytest.raises(InputError, match="unknown sort"):
        lib.browse(sort="colour")
    with pytest.raises(InputError, match="unknown filter"):
        lib.browse(colour="red")
    with pytest.raises(InputError, match="offset"):
        lib.browse(offset=-1)


def test_facet_counts_match_the_filters_they_link_to(lib: Library) -> None:
    hits = lib.search("graph", limit=50, mode="bm25")
    facets = lib.facet_counts([h.paper_id for h in hits])
    assert set(facets) >= {"venue", "year", "area", "contribution", "dataset", "has_code", "decision"}
    for facet in ("venue", "decision", "contribution", "dataset"):
        for entry in facets[facet][:3]:
            filtered = lib.search("graph", limit=50, mode="bm25", **{facet: entry["value"]})
            assert len(filtered) == entry["count"], (facet, entry)
    qm9 = next(e for e in facets["dataset"] if e["value"].lower() == "qm9")
    assert qm9["count"] == 2
    assert sum(e["count"] for e in facets["has_code"]) == len(hits)


def test_triage_marks_and_the_reading_list(lib: Library) -> None:
    a, b, c = (h.paper_id for h in lib.browse(limit=3)[1])
    lib.star(a)
    lib.tag(b, "to-read")
    lib.set_note(c, "compare")
    lib.set_triage(c, "keep")
    assert lib.marks(c)["triage"] == "keep"
    assert {row["paper"].paper_id for row in lib.reading_list()} == {a, b, c}
    assert [row["paper"].paper_id for row in lib.reading_list("starred")] == [a]
    assert [row["paper"].paper_id for row in lib.reading_list("tagged", tag="TO-READ")] == [b]
    assert [row["paper"].paper_id for row in lib.reading_list("noted")] == [c]
    assert lib.reading_list("triaged")[0]["marks"]["triage"] == "keep"
    lib.set_triage(c, None)
    assert lib.marks(c)["triage"] is None
    with pytest.raises(InputError, match="triage state"):
        lib.set_triage(a, "love")
    with pytest.raises(InputError, match="mark kind"):
        lib.reading_list("liked")
    assert [h.paper_id for h in lib.search("graph", mode="bm25", starred=True)] in ([], [a])
    assert {h.paper_id for h in lib.browse(tag="to-read")[1]} == {b}


def test_long_queries_keep_their_rarest_terms_with_a_notice(lib: Library) -> None:
    query, notice = cut_query("graph " * 5000)
    assert len(query) <= MAX_QUERY_CHARS and query.split() == ["graph"] * len(query.split())
    assert "characters" in notice and f"{MAX_QUERY_CHARS:,}" in notice
    assert cut_query("graph neural networks") == ("graph neural networks", None)
    query, notice = cut_query("图" * 30_000)
    assert len(query) == MAX_QUERY_CHARS and notice
    # 200 distinct words no paper holds, then the two that matter: position does not decide.
    filler = " ".join(f"zq{i}x" for i in range(200))
    bounded = lib.bound_query(f"{filler} graph sparsify")
    assert bounded.kept[-2:] == ["graph", "sparsify"] and len(bounded.kept) == MAX_QUERY_TERMS
    hits = lib.search(f"{filler} graph sparsify", limit=5, mode="bm25")
    assert hits and "74 of 202 query terms were dropped" in lib.search_notice
    assert {"graph", "sparsify"} <= set(hits[0].terms)


def test_facet_table_follows_the_cards_and_none_means_the_whole_library(lib: Library) -> None:
    everything = lib.facet_counts(None)
    assert everything == lib.facet_counts([p.paper_id for p in lib.papers()])
    assert sum(e["count"] for e in everything["has_code"]) == len(lib)
    before = {e["value"]: e["count"] for e in everything["dataset"]}
    lib.build_cards(rebuild=True)
    assert {e["value"]: e["count"] for e in lib.facet_counts(None)["dataset"]} == before
    conn = lib.store.conn
    (pid,) = conn.execute("SELECT paper_id FROM card_facets WHERE facet = 'dataset' LIMIT 1").fetchone()
    conn.execute(
        "UPDATE cards SET data = json_set(data, '$.datasets', json('[]')) WHERE paper_id = ?", (pid,)
    )
    assert not conn.execute(
        "SELECT 1 FROM card_facets WHERE facet = 'dataset' AND paper_id = ?", (pid,)
    ).fetchone()
    conn.execute("DELETE FROM cards WHERE paper_id = ?", (pid,))
    assert not conn.execute("SELECT 1 FROM card_facets WHERE paper_id = ?", (pid,)).fetchone()


def test_detail_for_the_first_hits_only_and_browse_shows_the_first_sentence(lib: Library) -> None:
    full = lib.search("graph", limit=10, mode="bm25")
    cut = lib.search("graph", limit=10, mode="bm25", detail=3)
    assert [(h.paper_id, h.rank, h.score) for h in cut] == [(h.paper_id, h.rank, h.score) for h in full]
    assert [h.to_dict() for h in cut[:3]] == [h.to_dict() for h in full[:3]]
    assert all(h.snippet == "" and h.label == "" and h.terms == [] for h in cut[3:])
    assert all(h.snippet and h.label for h in full)
    _, page = lib.browse(limit=3)
    for hit in page:
        first = lib.get(hit.paper_id).clean_text[:40]
        assert hit.snippet and hit.snippet[:40] == first[: len(hit.snippet[:40])]
    topics_of = lib.paper_topics([h.paper_id for h in page])
    assert topics_of == {}  # no topic fit yet


def test_the_search_boxes_stop_where_the_search_cuts() -> None:
    from paperscope.map import html as map_html

    assert map_html.MAX_QUERY_CHARS == MAX_QUERY_CHARS
