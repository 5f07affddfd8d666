"""``paper_id`` does not move when the readable TeX rendering improves (0.2).

``data/paper_ids_0.1.json`` holds the ids paperscope 0.1 gave: every id of the five example
lists, and for each file of ``../shared/data`` the number of papers and the SHA-256 of its ids in
order (written by 0.1's ``record_to_paper`` on 2026-12-05, before the rendering changed).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from paperscope.config import examples_dir
from paperscope.ingest import detect_format, get_reader
from paperscope.ingest.pipeline import record_to_paper
from paperscope.text import clean_text, identity_text

RECORDED = json.loads((Path(__file__).parent / "data" / "paper_ids_0.1.json").read_text())


def _ids(path: Path) -> list[str]:
    ids = []
    for record in get_reader(detect_format(path))(path):
        paper = record_to_paper(record) if hasattr(record, "abstract") else None
        if paper is not None:
            ids.append(paper.paper_id)
    return ids


@pytest.mark.parametrize("name", sorted(RECORDED["examples"]))
def test_example_list_ids_are_those_of_0_1(name: str) -> None:
    assert _ids(examples_dir() / name) == RECORDED["examples"][name]


@pytest.mark.slow
def test_every_shared_data_id_is_that_of_0_1(shared_data: Path) -> None:
    changed = []
    for relative, recorded in sorted(RECORDED["shared"].items()):
        ids = _ids(shared_data / relative)
        digest = hashlib.sha256("\n".join(ids).encode()).hexdigest()
        if (len(ids), digest) != (recorded["papers"], recorded["sha256"]):
            changed.append(f"{relative}: {len(ids)} papers (recorded {recorded['papers']})")
    assert changed == []


@pytest.mark.parametrize(
    ("original", "shown", "identity"),
    [
        (r"$\max\{0,x\}$", "max{0, x}", "max0,x"),
        (r"in $O(n\log n)$ time", "in O(n log n) time", "in O(nlogn) time"),
        (r"i.i.d.\ and Markovian", "i.i.d. and Markovian", r"i.i.d.\ and Markovian"),
        (r"values in $\{-1,0,1\}$", "values in {-1,0,1}", "values in -1,0,1"),
        (r"$\arg\max_x f(x,y)$", "arg max_x f(x, y)", "max_x f(x,y)"),
        (r"\texttt{EQUAL} in \textsf{PyTorch}", "EQUAL in PyTorch", "in"),
        (
            'the ``right to be forgotten". Next',
            "the “right to be forgotten”. Next",
            'the ``right to be forgotten". Next',
        ),
    ],
)
def test_shown_text_improves_while_identity_text_stays(original: str, shown: str, identity: str) -> None:
    assert clean_text(original) == shown
    assert identity_text(original) == identity
    assert clean_text(shown) == shown  # idempotent: a second cleaning keeps the set's braces


@pytest.mark.parametrize(
    "original",
    [r"{BERT} and {GPT}-4", r"({\em e.g.,} novelty detection", r"$1{,}000$ tokens", "plain prose, no TeX"],
)
def test_tex_grouping_braces_still_go(original: str) -> None:
    cleaned = clean_text(original)
    assert "{" not in cleaned and "}" not in cleaned
    assert "\\" not in cleaned
