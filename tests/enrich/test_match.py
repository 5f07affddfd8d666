"""The matchers themselves: the one-to-one assignment over the pair score, and issue 15's margins.

The margins matcher attaches a pair only when both rankings agree and both margins pass; it is
kept for ``paperscope eval enrich``'s comparison, so its tests name it (``matcher="margins"``).
"""

from __future__ import annotations

import numpy as np
import pytest

from paperscope.enrich.assign import assign
from paperscope.enrich.match import ASSIGNMENT_MIN_ENTRIES, THRESHOLDS, match_program
from paperscope.enrich.program import ProgramEntry
from paperscope.index.bm25 import MemoryBM25

from .conftest import N_PAPERS, REST_OF_PROGRAM, abstract, decoy_title, title

_OPEN = (float("-inf"), float("-inf"))


def _entries(indices: list[int], extra: tuple[str, ...] = ()) -> list[ProgramEntry]:
    titles = [title(i) for i in indices] + list(extra)
    return [ProgramEntry(line=n + 2, title=t) for n, t in enumerate(titles)]


def _index(papers: list[tuple[str, str | None, str]]) -> MemoryBM25:
    return MemoryBM25.build(papers, title_weight=2.0)


def test_agreeing_rankings_attach_the_right_titles() -> None:
    papers = [(f"p{i}", abstract(i)) for i in range(N_PAPERS)]
    entries = _entries(list(range(N_PAPERS)))
    result = match_program(papers, entries, _index([(p, None, t) for p, t in papers]), matcher="margins")
    assert result.mode == "bm25" and result.matcher == "margins"
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
    result = match_program(
        papers, entries, _index(library), thresholds=_OPEN, evidence_floor=0.0, matcher="margins"
    )
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
    result = match_program(papers, entries, index, thresholds=_OPEN, evidence_floor=0.0, matcher="margins")
    assert ("p30", len(entries) - 1) in {(p.paper_id, p.entry) for p in result.attached}
    # and the evidence floor holds it back too: the decoy holds two of paper 30's words of seven
    floored = match_program(papers, entries, index, thresholds=_OPEN, matcher="margins")
    assert ("p30", len(entries) - 1) not in {(p.paper_id, p.entry) for p in floored.attached}


def test_hybrid_mode_needs_both_vector_sets() -> None:
    papers = [(f"p{i}", abstract(i)) for i in range(6)]
    entries = _entries(list(range(6)))
    index = _index([(p, None, t) for p, t in papers])
    vectors = np.eye(6, 8, dtype=np.float32)
    assert match_program(papers, entries, index, paper_vectors=vectors, matcher="margins").mode == "bm25"
    result = match_program(
        papers,
        entries,
        index,
        paper_vectors=vectors,
        title_vectors=vectors,
        thresholds=_OPEN,
        matcher="margins",
    )
    assert result.mode == "hybrid"
    assert {(p.paper_id, p.entry) for p in result.attached} == {(f"p{i}", i) for i in range(6)}


# The one-to-one assignment (issue 23).


def test_two_papers_competing_for_one_entry_get_one_title_between_them() -> None:
    # Both papers like entry 0 best; paper 1 likes entry 1 nearly as much. Each paper's own first
    # would give entry 0 twice; the assignment gives entry 0 to paper 0 and entry 1 to paper 1.
    paper = np.array([0, 1, 1])
    entry = np.array([0, 0, 1])
    proba = np.array([0.9, 0.85, 0.8])
    assert assign(paper, entry, proba, 0.5).tolist() == [0, 2]
    # Without entry 1 only one of them gets entry 0, the surer one; the other keeps no title.
    assert assign(paper[:2], entry[:2], proba[:2], 0.5).tolist() == [0]


def test_the_assignment_maximises_the_whole_matching_not_each_papers_first() -> None:
    # Paper 0's first is entry 0 (0.95), but taking it leaves paper 1 nothing above the floor;
    # the assignment gives paper 0 entry 1 and paper 1 entry 0: logit(0.9) * 2 > logit(0.95).
    paper = np.array([0, 0, 1, 1])
    entry = np.array([0, 1, 0, 1])
    proba = np.array([0.95, 0.9, 0.9, 0.2])
    assert assign(paper, entry, proba, 0.5).tolist() == [1, 2]
    # Raised above 0.9, the floor leaves only the one pair that reaches it.
    assert assign(paper, entry, proba, 0.92).tolist() == [0]


def test_pairs_below_the_floor_are_never_assigned() -> None:
    paper, entry = np.array([0, 1, 2]), np.array([0, 1, 2])
    proba = np.array([0.49, 0.5, 0.99])
    assert assign(paper, entry, proba, 0.5).tolist() == [1, 2]
    assert assign(paper, entry, proba, 1.0).tolist() == []


def test_the_pair_model_attaches_every_title_once_and_leaves_papers_without_an_entry_alone() -> None:
    # 30 papers against the titles of 20 of them and 10 decoys sharing two words of a paper: the
    # 20 get their own titles, the other 10 (whose titles are not in the program) none.
    papers = [(f"p{i}", abstract(i)) for i in range(N_PAPERS)]
    decoys = tuple(decoy_title(i, N_PAPERS + i) for i in range(20, N_PAPERS))
    entries = _entries(list(range(20)), (*decoys, *REST_OF_PROGRAM))
    result = match_program(papers, entries, _index([(p, None, t) for p, t in papers]))
    assert result.matcher == "assignment" and result.mode == "bm25"
    assert {(p.paper_id, entries[p.entry].title) for p in result.attached} == {
        (f"p{i}", title(i)) for i in range(20)
    }
    assert all(0.0 <= p.score <= 1.0 for p in result.attached)
    # the papers left without a title keep suggestions, most probable first
    for i in range(20, N_PAPERS):
        found = result.suggestions.get(f"p{i}", [])
        assert [p.score for p in found] == sorted((p.score for p in found), reverse=True)


def test_two_papers_with_one_abstract_leave_their_entry_to_review_and_twin_entries_do_not_break_it() -> None:
    # Two papers with the same abstract compete for paper 5's one entry: nothing tells them
    # apart (each one's gap to the other is 0), so neither gets it; both keep it as their first
    # suggestion, and every other paper gets its own title.
    papers = [(f"p{i}", abstract(i)) for i in range(N_PAPERS)] + [("p5bis", abstract(5))]
    entries = _entries(list(range(N_PAPERS)), REST_OF_PROGRAM)
    result = match_program(papers, entries, _index([(p, None, t) for p, t in papers]))
    given = {p.paper_id: entries[p.entry].title for p in result.attached}
    assert given == {f"p{i}": title(i) for i in range(N_PAPERS) if i != 5}
    assert [entries[result.suggestions[pid][0].entry].title for pid in ("p5", "p5bis")] == [title(5)] * 2
    # Two entries with the same title (an Oral and a Poster row not merged): at most one is used.
    twins = _entries(list(range(N_PAPERS)), (title(7), *REST_OF_PROGRAM))
    result = match_program(papers[:N_PAPERS], twins, _index([(p, None, t) for p, t in papers[:N_PAPERS]]))
    used = [p.entry for p in result.attached]
    assert len(used) == len(set(used)) and sum(twins[e].title == title(7) for e in used) <= 1


def test_an_unknown_matcher_is_refused() -> None:
    papers = [("p0", abstract(0))]
    with pytest.raises(ValueError, match="choose one of: assignment, margins"):
        match_program(papers, _entries([0]), _index([("p0", None, abstract(0))]), matcher="greedy")


def test_a_program_too_small_for_the_pair_model_is_matched_by_the_margins() -> None:
    # 30 titles: the pair model's z-scores over so few entries never reach its floor, so the
    # default matcher runs the margins matcher and still attaches the papers' own titles.
    papers = [(f"p{i}", abstract(i)) for i in range(N_PAPERS)]
    entries = _entries(list(range(N_PAPERS)), ())
    assert len(entries) < ASSIGNMENT_MIN_ENTRIES
    result = match_program(papers, entries, _index([(p, None, t) for p, t in papers]))
    assert result.matcher == "margins"
    attached = {(p.paper_id, entries[p.entry].title) for p in result.attached}
    assert len(attached) >= 20 and all(t == title(int(p[1:])) for p, t in attached)
