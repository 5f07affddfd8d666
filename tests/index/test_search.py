from __future__ import annotations

from pathlib import Path

import pytest

from paperscope import InputError, Library
from paperscope.index.fusion import Fusion, fuse_rrf, fuse_scores
from paperscope.index.search import Legs, fuse_legs

F1 = (
    "ICML 2026 Papers\n\nWe present APM, an adaptive pruning method that reaches a 9.6$\\times$ speedup"
    " on CIFAR-10 while keeping state-of-the-art accuracy. Code: https://github.com/acme/apm.\n"
    """

We revisit loss::mse style objectives and don't-care labels for sequence tagging.
"""
)


def _write(path: Path, body: str) -> Path:
    path.write_text(body, encoding="utf-8")
    return path


@pytest.fixture
def fake_library(tmp_path: Path) -> Library:
    lib = Library(tmp_path / "lib.db", embedder="fake")
    yield lib
    lib.close()


# A hand-built 5-document example: BM25 and cosine scores of d1..d5 for one query.
BM25 = [("d1", 10.0), ("d2", 8.0), ("d3", 2.0)]
DENSE = [("d4", 0.9), ("d3", 0.8), ("d2", 0.5), ("d5", 0.1), ("d1", -0.2)]


def test_tm2c2_fusion_on_five_documents():
    # bm25 / 10 (theoretical min 0); (cos + 1) / 1.9 (theoretical min -1); weights 0.5 / 0.5.
    fused = dict(fuse_scores({"bm25": BM25, "dense": DENSE}, {"bm25": 0.5, "dense": 0.5}))
    assert fused == pytest.approx(
        {
            "d1": 0.5 * 1.0 + 0.5 * 0.8 / 1.9,
            "d2": 0.5 * 0.8 + 0.5 * 1.5 / 1.9,
            "d3": 0.5 * 0.2 + 0.5 * 1.8 / 1.9,
            "d4": 0.5 * 0.0 + 0.5 * 1.0,
            "d5": 0.5 * 0.0 + 0.5 * 1.1 / 1.9,
        }
    )
    order = [pid for pid, _ in fuse_scores({"bm25": BM25, "dense": DENSE}, {"bm25": 0.5, "dense": 0.5})]
    assert order == ["d2", "d1", "d3", "d4", "d5"]


def test_weights_move_the_fused_order():
    # d4 0.8, d3 0.04 + 0.8 * 1.8 / 1.9 = 0.798, d2 0.16 + 0.8 * 1.5 / 1.9 = 0.792, d1 0.537.
    dense_heavy = fuse_scores({"bm25": BM25, "dense": DENSE}, {"bm25": 0.2, "dense": 0.8})
    assert [pid for pid, _ in dense_heavy] == ["d4", "d3", "d2", "d1", "d5"]


def test_bm25_floor_applies_to_papers_outside_a_cut_list():
    fused = dict(
        fuse_scores({"bm25": BM25, "dense": DENSE}, {"bm25": 1.0, "dense": 0.0}, floors={"bm25": 2.0})
    )
    assert fused["d4"] == pytest.approx(0.2)
    assert fused["d5"] == pytest.approx(0.2)


def test_rrf_matches_hand_computation():
    fused = dict(fuse_rrf({"bm25": BM25, "dense": DENSE}))
    assert fused["d2"] == pytest.approx(1 / 62 + 1 / 63)
    assert fused["d4"] == pytest.approx(1 / 61)
    assert [pid for pid, _ in fuse_rrf({"bm25": BM25, "dense": DENSE})][:3] == ["d2", "d3", "d1"]


def test_fuse_legs_reports_each_legs_rank_and_score():
    legs = Legs(lists={"bm25": BM25, "dense": DENSE}, floors={"bm25": 0.0})
    ranked = fuse_legs(legs, 2, "hybrid", Fusion(weights={"bm25": 0.5, "dense": 0.5}))
    assert [r.paper_id for r in ranked] == ["d2", "d1"]
    assert ranked[0].legs == {"bm25": {"rank": 2, "score": 8.0}, "dense": {"rank": 3, "score": 0.5}}
    assert ranked[1].rank == 2


def test_unknown_normaliser_is_refused():
    with pytest.raises(ValueError, match="unknown normaliser 'rank'"):
        fuse_scores({"bm25": BM25}, {"bm25": 1.0}, normaliser="rank")


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_case1_queries_never_fail(fake_library, tmp_path, mode):
    fake_library.ingest([_write(tmp_path / "f1.txt", F1)])
    apm = fake_library.search("pruning", mode="bm25")[0].paper_id
    for query in ["CIFAR-10", "state-of-the-art"]:
        assert fake_library.search(query, mode=mode)[0].paper_id == apm
    for query in [
        "9.6x",
        "C$^2$R",
        "don't",
        "loss::mse",
        '"',
        "(",
        "*",
        "AND",
        "NOT",
        "%",
        "_",
        "' OR '1'='1",
    ]:
        fake_library.search(query, mode=mode)
    assert fake_library.search("the of and", mode=mode) == []
    assert len(fake_library) == 2


def test_made_up_word_returns_nothing_in_hybrid(fake_library, tmp_path):
    fake_library.ingest([_write(tmp_path / "f1.txt", F1)])
    assert fake_library.search("zqxjv") == []


def test_unknown_mode_names_the_valid_ones(fake_library):
    with pytest.raises(InputError, match="unknown search mode 'fuzzy'; choose one of: hybrid, bm25, dense"):
        fake_library.search("pruning", mode="fuzzy")


def test_hits_report_both_legs(fake_library, icml_dir):
    fake_library.ingest([icml_dir])
    top = fake_library.search("dataset distillation", limit=3)[0]
    assert set(top.legs) == {"bm25", "dense"}
    assert top.legs["bm25"]["rank"] == 1
    assert top.to_dict()["legs"] == top.legs


def _two_venues(tmp_path: Path) -> list[Path]:
    icml = "ICML 2026 Papers\n\n" + "\n\n".join(
        f"We study graph pruning variant {i} with sparse masks and pruning schedules." for i in range(30)
    )
    neurips = "NeurIPS 2025 Papers\n\n" + "\n\n".join(
        f"A note on pruning number {i} for convolutional networks." for i in range(12)
    )
    return [_write(tmp_path / "icml.txt", icml), _write(tmp_path / "neurips.txt", neurips)]


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_filters_apply_before_the_top_k_cut(fake_library, tmp_path, mode):
    fake_library.ingest(_two_venues(tmp_path))
    unfiltered = fake_library.search("graph pruning sparse masks schedules", limit=10, mode=mode)
    assert all(fake_library.get(h.paper_id).venue == "ICML" for h in unfiltered)
    hits = fake_library.search("pruning", limit=10, mode=mode, venue="neurips")
    assert len(hits) == 10
    assert {fake_library.get(h.paper_id).venue for h in hits} == {"NeurIPS"}
    assert len(fake_library.search("pruning", limit=50, mode=mode, year=2025)) == 12
    assert fake_library.search("pruning", mode=mode, venue="AAAI") == []


def test_has_code_filter(fake_library, tmp_path):
    fake_library.ingest([_write(tmp_path / "f1.txt", F1)])
    hits = fake_library.search("pruning sequence tagging", mode="bm25", has_code=True)
    assert [fake_library.get(h.paper_id).card.code_urls for h in hits] == [["https://github.com/acme/apm"]]
    without = fake_library.search("pruning sequence tagging", mode="bm25", has_code=False)
    assert len(without) == 1 and without[0].paper_id != hits[0].paper_id


def test_filter_values_are_not_wildcards(fake_library, tmp_path):
    fake_library.ingest(_two_venues(tmp_path))
    assert fake_library.search("pruning", venue="%") == []
    assert fake_library.search("pruning", decision="_") == []
    assert len(fake_library) == 42


def test_a_filter_keeps_exactly_the_unfiltered_hits_that_pass_it(fake_library, tmp_path):
    fake_library.ingest(_two_venues(tmp_path))
    # "graph" matches only ICML papers; a NeurIPS paper is a hit only as a close dense match, and
    # the filter shows the same NeurIPS papers the unfiltered list (and its facet counts) held.
    everything = fake_library.search("graph", limit=1000)
    assert any(set(h.legs) == {"bm25", "dense"} for h in everything)
    hits = fake_library.search("graph", limit=1000, venue="neurips")
    expected = [h.paper_id for h in everything if fake_library.get(h.paper_id).venue == "NeurIPS"]
    assert [h.paper_id for h in hits] == expected
    assert all(set(h.legs) == {"dense"} for h in hits)
    # A word no paper has anywhere still returns nothing, filter or not.
    assert fake_library.search("zqxjv", venue="neurips") == []


def test_query_vectors_are_cached_per_model_and_text() -> None:
    import numpy as np

    from paperscope.index.embed import FakeEmbedder
    from paperscope.index.search import QUERY_VECTOR_CACHE_SIZE, query_vector

    class Counting(FakeEmbedder):
        calls = 0

        def embed(self, texts, progress=False):
            Counting.calls += 1
            return super().embed(texts, progress)

    small, large = Counting(dim=16), Counting(dim=32)
    first = query_vector(small, "graph pruning")
    again = query_vector(small, "graph pruning")
    assert again is first and Counting.calls == 1 and not first.flags.writeable
    np.testing.assert_array_equal(first, FakeEmbedder(dim=16).embed(["graph pruning"])[0])
    assert query_vector(large, "graph pruning").shape == (32,) and Counting.calls == 2
    for i in range(QUERY_VECTOR_CACHE_SIZE):
        query_vector(small, f"query {i}")
    calls = Counting.calls
    query_vector(small, "graph pruning")  # pushed out of the LRU: embedded again
    assert Counting.calls == calls + 1


@pytest.mark.parametrize("limit", [1, 3, 10])
def test_hybrid_search_equals_the_floor_applied_to_the_whole_fused_list(fake_library, icml_dir, limit):
    """search_papers details only the hits it returns; they equal the full list's, floored and cut."""
    from paperscope.index.fusion import DEFAULT_FUSION
    from paperscope.index.search import above_relevance_floor, collect_legs, search_papers

    fake_library.ingest([icml_dir])
    lib = fake_library
    queries = [
        "diffusion models",
        "graph neural networks for molecules",
        "pruning",
        "low-rank adaptation LoRA",
    ]
    compared = 0
    for query in queries:
        options = {
            "mode": "hybrid",
            "embedder": lib.query_embedder,
            "dense_index": lib._query_dense_index,
            "memory_bm25": lambda: lib.memory_bm25(build=False),
        }
        got = search_papers(lib.store, query, limit, **options)
        depth = max(limit, DEFAULT_FUSION.candidates)
        legs = collect_legs(lib.store, query, depth, **options)
        whole = above_relevance_floor(fuse_legs(legs, depth, "hybrid", DEFAULT_FUSION), legs)
        assert [(h.paper_id, h.rank, h.score, h.legs) for h in got] == [
            (h.paper_id, h.rank, h.score, h.legs) for h in whole[:limit]
        ]
        assert got.below_floor == whole.below_floor
        compared += len(got)
    assert compared >= limit * 2


def test_every_hybrid_limit_is_a_prefix_of_one_ordering(fake_library, icml_dir):
    """The web page's pool (200 hits), the command line's 10 and API pages walk one ordering.

    ``fusion.candidates`` is made small (8) so that lists on this small library span both
    sections: a BM25 list cut deeper once gave papers outside it a lower floor and reordered
    the head, and pages of ``/api/search`` skipped and repeated papers.
    """
    from dataclasses import replace

    from paperscope.index.fusion import DEFAULT_FUSION
    from paperscope.index.search import search_papers

    fake_library.ingest([icml_dir])
    lib = fake_library
    fusion = replace(DEFAULT_FUSION, candidates=8)
    options = {
        "mode": "hybrid",
        "embedder": lib.query_embedder,
        "dense_index": lib._query_dense_index,
        "memory_bm25": lambda: lib.memory_bm25(build=False),
        "fusion": fusion,
    }
    queries = [
        "model",
        "learning",
        "training",
        "data",
        "diffusion models",
        "graph neural networks for molecules",
    ]
    long_lists = 0
    for query in queries:
        whole = search_papers(lib.store, query, 80, **options)
        shown = [(h.paper_id, h.score, h.legs) for h in whole]
        for limit in (1, 3, 8, 13, 25, 40, 70):
            part = search_papers(lib.store, query, limit, **options)
            assert [(h.paper_id, h.score, h.legs) for h in part] == shown[:limit], (query, limit)
        scores = [h.score for h in whole]
        assert scores == sorted(scores, reverse=True)
        assert len({pid for pid, _, _ in shown}) == len(shown)
        long_lists += len(whole) > 8  # a deeper section placed papers
    assert long_lists >= 2
