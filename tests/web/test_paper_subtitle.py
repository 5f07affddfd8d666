"""The grey line under a paper's title: shown only when it says something the title does not."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from browser_helpers import offline_browser, screenshot, serve, text_problems

from paperscope import Library
from paperscope.models import Card
from paperscope.text import readable
from paperscope.web.present import is_echo, paper_subtitle

TITLE = "PAGE: Prompt-Aware Graph Editing for $k$-Means Clustering"


@pytest.mark.parametrize(
    "label",
    [
        TITLE,  # the same
        "PAGE — Prompt-Aware Graph Editing for $k$-Means Clustering",  # title_label's reshaping
        "page: prompt-aware graph editing for k-means clustering",  # case, TeX
        "PAGE:  Prompt‑Aware Graph\nEditing for \\(k\\)-Means Clustering.",  # spaces, a non-breaking hyphen, \( \)
        "PAGE — Prompt-Aware Graph Editing…",  # a title cut short
        "Prompt-Aware Graph Editing",  # contained
        "ＰＡＧＥ: Prompt-Aware Graph Editing for k-Means Clustering",  # full-width letters (NFKC)
        "",
    ],
)
def test_a_label_that_echoes_the_title_is_no_subtitle(label: str):
    assert is_echo(label, TITLE)
    paper = SimpleNamespace(title=TITLE, card=Card(label=label, method_names=[]))
    assert paper_subtitle(paper) == ""


@pytest.mark.parametrize(
    "label",
    [
        "PAGE — graph editing guided by prompts for clustering",  # other words
        "Prompt-Aware Graph Editing for Spectral Clustering",  # a word changed
        "Graph Edit",  # a word cut short is not the title's word
    ],
)
def test_a_label_with_words_of_its_own_is_the_subtitle(label: str):
    assert not is_echo(label, TITLE)
    paper = SimpleNamespace(title=TITLE, card=Card(label=label, method_names=[]))
    assert paper_subtitle(paper) == label


def test_a_paper_without_a_title_has_no_subtitle():
    paper = SimpleNamespace(
        title=None, card=Card(label="Convex functions with $L$-smooth gradients", method_names=[])
    )
    assert paper_subtitle(paper) == ""


@pytest.mark.browser
def test_the_paper_page_shows_its_title_once_and_every_field_as_text(tmp_path: Path):
    records = [
        {
            "title": TITLE,
            "abstract": (
                "We propose PAGE (Prompt-Aware Graph Editing), a method that edits the $k$-nearest"
                " neighbour graph before $k$-means clustering. On CIFAR-10 it improves accuracy by 4.2%"
                " over spectral clustering, and it runs 3x faster than graph-cut baselines."
            ),
            "authors": ["Ada Lovelace"],
        },
        {
            "title": (
                "A Very Long Title About Robust Optimisation Under Distribution Shift With Many Words"
                " That Goes On Well Past The Length Of One Line In A Result List"
            ),
            "abstract": "We study robust optimisation under distribution shift and give bounds for convex losses.",
        },
    ]
    source = tmp_path / "papers.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    lib = Library(tmp_path / "lib.db")
    lib.ingest([source])
    papers = sorted(lib.papers(), key=lambda p: len(p.title or ""))
    assert [p.card.label != p.title for p in papers] == [True, True]  # the labels are reshaped or cut
    try:
        with serve(lib) as url, offline_browser() as browser:
            page, log = browser.new_page()
            for k, paper in enumerate(papers):
                page.goto(f"{url}/paper/{paper.paper_id}")
                heading = page.inner_text("h1#paper-title").strip()
                assert heading == readable(paper.title)  # "for k-Means Clustering"
                assert page.locator(".paper-label").count() == 0
                main = page.inner_text("main")
                assert main.count(heading) == 1
                assert text_problems(main) == []
                fields = page.inner_text("#card-fields")
                assert text_problems(fields) == [] and "undefined" not in fields
                screenshot(page, f"paper_page_no_subtitle_{k}")
            assert log.problems() == []
    finally:
        lib.close()
