"""``paperscope eval enrich``: titles from the program, scored on a dev set made from ICLR 2026.

The set: the 4,302 ICLR 2026 papers of ``iclr2026-primary-area/*.csv`` (unique by
``openreview_url``). An abstract-only list (one JSON line ``{"abstract": ...}`` per paper, titles
and links removed) is ingested into a temporary library (no cards, no vectors), and a title-only
program (``title, openreview_url, venue`` — the venue column holds the decision, ``ICLR 2026
Poster``; the CSVs have no authors) is read by the program reader. A pairing is right when the
entry's OpenReview link is the paper's own (a paper whose abstract occurs twice is right with
either row's link).

Matching runs once over the whole library and program (every paper competes with all 4,302
titles), then the papers are split in two halves by a seeded permutation (seed 15): the
thresholds are **chosen on the dev half** and the figures are **reported on the test half**.
Chosen: the (leg A margin, leg B margin, evidence floor) triple of the grid (each one's
0th-60th percentiles over the dev half's agreed pairs) giving the most dev coverage in the
worst of the closed and open worlds such that dev precision is >= ``DEV_PRECISION`` on the
whole library, on ``SMALL_RUNS`` small libraries
of ``SMALL_LIBRARY`` dev papers matched against the whole program (the ICML 2026 lists: about a
hundred abstracts against a program of thousands, where leg B has few papers to choose from
and guards less), and in the **open worlds** (:data:`OPEN_SHARES`, :func:`_open_world`): a
program of some primary areas, a library holding half its papers and, as a third or two
thirds of the library, papers of the other areas that no entry belongs to (precision there
>= ``DEV_PRECISION_OPEN``). There coverage is over the papers that are in the program, and
precision counts a title put on an orphan as wrong. Also printed, not used in the choice:
``SMALL_RUNS`` small open libraries of the trial's shape (``SMALL_LIBRARY`` test papers, two
thirds of other areas, against every entry of the program's areas), where leg B has few papers
to choose from and the lexical legs fall short of the target (see ``run_enrich_eval``). Printed: precision (attached titles that are right) and coverage (share of
papers attached) on the test half at the chosen thresholds and at the shipped
:data:`paperscope.enrich.match.THRESHOLDS`, the small-library precision on test papers, and
how often the first suggestion of a paper left unattached is right.

The eval uses BM25 for both legs (``dense=False``, the default): embedding 4,302 abstracts with
the real MiniLM model takes about ten minutes on two busy cores. ``dense=True`` fuses leg A with
the library's embedder (``PAPERSCOPE_EMBEDDER``; the fake one in tests), in the small libraries
too; it chose the "hybrid" leg A margin.
"""

from __future__ import annotations

import csv
import json
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..enrich.match import EVIDENCE_FLOOR, THRESHOLDS, MatchResult, match_program
from ..enrich.program import read_program
from ..enrich.run import dense_inputs, library_bm25, title_less_papers
from ..errors import InputError
from ..index.bm25 import MemoryBM25
from ..library import Library

__all__ = ["run_enrich_eval", "format_enrich_eval", "DEV_PRECISION", "SEED", "TARGET"]

#: Seed of the dev/test split of the papers (and of the small-library samples).
SEED = 15
#: Precision the chosen thresholds must keep on the dev half (above the 0.97 target, so that
#: the unseen half keeps the target).
DEV_PRECISION = 0.985
#: Precision the open worlds' dev papers must keep. Lower than :data:`DEV_PRECISION`: with
#: lexical legs, 0.985 there left at most 0.68 of the in-program papers attached (dev half;
#: 0.975 gives 0.707), under the 0.70 target; the test half says whether 0.97 holds.
DEV_PRECISION_OPEN = 0.975
#: Issue 15's target on the test half: precision >= 0.97 at coverage >= 0.70.
TARGET = (0.97, 0.70)
_OPEN = (float("-inf"), float("-inf"))  # no thresholds: every agreed pair, for choosing them
#: Size and number of the small libraries (ICML 2026 lists hold 95 papers in five files).
SMALL_LIBRARY, SMALL_RUNS = 300, 3
#: Open worlds: the share of the library's papers that have no program entry (issue 15's trial:
#: 200 of 300 papers, of other areas, were in no program); see :func:`_open_world`.
OPEN_SHARES = (1 / 3, 2 / 3)


def _rows(iclr_dir: Path) -> list[dict[str, str]]:
    files = sorted(iclr_dir.glob("*.csv"))
    if not files:
        raise InputError("no ICLR 2026 CSV files here", str(iclr_dir))
    rows: dict[str, dict[str, str]] = {}
    for path in files:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            for row in csv.DictReader(handle):
                if row.get("openreview_url") and row.get("abstract", "").strip():
                    rows.setdefault(row["openreview_url"], {**row, "_area": path.stem})
    return list(rows.values())


@dataclass
class _Run:
    """One matching run scored: its agreed pairs as arrays, and who counts for coverage.

    ``ids``: the papers scored (one half, or a small library's sample); ``in_program``: of them,
    those with an entry in the run's program (coverage's denominator; all of them in a closed
    world).
    """

    result: MatchResult
    ids: set[str]
    in_program: set[str]
    agreed_in_program: np.ndarray
    a: np.ndarray
    b: np.ndarray
    evidence: np.ndarray
    right: np.ndarray
    first_right: dict[str, bool]

    @classmethod
    def of(cls, result: MatchResult, ids: set[str], in_program: set[str], is_right: Any) -> _Run:
        agreed = [p for p in result.agreed if p.paper_id in ids]
        return cls(
            result,
            ids,
            in_program & ids,
            np.array([p.paper_id in in_program for p in agreed], dtype=bool),
            np.array([p.a_margin for p in agreed], dtype=np.float64),
            np.array([p.b_margin for p in agreed], dtype=np.float64),
            np.array([p.evidence for p in agreed], dtype=np.float64),
            np.array([is_right(p.paper_id, p.entry) for p in agreed], dtype=bool),
            {
                pid: is_right(pid, found[0].entry)
                for pid, found in result.ranked.items()
                if pid in ids and found
            },
        )

    def figures(self, tau: tuple[float, float, float]) -> dict[str, Any]:
        """Precision, coverage and first-suggestion accuracy at thresholds ``(A, B, evidence)``."""
        keep = (self.a >= tau[0]) & (self.b >= tau[1]) & (self.evidence >= tau[2])
        attached, correct = int(keep.sum()), int(self.right[keep].sum())
        agreed = [p.paper_id for p in self.result.agreed if p.paper_id in self.ids]
        done = {pid for pid, k in zip(agreed, keep.tolist(), strict=True) if k}
        rest = [pid for pid in self.first_right if pid not in done]
        return {
            "papers": len(self.ids),
            "in_program": len(self.in_program),
            "attached": attached,
            "correct": correct,
            "precision": correct / attached if attached else 0.0,
            "coverage": len(done & self.in_program) / len(self.in_program) if self.in_program else 0.0,
            "suggested": len(rest),
            "suggestion_rank1_right": sum(self.first_right[pid] for pid in rest) / len(rest) if rest else 0.0,
        }

    def precision_coverage(self, ta: float, tb: np.ndarray, te: float) -> tuple[np.ndarray, np.ndarray]:
        """Precision and coverage (attached papers in the program / papers in it) per leg B threshold of ``tb``."""
        keep = (self.a >= ta)[None, :] & (self.b[None, :] >= tb[:, None]) & (self.evidence >= te)[None, :]
        attached = keep.sum(axis=1)
        correct = (keep & self.right[None, :]).sum(axis=1)
        precision = np.where(attached > 0, correct / np.maximum(attached, 1), 1.0)
        return precision, (keep & self.agreed_in_program[None, :]).sum(axis=1) / max(len(self.in_program), 1)


def _choose(
    runs: list[tuple[_Run, float, bool]],
) -> tuple[tuple[float, float, float], dict[str, Any]]:
    """Pick (A, B, evidence) on the dev runs ``(run, precision it must keep, counts for coverage)``.

    The grid: each of the three over the 0th-60th percentiles (by 2) of the first run's agreed
    pairs, and evidence 0 (margins alone, as before the floor). Chosen: the most coverage of the
    worst run that counts (ties: of the first), every run keeping its precision.
    """
    first = runs[0][0]
    grid_a = sorted({float(np.percentile(first.a, q)) for q in range(0, 61, 2)})
    grid_b = np.array(sorted({float(np.percentile(first.b, q)) for q in range(0, 61, 2)}))
    grid_e = sorted({0.0, *(float(np.percentile(first.evidence, q)) for q in range(0, 61, 2))})
    best: tuple[tuple[float, float], tuple[float, float, float]] | None = None
    for ta in grid_a:
        for te in grid_e:
            ok = np.ones(len(grid_b), dtype=bool)
            worst = np.full(len(grid_b), np.inf)
            coverage = None
            for run, wanted, counts in runs:
                p, c = run.precision_coverage(ta, grid_b, te)
                ok &= p >= wanted
                if counts:
                    worst = np.minimum(worst, c)
                if coverage is None:
                    coverage = c
            assert coverage is not None
            for j in np.flatnonzero(ok).tolist():
                key = (float(worst[j]), float(coverage[j]))
                if best is None or key > best[0]:
                    best = (key, (ta, float(grid_b[j]), te))
    tau = best[1] if best else (max(grid_a), float(grid_b.max()), max(grid_e))
    return tau, first.figures(tau)


def _small_runs(
    papers: list[tuple[str, str]],
    ids: list[str],
    entries: list[Any],
    vectors: tuple[np.ndarray | None, np.ndarray | None],
    is_right: Any,
    seed: int,
) -> list[_Run]:
    """Match ``SMALL_RUNS`` seeded samples of ``SMALL_LIBRARY`` papers of ``ids``, each alone, to the whole program.

    ``vectors``: the paper vectors (rows in ``papers`` order) and title vectors, or Nones.
    """
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(SMALL_RUNS):
        sample = [ids[i] for i in rng.choice(len(ids), min(SMALL_LIBRARY, len(ids)), replace=False)]
        result = _match_subset(papers, sample, entries, vectors, range(len(entries)))
        out.append(_Run.of(result, set(sample), set(sample), is_right))
    return out


def _match_subset(
    papers: list[tuple[str, str]],
    sample: list[str],
    entries: list[Any],
    vectors: tuple[np.ndarray | None, np.ndarray | None],
    kept: Any,
) -> MatchResult:
    """Match the papers ``sample`` alone (their own BM25 library) against the entries ``kept`` (indices).

    The result's ``entry`` fields index ``entries`` (the whole program), not the subset.
    """
    position = {pid: i for i, (pid, _) in enumerate(papers)}
    kept = list(kept)
    chosen = [papers[position[pid]] for pid in sample]
    index = MemoryBM25.build(((pid, None, text) for pid, text in chosen), title_weight=2.0)
    rows = None if vectors[0] is None else vectors[0][[position[pid] for pid in sample]]
    titles = None if vectors[1] is None else vectors[1][kept]
    result = match_program(
        chosen, [entries[e] for e in kept], index, rows, titles, thresholds=_OPEN, evidence_floor=0.0
    )
    pairings = {id(p): p for p in [*result.agreed, *(q for found in result.ranked.values() for q in found)]}
    for p in pairings.values():  # agreed pairs are in ranked too: each object once
        p.entry = kept[p.entry]
    return result


def _open_world(
    ids: list[str],
    entries: list[Any],
    truth: dict[str, set[str]],
    area: dict[str, str],
    share: float,
    seed: int,
    pool: set[str] | None = None,
    size: int | None = None,
) -> tuple[list[str], list[int]]:
    """Return (library papers, kept entry indices) of an open world where ``share`` of the papers have no entry.

    As in the trial that found the gap (a 689-entry program of some ICLR areas, a library of 100
    of its papers and 200 of other areas): the primary areas, in seeded order, are the program's
    until it holds half the papers; the library holds half of the program's papers (the other
    half are entries without a paper) and, as orphans, papers of the other areas, as many as
    make ``share`` of the library. With ``size``, the library is ``size`` papers drawn from
    ``pool`` alone (the trial's 300; the program stays every entry of its areas).
    """
    rng = np.random.default_rng(seed)
    areas = sorted(set(area.values()))
    chosen: set[str] = set()
    count = {a: sum(1 for pid in ids if area[pid] == a) for a in areas}
    for i in rng.permutation(len(areas)).tolist():
        if sum(count[a] for a in chosen) >= len(ids) / 2:
            break
        chosen.add(areas[i])
    inside = [pid for pid in ids if area[pid] in chosen]
    outside = [pid for pid in ids if area[pid] not in chosen]
    if size is not None and pool is not None:
        inside_pool = [pid for pid in inside if pid in pool]
        outside = [pid for pid in outside if pid in pool]
        n_in = min(len(inside_pool), round(size * (1 - share)))
        listed = [inside_pool[i] for i in sorted(rng.permutation(len(inside_pool))[:n_in].tolist())]
    else:
        listed = [inside[i] for i in sorted(rng.permutation(len(inside))[: len(inside) // 2].tolist())]
    k = min(len(outside), round(len(listed) * share / (1 - share)))
    orphans = [outside[i] for i in sorted(rng.permutation(len(outside))[:k].tolist())]
    program_urls = set().union(*(truth[pid] for pid in inside))
    kept = [e for e, entry in enumerate(entries) if set(entry.urls) & program_urls]
    return listed + orphans, kept


def run_enrich_eval(iclr_dir: Path, dense: bool = False, seed: int = SEED) -> dict[str, Any]:
    """Build the dev set, match, choose thresholds on the dev half, report the test half.

    Args:
        iclr_dir: the ``iclr2026-primary-area`` folder.
        dense: fuse leg A with the library's embedder (embeds every abstract and title first).
        seed: seed of the split and of the small-library samples.

    Returns:
        ``{"papers", "entries", "mode", "thresholds_chosen", "evidence_chosen",
        "thresholds_shipped", "evidence_shipped", "dev", "test", "test_shipped", "test_margins_only",
        "test_small", "test_small_open", "open", "target", "elapsed_s"}``; each figure set has ``papers, in_program,
        attached, correct, precision, coverage, suggested, suggestion_rank1_right``; ``open`` is
        one ``{"share", "library", "entries", "dev", "test_chosen", "test", "test_margins_only"}`` per
        open world (``test``: at the shipped thresholds).

    Raises:
        InputError: the folder holds no ICLR CSV.
    """
    started = time.perf_counter()
    rows = _rows(iclr_dir)
    with tempfile.TemporaryDirectory(prefix="paperscope-eval-enrich-") as tmp:
        folder = Path(tmp)
        listing = folder / "abstracts.jsonl"
        with listing.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps({"abstract": row["abstract"]}, ensure_ascii=False) + "\n")
        program_path = folder / "program.csv"
        with program_path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["title", "openreview_url", "venue"])
            for row in rows:
                writer.writerow([row["title"], row["openreview_url"], row.get("venue", "")])
        with Library(folder / "lib.db") as lib:
            lib.ingest([listing], cards=False, embed=dense)
            truth: dict[str, set[str]] = {}
            area: dict[str, str] = {}
            for pid, line in lib.store.conn.execute("SELECT paper_id, line FROM sources ORDER BY line"):
                truth.setdefault(pid, set()).add(rows[line - 1]["openreview_url"])
                area.setdefault(pid, rows[line - 1]["_area"])
            entries = read_program(program_path).entries
            papers = title_less_papers(lib)
            vectors: tuple[np.ndarray | None, np.ndarray | None] = (None, None)
            if dense:
                paper_vectors, title_vectors, notice = dense_inputs(lib, papers, entries)
                if notice:
                    raise InputError(f"eval enrich --dense: {notice}")
                vectors = (paper_vectors, title_vectors)
            result = match_program(
                papers, entries, library_bm25(lib), *vectors, thresholds=_OPEN, evidence_floor=0.0
            )
    urls = [set(e.urls) for e in entries]

    def is_right(pid: str, e: int) -> bool:
        return bool(urls[e] & truth[pid])

    ids = [pid for pid, _ in papers]
    order = np.random.default_rng(seed).permutation(len(ids))
    dev = {ids[i] for i in order[: len(ids) // 2]}
    test = {ids[i] for i in order[len(ids) // 2 :]}
    everyone = set(ids)
    closed = {
        "dev": _Run.of(result, dev, everyone, is_right),
        "test": _Run.of(result, test, everyone, is_right),
    }
    worlds = []
    for n, share in enumerate(OPEN_SHARES):
        library, kept = _open_world(ids, entries, truth, area, share, seed + 10 + n)
        world = _match_subset(papers, library, entries, vectors, kept)
        listed = set().union(*(urls[e] for e in kept))
        in_program = {pid for pid in library if truth[pid] & listed}
        members = set(library)
        worlds.append(
            {
                "share": share,
                "library": len(library),
                "entries": len(kept),
                "dev": _Run.of(world, dev & members, in_program, is_right),
                "test": _Run.of(world, test & members, in_program, is_right),
            }
        )
    # Small open libraries, the trial's shape (300 papers, two thirds in no program): reported, not
    # used in the choice; requiring DEV_PRECISION_OPEN there too (dev) chose A>=1.86 B>=3.24
    # E>=0.68, which leaves about 0.58 of the papers in the program attached in every world.
    small_open: list[_Run] = []
    for n in range(SMALL_RUNS):
        library, kept = _open_world(
            ids, entries, truth, area, OPEN_SHARES[-1], seed + 20 + n, test, SMALL_LIBRARY
        )
        listed = set().union(*(urls[e] for e in kept))
        world = _match_subset(papers, library, entries, vectors, kept)
        in_program = {pid for pid in library if truth[pid] & listed}
        small_open.append(_Run.of(world, set(library), in_program, is_right))
    small_dev = _small_runs(papers, sorted(dev), entries, vectors, is_right, seed)
    small_test = _small_runs(papers, sorted(test), entries, vectors, is_right, seed + 1)
    tau, dev_figures = _choose(
        [
            (closed["dev"], DEV_PRECISION, True),
            *((r, DEV_PRECISION, False) for r in small_dev),
            *((w["dev"], DEV_PRECISION_OPEN, True) for w in worlds),
        ]
    )
    mode = result.mode
    shipped = (*THRESHOLDS[mode], EVIDENCE_FLOOR[mode])
    margins_only = (*THRESHOLDS[mode], 0.0)
    small = [r.figures(shipped) for r in small_test]
    small_o = {
        k: [r.figures(t) for r in small_open] for k, t in (("shipped", shipped), ("margins", margins_only))
    }
    return {
        "papers": len(ids),
        "entries": len(entries),
        "mode": mode,
        "seed": seed,
        "thresholds_chosen": list(tau[:2]),
        "evidence_chosen": tau[2],
        "thresholds_shipped": list(shipped[:2]),
        "evidence_shipped": shipped[2],
        "dev": dev_figures,
        "test": closed["test"].figures(tau),
        "test_shipped": closed["test"].figures(shipped),
        "test_margins_only": closed["test"].figures(margins_only),
        "test_small": {
            "libraries": len(small),
            "papers_each": SMALL_LIBRARY,
            "precision": float(np.mean([f["precision"] for f in small])) if small else 0.0,
            "coverage": float(np.mean([f["coverage"] for f in small])) if small else 0.0,
        },
        "test_small_open": {
            "libraries": SMALL_RUNS,
            "papers_each": SMALL_LIBRARY,
            "share": OPEN_SHARES[-1],
            **{
                f"{stat}{suffix}": float(np.mean([f[stat] for f in small_o[k]]))
                for k, suffix in (("shipped", ""), ("margins", "_margins_only"))
                for stat in ("precision", "coverage")
            },
        },
        "open": [
            {
                "share": w["share"],
                "library": w["library"],
                "entries": w["entries"],
                "dev": w["dev"].figures(tau),
                "test_chosen": w["test"].figures(tau),
                "test": w["test"].figures(shipped),
                "test_margins_only": w["test"].figures(margins_only),
            }
            for w in worlds
        ],
        "target": {"precision": TARGET[0], "coverage": TARGET[1]},
        "elapsed_s": time.perf_counter() - started,
    }


def format_enrich_eval(result: dict[str, Any]) -> str:
    """Return the eval as a few plain lines: closed world, then each open world."""

    def line(name: str, f: dict[str, Any]) -> str:
        return (
            f"  {name:<40} precision {f['precision']:.4f}  coverage {f['coverage']:.4f}"
            f"  ({f['correct']:,}/{f['attached']:,} right; {f['in_program']:,} of {f['papers']:,} papers in the program);"
            f" first suggestion right {f['suggestion_rank1_right']:.3f} of {f['suggested']:,}"
        )

    ta, tb = result["thresholds_chosen"]
    te = result["evidence_chosen"]
    sa, sb = result["thresholds_shipped"]
    se = result["evidence_shipped"]
    target = result["target"]

    def meets(f: dict[str, Any]) -> bool:
        return f["precision"] >= target["precision"] and f["coverage"] >= target["coverage"]

    met = meets(result["test_shipped"]) and all(meets(w["test"]) for w in result["open"])
    small = result["test_small"]
    out = [
        f"eval enrich: {result['papers']:,} ICLR 2026 abstracts against a {result['entries']:,}-title program"
        f" ({result['mode']} legs; split seed {result['seed']}: thresholds chosen on the dev half,"
        " figures on the test half)",
        "closed world (every paper in the program):",
        line(f"dev, chosen A>={ta:.2f} B>={tb:.2f} E>={te:.2f}", result["dev"]),
        line(f"test, chosen A>={ta:.2f} B>={tb:.2f} E>={te:.2f}", result["test"]),
        line(f"test, shipped A>={sa:.2f} B>={sb:.2f} E>={se:.2f}", result["test_shipped"]),
        line(f"test, margins only A>={sa:.2f} B>={sb:.2f}", result["test_margins_only"]),
        f"  small libraries ({small['libraries']} x {small['papers_each']} test papers, whole program):"
        f" precision {small['precision']:.4f}  coverage {small['coverage']:.4f}",
    ]
    for w in result["open"]:
        out += [
            f"open world: {w['share']:.0%} of a {w['library']:,}-paper library in no program;"
            f" {w['entries']:,} entries of some areas, half without a paper in the library (coverage: of the papers in the program):",
            line(f"dev, chosen A>={ta:.2f} B>={tb:.2f} E>={te:.2f}", w["dev"]),
            line(f"test, chosen A>={ta:.2f} B>={tb:.2f} E>={te:.2f}", w["test_chosen"]),
            line(f"test, shipped A>={sa:.2f} B>={sb:.2f} E>={se:.2f}", w["test"]),
            line(f"test, margins only A>={sa:.2f} B>={sb:.2f}", w["test_margins_only"]),
        ]
    so = result["test_small_open"]
    out.append(
        f"  small open libraries ({so['libraries']} x {so['papers_each']} test papers, {so['share']:.0%} in no program):"
        f" precision {so['precision']:.4f}  coverage {so['coverage']:.4f}"
        f" (margins only: {so['precision_margins_only']:.4f} at {so['coverage_margins_only']:.4f})"
    )
    out.append(
        f"  target precision >= {target['precision']} at coverage >= {target['coverage']}:"
        f" {'met' if met else 'NOT met'} (shipped thresholds, test half, closed and open worlds)"
    )
    return "\n".join(out)
