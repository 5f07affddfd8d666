"""Score cards against the hand-labelled ``cards_gold`` set (issue 27), beside the last release's extractor.

The set (``evaluation/data/cards_gold/{dev,test}.jsonl``; its README and GUIDELINE say how it was
made) holds 90 + 90 abstracts of ICLR 2026, CVPR 2023, NeurIPS 2020 and COLM 2025 with their
method names, datasets, tasks and result claims. Four fields are scored, each with precision,
recall and F1 apart, by the matching the set's README suggests:

* ``method_names`` and ``datasets``: the gold's method names include the datasets (GUIDELINE),
  so a card's predicted names are its ``method_names`` and its ``datasets`` together. A predicted name matches a gold entry when its key
  (:func:`name_key`: LaTeX flattened, case folded, hyphens and whitespace collapsed) equals the
  key of the entry's ``name`` or of one of its ``aliases`` (a gold dataset takes the aliases of
  the method-name entry of the same name).
* ``claims``: same value (:func:`claim_key`: a number, a range's endpoints or a count ``9/11``;
  the sign is not compared) and same bound (``more than`` = ``>``, ``about`` = ``~`` …; none
  equals none); the unit and ``what`` are not compared, so ``%`` and ``pp`` are equal.
  ``artifact_sizes`` are neither gold claims nor false positives: a predicted claim whose value
  is an artifact size of the paper is not counted.
* ``tasks``: soft match, Jaccard overlap of the stemmed content-word sets >= 0.5 (:func:`task_match`).

Precision is the share of predicted items (distinct keys per paper) that match some gold item;
recall is the share of gold items matched by some predicted item (micro-averaged over papers).

What is scored of our extractor is what a person is shown (:func:`paperscope.confidence.shown_card`);
the whole card (every item with its score) is scored too, as the recall ceiling. The last
release (git tag :data:`BASELINE_REF`) runs from a temporary ``git archive`` of its ``src`` in a
subprocess on the same abstracts; it showed every item, so all of its card is scored.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from ..confidence import shown_card
from ..errors import InputError
from ..extract.card import build_card
from ..models import Paper
from ..text import clean_text, decode_entities, fold

__all__ = [
    "BASELINE_REF",
    "FIELDS",
    "SPLITS",
    "baseline_cards",
    "claim_key",
    "format_cards_gold_eval",
    "load_cards_gold",
    "name_key",
    "run_cards_gold_eval",
    "score_cards",
    "task_match",
]

#: The last release, whose extractor is scored beside ours (``git tag``).
BASELINE_REF = "v0.2.0"
#: The scored fields, in print order.
FIELDS = ("method_names", "datasets", "tasks", "claims")
#: The set's parts: tune on ``dev``; score ``test`` and ``holdout`` (labelled later, four more venues) once.
SPLITS = ("dev", "test", "holdout")
#: Extractor bounds (symbols) as the guideline's words.
_BOUND_WORDS = {
    ">": "more than",
    "<": "less than",
    "≥": "at least",
    "≤": "at most",
    "~": "about",
    "≈": "about",
}
_TASK_STOP = {"the", "a", "an", "of", "for", "in", "on", "and", "to", "with", "by", "vs", "via", "from"}
_NUM_RE = re.compile(r"\d+(?:\.\d+)?")


def load_cards_gold(split: str) -> list[dict[str, Any]]:
    """Return the records of one part of the set (``dev``, ``test`` or ``holdout``), from the package data.

    Raises:
        InputError: ``split`` is not one of :data:`SPLITS`, or its file cannot be read.
    """
    if split not in SPLITS:
        raise InputError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")
    path = resources.files("paperscope.evaluation") / "data" / "cards_gold" / f"{split}.jsonl"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the cards gold: {exc}", str(path)) from exc
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def name_key(name: str) -> str:
    """Return the matching key of a name: ``"ResNet-50"``, ``"resnet 50"`` and ``"ResNet 50"`` are equal."""
    return " ".join(re.sub(r"[-_‐‑–—/]+", " ", fold(clean_text(name))).split())


def claim_key(value: Any, bound: str | None) -> tuple[tuple[float, ...], str] | None:
    """Return the matching key of a claim: the numbers of its value (absolute) and its bound in words.

    ``("3.07", None)`` gives ``((3.07,), "")``; ``("3-5", "up to")`` gives ``((3.0, 5.0), "up to")``;
    ``("9/11", None)`` gives ``((9.0, 11.0), "")``; ``(">", …)`` reads as ``more than``. A value
    without a digit (``"more than double"``) gives None and matches nothing.
    """
    numbers = tuple(round(float(n), 6) for n in _NUM_RE.findall(str(value).replace(",", "")))
    if not numbers:
        return None
    word = (bound or "").strip().lower()
    return numbers, _BOUND_WORDS.get(word, word)


def _stem(word: str) -> str:
    for suffix in ("ies", "ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    return word[:-1] if len(word) > 4 and word[-1] == word[-2] and word[-1] in "lmnprt" else word


def _task_tokens(text: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in re.findall(r"[a-z0-9]+", fold(text)) if w not in _TASK_STOP)


def task_match(a: str, b: str) -> bool:
    """Return True when two task phrases share at least half of their stemmed content words (Jaccard)."""
    x, y = _task_tokens(a), _task_tokens(b)
    return bool(x | y) and len(x & y) / len(x | y) >= 0.5


def _counts(
    pred: Sequence[Any], gold: Sequence[Any], match: Callable[[Any, Any], bool]
) -> tuple[int, int, int, int]:
    """Return ``(predicted, predicted that match, gold, gold matched)`` of one paper's field."""
    hit_pred = sum(any(match(p, g) for g in gold) for p in pred)
    hit_gold = sum(any(match(p, g) for p in pred) for g in gold)
    return len(pred), hit_pred, len(gold), hit_gold


def _unique(items: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(i for i in items if i is not None))


def _paper_counts(record: Mapping[str, Any], card: Mapping[str, Any]) -> dict[str, tuple[int, int, int, int]]:
    entries = [
        {name_key(m["name"]), *(name_key(a) for a in m.get("aliases") or [])} for m in record["method_names"]
    ]
    aliases = {name_key(m["name"]): keys for m, keys in zip(record["method_names"], entries, strict=True)}
    datasets = [aliases.get(name_key(d), {name_key(d)}) for d in record["datasets"]]
    sizes = {k[0] for a in record.get("artifact_sizes") or [] if (k := claim_key(a.get("value"), None))}
    claims = [claim_key(c.get("value"), c.get("bound")) for c in card.get("claims") or []]
    return {
        "method_names": _counts(
            _unique(
                name_key(n)
                for n in [*(card.get("method_names") or []), *(d["name"] for d in card.get("datasets") or [])]
            ),
            entries,
            lambda p, g: p in g,
        ),
        "datasets": _counts(
            _unique(name_key(d["name"]) for d in card.get("datasets") or []), datasets, lambda p, g: p in g
        ),
        "tasks": _counts(_unique(t["text"] for t in card.get("tasks") or []), record["tasks"], task_match),
        "claims": _counts(
            _unique(c for c in claims if c is None or c[0] not in sizes),
            _unique(claim_key(c["value"], c.get("bound")) for c in record["claims"]),
            lambda p, g: p == g,
        ),
    }


def score_cards(records: Sequence[Mapping[str, Any]], cards: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Return ``{field: {precision, recall, f1, predicted, gold, tp_pred, tp_gold}}`` over the papers.

    Args:
        records: gold records (:func:`load_cards_gold`).
        cards: one card dict per record, in the same order (``Card.to_dict()`` shape).
    """
    totals = {f: [0, 0, 0, 0] for f in FIELDS}
    for record, card in zip(records, cards, strict=True):
        for name, counts in _paper_counts(record, card).items():
            totals[name] = [a + b for a, b in zip(totals[name], counts, strict=True)]
    out = {}
    for name, (n_pred, tp_pred, n_gold, tp_gold) in totals.items():
        p = tp_pred / n_pred if n_pred else 0.0
        r = tp_gold / n_gold if n_gold else 0.0
        out[name] = {
            "precision": p,
            "recall": r,
            "f1": 2 * p * r / (p + r) if p + r else 0.0,
            "predicted": n_pred,
            "gold": n_gold,
            "tp_pred": tp_pred,
            "tp_gold": tp_gold,
        }
    return out


def _paper(record: Mapping[str, Any]) -> Paper:
    """Return the gold record as ingest would store it (entities decoded, clean text)."""
    abstract = decode_entities(record["abstract"])
    title = clean_text(decode_entities(record["title"])) if record.get("title") else None
    return Paper(
        paper_id=record["id"], abstract=abstract, clean_text=clean_text(abstract), title=title or None
    )


#: Run in the release's export: reads records (JSON list) on stdin, writes their card dicts.
_BASELINE_RUNNER = """
import json, sys
from paperscope.extract.card import build_card
from paperscope.models import Paper
from paperscope.text import clean_text, decode_entities
cards = []
for r in json.load(sys.stdin):
    abstract = decode_entities(r["abstract"])
    title = clean_text(decode_entities(r["title"])) if r.get("title") else None
    paper = Paper(paper_id=r["id"], abstract=abstract, clean_text=clean_text(abstract), title=title or None)
    cards.append(build_card(paper).to_dict())
json.dump(cards, sys.stdout)
"""


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, timeout=120, check=False)


def baseline_cards(
    records: Sequence[Mapping[str, Any]], ref: str = BASELINE_REF, repo: Path | None = None
) -> tuple[list[dict[str, Any]] | None, str]:
    """Return the cards the release ``ref`` builds for ``records``, or None and why not.

    Exports ``src`` of ``ref`` with ``git archive`` into a temporary folder and runs its
    extractor there in a subprocess (``PYTHONPATH`` at the export), so both extractors read the
    same abstracts in one run. Needs ``git`` and a checkout that holds the tag.

    Args:
        records: gold records (:func:`load_cards_gold`).
        ref: the git tag or commit of the release.
        repo: a folder in the checkout; default this package's folder.

    Returns:
        ``(cards, "")`` in record order, or ``(None, reason)`` (one line) when the baseline is
        unavailable: not a git checkout, tag missing, or the release's extractor failed.
    """
    repo = repo or Path(__file__).resolve().parent
    try:
        top = _git(repo, "rev-parse", "--show-toplevel")
        if top.returncode != 0:
            return None, f"baseline {ref} unavailable: {repo} is not in a git checkout"
        root = Path(top.stdout.decode().strip())
        if _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").returncode != 0:
            return None, f"baseline {ref} unavailable: the checkout has no {ref} (git fetch --tags)"
        with tempfile.TemporaryDirectory(prefix="paperscope-baseline-") as tmp:
            archive = _git(root, "archive", "--format=tar", ref, "src")
            if archive.returncode != 0:
                return (
                    None,
                    f"baseline {ref} unavailable: git archive failed: {archive.stderr.decode().strip()}",
                )
            subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True, timeout=120)
            env = {**os.environ, "PYTHONPATH": str(Path(tmp) / "src")}
            done = subprocess.run(
                [sys.executable, "-c", _BASELINE_RUNNER],
                input=json.dumps(list(records)).encode(),
                capture_output=True,
                env=env,
                cwd=tmp,
                timeout=1800,
                check=False,
            )
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"baseline {ref} unavailable: {exc}"
    if done.returncode != 0:
        last = (done.stderr.decode(errors="replace").strip().splitlines() or ["no message"])[-1]
        return None, f"baseline {ref} unavailable: its extractor failed ({last})"
    return json.loads(done.stdout), ""


def run_cards_gold_eval(split: str = "dev", baseline: bool = True) -> dict[str, Any]:
    """Build our cards for one part of the set, and the release's, and score both.

    Args:
        split: ``dev`` (tune on it) or ``test`` (score once).
        baseline: also run :data:`BASELINE_REF`'s extractor (about 20 s more).

    Returns:
        ``{"split", "n_papers", "runs": {run name: score_cards(...)}, "baseline_note", "elapsed_s"}``;
        runs are ``shown`` (what a page shows), ``card`` (every item of the card JSON) and, when
        available, the release's. ``baseline_note`` says why the release is missing, else "".

    Raises:
        InputError: ``split`` is not ``dev`` or ``test``.
    """
    started = time.perf_counter()
    records = load_cards_gold(split)
    cards = [build_card(_paper(r)).to_dict() for r in records]
    runs = {
        "ours, shown": score_cards(records, [shown_card(c) for c in cards]),
        "ours, whole card": score_cards(records, cards),
    }
    note = "baseline not run (--no-baseline)"
    if baseline:
        old, note = baseline_cards(records)
        if old is not None:
            runs[f"release {BASELINE_REF}"] = score_cards(records, old)
    return {
        "split": split,
        "n_papers": len(records),
        "runs": runs,
        "baseline_note": note,
        "elapsed_s": time.perf_counter() - started,
    }


def format_cards_gold_eval(result: Mapping[str, Any]) -> str:
    """Return the evaluation as one table: P, R, F1 per field and run."""
    lines = [
        f"Cards on the hand-labelled cards_gold {result['split']} part ({result['n_papers']} abstracts)",
        "",
        f"{'field':<13} {'run':<18} {'P':>6} {'R':>6} {'F1':>6} {'pred':>5} {'gold':>5}",
    ]
    for name in FIELDS:
        for run, scores in result["runs"].items():
            s = scores[name]
            lines.append(
                f"{name:<13} {run:<18} {s['precision']:>6.3f} {s['recall']:>6.3f} {s['f1']:>6.3f} "
                f"{s['predicted']:>5} {s['gold']:>5}"
            )
    if result.get("baseline_note"):
        lines += ["", result["baseline_note"]]
    return "\n".join(lines)
