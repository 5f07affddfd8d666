"""Text-as-query benchmark families (issue 24): a whole abstract, and a paper's method sentences.

Researchers search with text as often as with keywords: a pasted abstract, a paragraph of their
own draft, the method sentences of a paper. Two families measure that, from ``../shared/data``:

- ``iclr-abstract`` (whole abstracts): a library of 10k+ paper titles (ICLR 2026 and, as
  distractors, the unique titles of ICML 2023, NeurIPS 2020 and CVPR 2023 from
  airas-papers-db); each ICLR 2026 abstract must find its own title. 600 test abstracts and
  200 training ones, picked by a fixed hash among each split (:func:`pick`).
- ``iclr-method`` (method sentences): the ICLR 2026 library of the other tasks; the query is the
  sentences of a paper's abstract that say what the authors did (:func:`method_sentences`), the
  relevant papers those sharing its author keywords (as ``iclr-related``), and the paper itself
  is left out of the ranking (it holds the query verbatim). 800 test queries, 300 training.

Both are query-by-example in the sense of CSFCube (Mysore et al., NeurIPS Datasets 2021), with
judgements that come from the source data (titles, author keywords), not from our ranker.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..models import Record, Source
from .qrels import IclrPaper, is_training_item

__all__ = [
    "method_sentences",
    "pick",
    "split_keys",
    "title_records",
    "DISTRACTOR_FILES",
    "ABSTRACT_QUERIES",
    "METHOD_QUERIES",
]

#: airas-papers-db files whose unique titles join the ICLR 2026 titles as distractors.
DISTRACTOR_FILES = ("icml_2023.json", "neurips_2020.json", "cvpr_2023.json")
#: Test and training abstracts of ``iclr-abstract``.
ABSTRACT_QUERIES = (600, 200)
#: Test and training queries of ``iclr-method``.
METHOD_QUERIES = (800, 300)

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[$\\])")
#: First-person cues of a sentence that says what the authors did (propose, show, find).
_FIRST_PERSON = re.compile(r"\b(?:we|our|this paper|this work|in this paper)\b", re.IGNORECASE)


def method_sentences(abstract: str, most: int = 3) -> str:
    """Return the sentences of ``abstract`` that say what the authors did, joined by spaces.

    The first sentence is skipped (it states the background). Of the others, up to ``most``
    with a first-person cue ("we", "our", "this paper") are taken in order; an abstract with
    none gives its second and third sentences. Returns "" for an abstract of one sentence.
    """
    sentences = [s.strip() for s in _SENTENCE_END.split(abstract.strip()) if s.strip()]
    rest = sentences[1:]
    if not rest:
        return ""
    chosen = [s for s in rest if _FIRST_PERSON.search(s)][:most] or rest[:2]
    return " ".join(chosen)


def pick(keys: Sequence[str], n: int) -> list[str]:
    """Return ``n`` of ``keys`` chosen by a fixed hash (SHA-1 of the key), in key order."""
    ranked = sorted(keys, key=lambda k: hashlib.sha1(f"pick:{k}".encode()).hexdigest())
    return sorted(ranked[:n])


def title_records(items: Sequence[IclrPaper], data: Path) -> Iterator[Record]:
    """Yield one record per distinct title: ICLR 2026 first (key ``iclr:<paper_key>``), then the distractors.

    A record's abstract is the title itself, so the library indexes titles only.
    """
    seen: set[str] = set()
    for number, item in enumerate(items, start=1):
        title = item.title.strip()
        if title and title.casefold() not in seen:
            seen.add(title.casefold())
            yield Record(
                abstract=title,
                source=Source("iclr2026-titles", number, "titles"),
                external_ids={"key": f"iclr:{item.paper_key}"},
            )
    for name in DISTRACTOR_FILES:
        path = data / "airas-papers-db" / name
        if not path.is_file():
            continue
        for number, row in enumerate(json.loads(path.read_text(encoding="utf-8")), start=1):
            title = (row.get("title") or "").strip()
            if title and title.casefold() not in seen:
                seen.add(title.casefold())
                yield Record(
                    abstract=title,
                    source=Source(name, number, "titles"),
                    external_ids={"key": f"{name}:{number}"},
                )


def split_keys(keys: Sequence[str], sizes: tuple[int, int]) -> tuple[list[str], list[str]]:
    """Return ``(test, training)`` keys: ``sizes`` of each, training by :func:`is_training_item`."""
    test = [k for k in keys if not is_training_item(k)]
    train = [k for k in keys if is_training_item(k)]
    return pick(test, sizes[0]), pick(train, sizes[1])
