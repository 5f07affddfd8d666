"""Code links vs project pages (extract/urls.py); sentences written by us."""

from __future__ import annotations

import pytest

from paperscope.extract.urls import extract_urls


@pytest.mark.parametrize(
    ("text", "code", "project"),
    [
        # A code host is code wherever it appears.
        ("We beat baselines. See https://github.com/lab/tool.", ["https://github.com/lab/tool"], []),
        ("Weights: https://huggingface.co/lab/model", ["https://huggingface.co/lab/model"], []),
        # A project site is code when its sentence says the code is there ...
        (
            "It is fast. Code and models are available at https://lab.github.io/tool.",
            ["https://lab.github.io/tool"],
            [],
        ),
        ("Our implementation lives at \\url{https://tool.example.org}.", ["https://tool.example.org"], []),
        # ... and a project page otherwise; a code cue in an earlier sentence does not count.
        (
            "We release code soon. Demos are at https://lab.github.io/demo.",
            [],
            ["https://lab.github.io/demo"],
        ),
        ("The project is available at: https://bench.example.cc/", [], ["https://bench.example.cc/"]),
        # "decode" and "encoder" are not the word "code".
        ("Our encoder decodes fast; samples at https://x.github.io", [], ["https://x.github.io"]),
    ],
)
def test_code_or_project(text: str, code: list[str], project: list[str]) -> None:
    assert extract_urls(text) == (code, project)
