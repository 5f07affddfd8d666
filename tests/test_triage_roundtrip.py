"""Exports read back by the tools a reader uses: bibtexparser, pybtex, rispy, citeproc-py, our CSV reader.

On the 95 ICML 2026 example papers (title-less lists: the label is the title), on synthetic
records holding every hard character the shared data has, and (slow: about 280 CPU seconds,
in two processes) on the library of all of ../shared/data (21,490 papers: every paper list the
ingest of the folder reads; gold/ and scifact-beir/ are not lists of papers): BibTeX
through bibtexparser (all) and pybtex (every 8th), RIS through rispy, CSL-JSON as strict JSON
(all) rendered by citeproc-py (every 20th), the CSV re-ingested, the keys of two exports and
of a rebuilt library.
"""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
import os
import re
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
import rispy

from paperscope import Library
from paperscope.links import paper_links
from paperscope.models import Paper
from paperscope.triage.citekeys import base_key
from paperscope.triage.entry import LABEL_NOTE, entry_of
from paperscope.triage.venues import venue_info
from roundtrip_checks import (
    bibtexparser_fields,
    csl_fields,
    csl_items,
    differences,
    norm,
    pybtex_differences,
    pybtex_fields,
    ris_fields,
)

#: The Paper fields a CSV re-ingest gives back unchanged (the authors too, after the reader's
#: whitespace normalisation, and the raw abstract after its line-end normalisation).
REINGESTED = ("title", "clean_text", "venue", "year", "decision", "keywords", "source_area", "external_ids")


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
        {
            # A source's one-string author list and a keyword with a comma, each a lone item
            # (papercopilot ICLR 2018, an ICLR 2026 CSV): the CSV must not split them on re-ingest.
            "title": "Motion, Again",
            "authors": ["Samuel L. Smith and Quoc V. Le"],
            "keywords": ["Video Generation, Human Motion Generation"],
            "abstract": "A fourth record: one author string that names two people,, and two commas"
            " (a TeX ligature: pybtex would read them as „).",
            "venue": "CVPR 2023",
            "year": 2023,
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
    # in `note` (BibTeX styles print it) and `titleaddon` (pandoc and biblatex print it), marker braced
    assert text.count(f"  titleaddon = {{{LABEL_NOTE}}},\n  note = {{{LABEL_NOTE}") == 95
    # a code link is in `note` (biblatex has no `code` field): 13 of the 95 abstracts link code
    assert text.count(r" Code: \url{https://") == 13 and "  code = " not in text
    assert text.count("  title = {{[Label]} ") == 95


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
        "  note = {Code: \\url{https://github.com/acme/ssr}}",
    ):
        assert line in first
    assert "{{A}²{TG}:}" in first and "{LLMs\\rbrace{}}" in first  # case-protected words


def test_entry_types_keys_and_rejected_submissions(hard: Library) -> None:
    text = "".join(hard.export("bibtex"))
    heads = re.findall(r"^@(\w+)\{([^,]+),", text, re.M)
    assert heads == [
        ("inproceedings", "berg2026a2tg"),
        ("article", "berg2026deep"),
        ("misc", "berg2026deepa"),
        ("inproceedings", "le2023motion"),
    ]
    assert "journal = {Transactions on Machine Learning Research}" in text
    rejected = text.split("@misc")[1].split("@inproceedings")[0]
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
        assert record["type_of_reference"] == "CONF"
        assert record["title"] == norm(paper.display_label)
        assert record["abstract"] == norm(paper.clean_text)
        assert record["secondary_title"] == "International Conference on Machine Learning"
        assert record["year"] == "2026" and record["publisher"] == "PMLR"
        assert LABEL_NOTE in record["notes"]
    first, second, third, _ = rispy.loads("".join(hard.export("ris")))
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
    assert len(items) == 99 and len({i["id"] for i in items}) == 99
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
    assert len(rendered) == 99
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
                for name in (*REINGESTED, "authors"):
                    assert getattr(copy, name) == getattr(paper, name), (pid, name)
            # The user's tags stay marks: they do not become the papers' keywords.
            assert all("to-read" not in p.keywords for p in after.values())


def test_exports_of_marks_with_control_characters_reingest(hard: Library, tmp_path: Path) -> None:
    """A tag and a note typed with NUL and C1 controls: the CSV and BibTeX exports read back (issue 26).

    They were stored raw, and the library's own exports were then refused as binary files.
    """
    pid = next(hard.papers()).paper_id
    hard.tag(pid, "to\x00read\x9b")
    hard.set_note(pid, "check\x00 the\x1b[31m proof\x85\r\nsecond line\tend")
    assert (hard.marks(pid)["tags"], hard.marks(pid)["note"]) == (
        ["toread"],
        "check the[31m proof\nsecond line\tend",
    )
    papers = list(hard.papers())
    for fmt, suffix in (("csv", ".csv"), ("bibtex", ".bib")):
        text = "".join(hard.export(fmt))
        assert "toread" in text and "second line\tend" in text, fmt
        assert re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", text) is None, fmt
        out = tmp_path / f"marked{suffix}"
        out.write_text(text, encoding="utf-8")
        with Library(tmp_path / f"again-{fmt}.db") as again:
            report = again.ingest([out], embed=False, cards=False)
            assert (report.failed, report.skipped, report.new) == ([], [], len(hard)), fmt
            after = list(again.papers())
        if fmt == "csv":  # lossless: the same papers (test_csv_reingests_to_the_same_papers)
            assert [p.paper_id for p in after] == [p.paper_id for p in papers]
        else:  # TeX ("$" comes back as "＄"): the same papers as bibtexparser reads them
            assert [p.year for p in after] == [p.year for p in papers]
            assert differences(papers, hard.citation_keys(), bibtexparser_fields(text)) == []


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


#: Every how-many-th paper of all of ../shared/data that pybtex reads back: its decoder
#: (latexcodec) takes about 11 ms an abstract, so all 21,490 would take four minutes of CI.
PYBTEX_STEP = 8
#: BibTeX entries per parse job handed to the worker processes.
PARSE_JOB = 2000


@dataclass
class Everything:
    """The library of all of ../shared/data, its exports, and the BibTeX being parsed in workers."""

    lib: Library
    papers: list[Paper]
    keys: dict[str, str]
    bibtex: list[str]  # one entry per paper, in library order
    ris: str
    csl: str
    csv: str
    bibtexparser_jobs: list[Future]
    pybtex_jobs: list[Future]


@pytest.fixture(scope="module")
def everything(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Everything:
    """One ingest of every file of ../shared/data (no vectors, no cards: ~30 s), and its exports.

    bibtexparser's LaTeX decoding (pylatexenc) takes about 8 ms an abstract, three minutes for
    the whole library in one process, so the BibTeX is parsed by two worker processes (CI has two
    cores) while the other checks run; the BibTeX tests, last in this file, wait for them.
    """
    started = time.perf_counter()
    lib = Library(tmp_path_factory.mktemp("everything") / "all.db")
    report = lib.ingest([shared_data], embed=False, cards=False)
    assert report.failed == []
    papers = list(lib.papers())
    keys = lib.citation_keys()
    bibtex = list(lib.export("bibtex"))
    assert len(bibtex) == len(papers)
    pool = ProcessPoolExecutor(min(2, os.cpu_count() or 1), mp_context=multiprocessing.get_context("spawn"))
    try:
        parse = [
            pool.submit(bibtexparser_fields, "".join(bibtex[i : i + PARSE_JOB]))
            for i in range(0, len(bibtex), PARSE_JOB)
        ]
        sample = bibtex[::PYBTEX_STEP]
        pybtex = [
            pool.submit(pybtex_fields, "".join(sample[i : i + PARSE_JOB]))
            for i in range(0, len(sample), PARSE_JOB)
        ]
        exports = {fmt: "".join(lib.export(fmt)) for fmt in ("ris", "csl-json", "csv")}
        print(
            f"\nall of {shared_data}: {len(papers)} papers, ingested and exported in"
            f" {time.perf_counter() - started:.0f} s"
        )
        yield Everything(
            lib, papers, keys, bibtex, exports["ris"], exports["csl-json"], exports["csv"], parse, pybtex
        )
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        lib.close()


def _merged(jobs: list[Future]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for job in jobs:
        out |= job.result()
    return out


def _report(fmt: str, found: list[tuple[str, str]], papers: int) -> None:
    fields = sorted({name for _, name in found})
    print(f"{fmt}: {len({pid for pid, _ in found})} of {papers} papers differ {fields if fields else ''}")


@pytest.mark.slow
def test_keys_on_shared_data_are_unique_and_stable_across_exports_and_rebuilds(
    everything: Everything, shared_data: Path, tmp_path: Path
) -> None:
    """Keys unique, the same in every format and a second export, and for a library rebuilt from the same files."""
    keys, order = everything.keys, [everything.keys[p.paper_id] for p in everything.papers]
    assert len(set(order)) == len(order) == len(everything.papers) > 21_000
    assert all(re.fullmatch(r"[a-z][a-z0-9]*", k) for k in order)
    assert [re.match(r"@\w+\{([^,]+),", e).group(1) for e in everything.bibtex] == order
    assert [r["id"] for r in rispy.loads(everything.ris)] == order
    assert [i["id"] for i in csl_items(everything.csl)] == order
    assert [row["citation_key"] for row in csv.DictReader(io.StringIO(everything.csv))] == order
    assert "".join(everything.lib.export("ris")) == everything.ris
    with Library(tmp_path / "rebuilt.db") as rebuilt:
        rebuilt.ingest([shared_data], embed=False, cards=False)
        assert rebuilt.citation_keys() == keys
        assert "".join(rebuilt.export("ris")) == everything.ris
    print(f"keys: {len(order)} unique, the same in 4 formats, a second export and a rebuilt library")


@pytest.mark.slow
def test_csv_of_shared_data_reingests_to_the_same_papers(everything: Everything, tmp_path: Path) -> None:
    """The CSV read back into a new library: the same papers, in order, with the same fields.

    What legitimately differs, compared after the reader's normalisation or not at all: an
    author name has its spaces normalised (one ICLR 2018 name is stored as " Daniel Crawford"),
    the raw ``abstract`` its line ends (``\\r\\n`` → ``\\n``; ``clean_text`` and the paper_id
    are unchanged), and ``urls`` gains the links the CSV writes (own page, code, PDF: derived from the
    ids and the abstract), so the exported links are compared instead. Those differ for papers
    without an own page whose code link (found in the abstract) is on no code host: the CSV's
    ``code_url`` cell is read back as a URL of the record, which then is the paper's own page.
    """
    out = tmp_path / "all.csv"
    out.write_text(everything.csv, encoding="utf-8")
    with Library(tmp_path / "again.db") as again:
        report = again.ingest([out], embed=False, cards=False)
        after = list(again.papers())
    before = everything.papers
    assert report.failed == [] and [p.paper_id for p in after] == [p.paper_id for p in before]
    found = []
    for old, new in zip(before, after, strict=True):
        found += [(old.paper_id, name) for name in REINGESTED if getattr(new, name) != getattr(old, name)]
        if new.authors != [" ".join(a.split()) for a in old.authors]:
            found.append((old.paper_id, "authors"))
        if new.abstract != old.abstract.replace("\r\n", "\n").replace("\r", "\n"):
            found.append((old.paper_id, "abstract"))
    _report("CSV", found, len(before))
    assert found == []
    own_page = []
    for old, new in zip(before, after, strict=True):
        a, b = entry_of(old, {}), entry_of(new, {})
        if (a.url, a.code_url, a.pdf_url, a.doi, a.arxiv) != (b.url, b.code_url, b.pdf_url, b.doi, b.arxiv):
            assert (a.url, b.url, b.code_url, b.pdf_url) == (None, a.code_url, a.code_url, a.pdf_url), (
                old.paper_id
            )
            assert "code" not in paper_links([a.code_url]), a.code_url  # as a URL, it is no code link
            own_page.append(old.paper_id)
    print(f"CSV links: {len(own_page)} papers gain their code link (on no code host) as their own page")
    assert len(own_page) < 200


@pytest.mark.slow
def test_ris_of_shared_data_reads_back_with_rispy(everything: Everything) -> None:
    """rispy reads every record back with the same title, authors, T2 venue and abstract."""
    found = differences(everything.papers, everything.keys, ris_fields(rispy.loads(everything.ris)))
    _report("RIS (rispy)", found, len(everything.papers))
    assert found == []


@pytest.mark.slow
def test_csl_json_of_shared_data_is_strict_and_renders_with_citeproc(everything: Everything) -> None:
    """All items are strict JSON with the same fields; every 20th renders with citeproc-py (4 s a thousand)."""
    from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
    from citeproc.source.json import CiteProcJSON

    items = csl_items(everything.csl)
    found = differences(everything.papers, everything.keys, csl_fields(items))
    _report("CSL-JSON", found, len(everything.papers))
    assert found == []
    sample = items[::20]
    style = CitationStylesStyle("harvard-cite-them-right", validate=False)
    bibliography = CitationStylesBibliography(style, CiteProcJSON(sample), formatter.plain)
    for item in sample:
        bibliography.register(Citation([CitationItem(item["id"])]))
    text = norm(" ".join(str(entry) for entry in bibliography.bibliography())).casefold()
    missing = [i["title"] for i in sample if norm(i["title"])[:30].casefold() not in text]
    print(f"citeproc-py: {len(sample)} items rendered, {len(missing)} without their title")
    assert not missing, missing[:3]


@pytest.mark.slow
def test_bibtex_of_shared_data_reads_back_with_bibtexparser(everything: Everything) -> None:
    """bibtexparser (LaTeX decoding) reads every entry back: same title, authors, venue and abstract."""
    parsed = _merged(everything.bibtexparser_jobs)
    assert len(parsed) == len(everything.papers)
    found = differences(everything.papers, everything.keys, parsed)
    _report("BibTeX (bibtexparser)", found, len(everything.papers))
    assert found == []


@pytest.mark.slow
def test_bibtex_of_shared_data_reads_back_with_pybtex(everything: Everything) -> None:
    """pybtex reads every 8th entry back the same but for ``$ { }``, which its decoder has no escape for."""
    sample = everything.papers[::PYBTEX_STEP]
    differing, unexplained = pybtex_differences(sample, everything.keys, _merged(everything.pybtex_jobs))
    print(
        f"BibTeX (pybtex): {differing} of {len(sample)} papers differ, each only in $ {{ }}: {not unexplained}"
    )
    assert unexplained == []


def test_csv_cells_a_spreadsheet_would_run_are_written_as_text_and_read_back_whole(tmp_path: Path) -> None:
    """Kind 3 of issue 26 (OWASP CSV injection): no exported cell starts with a formula character."""
    starts = ["=", "+", "-", "@", "\t", "\r"]
    records = [
        {
            "title": f'{start}HYPERLINK("http://x.test","click") Paper {i}',
            "authors": [f"{start}cmd|' /C calc'!A0"],
            "abstract": f"{start}1+1 We study formula cells number {i} in exported reading lists at length.",
            "keywords": [f"{start}SUM(A1:A2)"],
            "venue": "ICML 2026",
        }
        for i, start in enumerate(starts)
    ]
    # Cells that start with a quote already (one before a formula character, or plain) come back whole.
    records += [
        {
            "title": title,
            "authors": ["'Ada Lovelace"],
            "abstract": f"{title} opens this abstract, which studies quoted cells in exports at length.",
            "venue": "ICML 2026",
        }
        for title in ("'=already quoted", "'plain quote", "''two quotes")
    ]
    # A third-party file whose cell starts with a quote keeps it: only paperscope's own export is undone.
    source = tmp_path / "formulas.json"
    source.write_text(json.dumps(records), encoding="utf-8")
    with Library(tmp_path / "src.db") as lib:
        lib.ingest([source], embed=False, cards=False)
        pid = next(lib.papers()).paper_id
        lib.tag(pid, "=tag")
        lib.set_note(pid, "@note -1")
        text = "".join(lib.export("csv"))
        before = {p.paper_id: p for p in lib.papers()}
    rows = list(csv.reader(io.StringIO(text)))
    risky = [cell for row in rows[1:] for cell in row if cell[:1] in starts]
    assert risky == []
    # title, label, authors, abstract and keywords of the four records that start with = + - @
    # (ingest strips the leading tab and CR from most fields itself), plus the tag and the note.
    assert sum(cell.startswith("'") for row in rows[1:] for cell in row) >= 5 * 4 + 2
    out = tmp_path / "export.csv"
    out.write_text(text, encoding="utf-8")
    with Library(tmp_path / "again.db") as again:
        again.ingest([out], embed=False, cards=False)
        after = {p.paper_id: p for p in again.papers()}
    assert after.keys() == before.keys()
    for pid_, paper in before.items():
        for name in ("title", "authors", "keywords"):
            assert getattr(after[pid_], name) == getattr(paper, name), (pid_, name)
        # The CSV reader reads a lone CR as a line end (csv_table.read_csv), so "\r1+1" returns as "\n1+1".
        assert after[pid_].abstract == paper.abstract.replace("\r", "\n"), pid_
    third_party = tmp_path / "third.csv"
    third_party.write_text("title,abstract\n'=not ours,A list whose title cell starts with a quote.\n")
    with Library(tmp_path / "third.db") as lib:
        lib.ingest([third_party], embed=False, cards=False)
        assert next(lib.papers()).title == "'=not ours"
