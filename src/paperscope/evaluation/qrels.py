"""Readers for the retrieval test sets: BEIR qrels and queries, SciFact, ICLR 2026 CSVs, ICML dev queries."""

from __future__ import annotations

import ast
import csv
import hashlib
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..text import has_cjk

__all__ = [
    "read_qrels_tsv",
    "read_beir_queries",
    "split_sentence_array",
    "read_scifact_corpus",
    "IclrPaper",
    "read_iclr_papers",
    "is_training_item",
    "chinese_problem_statement",
    "read_dev_queries",
    "related_qrels",
]

# One quoted item of a printed numpy string array: '...' or "..." with backslash escapes.
_ITEM_RE = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", re.DOTALL)


def read_qrels_tsv(path: Path) -> dict[str, dict[str, int]]:
    """Return query id → {document id: grade} from a BEIR qrels file (header line, tab-separated).

    Raises:
        InputError: a line does not have three fields or its grade is not an integer (file:line).
    """
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for number, line in enumerate(handle, start=1):
            fields = line.rstrip("\r\n").split("\t")
            if number == 1 and fields[0] == "query-id":
                continue
            if fields == [""]:
                continue
            if len(fields) != 3 or not fields[2].lstrip("-").isdigit():
                raise InputError("expected query-id, corpus-id, integer score", str(path), number)
            qrels.setdefault(fields[0], {})[fields[1]] = int(fields[2])
    return qrels


def read_beir_queries(path: Path) -> dict[str, str]:
    """Return query id → text from a BEIR ``queries.jsonl``.

    Raises:
        InputError: a line is not a JSON object with ``_id`` and ``text`` (file:line).
    """
    queries: dict[str, str] = {}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                queries[str(row["_id"])] = str(row["text"])
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise InputError(f"not a BEIR query ({exc})", str(path), number) from None
    return queries


def split_sentence_array(printed: str) -> list[str]:
    r"""Return the items of a printed numpy array of strings (``"['A.'\\n 'B.']"`` → ``["A.", "B."]``).

    numpy prints no commas between items, so ``ast.literal_eval`` of the whole would glue the
    sentences together; each quoted item is read on its own instead.
    """
    return [ast.literal_eval(item) for item in _ITEM_RE.findall(printed)]


def read_scifact_corpus(path: Path) -> list[tuple[str, str, str]]:
    """Return ``(doc_id, title, text)`` per SciFact document, text = its sentences joined by spaces.

    Raises:
        InputError: the CSV lacks the doc_id/title/abstract columns.
    """
    docs = []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if not {"doc_id", "title", "abstract"} <= set(reader.fieldnames or []):
            raise InputError("expected columns doc_id, title, abstract", str(path), 1)
        for row in reader:
            docs.append((row["doc_id"], row["title"], " ".join(split_sentence_array(row["abstract"]))))
    return docs


@dataclass(frozen=True)
class IclrPaper:
    """One ICLR 2026 paper from the primary-area CSVs."""

    paper_key: str
    title: str
    abstract: str
    keywords: str
    primary_area: str
    decision: str
    explain_zh: str = ""


def read_iclr_papers(folder: Path) -> list[IclrPaper]:
    """Return the papers of every ``primary_area__*.csv`` in ``folder``, unique by OpenReview URL."""
    papers: dict[str, IclrPaper] = {}
    for path in sorted(folder.glob("primary_area__*.csv")):
        with path.open(encoding="utf-8-sig", newline="") as handle:
            for row in csv.DictReader(handle):
                key = row["openreview_url"].strip()
                if key and key not in papers and row["abstract"].strip():
                    papers[key] = IclrPaper(
                        paper_key=key,
                        title=row["title"].strip(),
                        abstract=row["abstract"].strip(),
                        keywords=row.get("keywords", "").strip(),
                        primary_area=row.get("primary_area", "").strip(),
                        decision=row.get("venue", "").strip(),
                        explain_zh=row.get("explain_zh", "").strip(),
                    )
    return list(papers.values())


_HEADER_COLON_RE = re.compile(r"^[^：:]{1,8}[：:]\s*(.+)$")


def chinese_problem_statement(explain_zh: str) -> str:
    """Return the first statement of an ``explain_zh`` summary (the problem the paper solves), or "".

    The summaries open with a question header ("解决的问题是什么？") or a label ("问题：") and
    then one sentence; that sentence is a realistic Chinese search query for the paper. A
    summary whose statement holds no Chinese character gives "".
    """
    for raw in explain_zh.splitlines():
        line = raw.strip().lstrip("-*#>0123456789.)） \t").strip()
        if (
            not line
            or "是什么" in line
            or (line.endswith(("？", "?")) and len(line) < 30 and "问题" in line[:8])
        ):
            continue
        labelled = _HEADER_COLON_RE.match(line)
        if labelled:
            line = labelled.group(1).strip()
        if len(line) >= 8:
            return line if has_cjk(line) else ""
    return ""


def is_training_item(key: str, share: float = 0.25) -> bool:
    """Return True for the fixed ``share`` of items used to tune (by SHA-1 of ``key``); the rest are test."""
    return int(hashlib.sha1(key.encode("utf-8")).hexdigest()[:8], 16) / 0xFFFFFFFF < share


#: Keywords used by this many ICLR papers or fewer make a single shared keyword count (grade 1).
RARE_KEYWORD_PAPERS = 8
#: The most frequent keywords ("large language models", "reinforcement learning", …) are too broad
#: to make two papers related; this many are ignored.
BROAD_KEYWORDS = 30


def related_qrels(papers: Sequence[IclrPaper], min_related: int = 3) -> dict[str, dict[str, int]]:
    """Return related-paper qrels from shared author keywords: paper_key → {paper_key: grade}.

    Keywords are lower-cased and stripped; the ``BROAD_KEYWORDS`` most frequent are ignored. A
    paper is related (grade 2) when it shares two or more of the others, or (grade 1) one that
    at most ``RARE_KEYWORD_PAPERS`` papers use. Author keywords are chosen apart from the
    abstract text, so they judge text similarity without being made from it. Papers with fewer
    than ``min_related`` related papers are left out (no stable ranking to judge).
    """
    keywords = {p.paper_key: {k.strip().lower() for k in p.keywords.split(",") if k.strip()} for p in papers}
    counts = Counter(k for ks in keywords.values() for k in ks)
    broad = {k for k, _ in counts.most_common(BROAD_KEYWORDS)}
    users: dict[str, set[str]] = {}
    for key, ks in keywords.items():
        for k in ks - broad:
            users.setdefault(k, set()).add(key)
    out: dict[str, dict[str, int]] = {}
    for key, ks in keywords.items():
        mine = sorted(ks - broad)
        shared = Counter(other for k in mine for other in users[k] if other != key)
        related = {other: 2 for other, n in shared.items() if n >= 2}
        for k in mine:
            if counts[k] <= RARE_KEYWORD_PAPERS:
                for other in users[k] - {key}:
                    related.setdefault(other, 1)
        if len(related) >= min_related:
            out[key] = related
    return out


def read_dev_queries(path: Path) -> list[dict]:
    """Return the dev queries: dicts with ``qid``, ``lang``, ``query``, ``relevant`` [(file, index, grade)].

    Raises:
        InputError: a line is not valid JSON or lacks a field (file:line).
    """
    out = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                out.append(
                    {
                        "qid": row["qid"],
                        "lang": row["lang"],
                        "query": row["query"],
                        "relevant": [(r["file"], int(r["index"]), int(r["grade"])) for r in row["relevant"]],
                    }
                )
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise InputError(f"not a dev query ({exc})", str(path), number) from None
    return out
