"""Control characters never reach a stored paper (issue 26, kind 5): every format, every text field.

NUL and the other C0/C1 controls (tab and newline excepted) are removed from what a reader gives
(``pipeline.repair_record``, reported as a repair with the record's line) and line ends are
stored as LF; tab and newline survive. A file can carry a NUL only as a JSON escape (a NUL byte
makes any file a binary file, refused whole), so the other formats carry ESC, DEL and C1 controls.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from paperscope import Library
from paperscope.text import CONTROL_CHARS

#: NUL, ESC (an ANSI colour), DEL, NEL and CSI around a tab, a newline and a CRLF.
ABSTRACT = "We prune\x00 attention\x1b[0m heads\x7f by 9.6x.\tTabbed\nsecond line\r\nthird\x85 line\x9b."
STORED = "We prune attention[0m heads by 9.6x.\tTabbed\nsecond line\nthird line."
NO_NUL = ABSTRACT.replace("\x00", "")

FILES = {
    "jsonl": (
        "list.jsonl",
        json.dumps(
            {
                "title": "Ctrl\x1b Title\x00",
                "authors": ["Ann\x00 Lee", "Bo\x9b Chen"],
                "keywords": ["pru\x1bning"],
                "abstract": ABSTRACT,
                "url": "https://github.com/acme/apm\x00",
                "venue": "ICML\x00 2026",
            }
        )
        + "\n",
        1,
        "removed 12 invalid characters (U+0000, U+001B, U+007F, U+0085, U+009B)",
    ),
    "csv": (
        "list.csv",
        f'title,authors,abstract\n"Ctrl\x1b Title","Ann Lee, Bo\x9b Chen","{NO_NUL}"\n',
        2,
        "removed 6 invalid characters (U+001B, U+007F, U+0085, U+009B)",
    ),
    "bibtex": (
        "list.bib",
        "@inproceedings{k,\n title={Ctrl\x1b Title},\n author={Ann Lee and Bo\x9b Chen},\n"
        f" booktitle={{ICML 2026}},\n abstract={{{NO_NUL}}}\n}}\n",
        1,
        "removed 6 invalid characters (U+001B, U+007F, U+0085, U+009B)",
    ),
}
_CONTROL_RE = re.compile(f"[{CONTROL_CHARS}\r]")


def _stored_texts(lib: Library) -> list[tuple[str, str]]:
    """Every text value of every column of ``papers`` and ``sources``, as ``(column, value)``."""
    out = []
    for table in ("papers", "sources"):
        cursor = lib.store.conn.execute(f"SELECT * FROM {table}")
        names = [c[0] for c in cursor.description]
        out += [
            (f"{table}.{n}", v)
            for row in cursor
            for n, v in zip(names, row, strict=True)
            if isinstance(v, str)
        ]
    return out


@pytest.mark.parametrize("fmt", sorted(FILES))
def test_every_format_stores_its_text_without_control_characters(
    fmt: str, tmp_path: Path, fresh_library: Library
) -> None:
    name, body, line, repaired = FILES[fmt]
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    report = fresh_library.ingest([path], embed=False)
    assert (report.new, report.skipped, report.failed) == (1, [], [])
    assert [str(r) for r in report.files[0].repaired] == [f"{path}:{line}: {repaired}"]
    (paper,) = fresh_library.papers()
    assert (paper.abstract, paper.title, paper.authors) == (STORED, "Ctrl Title", ["Ann Lee", "Bo Chen"])
    texts = _stored_texts(fresh_library)
    assert ("papers.abstract", STORED) in texts  # tab and newline survive
    assert [(column, value) for column, value in texts if _CONTROL_RE.search(value)] == []


def test_json_urls_keywords_and_venue_lose_their_controls_too(tmp_path: Path, fresh_library: Library) -> None:
    name, body, _, _ = FILES["jsonl"]
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    fresh_library.ingest([path], embed=False)
    (paper,) = fresh_library.papers()
    assert (paper.keywords, paper.urls, paper.venue) == (["pruning"], ["https://github.com/acme/apm"], "ICML")


def test_a_text_list_stores_its_abstract_without_control_characters(
    tmp_path: Path, fresh_library: Library
) -> None:
    path = tmp_path / "list.txt"
    path.write_text(
        "ICML 2026 Papers\n\nWe prune\x1b[0m heads\x7f by 9.6x.\tTabbed\x85 line\x9b.\n", encoding="utf-8"
    )
    report = fresh_library.ingest([path], embed=False)
    assert [str(r) for r in report.files[0].repaired] == [
        f"{path}:3: removed 4 invalid characters (U+001B, U+007F, U+0085, U+009B)"
    ]
    (paper,) = fresh_library.papers()
    assert paper.abstract == "We prune[0m heads by 9.6x.\tTabbed line."
    assert [(c, v) for c, v in _stored_texts(fresh_library) if _CONTROL_RE.search(v)] == []
