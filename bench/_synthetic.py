"""Synthetic arXiv-snapshot records at any scale, recombined from the real abstracts of ../shared/data.

Each record takes a *base* paper (airas-papers-db and papercopilot-paperlists, about 17k real
abstracts; ICLR 2026 is left out so its titles can serve as held-out queries) and keeps that
paper's sentence count, so lengths follow the real distribution: each sentence is the base's own
with probability ``KEEP_OWN`` (0.5), else a sentence of another real abstract, and
``VARIED_WORDS`` (2) words of the result are swapped for words of other abstracts. The title is
the base title with one word swapped. Abstracts and titles are checked unique (an 8-byte hash of
each is remembered: 16 MB per million records), arXiv ids are new-style and unique
(``YYMM.NNNNN``, ``IDS_PER_MONTH`` per month from 2101), authors and categories are drawn from
real author lists and a fixed list of CS/stat categories. Two records share on average one
sentence in seven at most, so ingest's near-duplicate rule (shingle Jaccard >= 0.8) never merges
them, and every record has its own arXiv id.

The vocabulary and lengths are real; the topics mix (a record reads as two or three papers), which
is what a search benchmark needs and a topic-model evaluation would not.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"

#: Probability that a sentence of a record is its base paper's own (else another paper's).
KEEP_OWN = 0.5
#: Words of each abstract swapped for a word of another abstract.
VARIED_WORDS = 2
#: arXiv ids per month (new-style ids have 5 digits since 2015, up to 99,999 a month).
IDS_PER_MONTH = 50_000
#: Categories drawn for ``categories`` (primary first), the arXiv ML/CS areas of issue 16.
CATEGORIES = ("cs.LG", "cs.CV", "cs.CL", "cs.AI", "stat.ML", "cs.RO", "cs.IR", "cs.NE", "cs.CR", "math.OC")

_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@dataclass
class BasePaper:
    """One real paper the records are recombined from."""

    title: str
    sentences: list[str]
    authors: list[str]


def base_papers(data: Path = DATA, clean: bool = False) -> list[BasePaper]:
    """Return the real papers of airas-papers-db and papercopilot-paperlists, unique by title, in file order.

    With ``clean``, titles and abstracts are passed through ``paperscope.text.clean_text`` first
    (LaTeX, markdown and entities resolved as ingest does), so records made of them are clean
    text already and a bench can store them without cleaning each again (1 ms a paper).
    """
    from paperscope.text import clean_text

    out: list[BasePaper] = []
    seen: set[str] = set()
    paths = sorted((data / "airas-papers-db").glob("*.json")) + sorted(
        (data / "papercopilot-paperlists").glob("*.json")
    )
    for path in paths:
        for row in json.loads(path.read_text(encoding="utf-8")):
            if not isinstance(row, dict):
                continue
            title, abstract = row.get("title"), row.get("abstract")
            if not isinstance(title, str) or not isinstance(abstract, str) or len(abstract) < 200:
                continue
            if clean:
                title, abstract = clean_text(title), clean_text(abstract)
            key = " ".join(title.casefold().split())
            if key in seen:
                continue
            seen.add(key)
            authors = row.get("authors") or row.get("author") or []
            if isinstance(authors, str):
                authors = [a.strip() for a in re.split(r"[;,]| and ", authors) if a.strip()]
            sentences = [s.strip() for s in _SENTENCE_RE.split(" ".join(abstract.split())) if s.strip()]
            out.append(BasePaper(" ".join(title.split()), sentences, [str(a) for a in authors][:12]))
    return out


@dataclass
class Synthetic:
    """One generated paper: ``base`` is the index of its base paper in :func:`base_papers`."""

    arxiv_id: str
    title: str
    abstract: str
    authors: list[str]
    categories: list[str]
    year: int
    month: int
    base: int


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=8).digest()


def generate(
    n: int, seed: int = 0, bases: list[BasePaper] | None = None, n_bases: int | None = None
) -> Iterator[Synthetic]:
    """Yield ``n`` synthetic papers with unique ids, titles and abstracts (deterministic per ``seed``).

    ``n_bases``: base papers are drawn from the first ``n_bases`` only (other papers' sentences
    still come from all), so a bench can give each base a real vector as its cluster centre.
    """
    bases = bases if bases is not None else base_papers()
    n_bases = len(bases) if n_bases is None else min(n_bases, len(bases))
    rng = random.Random(seed)
    words = [w for b in bases[::7] for s in b.sentences[:2] for w in s.split() if w.isalpha() and len(w) > 3]
    titles_seen: set[bytes] = set()
    abstracts_seen: set[bytes] = set()
    made = 0
    attempt = 0
    while made < n:
        attempt += 1
        base_index = rng.randrange(n_bases)
        base = bases[base_index]
        sentences = []
        for own in base.sentences:
            if rng.random() < KEEP_OWN:
                sentences.append(own)
            else:
                other = bases[rng.randrange(len(bases))].sentences
                sentences.append(other[rng.randrange(len(other))])
        tokens = " ".join(sentences).split(" ")
        for _ in range(VARIED_WORDS):
            at = rng.randrange(len(tokens))
            old = tokens[at]
            tail = old[len(old.rstrip(".,;:!?)")) :]  # a sentence's full stop stays
            tokens[at] = rng.choice(words) + tail
        abstract = " ".join(tokens)
        title_tokens = base.title.split(" ")
        title_tokens[rng.randrange(len(title_tokens))] = rng.choice(words).capitalize()
        title = " ".join(title_tokens)
        a_key, t_key = _digest(abstract), _digest(title.casefold())
        if a_key in abstracts_seen or t_key in titles_seen:
            if attempt > 20 * n + 1000:
                raise RuntimeError(f"cannot make {n} unique records from {len(bases)} base papers")
            continue
        abstracts_seen.add(a_key)
        titles_seen.add(t_key)
        month_index, number = divmod(made, IDS_PER_MONTH)
        year, month = 2021 + month_index // 12, month_index % 12 + 1
        primary = rng.choice(CATEGORIES)
        extra = [c for c in rng.sample(CATEGORIES, rng.randrange(3)) if c != primary]
        authors = base.authors or [f"Author {base_index}"]
        yield Synthetic(
            f"{year % 100:02d}{month:02d}.{number + 1:05d}",
            title,
            abstract,
            authors,
            [primary, *extra],
            year,
            month,
            base_index,
        )
        made += 1


def arxiv_record(paper: Synthetic, rng: random.Random) -> dict:
    """Return ``paper`` as one arXiv metadata snapshot object (the fields ``ingest.arxiv_jsonl`` reads)."""
    day = rng.randrange(1, 29)
    created = (
        f"{_DAYS[rng.randrange(5)]}, {day} {_MONTHS[paper.month - 1]} {paper.year}"
        f" {rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d} GMT"
    )
    parsed = []
    for name in paper.authors:
        parts = name.split()
        parsed.append([parts[-1], " ".join(parts[:-1]), ""] if parts else ["", "", ""])
    # The snapshot wraps abstracts at about 80 columns, each line led by a space (see arxiv_jsonl).
    wrapped = (
        "  "
        + "\n".join(textwrap.wrap(paper.abstract, 78, break_long_words=False, break_on_hyphens=False))
        + "\n"
    )
    return {
        "id": paper.arxiv_id,
        "submitter": paper.authors[0],
        "authors": ", ".join(paper.authors),
        "title": paper.title,
        "comments": None,
        "journal-ref": None,
        "doi": None,
        "report-no": None,
        "categories": " ".join(paper.categories),
        "license": None,
        "abstract": wrapped,
        "versions": [{"version": "v1", "created": created}],
        "update_date": f"{paper.year}-{paper.month:02d}-{day:02d}",
        "authors_parsed": parsed,
    }


def write_arxiv_jsonl(n: int, out: Path, seed: int = 0) -> int:
    """Write ``n`` synthetic snapshot records to ``out`` (JSON Lines, UTF-8); return how many."""
    rng = random.Random(seed + 1)
    out.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with out.open("w", encoding="utf-8") as handle:
        for paper in generate(n, seed):
            handle.write(json.dumps(arxiv_record(paper, rng), ensure_ascii=False) + "\n")
            count += 1
    return count
