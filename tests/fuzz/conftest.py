"""Hypothesis profiles for the fuzz suite, and the real records its mutations start from.

Profiles:

* ``ci`` (loaded by default): derandomized (the same examples every run, so a red run is
  reproducible and never flaky), no example database (CI leaves nothing behind), no deadline
  (the machine is shared). Sized so that ``pytest tests/fuzz`` takes under 2 minutes on two
  cores; the report of issue 13 gives the measured time and the examples each strategy ran.
* ``long``: a local soak, randomized, 20× the examples: ``pytest tests/fuzz --hypothesis-profile=long``
  (or ``pytest tests --hypothesis-profile=long``). Both are registered in ``tests/conftest.py``,
  which pytest reads before it configures Hypothesis.

Seeds: a few real records of each kind, read from ``../shared/data`` at test time; tests that
mutate them skip (through the ``shared_data`` fixture) when the folder is missing.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import settings

#: Examples per test under the ``ci`` profile (registered in tests/conftest.py, with ``long``).
CI_EXAMPLES = settings.get_profile("ci").max_examples


def examples(n: int) -> int:
    """Return ``n`` examples scaled as the loaded profile scales ``CI_EXAMPLES``."""
    return max(1, n * settings.default.max_examples // CI_EXAMPLES)


@pytest.fixture(scope="session")
def fuzz_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for the files the fuzz tests write (each example overwrites its file)."""
    return tmp_path_factory.mktemp("fuzz")


def _head_records(path: Path, n: int) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        data = json.load(handle)
    return [r for r in data if isinstance(r, dict) and r.get("abstract")][:n]


@pytest.fixture(scope="session")
def real_seeds(shared_data: Path) -> dict[str, list[bytes]]:
    """Return real inputs by reader format, as bytes: a few records of the real files of each kind.

    Text list and CSV seeds are slices of real files; JSON, JSON Lines and arXiv JSONL seeds are
    real records written as each format holds them; BibTeX seeds are real records written as
    BibTeX entries (the shared data has no .bib file).
    """
    seeds: dict[str, list[bytes]] = {}
    txt = sorted((shared_data / "icml2026").glob("*.txt"))[0].read_bytes()
    paragraphs = txt.split(b"\n\n")
    seeds["text-list"] = [b"\n\n".join(paragraphs[:4]), b"\n\n".join(paragraphs[4:7])]
    csv_path = sorted((shared_data / "iclr2026-primary-area").glob("*.csv"))[0]
    with csv_path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(itertools.islice(csv.reader(handle), 4))
    out = io.StringIO()
    csv.writer(out).writerows(rows)  # the header and three rows, as the file writes them (CRLF)
    seeds["csv"] = [b"\xef\xbb\xbf" + out.getvalue().encode()]
    airas = _head_records(shared_data / "airas-papers-db" / "iclr_2020.json", 3)
    copilot = _head_records(shared_data / "papercopilot-paperlists" / "colm2024.json", 2)
    seeds["json"] = [json.dumps(airas, ensure_ascii=False).encode(), json.dumps(copilot).encode()]
    seeds["jsonl"] = ["\n".join(json.dumps(r, ensure_ascii=False) for r in airas + copilot).encode() + b"\n"]
    arxiv = [
        {
            "id": f"2001.0{1000 + i}",
            "submitter": "A. Author",
            "authors": ", ".join(r.get("authors") or []),
            "title": r["title"],
            "comments": None,
            "journal-ref": None,
            "doi": None,
            "categories": "cs.LG",
            "abstract": r["abstract"],
            "versions": [{"version": "v1", "created": "Mon, 6 Jan 2020 10:00:00 GMT"}],
            "update_date": "2020-01-07",
        }
        for i, r in enumerate(airas)
    ]
    seeds["arxiv-jsonl"] = ["\n".join(json.dumps(r) for r in arxiv).encode() + b"\n"]
    entries = []
    for i, r in enumerate(airas):
        authors = " and ".join(r.get("authors") or [])
        entries.append(
            f"@inproceedings{{key{i},\n  title = {{{r['title']}}},\n  author = {{{authors}}},\n"
            f"  booktitle = {{ICLR}},\n  year = {{2020}},\n  abstract = {{{r['abstract']}}},\n"
            f"  url = {{https://github.com/acme/tool{i}}}\n}}\n"
        )
    seeds["bibtex"] = [
        b"@string{iclr = {International Conference on Learning Representations}}\n"
        + "\n".join(entries).encode()
    ]
    return seeds
