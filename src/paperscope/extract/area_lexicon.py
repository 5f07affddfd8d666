"""Zero-shot area lexicons: the 21 ICLR 2026 areas and a weighted term list per area.

The lexicons (``data/areas.txt``, written by us: "hypergraph", "causal discovery", "robotic
manipulation" …) let :func:`paperscope.extract.area.predict_area` choose one of the 9 areas the
trained model has never seen (no ICLR 2026 paper is labelled with them).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from importlib import resources

__all__ = ["AREAS", "lexicon_scores", "lexicon_scores_nonempty"]


@functools.cache
def _area_lexicons() -> tuple[tuple[str, ...], dict[str, list[tuple[str, re.Pattern[str], float]]]]:
    """Return the 21 areas and, per area, its terms as (literal probe, pattern, weight)."""
    body = resources.files("paperscope.extract").joinpath("data", "areas.txt").read_text(encoding="utf-8")
    areas: list[str] = []
    lexicons: dict[str, list[tuple[str, re.Pattern[str], float]]] = {}
    for line in body.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        area, _, terms = line.partition("\t")
        areas.append(area)
        compiled = []
        for term in (t.strip() for t in terms.split(";")):
            if not term:
                continue
            term, _, weight = term.partition(":")
            prefix = term.endswith("*")
            stem = term.rstrip("*")
            body_re = re.escape(stem).replace(r"\ ", r"[\s-]+")
            pattern = rf"(?<![\w-]){body_re}" + (r"" if prefix else r"(?![\w-])")
            # The probe (first word, lower-cased) is a cheap substring test before the regex runs.
            probe = re.split(r"[^\w]", stem.lower())[0]
            compiled.append((probe, re.compile(pattern, re.IGNORECASE), float(weight or 1)))
        lexicons[area] = compiled
    return tuple(areas), lexicons


def _areas() -> tuple[str, ...]:
    return _area_lexicons()[0]


AREAS: tuple[str, ...] = _areas()


def lexicon_scores(text: str, areas: Iterable[str] | None = None) -> dict[str, float]:
    """Return the zero-shot score of each area: the summed weights of its distinct terms in ``text``."""
    _, lexicons = _area_lexicons()
    # Probes are word starts: " gene" is not a probe hit inside "generate".
    lowered = " " + re.sub(r"[^\w\s]", " ", text.lower())
    # The probes found, by the prefixes of each space-separated word (the same test as
    # ``" " + probe in lowered``, in one pass over the words instead of a scan per term).
    by_head = _probes()
    hit = {
        p for w in set(lowered.split(" ")) for k in _HEADS for p in by_head.get(w[:k], ()) if w.startswith(p)
    }
    hit.add("")  # a term with no probe (it starts with a sign) is always tried
    out = {}
    for area in areas if areas is not None else AREAS:
        out[area] = sum(
            weight
            for probe, pattern, weight in lexicons.get(area, [])
            if probe in hit and pattern.search(text)
        )
    return out


_HEADS = (1, 2, 3)  # a probe is looked up by its first letters, up to three


@functools.cache
def _probes() -> dict[str, tuple[str, ...]]:
    """Return every term's probe, keyed by its first letters (three, or all of a shorter probe)."""
    probes = {p for terms in _area_lexicons()[1].values() for p, _, _ in terms}
    by_head: dict[str, list[str]] = {}
    for p in sorted(probes):
        if p:
            by_head.setdefault(p[: _HEADS[-1]], []).append(p)
    return {h: tuple(ps) for h, ps in by_head.items()}


def lexicon_scores_nonempty(area: str) -> bool:
    """Return True when ``area`` has a lexicon (``other topics …`` has none and is never chosen)."""
    return bool(_area_lexicons()[1].get(area))
