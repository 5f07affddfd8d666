"""Exports read back by the tools a reader uses: bibtexparser, pybtex, rispy, citeproc-py, our CSV reader.

On the 95 ICML 2026 example papers (title-less lists: the label is the title), on synthetic
records holding every hard character the shared data has, and (slow) on the ICLR 2026 CSVs and
an airas list with authors from ../shared/data.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import rispy

from paperscope import Library
from paperscope.triage.citekeys import base_key
from paperscope.triage.entry import LABEL_NOTE
from paperscope.triage.venues import venue_info
from roundtrip_checks import bibtexparser_fields, csl_items, differences, norm, pybtex_differences


@pytest.fixture(scope="module")
def icml(tmp_path_factory: pytest.TempPathFactory, icml_dir: Path) -> Library:
    lib = Library(tmp_path_factory.mktemp("icml") / "icml.db")
    lib.ingest([icml_dir], embed=False)
    yield lib
    lib.close()


@pytest.fixture
def hard(tmp_path: Path) -> Library:
    """Records with the characters that broke the old BibTeX export, taken from real abstracts."""
    records = [
        {
            "title": "A^2TG: $100K or {LLMs}} -- ``Noisier'' D&R_2 #1 at 100% ~ \\ Gödel 中文",
            "authors": [
                "Jane van der Berg",
                "José María de la Cruz",
                "张伟",
                "Takehisa Nishida & Kazuo Muto",
            ],
            "abstract": "We propose Single-stage Sparse Retrieval (SSR}, replacing Δ_θ-Δ_ref with max{0,Δ_ref}, up"
            " to {367×} more tokens; the attack got a $2000 bounty, 45.2% cheaper, F^d to F, x~y, a\\b,"
            " tasks-- from ``sensitive\" and \"Tower of Babel'' dilemma, #1 on A&B, 50_000 steps!`.",
            "venue": "ICLR 2026 Conference",
            "year": 2026,
            "url": "https://openreview.net/forum?id=AbC_123",
            "code_url": "https://github.com/acme/ssr",
            "doi": "10.1234/abc.5",
            "arxiv_id": "2601.01234",
        },
        {
            "title": "Deep Thoughts on Deep Nets",
            "authors": ["Jane Berg"],
            "abstract": "A second paper by the same first author, same year and title word, for the suffixes.",
            "venue": "TMLR",
            "year": 2026,
        },
        {
            "title": "Deep Learning, Again",
            "authors": ["J. Berg"],
            "abstract": "A third one with the same base key, a rejected submission to ICML.",
            "venue": "ICML 2026",
            "decision": "Reject",
            "year": 2026,
        },
    ]
    path = tmp_path / "hard.json"
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    lib = Library(tmp_path / "hard.db")
    lib.ingest([path], embed=False)
    yield lib
    lib.close()


def test_bibtex_round_trip_on_the_icml_papers(icml: Library) -> None:
    papers = list(icml.papers())
    keys = icml.citation_keys()
    text = "".join(icml.export("bibtex"))
    assert len(papers) == 95 and text.count("@inproceedings{") == 95
    assert differences(papers, keys, bibtexparser_fields(text)) == []
    # pybtex reads everything back but the characters it has no escape for ("SSR}" in one abstract).
    assert pybtex_differences(papers, keys, text) == (1, [])
    # Every entry is an ICML paper with its proceedings name, and says its title is our label.
    parsed = bibtexparser_fields(text)
    assert {p["venue"] for p in parsed.values()} == {"International Conference on Machine Learning"}
    assert text.count(LABEL_NOTE) == 95


def test_bibtex_round_trip_of_hard_characters(hard: Library) -> None:
    papers = list(hard.papers())
    keys = hard.citation_keys()
    text = "".join(hard.export("bibtex"))
    assert differences(papers, keys, bibtexparser_fields(text)) == []
    # pybtex reads everything back but the characters it has no escape for.
    assert pybtex_differences(papers, keys, text)[1] == []
    first = text.split("\n\n")[0]
    assert first.startswith("@inproceedings{berg2026a2tg,")
    for line in (
        "  booktitle = {International Conference on Learning Representations},",
        "  url = {https://openreview.net/forum?id=AbC_123},",
        "  doi = {10.1234/abc.5},",
        "  eprint = {2601.01234},",
        "  archiveprefix = {arXiv},",
        "  code = {https://github.com/acme/ssr},",
    ):
        assert line in first
    assert "{A²TG:}" in first and "{LLMs\\rbrace{}}" in first  # case-protected words


def test_entry_types_keys_and_rejected_submissions(hard: Library) -> None:
    text = "".join(hard.export("bibtex"))
    heads = re.findall(r"^@(\w+)\{([^,]+),", text, re.M)
    assert heads == [
        ("inproceedings", "berg2026a2tg"),
        ("article", "berg2026deep"),
        ("misc", "berg2026deepa"),
    ]
    assert "journal = {Transactions on Machine Learning Research}" in text
    rejected = text.split("@misc")[1]
    assert "booktitle" not in rejected
    assert "Submitted to International Conference on Machine Learning 2026 (decision: Reject)." in rejected


def test_ris_round_trip(icml: Library, hard: Library) -> None:
    keys = icml.citation_keys()
    records = rispy.loads("".join(icml.export("ris")))
    papers = {p.paper_id: p for p in icml.papers()}
    assert len(records) == 95
    by_key = {r["id"]: r for r in records}
    for pid, paper in papers.items():
        record = by_key[keys[pid]]
        assert record["type_of_reference"] == "CPAPER"
        assert record["title"] == norm(paper.label)
        assert record["abstract"] == norm(paper.clean_text)
        assert record["secondary_title"] == "International Conference on Machine Learning"
        assert record["year"] == "2026" and record["publisher"] == "PMLR"
        assert LABEL_NOTE in record["notes"]
    first, second, third = rispy.loads("".join(hard.export("ris")))
    assert first["authors"] == [
        "van der Berg, Jane",
        "de la Cruz, José María",
        "张伟",
        "Muto, Takehisa Nishida & Kazuo",
    ]
    assert (first["doi"], first["urls"]) == (
        "10.1234/abc.5",
        ["https://openreview.net/forum?id=AbC_123", "https://github.com/acme/ssr"],
    )
    assert norm(first["abstract"]) == norm(next(hard.papers()).clean_text)
    assert (second["type_of_reference"], third["type_of_reference"]) == ("JOUR", "GEN")


def test_csl_json_is_strict_and_renders_with_citeproc(icml: Library, hard: Library) -> None:
    from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
    from citeproc.source.json import CiteProcJSON

    items = csl_items("".join(icml.export("csl-json"))) + csl_items("".join(hard.export("csl-json")))
    assert len(items) == 98 and len({i["id"] for i in items}) == 98
    assert {i["type"] for i in items} == {"paper-conference", "article-journal", "article"}
    hard_first = items[95]
    assert hard_first["author"][0] == {"family": "van der Berg", "given": "Jane"}
    assert hard_first["author"][2] == {"literal": "张伟"}
    assert hard_first["container-title"] == "International Conference on Learning Representations"
    assert hard_first["issued"] == {"date-parts": [[2026]]} and hard_first["DOI"] == "10.1234/abc.5"
    assert "Code: https://github.com/acme/ssr" in hard_first["note"]
    style = CitationStylesStyle("harvard-cite-them-right", validate=False)
    bibliography = CitationStylesBibliography(style, CiteProcJSON(items), formatter.plain)
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    rendered = [str(entry) for entry in bibliography.bibliography()]
    assert len(rendered) == 98
    text = norm(" ".join(rendered))
    assert "Conference on Machine Learning" in text
    missing = [i["title"] for i in items if norm(i["title"])[:30].casefold() not in text.casefold()]
    assert not missing, missing[:3]


def test_csv_reingests_to_the_same_papers(icml: Library, hard: Library, tmp_path: Path) -> None:
    for lib in (icml, hard):
        lib.tag(next(lib.papers()).paper_id, "to-read")
        out = tmp_path / f"{lib.path.stem}.csv"
        out.write_text("".join(lib.export("csv")), encoding="utf-8")
        with Library(tmp_path / f"{lib.path.stem}-again.db") as again:
            report = again.ingest([out], embed=False, cards=False)
            assert report.new == len(lib)
            before = {p.paper_id: p for p in lib.papers()}
            after = {p.paper_id: p for p in again.papers()}
            assert after.keys() == before.keys()
            for pid, paper in before.items():
                copy = after[pid]
                for name in (
                    "title",
                    "authors",
                    "clean_text",
                    "venue",
                    "year",
                    "decision",
                    "keywords",
                    "source_area",
                ):
                    assert getattr(copy, name) == getattr(paper, name), (pid, name)
                assert copy.external_ids == paper.external_ids, pid
            # The user's tags stay marks: they do not become the papers' keywords.
            assert all("to-read" not in p.keywords for p in after.values())


def test_keys_are_unique_stable_and_independent_of_the_selection(
    icml: Library, icml_dir: Path, tmp_path: Path
) -> None:
    keys = icml.citation_keys()
    assert len(set(keys.values())) == len(keys) == 95
    assert all(re.fullmatch(r"[a-z][a-z0-9]*", k) for k in keys.values())
    assert "".join(icml.export("bibtex")) == "".join(icml.export("bibtex"))
    # A selection's keys are the library's keys.
    some = list(keys)[40:43]
    text = "".join(icml.export("bibtex", paper_ids=some))
    assert re.findall(r"^@\w+\{([^,]+),", text, re.M) == [keys[p] for p in some]
    # A library rebuilt from the same files gives every paper the same key.
    with Library(tmp_path / "rebuilt.db") as rebuilt:
        rebuilt.ingest([icml_dir], embed=False)
        assert rebuilt.citation_keys() == keys


def test_base_keys_and_venues() -> None:
    from paperscope.models import Paper

    def key(**kw) -> str:
        return base_key(Paper(paper_id="0" * 12, abstract="x", clean_text="x", **kw))

    assert (
        key(title="The Power of Scale", authors=["Ludwig van Beethoven"], year=2021) == "beethoven2021power"
    )
    assert key(title="Über Ränder", authors=["Kurt Gödel"], year=1931) == "godel1931uber"
    assert key(title="On 2 Things", authors=["张伟"], venue="ICML", year=2026) == "icml2026things"
    assert key(title="深度学习") == "paper"
    for name in ("ICML", "icml", "ICML 2026", "International Conference on Machine Learning (ICML 2026)"):
        assert venue_info(name).name == "International Conference on Machine Learning", name
    assert venue_info("ICLR 2026 Conference").short == "ICLR"
    assert venue_info("NIPS").short == "NeurIPS" and venue_info("JMLR").kind == "journal"
    assert venue_info("arXiv") is None and venue_info("") is None
    assert venue_info("ICLR 2026 Workshop on Agents").name == "ICLR 2026 Workshop on Agents"


def test_markdown_has_links_and_cli_writes_every_format(icml: Library, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from paperscope.cli import cli

    text = "".join(icml.export("markdown"))
    items = [line for line in text.splitlines() if line.startswith("- [ ] ")]
    assert len(items) == 95
    with_code = [line for line in items if " — code: <https://" in line]
    assert with_code  # the ICML abstracts that name their repository
    runner = CliRunner()
    for fmt in ("ris", "csl-json", "bibtex", "csv"):
        out = tmp_path / f"all.{fmt}"
        result = runner.invoke(cli, ["--db", str(icml.path), "export", "--format", fmt, "--out", str(out)])
        assert result.exit_code == 0, result.output
        assert out.stat().st_size > 10_000


def test_web_export_offers_ris_and_csl_json(icml: Library) -> None:
    from fastapi.testclient import TestClient

    from paperscope.web import create_app

    pid = next(icml.papers()).paper_id
    icml.set_triage(pid, "keep")
    with TestClient(create_app(icml)) as client:
        ris = client.get("/api/export", params={"format": "ris", "state": "keep"})
        csl = client.get("/api/export", params={"format": "csl-json"})
        page = client.get("/library")
    assert ris.status_code == 200 and ris.headers["content-type"].startswith(
        "application/x-research-info-systems"
    )
    assert ris.headers["content-disposition"].endswith('-keep.ris"')
    assert [r["id"] for r in rispy.loads(ris.text)] == [icml.citation_keys()[pid]]
    assert csl.headers["content-type"].startswith("application/vnd.citationstyles.csl+json")
    assert len(csl_items(csl.text)) == 95
    assert "format=ris" in page.text and "format=csl-json" in page.text  # the reading list's buttons
    icml.set_triage(pid, None)


@pytest.mark.slow
def test_bibtex_round_trip_on_shared_data(shared_data: Path, tmp_path: Path) -> None:
    """The ICLR 2026 CSVs (4,302 papers) and ICML 2023 from airas (authors): nothing read back differs."""
    files = sorted((shared_data / "iclr2026-primary-area").glob("*.csv")) + [
        shared_data / "airas-papers-db" / "icml_2023.json"
    ]
    with Library(tmp_path / "shared.db") as lib:
        lib.ingest(files, embed=False, cards=False)
        papers = list(lib.papers())
        keys = lib.citation_keys()
        text = "".join(lib.export("bibtex"))
    assert len(papers) > 5000 and len(set(keys.values())) == len(papers)
    bp = differences(papers, keys, bibtexparser_fields(text))
    print(f"\nbibtexparser: {len({p for p, _ in bp})} of {len(papers)} papers differ")
    assert bp == []
    sample = papers[::4]
    wanted = {keys[p.paper_id] for p in sample}
    sample_text = "".join(
        e + "\n\n" for e in text.split("\n\n") if e.strip() and e.split("{", 1)[1].split(",", 1)[0] in wanted
    )
    differing, unexplained = pybtex_differences(sample, keys, sample_text)
    print(f"pybtex: {differing} of {len(sample)} papers differ, each only in $ {{ }}: {not unexplained}")
    assert unexplained == []
