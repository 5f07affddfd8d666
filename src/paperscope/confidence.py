"""Which card items a person is shown: those whose confidence reaches the field's threshold (issue 27).

A card keeps every item the extractors found, each with its ``confidence`` (0 to 1); pages,
``paperscope show`` and the exports show only the confident ones (:func:`shown_card`), so what
is shown is right first. Items of cards built before confidences (no ``confidence`` key) are shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["SHOW_THRESHOLDS", "is_shown", "shown_card"]

#: Least confidence an item needs to be shown, per card field; tuned on the dev half of
#: ``evaluation/data/cards_gold`` for a shown precision near 0.90 (``paperscope eval cards
#: --split dev``). Claims 0.6 (extractor 0.12): precision 1.000, recall 0.842 (0.943 / 0.868 for
#: every claim; the two settings the card holds score 0.22 and 0.55). Methods 0.65 (extractor
#: 0.14; the confidence is the name model's, fitted on dev, so the figure is leave-one-venue-out,
#: ``scripts/train_method_name_model.py --cv``): precision 0.910, recall 0.644 at 0.65 (0.7: 0.915 /
#: 0.628; 0.5: 0.845 / 0.723). Datasets 0.5 shows every source, each right on 90% or more of
#: the dev names (all of them: precision 0.982, recall 0.857).
SHOW_THRESHOLDS: dict[str, float] = {"methods": 0.65, "datasets": 0.5, "claims": 0.6}


def is_shown(item: Mapping[str, Any], field: str) -> bool:
    """Return True when ``item`` (a card entry of ``field``) is confident enough to show."""
    confidence = item.get("confidence")
    return confidence is None or float(confidence) >= SHOW_THRESHOLDS.get(field, 0.0)


def shown_card(card: Mapping[str, Any]) -> dict[str, Any]:
    """Return a copy of ``card`` (``Card.to_dict()`` shape) with only the items to show.

    ``methods``, ``datasets`` and ``claims`` keep their confident entries; ``method_names``
    keeps the names of the shown ``methods`` (all of them when the card has no ``methods``).
    """
    out = dict(card)
    for field in ("methods", "datasets", "claims"):
        if isinstance(card.get(field), list):
            out[field] = [i for i in card[field] if not isinstance(i, Mapping) or is_shown(i, field)]
    if isinstance(card.get("methods"), list) and card["methods"]:
        shown = {m.get("name") for m in out["methods"] if isinstance(m, Mapping)}
        out["method_names"] = [n for n in card.get("method_names") or [] if n in shown]
    return out
