"""Small synthetic fixtures for enrich: 30 papers, each with its own coined words, and their program.

Each paper i has four content words of its own (coined from syllables, so no two papers share
one) in its abstract, and its title is built from the same words plus a word the abstract never
uses (``title_word(i)``), so a search for that word finds the paper only once its title is attached.
"""

from __future__ import annotations

import csv
import itertools
import json
import random
from pathlib import Path

import pytest

from paperscope import Library

N_PAPERS = 30
_SYLLABLES = "ka lo mi ru te vo sa ne pi du ga zo".split()
_WORDS = ["".join(p) for p in itertools.product(_SYLLABLES, repeat=3)]
random.Random(7).shuffle(_WORDS)


def words(i: int) -> list[str]:
    """The four content words of paper i (decoys use i >= N_PAPERS)."""
    return _WORDS[4 * i : 4 * i + 4]


def name(i: int) -> str:
    return words(i)[0].capitalize() + "Net"


def title_word(i: int) -> str:
    return _WORDS[400 + i]


def abstract(i: int) -> str:
    a, b, c, d = words(i)
    return (
        "Large models are widely used in many applications but remain costly to train and deploy. "
        f"We propose {name(i)}, a {a} {b} approach to {c} {d}. Experiments on {a} benchmarks show that "
        f"{name(i)} improves {c} accuracy over strong baselines while keeping the {b} cost low. "
        f"We also analyse the {d} behaviour of the method and release our code."
    )


def title(i: int) -> str:
    a, b, c, d = words(i)
    return (
        f"{name(i)}: {a.capitalize()} {b.capitalize()} for {c.capitalize()} {d.capitalize()} {title_word(i)}"
    )


def write_library_list(path: Path, indices: list[int]) -> Path:
    path.write_text("\n\n".join(abstract(i) for i in indices) + "\n", encoding="utf-8")
    return path


def decoy_title(i: int, j: int) -> str:
    """A title holding two words of paper i and all four of paper j (it is neither's)."""
    return " ".join(w.capitalize() for w in [*words(i)[:2], *words(j)]) + " Revisited"


#: Titles of papers no library of these tests holds, coined from words no abstract uses: the
#: rest of a conference. The pair model's z-scores are over the program's entries, and a real
#: program has thousands (a 40-title program bounds a z-score by sqrt(39), below every right
#: pair the model saw in training), so tests of the assignment write them in (``rest=True``).
REST_OF_PROGRAM = tuple(title(i) for i in range(120, 380))


def write_program(
    path: Path,
    indices: list[int],
    rename: dict[str, str] | None = None,
    extra: tuple[str, ...] = (),
    rest: bool = False,
) -> Path:
    """Write a CSV program of the papers ``indices`` (and rows titled ``extra``, line after line).

    ``rename`` gives columns other names; ``rest`` adds :data:`REST_OF_PROGRAM` after ``extra``.
    """
    extra = (*extra, *REST_OF_PROGRAM) if rest else extra
    columns = ("title", "authors", "session", "decision", "openreview_url")
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([(rename or {}).get(c, c) for c in columns])
        for i in indices:
            writer.writerow(
                [
                    title(i),
                    f"Ada Author{i}; Bo Writer{i}",
                    f"Poster session {i % 3 + 1}",
                    "Oral" if i % 5 == 0 else "Poster",
                    f"https://openreview.net/forum?id=paper{i:04d}x",
                ]
            )
        for k, text in enumerate(extra):
            writer.writerow([text, "", "", "Poster", f"https://openreview.net/forum?id=decoy{k:04d}x"])
    return path


def truth(lib: Library) -> dict[str, int]:
    """paper_id → the fixture index of its abstract."""
    by_text = {abstract(i): i for i in range(N_PAPERS * 2)}
    return {p.paper_id: by_text[p.abstract] for p in lib.papers()}


@pytest.fixture
def enrich_lib(tmp_path: Path):
    """A library of the 30 title-less papers (cards and fake vectors built) and the paths used."""
    listing = write_library_list(tmp_path / "papers.txt", list(range(N_PAPERS)))
    lib = Library(tmp_path / "lib.db")
    lib.ingest([listing])
    yield lib
    lib.close()


def dump(lib: Library) -> dict[str, list[tuple]]:
    """Every row of the tables enrich may touch, in a stable order (for byte-for-byte checks)."""
    conn = lib.store.conn
    return {
        "papers": [tuple(r) for r in conn.execute("SELECT * FROM papers ORDER BY paper_id")],
        "fts": [
            tuple(r)
            for r in conn.execute("SELECT paper_id, title, body, exact FROM papers_fts ORDER BY paper_id")
        ],
        "cards": [tuple(r) for r in conn.execute("SELECT * FROM cards ORDER BY paper_id")],
        "facets": [tuple(r) for r in conn.execute("SELECT * FROM card_facets ORDER BY paper_id, facet, key")],
        "sources": [tuple(r) for r in conn.execute("SELECT * FROM sources ORDER BY paper_id, line")],
        "embeddings": [
            tuple(r) for r in conn.execute("SELECT * FROM embeddings ORDER BY paper_id, model_id")
        ],
    }


def as_json(text: str) -> object:
    return json.loads(text)


#: The columns of the official ICML 2026 program CSV, in its order.
ICML_COLUMNS = (
    "event_id,event_type,title,decision,topic,session,starttime,endtime,url,paper_url,authors,institutions"
).split(",")


def icml_rows(with_offset: bool = True) -> list[list[str]]:
    """Rows of a small ICML-2026-shaped program over papers 0-4 of the fixture (Seoul, +09:00).

    Paper 0 is an oral listed twice (its Oral row and its Poster row), paper 4 too, its two rows
    joined by the OpenReview id only (the Poster row's title is in other case and spacing).
    Papers 0 and 1 share poster session 1; paper 2's oral runs at the time of paper 0's oral;
    paper 3's poster (day 2) overlaps paper 4's oral. ``with_offset`` False writes the times as
    ``2026-07-14 10:00:00`` (no offset: the time zone must come from ``--timezone``).
    """

    def at(day: int, hm: str) -> str:
        stamp = f"2026-07-{13 + day}{'T' if with_offset else ' '}{hm}:00"
        return stamp + ("+09:00" if with_offset else "")

    def row(event: int, kind: str, i: int, session: str, day: int, start: str, end: str, **kw) -> list[str]:
        return [
            str(event),
            kind,
            kw.get("title", title(i)),
            "Accept (oral)" if i in (0, 2, 4) else "Accept (poster)",
            "Deep Learning->Generative Models" if i % 2 else "Optimization->Convex",
            session,
            at(day, start),
            at(day, end),
            f"https://icml.cc/virtual/2026/{kind.lower()}/{event}",
            f"https://openreview.net/forum?id=icml{i:04d}x",
            f"Ada Author{i}; Bo Writer{i}",
            f"Seoul National University; KAIST{i}",
        ]

    return [
        row(1001, "Oral", 0, "Oral 1A Optimization", 1, "10:00", "10:15"),
        row(1002, "Oral", 2, "Oral 1B Theory", 1, "10:00", "10:15"),
        row(2001, "Poster", 0, "Poster Session 1 East", 1, "11:00", "13:30"),
        row(2002, "Poster", 1, "Poster Session 1 East", 1, "11:00", "13:30"),
        row(2003, "Poster", 2, "Poster Session 2 West", 1, "16:30", "19:00"),
        row(1003, "Oral", 4, "Oral 3C Generative Models", 2, "10:00", "10:15"),
        row(2004, "Poster", 3, "Poster Session 3 East", 2, "09:30", "12:00"),
        row(2005, "Poster", 4, "Poster Session 4 West", 2, "14:00", "16:30", title=title(4).upper() + "  "),
    ]


def write_icml_program(path: Path, with_offset: bool = True) -> Path:
    """Write :func:`icml_rows` as the official ICML 2026 program CSV (header included)."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(ICML_COLUMNS)
        writer.writerows(icml_rows(with_offset))
    return path
