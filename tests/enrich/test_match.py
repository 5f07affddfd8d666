"""The matching rule itself: a pair is attached only when both rankings agree and both margins pass."""

from __future__ import annotations

from paperscope.enrich.match import THRESHOLDS, match_program
from paperscope.enrich.program import ProgramEntry
from paperscope.index.bm25 import MemoryBM25

from .conftest import N_PAPERS, abstract, decoy_title, title

_OPEN = (float("-inf"), float("-inf"))


def _entries(indices: list[int], extra: tuple[str, ...] = ()) -> list[ProgramEntry]:
    titles = [title(i) for i in indices] + list(extra)
    return [ProgramEntry(line=n + 2, title=t) for n, t in enumerate(titles)]


def _index(papers: list[tuple[str, str | None, str]]) -> MemoryBM25:
    return MemoryBM25.build(papers, title_weight=2.0)


def test_agreeing_rankings_attach_the_right_titles() -> None:
    papers = [(f"p{i}", abstract(i)) for i in range(N_PAPERS)]
    entries = _entries(list(range(N_PAPERS)))
    result = match_program(papers, entries, _index([(p, None, t) for p, t in papers]))
    assert result.mode == "bm25"
    assert {(p.paper_id, entries[p.entry].title) for p in result.attached} == {
        (f"p{i}", title(i)) for i in range(N_PAPERS)
    }
    assert all(
        p.a_margin >= THRESHOLDS["bm25"][0] and p.b_margin >= THRESHOLDS["bm25"][1] for p in result.attached
    )


def test_a_disagreement_is_never_attached_even_without_thresholds() -> None:
    # Paper 30's own title is not in the program; the only entry sharing its words (two of them)
    # is a decoy that holds all four words of paper 5, which has a title in the library. Leg A
    # puts the decoy first for paper 30, leg B puts paper 5 first for the decoy: no agreement.
    papers = [(f"p{i}", abstract(i)) for i in range(N_PAPERS + 1) if i != 5]
    library = [(p, None, t) for p, t in papers] + [("p5", title(5), abstract(5))]
    entries = _entries([i for i in range(N_PAPERS) if i != 5], (decoy_title(30, 5),))
    decoy = len(entries) - 1
    result = match_program(papers, entries, _index(library), thresholds=_OPEN, evidence_floor=0.0)
    assert "p30" not in {p.paper_id for p in result.attached}
    assert all(p.entry != decoy for p in result.attached)
    assert result.ranked["p30"][0].entry == decoy  # it is offered as a suggestion instead
    assert result.suggestions["p30"][0].a_rank == 1 and result.suggestions["p30"][0].b_rank != 1


def test_the_same_decoy_is_attached_when_nothing_contradicts_it() -> None:
    # The control of the test above: without paper 5 in the library both legs pick the decoy,
    # so the rule (not the fixture) is what kept it out.
    papers = [(f"p{i}", abstract(i)) for i in range(N_PAPERS + 1) if i != 5]
    entries = _entries([i for i in range(N_PAPERS) if i != 5], (decoy_title(30, 5),))
    index = _index([(p, None, t) for p, t in papers])
    result = match_program(papers, entries, index, thresholds=_OPEN, evidence_floor=0.0)
    assert ("p30", len(entries) - 1) in {(p.paper_id, p.entry) for p in result.attached}
    # and the evidence floor holds it back too: the decoy holds two of paper 30's words of seven
    floored = match_program(papers, entries, index, thresholds=_OPEN)
    assert ("p30", len(entries) - 1) not in {(p.paper_id, p.entry) for p in floored.attached}


def test_hybrid_mode_needs_both_vector_sets() -> None:
    import numpy as np

    papers = [(f"p{i}", abstract(i)) for i in range(6)]
    entries = _entries(list(range(6)))
    index = _index([(p, None, t) for p, t in papers])
    vectors = np.eye(6, 8, dtype=np.float32)
    assert match_program(papers, entries, index, paper_vectors=vectors).mode == "bm25"
    result = match_program(
        papers, entries, index, paper_vectors=vectors, title_vectors=vectors, thresholds=_OPEN
    )
    assert result.mode == "hybrid"
    assert {(p.paper_id, p.entry) for p in result.attached} == {(f"p{i}", i) for i in range(6)}
