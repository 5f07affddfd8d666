"""Score claims against our own hand-labelled sentences: is each number found, and what it says.

The labels (:data:`LABELS`, package data ``evaluation/data/claim_relations.jsonl``) were written by us before any extractor was run
on them: 80 sentences with a result number, drawn with a fixed seed from the ICLR 2026 abstracts
of ``../shared/data/iclr2026-primary-area`` (a set the claim extractor was never tuned on), split
40 ``dev`` / 40 ``test``. Each sentence lists its claims: the value as written (ranges ``4–7``,
words ``doubling``), the relation (``improves``, ``reduces``, ``increases``, ``reaches``,
``speedup``, ``compared-with``) and the baseline when the sentence gives one.

A gold claim is found when an extracted claim of the sentence has the same value (numbers
compared as numbers, a sign dropped; ranges and words as written, case and dash style ignored).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..extract.claims import extract_claims

__all__ = ["LABELS", "RelationScore", "score_relations", "same_value"]

#: Our hand-labelled claim sentences (80: 40 dev, 40 test).
LABELS = Path(__file__).resolve().parent / "data" / "claim_relations.jsonl"


def _norm(value: str) -> str:
    text = str(value).strip().lower().replace("−", "-").replace("—", "–").lstrip("+-")
    text = re.sub(r"\s*(?:-|–|to)\s*", "–", text) if re.match(r"^\d", text) else text
    parts = text.split("–")
    try:
        return "–".join(repr(float(p.replace(",", "").rstrip("%×x"))) for p in parts)
    except ValueError:
        return text


def same_value(a: str, b: str) -> bool:
    """True when two values as written are the same number, range or word (``"64.0"`` = ``"64"``)."""
    return _norm(a) == _norm(b)


@dataclass
class RelationScore:
    """Counts over one split: gold claims, found, and of the found the right relation / baseline."""

    sentences: int = 0
    gold: int = 0
    found: int = 0
    relation_right: int = 0
    baselines: int = 0
    baseline_right: int = 0
    extracted: int = 0
    misses: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Return the counts and the rates (``recall`` = found / gold, ``relation_accuracy`` = right / found)."""
        return {
            "sentences": self.sentences,
            "gold": self.gold,
            "found": self.found,
            "extracted": self.extracted,
            "recall": self.found / self.gold if self.gold else 0.0,
            "relation_accuracy": self.relation_right / self.found if self.found else 0.0,
            "baseline_accuracy": self.baseline_right / self.baselines if self.baselines else 0.0,
        }


def score_relations(path: Path = LABELS, split: str | None = None) -> RelationScore:
    """Extract the claims of each labelled sentence of ``path`` and score them.

    Args:
        path: the JSON Lines file of labelled sentences (see the module docstring).
        split: ``"dev"``, ``"test"`` or None for both.

    Raises:
        OSError: the file cannot be read. ValueError: a line is not a labelled sentence.
    """
    score = RelationScore()
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if split is not None and row["split"] != split:
            continue
        score.sentences += 1
        found = extract_claims(row["sentence"])
        score.extracted += len(found)
        used: set[int] = set()
        for gold in row["claims"]:
            score.gold += 1
            match = next(
                (i for i, c in enumerate(found) if i not in used and same_value(c.value, gold["value"])), None
            )
            if "baseline" in gold:
                score.baselines += 1
            if match is None:
                score.misses.append({"id": row["id"], "value": gold["value"], "why": "not found"})
                continue
            used.add(match)
            claim = found[match]
            score.found += 1
            if getattr(claim, "relation", None) == gold["relation"]:
                score.relation_right += 1
            else:
                score.misses.append(
                    {
                        "id": row["id"],
                        "value": gold["value"],
                        "why": f"{getattr(claim, 'relation', '')} ≠ {gold['relation']}",
                    }
                )
            if "baseline" in gold and same_value(getattr(claim, "baseline", "") or "", gold["baseline"]):
                score.baseline_right += 1
    return score
