"""The exports as real reference managers read them: biber, pandoc's citeproc and bibutils.

Debian's ``biber`` validates the BibTeX against biblatex's data model, ``pandoc --citeproc``
renders it (its default Chicago style changes the case of title words: braces must keep acronyms
and coined names), and bibutils' ``ris2xml | xml2bib`` reads the RIS back (it knows ``CONF``,
not ``CPAPER``). ``make test`` installs the three as root (the Makefile's ``browser`` target).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from paperscope import Library
from paperscope.triage.bibtex_out import _title, keeps_case
from test_triage_roundtrip import hard, icml  # noqa: F401  (fixtures)

TOOLS = {name: shutil.which(name) for name in ("biber", "pandoc", "ris2xml", "xml2bib")}


def _need(*names: str) -> None:
    missing = [n for n in names if not TOOLS[n]]
    if missing:
        pytest.skip(
            f"{', '.join(missing)} not installed: apt-get install biber pandoc bibutils (`make test` as root)"
        )


def _write(lib: Library, tmp_path: Path, fmt: str, suffix: str) -> Path:
    path = tmp_path / f"export{suffix}"
    path.write_text("".join(lib.export(fmt)), encoding="utf-8")
    return path


def _biber_warnings(bib: Path, tmp_path: Path) -> list[str]:
    run = subprocess.run(
        ["biber", "--tool", "--validate-datamodel", f"--output-file={tmp_path / 'biber-out.bib'}", str(bib)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    lines = (run.stdout + run.stderr).splitlines()
    assert not [line for line in lines if line.startswith("ERROR - ")], run.stdout[-2000:]
    return [line.split("WARN - ", 1)[1] for line in lines if line.startswith("WARN - ")]


@pytest.mark.slow
@pytest.mark.parametrize("which", ["icml", "hard"])
def test_biber_validates_the_bibtex_with_no_warning_but_missing_authors(
    which: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    _need("biber")
    lib = request.getfixturevalue(which)
    warnings = _biber_warnings(_write(lib, tmp_path, "bibtex", ".bib"), tmp_path)
    other = [w for w in warnings if not w.endswith("Missing mandatory field 'author'")]
    assert other == []
    without_authors = sum(1 for p in lib.papers() if not p.authors)
    assert len(warnings) == without_authors


def _rendered_titles(bib: Path, tmp_path: Path) -> dict[int, str]:
    """Return entry number → title as pandoc's citeproc prints it (each title marked ``Zq<n>``).

    The title is what the default Chicago style prints between its quotes, the final period in.
    """
    numbered = iter(range(10**6))
    marked = re.sub(
        r"^  title = \{", lambda m: f"{m.group(0)}Zq{next(numbered)} ", bib.read_text("utf-8"), flags=re.M
    )
    source = tmp_path / "marked.bib"
    source.write_text(marked, encoding="utf-8")
    (tmp_path / "cite.md").write_text("---\nnocite: '@*'\n---\n", encoding="utf-8")
    run = subprocess.run(
        ["pandoc", "cite.md", "--citeproc", "--bibliography", str(source), "-t", "plain", "--wrap=none"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        check=True,
    )
    found = re.findall(r"Zq(\d+) (.*?)(?:\n\n|\Z)", run.stdout, re.S)
    return {int(n): " ".join(text.split("”")[0].split()) for n, text in found}


def _lost_capitals(title: str, rendered: str) -> list[str]:
    """Return the case-protected words of ``title`` that ``rendered`` shows with a capital lowered."""
    shown: dict[str, list[str]] = {}
    for word in rendered.split():
        shown.setdefault(word.strip(".,:;!?()“”\"'").lower(), []).append(word.strip(".,:;!?()“”\"'"))
    lost = []
    for word in (w.strip(".,:;!?()“”\"'") for w in title.split()):
        outs = shown.get(word.lower(), [])
        if (
            keeps_case(word)
            and outs
            and all(any(a.isupper() and b.islower() for a, b in zip(word, o, strict=False)) for o in outs)
        ):
            lost.append(f"{word} -> {outs[0]}")
    return lost


@pytest.mark.slow
def test_pandoc_keeps_the_capitals_of_acronyms_and_coined_names(icml: Library, tmp_path: Path) -> None:  # noqa: F811
    _need("pandoc")
    papers = list(icml.papers())
    rendered = _rendered_titles(_write(icml, tmp_path, "bibtex", ".bib"), tmp_path)
    assert len(rendered) == len(papers) == 95
    titles = [p.title or f"[Label] {p.label}" for p in papers]
    protected = [w for t in titles for w in t.split() if keeps_case(w.strip(".,:;!?()“”\"'"))]
    assert len(protected) >= 95  # the labels' coined names at least ("APM", "VPD-100K", ...)
    lost = {i: _lost_capitals(t, rendered[i]) for i, t in enumerate(titles) if _lost_capitals(t, rendered[i])}
    assert lost == {}


def test_pandoc_keeps_digits_with_capitals_that_it_lowers_in_plain_braces(tmp_path: Path) -> None:
    _need("pandoc")
    words = [
        "3D",
        "X3D",
        "3DGS",
        "H2O",
        "R2D2",
        "2D/3D",
        "ImageNet-1K",
        "Od³",
        "D&R",
        "Q&A",
        "LoRA",
        "U-Net",
        "A100",
    ]
    path = tmp_path / "words.bib"
    path.write_text(
        "\n".join(
            f"@inproceedings{{k{i},\n  title = {{{_title(w)}}},\n  booktitle = {{ICML}},\n  year = {{2026}}\n}}"
            for i, w in enumerate(words)
        ),
        encoding="utf-8",
    )
    rendered = _rendered_titles(path, tmp_path)
    assert [rendered[i].rstrip(".") for i in range(len(words))] == words


@pytest.mark.slow
@pytest.mark.parametrize("which", ["icml", "hard"])
def test_bibutils_reads_the_ris_back_with_type_and_venue(
    which: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    _need("ris2xml", "xml2bib")
    lib = request.getfixturevalue(which)
    ris = _write(lib, tmp_path, "ris", ".ris")
    xml = subprocess.run(["ris2xml", str(ris)], capture_output=True, timeout=120, check=True)
    assert xml.stderr.decode().strip() == f"ris2xml: Processed {len(list(lib.papers()))} references."
    back = subprocess.run(["xml2bib"], input=xml.stdout, capture_output=True, timeout=120, check=True)
    entries = re.split(r"\n(?=@)", back.stdout.decode("utf-8-sig").strip())
    assert len(entries) == len(list(lib.papers()))
    ris_text = ris.read_text(encoding="utf-8")
    conference = [e for e in entries if e.startswith("@InProceedings")]
    journal = [e for e in entries if e.startswith("@Article")]
    assert len(conference) == ris_text.count("TY  - CONF\n") > 0
    assert len(journal) == ris_text.count("TY  - JOUR\n")
    # The venue is the proceedings' or journal's name, not lost or read as a series.
    assert all(re.search(r'^booktitle="[^"]+"', e, re.M) for e in conference), conference[0][:400]
    assert all(re.search(r'^journal="[^"]+"', e, re.M) for e in journal)


def _pandoc_abstracts(bib: Path) -> list[str]:
    """Return each entry's abstract as pandoc reads the BibTeX (``-f biblatex -t csljson``)."""
    run = subprocess.run(
        ["pandoc", "-f", "biblatex", "-t", "csljson", str(bib)], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return [item.get("abstract", "") for item in json.loads(run.stdout)]


@pytest.mark.slow
def test_pandoc_reads_abstracts_as_plain_text_without_tex_leftovers(icml: Library, tmp_path: Path) -> None:  # noqa: F811
    _need("pandoc")
    tex = tmp_path / "tex.csv"
    tex.write_text(
        "title,abstract\n"
        '"Clipped Margins","We bound the loss by $\\max\\{0,x\\}$ for i.i.d.\\ and Markovian data, in'
        ' $O(n\\log n)$ time, with labels in $\\{-1,0,1\\}$ and $\\arg\\max_x f(x,y)$."\n',
        encoding="utf-8",
    )
    icml.ingest([tex])
    abstracts = _pandoc_abstracts(_write(icml, tmp_path, "bibtex", ".bib"))
    assert len(abstracts) == len(list(icml.papers())) == 96
    leftovers = [a for a in abstracts if "\\" in a or "textbackslash" in a]
    assert leftovers == []
    (clipped,) = [a for a in abstracts if a.startswith("We bound the loss")]
    assert clipped == (
        "We bound the loss by max{0, x} for i.i.d. and Markovian data, in O(n log n) time, with labels"
        " in {-1,0,1} and arg max_x f(x, y)."
    )
