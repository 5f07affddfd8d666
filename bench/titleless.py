"""Title-less papers in ranking: do papers without a title rank as well as titled ones?

Usage: python bench/titleless.py [--workdir /tmp/paperscope-titleless] [--seed 23] [--limit N]

The library is the ICLR 2026 primary-area CSVs (4,302 papers) with a seeded 50% of the titles
removed and the ``keywords`` column removed from every record (the queries below are made from
it), plus the 95 title-less papers of the ICML 2026 lists, ingested as a user would
(``Library.ingest``: cards, then MiniLM int8 vectors). It is built once under ``--workdir`` and
reused; the build embeds about 4,400 abstracts (minutes on 2 busy cores).

Queries, each with its one target paper:
- ``keywords``: each ICLR paper's author keywords (the removed column), commas as spaces;
- ``statement``: the Chinese problem statement of its ``explain_zh`` summary
  (:func:`paperscope.evaluation.qrels.chinese_problem_statement`), as ``paperscope eval iclr-zh``;
- ``icml-dev``: the hand-labelled ICML 2026 dev queries (English and Chinese, graded), whose
  targets are all title-less: reported on their own, not in the ratio.

For each set and each scoring (``today``: the title weighted in BM25 and embedded with the
abstract, as before issue 23; ``fair``: the shipped scoring), hybrid search reports MRR@10 and
nDCG@10 over queries whose target has a title and over those whose target has none, and the
ratio title-less / titled (the target of issue 23 is >= 0.95). It also prints the ranks of the
two ICML dataset-distillation papers for the query ``dataset distillation``.
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from paperscope import Library  # noqa: E402
from paperscope.evaluation.metrics import evaluate_run  # noqa: E402
from paperscope.evaluation.qrels import (  # noqa: E402
    chinese_problem_statement,
    is_training_item,
    read_dev_queries,
)
from paperscope.index.dense import TITLELESS_COSINE_BONUS  # noqa: E402
from paperscope.index.search import collect_legs, fuse_legs  # noqa: E402
from paperscope.ingest.pipeline import paper_id_for, record_to_paper  # noqa: E402
from paperscope.ingest.text_list import read_text_list  # noqa: E402
from paperscope.store.lexical import TITLELESS_BODY_WEIGHT  # noqa: E402
from paperscope.text import identity_text  # noqa: E402

DATA = REPO.parent / "shared" / "data"
ICLR_DIR = DATA / "iclr2026-primary-area"
ICML_DIR = DATA / "icml2026"
DEV_QUERIES = DATA / "gold" / "icml2026_queries_dev.jsonl"
#: Share of ICLR papers whose title is removed.
TITLELESS_SHARE = 0.5
#: Ranks evaluated per query, as ``paperscope eval``.
DEPTH = 100
#: The issue's example query: the two ICML 2026 papers on it (C²R and APM) ranked #19 and #36.
DISTILLATION_QUERY = "dataset distillation"


def iclr_rows() -> list[dict[str, str]]:
    """Return the ICLR 2026 CSV rows with an abstract, unique by OpenReview URL, files in sorted order."""
    csv.field_size_limit(1 << 24)
    rows: dict[str, dict[str, str]] = {}
    for path in sorted(ICLR_DIR.glob("primary_area__*.csv")):
        with path.open(encoding="utf-8-sig", newline="") as handle:
            for row in csv.DictReader(handle):
                key = row["openreview_url"].strip()
                if key and key not in rows and row["abstract"].strip():
                    rows[key] = row
    return list(rows.values())


def titleless_keys(rows: list[dict[str, str]], seed: int) -> set[str]:
    """Return the OpenReview URLs of the seeded ``TITLELESS_SHARE`` of papers that lose their title."""
    keys = sorted(r["openreview_url"].strip() for r in rows)
    return set(random.Random(seed).sample(keys, round(len(keys) * TITLELESS_SHARE)))


def build_library(workdir: Path, rows: list[dict[str, str]], removed: set[str]) -> Path:
    """Write the altered CSV and ingest it with the ICML lists into ``workdir/titleless.db`` (once)."""
    path = workdir / "titleless.db"
    if path.exists():
        return path
    workdir.mkdir(parents=True, exist_ok=True)
    table = workdir / "iclr2026-titleless.csv"
    columns = ["openreview_url", "venue", "title", "abstract", "primary_area"]
    with table.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            out = {c: row[c] for c in columns}
            if row["openreview_url"].strip() in removed:
                out["title"] = ""
            writer.writerow(out)
    building = workdir / "titleless.db.building"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{building}{suffix}").unlink(missing_ok=True)
    started = time.perf_counter()
    with Library(building) as lib:
        lib.ingest([table, ICML_DIR], progress=True)
    building.rename(path)
    print(f"built {path} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return path


def build_issue_library(workdir: Path) -> Path:
    """Ingest the ICLR 2026 CSVs as published (titled) and the ICML lists into ``workdir/issue23.db`` (once).

    This is the library of issue 23's example, where ``dataset distillation`` put the two ICML
    papers at #19 and #36.
    """
    path = workdir / "issue23.db"
    if path.exists():
        return path
    workdir.mkdir(parents=True, exist_ok=True)
    building = workdir / "issue23.db.building"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{building}{suffix}").unlink(missing_ok=True)
    with Library(building) as lib:
        lib.ingest([ICLR_DIR, ICML_DIR], progress=True)
    building.rename(path)
    return path


def query_sets(rows: list[dict[str, str]], removed: set[str]) -> dict[str, list[tuple[str, str, bool]]]:
    """Return set name → ``(query, target paper_id, target is title-less)`` for the ICLR sets."""
    sets: dict[str, list[tuple[str, str, bool]]] = {"keywords": [], "statement": []}
    for row in rows:
        target = paper_id_for(identity_text(row["abstract"]))
        bare = row["openreview_url"].strip() in removed
        keywords = row.get("keywords", "").replace(",", " ").strip()
        if keywords:
            sets["keywords"].append((keywords, target, bare))
        statement = chinese_problem_statement(row.get("explain_zh", ""))
        if statement:
            sets["statement"].append((statement, target, bare))
    return sets


def icml_dev_sets() -> dict[str, list[tuple[str, dict[str, int]]]]:
    """Return ``{"icml-dev-en": [(query, qrels)], "icml-dev-zh": [...]}`` keyed by paper_id."""
    position: dict[tuple[str, int], str] = {}
    for path in sorted(ICML_DIR.glob("*.txt")):
        for index, record in enumerate(read_text_list(path)):
            paper = record_to_paper(record)
            if paper is not None:
                position[(path.name, index)] = paper.paper_id
    sets: dict[str, list[tuple[str, dict[str, int]]]] = {"icml-dev-en": [], "icml-dev-zh": []}
    for row in read_dev_queries(DEV_QUERIES):
        qrels = {position[(f, i)]: grade for f, i, grade in row["relevant"]}
        sets["icml-dev-zh" if row["lang"] == "zh" else "icml-dev-en"].append((row["query"], qrels))
    return sets


def distillation_papers() -> list[tuple[str, str]]:
    """Return ``(paper_id, first words)`` of the ICML 2026 papers whose abstract says "dataset distillation"."""
    out = []
    for path in sorted(ICML_DIR.glob("*.txt")):
        for record in read_text_list(path):
            paper = record_to_paper(record)
            if paper is not None and DISTILLATION_QUERY in paper.clean_text.lower():
                out.append((paper.paper_id, " ".join(paper.clean_text.split()[:4])))
    return out


def ranking(lib: Library, query: str, correct_titleless: bool) -> list[str]:
    """Return the top ``DEPTH`` paper_ids of a hybrid search, as ``paperscope eval`` runs it."""
    legs = collect_legs(
        lib.store,
        query,
        DEPTH,
        "hybrid",
        None,
        lib.embedder,
        lib.dense_index,
        correct_titleless=correct_titleless,
    )
    return [r.paper_id for r in fuse_legs(legs, DEPTH, "hybrid")]


def split_metrics(runs: dict[str, list[str]], queries: list[tuple[str, str, bool]]) -> dict[str, float]:
    """Return MRR@10 and nDCG@10 over titled targets, title-less targets and all, plus the ratios."""
    out: dict[str, float] = {}
    for part, keep in (("titled", False), ("bare", True), ("all", None)):
        ids = [str(i) for i, (_, _, bare) in enumerate(queries) if keep is None or bare == keep]
        qrels = {i: {queries[int(i)][1]: 1} for i in ids}
        values = evaluate_run({i: runs[i] for i in ids}, qrels, ["mrr@10", "ndcg@10"])
        out[f"{part} mrr"], out[f"{part} ndcg"] = values["mrr@10"], values["ndcg@10"]
        out[f"{part} n"] = len(ids)
    out["ratio mrr"] = out["bare mrr"] / out["titled mrr"]
    out["ratio ndcg"] = out["bare ndcg"] / out["titled ndcg"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/paperscope-titleless"))
    parser.add_argument("--seed", type=int, default=23, help="seed of the titles removed")
    parser.add_argument(
        "--split",
        choices=("test", "train", "all"),
        default="test",
        help="ICLR queries: test (3/4, the default; the weight was chosen on train), train or all",
    )
    parser.add_argument("--limit", type=int, default=None, help="at most this many queries per set")
    args = parser.parse_args()
    rows = iclr_rows()
    removed = titleless_keys(rows, args.seed)
    lib = Library(build_library(args.workdir, rows, removed))
    lib.embeddings()
    key_of = {paper_id_for(identity_text(r["abstract"])): r["openreview_url"].strip() for r in rows}
    scorings = {"today": False, "fair": True}
    print(
        f"ICLR 2026: {len(rows)} papers, {len(removed)} without a title (seed {args.seed}), keywords"
        f" removed; + {sum(1 for _ in ICML_DIR.glob('*.txt'))} ICML 2026 lists; split {args.split};"
        f" hybrid search; 'today' = as before issue 23, 'fair' = a title-less paper's BM25 body weight"
        f" {TITLELESS_BODY_WEIGHT} (English queries) and cosine + {TITLELESS_COSINE_BONUS}"
    )
    header = (
        f"{'set':<10} {'scoring':<7} {'queries':>7}  {'titled MRR':>10} {'nDCG':>6}  {'title-less MRR':>14}"
        f" {'nDCG':>6}  {'ratio MRR':>9} {'nDCG':>6}  {'all MRR':>7}"
    )
    print(header)
    started = time.perf_counter()
    for name, queries in query_sets(rows, removed).items():
        if args.split != "all":
            queries = [q for q in queries if is_training_item(key_of[q[1]]) == (args.split == "train")]
        queries = queries[: args.limit]
        for scoring, weight in scorings.items():
            runs = {str(i): ranking(lib, text, weight) for i, (text, _, _) in enumerate(queries)}
            m = split_metrics(runs, queries)
            print(
                f"{name:<10} {scoring:<7} {len(queries):>7}  {m['titled mrr']:>10.3f} {m['titled ndcg']:>6.3f}"
                f"  {m['bare mrr']:>14.3f} {m['bare ndcg']:>6.3f}  {m['ratio mrr']:>9.3f}"
                f" {m['ratio ndcg']:>6.3f}  {m['all mrr']:>7.3f}",
                flush=True,
            )
    print("\nICML 2026 dev queries in this library (every target title-less): MRR@10, nDCG@10")
    for name, queries in icml_dev_sets().items():
        qrels = {str(i): q for i, (_, q) in enumerate(queries)}
        for scoring, weight in scorings.items():
            runs = {str(i): ranking(lib, text, weight) for i, (text, _) in enumerate(queries)}
            values = evaluate_run(runs, qrels, ["mrr@10", "ndcg@10"])
            print(f"{name:<12} {scoring:<7} {values['mrr@10']:.3f} {values['ndcg@10']:.3f}")
    issue = Library(build_issue_library(args.workdir))
    issue.embeddings()
    for name, library in (("this library", lib), ("ICLR 2026 titled + ICML 2026, the issue's", issue)):
        print(f"\n{DISTILLATION_QUERY!r} in {name}: rank of each ICML paper (hybrid, no filter)")
        for scoring, correct in scorings.items():
            ranked = ranking(library, DISTILLATION_QUERY, correct)
            ranks = [
                f"{words}…: #{ranked.index(pid) + 1 if pid in ranked else '>100'}"
                for pid, words in distillation_papers()
            ]
            print(f"{scoring:<7} " + "; ".join(ranks))
    issue.close()
    print(f"\n{time.perf_counter() - started:.0f} s of queries", file=sys.stderr)
    lib.close()


if __name__ == "__main__":
    main()
