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


@pytest.mark.parametrize(
    "written",
    [
        "https://github.com/acme/apm",
        "https://github.com/acme/apm/",
        "https://github.com/acme/apm.git",
        "https://github.com/acme/apm/tree/main",
        "http://www.github.com/acme/apm",
        "github.com/acme/apm#readme",
        "https://github.com/acme/apm/blob/main/README.md",
        "https://github.com/acme/apm/issues/3",
        "https://github.com/acme/apm?tab=readme-ov-file",
    ],
)
def test_a_github_repository_has_one_canonical_form(written: str) -> None:
    from paperscope.extract.urls import canonical_code_url

    assert canonical_code_url(written) == "https://github.com/acme/apm"


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        # GitHub keeps the owner's spelling; a folder of a monorepo stays (it is where the code is).
        ("http://www.github.com/Acme/APM.git/", "https://github.com/Acme/APM"),
        (
            "https://github.com/google-research/google-research/tree/master/coltran",
            "https://github.com/google-research/google-research/tree/master/coltran",
        ),
        # GitLab: nested groups up to "/-/", and the older links without it.
        ("https://gitlab.com/group/sub/proj/-/tree/main", "https://gitlab.com/group/sub/proj"),
        ("https://gitlab.com/group/proj.git", "https://gitlab.com/group/proj"),
        ("https://gitlab.com/margother/OPL/tree/master", "https://gitlab.com/margother/OPL"),
        ("https://gitlab.com/g/p/-/tree/main/src/x", "https://gitlab.com/g/p/-/tree/main/src/x"),
        # Bitbucket and Codeberg name their trees "src".
        ("https://bitbucket.org/team/repo/src/master/", "https://bitbucket.org/team/repo"),
        ("https://codeberg.org/o/r/src/branch/main/README.md", "https://codeberg.org/o/r"),
        ("https://codeberg.org/o/r/src/branch/main/lib", "https://codeberg.org/o/r/src/branch/main/lib"),
        # Hugging Face: models, datasets and spaces; a legacy model has one name.
        (
            "https://huggingface.co/microsoft/Phi-mini-MoE-instruct/tree/main",
            "https://huggingface.co/microsoft/Phi-mini-MoE-instruct",
        ),
        (
            "https://huggingface.co/datasets/ChemFM/MolLangBench/viewer",
            "https://huggingface.co/datasets/ChemFM/MolLangBench",
        ),
        ("https://huggingface.co/spaces/moegs/MoE-GS/", "https://huggingface.co/spaces/moegs/MoE-GS"),
        ("https://huggingface.co/gpt2/blob/main/README.md", "https://huggingface.co/gpt2"),
        # An anonymised review copy is one repository.
        (
            "https://anonymous.4open.science/r/APM-1A2B/README.md",
            "https://anonymous.4open.science/r/APM-1A2B",
        ),
        # Not a repository: only the trailing slash and fragment go.
        ("https://github.com/orgs/acme/", "https://github.com/orgs/acme"),
        ("https://zenodo.org/records/123/#files", "https://zenodo.org/records/123"),
    ],
)
def test_canonical_repository_per_host(written: str, canonical: str) -> None:
    from paperscope.extract.urls import canonical_code_url

    assert canonical_code_url(written) == canonical


def test_one_entry_per_repository_case_insensitive_on_github_only() -> None:
    from paperscope.extract.urls import merge_code_urls

    text = (
        "Code: https://github.com/Acme/APM. Mirror: http://www.github.com/acme/apm.git/ and "
        "github.com/ACME/apm/tree/main. Weights: https://huggingface.co/Acme/apm and "
        "https://huggingface.co/acme/apm."
    )
    code, project = extract_urls(text)
    assert code == [
        "https://github.com/Acme/APM",
        "https://huggingface.co/Acme/apm",
        "https://huggingface.co/acme/apm",
    ]
    assert project == []
    # The root and a folder of one repository: the folder says where the code is.
    assert merge_code_urls(
        [
            "https://github.com/g/mono",
            "https://github.com/g/mono/tree/master/tool",
            "https://github.com/g/mono/tree/master/other",
        ]
    ) == ["https://github.com/g/mono/tree/master/tool"]


def test_code_links_written_without_scheme_or_broken() -> None:
    text = "Code is at github.com/acme/apm. See also https: //gitlab.com/acme/apm2 and x@github.com/no."
    assert extract_urls(text)[0] == ["https://github.com/acme/apm", "https://gitlab.com/acme/apm2"]


def test_a_project_page_with_and_without_slash_is_one() -> None:
    assert extract_urls("Demos at https://lab.example.org/demo/. Again: https://lab.example.org/demo.") == (
        [],
        ["https://lab.example.org/demo/"],
    )


def test_a_url_column_on_a_code_host_makes_the_paper_have_code(tmp_path) -> None:
    """The issue's case: a CSV ``url`` column holding a GitHub link, no link in the abstract."""
    from paperscope import Library

    csv = tmp_path / "papers.csv"
    csv.write_text(
        "title,abstract,url\n"
        "APM,We prune large models adaptively and keep their accuracy.,https://github.com/acme/apm/\n"
        "Other,We study sparse attention for long documents.,https://openreview.net/forum?id=abc123\n"
        "Third,We compress graph neural networks with quantisation.,\n",
        encoding="utf-8",
    )
    with Library(tmp_path / "lib.db") as lib:
        lib.ingest([csv])
        with_code = lib.search("models attention graph", limit=10, mode="bm25", has_code=True)
        without = lib.search("models attention graph", limit=10, mode="bm25", has_code=False)
        assert [h.title for h in with_code] == ["APM"]
        assert sorted(h.title for h in without) == ["Other", "Third"]
        card = lib.get(with_code[0].paper_id).card
        assert card is not None and card.code_urls == ["https://github.com/acme/apm"]
