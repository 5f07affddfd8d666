"""Issue 24: a paragraph is a query. Bounded by cost (rarest terms kept), never cut at a position."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperscope import Library
from paperscope.evaluation.qrels import read_iclr_papers
from paperscope.evaluation.text_queries import method_sentences
from paperscope.index.bounds import MAX_QUERY_TERMS, bound_query, surface_terms
from paperscope.index.fusion import Fusion
from paperscope.index.search import RELEVANCE_FLOOR_BM25


@pytest.fixture(scope="module")
def iclr_library(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> tuple[Library, list]:
    """800 real ICLR 2026 papers, titles withheld (the abstract alone must carry the match)."""
    items = read_iclr_papers(shared_data / "iclr2026-primary-area")[::5][:800]
    folder = tmp_path_factory.mktemp("iclr")
    listing = folder / "iclr.txt"
    listing.write_text(
        "ICLR 2026 Papers\n\n" + "\n\n".join(" ".join(it.abstract.split()) for it in items) + "\n",
        encoding="utf-8",
    )
    lib = Library(folder / "lib.db", embedder="fake")
    lib.ingest([listing])
    yield lib, items
    lib.close()


def test_a_pasted_300_word_abstract_finds_its_paper_first_and_says_what_was_dropped(iclr_library) -> None:
    lib, items = iclr_library
    long = max(items, key=lambda it: len(it.abstract.split()))
    assert len(long.abstract.split()) >= 280, "the longest abstract of the sample is a pasted page"
    assert len(surface_terms(long.abstract)) > MAX_QUERY_TERMS
    for mode in ("bm25", "hybrid"):
        hits = lib.search(long.abstract, limit=5, mode=mode)
        assert lib.get(hits[0].paper_id).abstract == " ".join(long.abstract.split()), mode
        dropped = len(surface_terms(long.abstract)) - MAX_QUERY_TERMS
        assert (
            f"{dropped} of {len(surface_terms(long.abstract))} query terms were dropped" in lib.search_notice
        )


def test_the_kept_terms_are_the_rarest_and_ties_keep_the_first() -> None:
    frequency = {"graph": 50, "sparsifier": 2, "spectral": 2, "the": 0, "method": 90}
    text = "method graph spectral sparsifier " + " ".join(f"w{i}" for i in range(70))
    df = {**frequency, **{f"w{i}": 60 for i in range(70)}}
    bounded = bound_query(text, lambda terms: {t: df[t] for t in terms if df.get(t)}, 100, max_terms=64)
    assert len(bounded.kept) == 64
    assert {"spectral", "sparsifier", "graph"} <= set(bounded.kept)
    assert "method" in bounded.dropped  # the most common term goes first
    # 70 ties at df 60: the first 61 are kept, the last 9 dropped, in query order.
    assert [t for t in bounded.dropped if t.startswith("w")] == [f"w{i}" for i in range(61, 70)]
    assert bounded.lexical.split() == bounded.kept


def test_a_short_query_is_used_whole_and_an_unknown_word_is_named(iclr_library) -> None:
    lib, _ = iclr_library
    bounded = lib.bound_query("graph-based oversmoothingzz")
    assert bounded.lexical == "graph-based oversmoothingzz" and not bounded.dropped
    hits = lib.search("graph oversmoothingzz", limit=5, mode="hybrid")
    assert hits and lib.search_notice == "no paper mentions 'oversmoothingzz'; showing the closest"
    lib.search("graph neural networks", limit=5)
    assert lib.search_notice is None


def test_method_sentences_skip_the_background_and_keep_what_the_authors_did() -> None:
    abstract = (
        "Large models are costly. Prior work prunes weights. We propose SparseX, a pruning rule."
        " Our method keeps accuracy. Results hold on ImageNet."
    )
    assert method_sentences(abstract) == "We propose SparseX, a pruning rule. Our method keeps accuracy."
    assert method_sentences("One sentence only.") == ""
    assert method_sentences("Background here. Second one. Third one.") == "Second one. Third one."


def test_fusion_weights_follow_the_query_length() -> None:
    fusion = Fusion(
        weights={"bm25": 0.4, "dense": 0.6}, weights_long={"bm25": 0.1, "dense": 0.9}, length_knots=(4, 16)
    )
    assert fusion.weights_for(2) == {"bm25": 0.4, "dense": 0.6}
    assert fusion.weights_for(16) == {"bm25": 0.1, "dense": 0.9}
    middle = fusion.weights_for(8)  # halfway in log(terms)
    assert middle["dense"] == pytest.approx(0.75) and middle["bm25"] == pytest.approx(0.25)
    glossed = Fusion(glossed_weights={"bm25": 0.2, "dense": 0.8}, weights_long={"bm25": 0.0, "dense": 1.0})
    assert glossed.weights_for(40, glossed=True) == {"bm25": 0.2, "dense": 0.8}


def _ranked(*rows: tuple[str, float | None, float | None]) -> list:
    from paperscope.index.search import RankedPaper

    out = []
    for rank, (pid, bm25, cosine) in enumerate(rows, start=1):
        legs = {}
        if bm25 is not None:
            legs["bm25"] = {"rank": rank, "score": bm25}
        if cosine is not None:
            legs["dense"] = {"rank": rank, "score": cosine}
        out.append(RankedPaper(pid, 1.0 / rank, rank, legs))
    return out


def test_the_relevance_floor_keeps_lexical_or_close_matches_and_renumbers() -> None:
    from paperscope.index.search import Legs, above_relevance_floor

    legs = Legs(lists={"bm25": [("a", 10.0), ("b", 2.0)], "dense": []}, best_bm25=10.0)
    ranked = _ranked(("a", 10.0, 0.6), ("c", None, 0.1), ("b", 4.0, 0.2), ("d", None, 0.45), ("e", 5.5, None))
    kept = above_relevance_floor(ranked, legs)
    assert [(h.paper_id, h.rank) for h in kept] == [("a", 1), ("d", 2), ("e", 3)]
    assert kept.below_floor == 1  # "b": the BM25 leg matched it, the floor left it out
    # Under a filter the reference is the whole library's best score, not the filtered list's.
    filtered = Legs(lists={"bm25": [("e", 5.5)], "dense": []}, best_bm25=12.0)
    kept = above_relevance_floor(_ranked(("e", 5.5, 0.1), ("d", None, 0.45)), filtered)
    assert [(h.paper_id, h.rank) for h in kept] == [("d", 1)]
    # A one-word query keeps every paper that contains the word, however far below the best.
    one_word = Legs(lists=legs.lists, best_bm25=10.0, n_terms=1)
    kept = above_relevance_floor(_ranked(("a", 10.0, 0.6), ("c", None, 0.1), ("b", 0.4, 0.2)), one_word)
    assert [(h.paper_id, h.rank) for h in kept] == [("a", 1), ("b", 2)]
    assert kept.below_floor == 0
    glossed = Legs(lists=legs.lists, best_bm25=10.0, n_terms=1, glossed=True)
    assert [
        h.paper_id for h in above_relevance_floor(_ranked(("a", 10.0, 0.6), ("b", 0.4, 0.2)), glossed)
    ] == ["a"]
    # No BM25 match at all: the dense hits stand (the made-up-word rule filtered them already).
    alone = _ranked(("x", None, 0.3), ("y", None, 0.26))
    assert [h.paper_id for h in above_relevance_floor(alone, Legs(lists={"bm25": [], "dense": []}))] == [
        "x",
        "y",
    ]


@pytest.mark.model
def test_a_hybrid_count_describes_the_papers_that_match(tmp_path: Path, icml_dir: Path) -> None:
    lib = Library(tmp_path / "icml.db", embedder="minilm")
    lib.ingest([icml_dir])
    everything = len(lib)
    hits = lib.search("dataset distillation", limit=200, mode="hybrid")
    assert 0 < len(hits) < everything / 4, f"{len(hits)} of {everything} papers"
    assert all("distill" in (lib.get(h.paper_id).clean_text.lower()) for h in hits[:2])
    dense = lib.search("dataset distillation", limit=200, mode="dense")
    assert len(dense) == everything  # dense mode ranks every paper, as asked
    lib.close()


def test_a_short_hybrid_list_says_how_many_weaker_matches_it_left_out(icml_library: Library) -> None:
    lexical = {h.paper_id for h in icml_library.search("dataset distillation", limit=200, mode="bm25")}
    assert icml_library.search_notice is None
    hybrid = {h.paper_id for h in icml_library.search("dataset distillation", limit=200)}
    left_out = len(lexical - hybrid)
    assert left_out >= 2
    assert icml_library.search_notice == (
        f"{left_out} more papers match the query's words less than half as strongly as the best"
        " match in the library; BM25 mode lists them"
    )
    # Asked for as many as pass the floor, it gives them all (the floor applies before the cut),
    # and a list as long as asked hides nothing it had room for: no notice.
    few = icml_library.search("dataset distillation", limit=len(hybrid))
    assert {h.paper_id for h in few} == hybrid and icml_library.search_notice is None
    icml_library.search("dataset distillation", limit=200, mode="dense")
    assert icml_library.search_notice is None


def test_a_one_word_search_lists_every_paper_that_says_it(icml_library: Library) -> None:
    lexical = {h.paper_id for h in icml_library.search("pruning", limit=200, mode="bm25")}
    hybrid = {h.paper_id for h in icml_library.search("pruning", limit=200)}
    assert len(lexical) >= 3 and lexical <= hybrid


def test_a_search_by_example_measures_the_floor_without_the_example(icml_library: Library) -> None:
    _, page = icml_library.browse(limit=1)
    example = icml_library.get(page[0].paper_id)
    text = " ".join(example.clean_text.split()[:14])  # a sentence: the floor applies
    others = icml_library.search(text, limit=200, mode="bm25", exclude={example.paper_id})
    best_other = others[0].legs["bm25"]["score"]
    close = {h.paper_id for h in others if h.legs["bm25"]["score"] >= RELEVANCE_FLOOR_BM25 * best_other}
    hybrid = {h.paper_id for h in icml_library.search(text, limit=200, exclude={example.paper_id})}
    # Measured against the example's own score (several times any other's) most would be cut.
    assert example.paper_id not in hybrid and close <= hybrid and len(close) >= 2


def test_a_pasted_paragraph_ranks_the_whole_library(icml_library: Library) -> None:
    from paperscope.index.search import RELEVANCE_FLOOR_MAX_TERMS

    _, page = icml_library.browse(limit=1)
    text = icml_library.get(page[0].paper_id).clean_text
    assert len(surface_terms(text)) > RELEVANCE_FLOOR_MAX_TERMS
    assert len(icml_library.search(text, limit=200)) == len(icml_library)
    short = icml_library.search("dataset distillation", limit=200)
    assert 0 < len(short) < len(icml_library)
