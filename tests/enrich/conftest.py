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
            tuple(r) for r in conn.execute("SELECT paper_id, title, body FROM papers_fts ORDER BY paper_id")
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
