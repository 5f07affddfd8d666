"""The ICLR 2026 dev set of ``paperscope eval enrich`` meets issue 15's target on its test half."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperscope.enrich.match import EVIDENCE_FLOOR, THRESHOLDS
from paperscope.evaluation.enrich import format_enrich_eval, run_enrich_eval


@pytest.mark.slow
def test_iclr_titles_from_the_program_meet_the_target(shared_data: Path) -> None:
    result = run_enrich_eval(shared_data / "iclr2026-primary-area")
    text = format_enrich_eval(result)
    assert result["papers"] == result["entries"] == 4302
    assert result["mode"] == "bm25"
    test = result["test_shipped"]
    assert test["papers"] + result["dev"]["papers"] == 4302
    assert test["precision"] >= 0.97 and test["coverage"] >= 0.70, text
    # The shipped thresholds and evidence floor are the dev half's choice (rounded up to two decimals).
    chosen = [*result["thresholds_chosen"], result["evidence_chosen"]]
    shipped = [*THRESHOLDS["bm25"], EVIDENCE_FLOOR["bm25"]]
    assert all(0 <= s - c < 0.01 for s, c in zip(shipped, chosen, strict=True)), text
    assert result["test_small"]["precision"] >= 0.97, text
    # Open worlds: a third and two thirds of the library in no program (papers of other areas).
    assert [round(w["share"], 2) for w in result["open"]] == [0.33, 0.67]
    for world in result["open"]:
        assert world["test"]["in_program"] < world["test"]["papers"]
        # the floor is what holds precision there: the margins alone let orphans' titles through
        assert world["test"]["precision"] > world["test_margins_only"]["precision"], text
        assert world["test"]["precision"] >= 0.97 and world["test"]["coverage"] >= 0.70, text
    assert "met (shipped thresholds, test half, closed and open worlds)" in text
    # The trial's shape (300 papers, two thirds in no program) is printed; the floor helps there
    # but the target is not met yet (0.93 at the shipped thresholds), so only that is checked.
    small_open = result["test_small_open"]
    assert small_open["precision"] > small_open["precision_margins_only"], text
    assert "small open libraries (3 x 300 test papers, 67% in no program)" in text
