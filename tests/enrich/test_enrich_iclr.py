"""``paperscope eval enrich`` on the ICLR 2026 set: both matchers on every setting, on the test half."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperscope.enrich.pair_model import load_pair_model
from paperscope.evaluation.enrich import SETTINGS, format_enrich_eval, run_enrich_eval


@pytest.mark.slow
def test_iclr_titles_from_the_program_both_matchers_on_every_setting(shared_data: Path) -> None:
    result = run_enrich_eval(shared_data / "iclr2026-primary-area")
    text = format_enrich_eval(result)
    assert result["papers"] == result["entries"] == 4302
    assert result["mode"] == "bm25" and result["floor"] == load_pair_model("bm25").floor
    rows = {row["setting"]: row for row in result["settings"]}
    assert list(rows) == list(SETTINGS)
    closed = rows["closed"]
    assert closed["assignment"]["papers"] == closed["margins"]["papers"] == 2151  # the test half
    assert closed["assignment"]["in_program"] == 2151
    for row in result["settings"]:
        for figures in (row["margins"], row["assignment"]):
            assert figures["attached"] >= figures["correct"] > 0, text
        # one to one: no paper and no entry twice among the assignment's titles on a setting
        assert len({w["paper_id"] for w in row["wrong"]}) == len(row["wrong"])
        assert row["assignment"]["attached"] - row["assignment"]["correct"] == len(row["wrong"]), text
    # Issue 23's precision target, met by the assignment in the closed world and with a third of
    # the library in no program; with two thirds 0.9885 (5 of 433 wrong, all on papers whose own
    # title is not in the program). The coverage target of 0.90 is not met (about 0.63-0.67).
    for setting in ("closed", "open 33%"):
        assert rows[setting]["assignment"]["precision"] >= 0.99, text
    assert rows["open 67%"]["assignment"]["precision"] >= 0.985, text
    small_open = rows["small open 67%"]
    assert small_open["assignment"]["precision"] >= 0.98, text
    # ... where issue 15's matcher fell short (0.93 in issue 15's run).
    assert small_open["margins"]["precision"] < 0.98, text
    for setting in SETTINGS:
        assert f"\n{setting:<16} " in text
