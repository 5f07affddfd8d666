"""Titles from the official program: match title-less papers to a conference program and attach its fields.

``program`` reads the program file, ``pair_features`` and ``pair_model`` score candidate
(paper, entry) pairs, ``assign`` matches them one to one (``match`` holds issue 15's two-ranking
matcher and the entry point), ``attach`` writes the fields with their provenance and undoes them, ``run`` is one
``paperscope enrich`` run over a library.
"""

from .match import EVIDENCE_FLOOR, MATCHERS, THRESHOLDS, MatchResult, Pairing, match_program
from .program import Program, ProgramEntry, parse_program_map, read_program
from .run import EnrichReport, enrich_library

__all__ = [
    "THRESHOLDS",
    "EVIDENCE_FLOOR",
    "MATCHERS",
    "MatchResult",
    "Pairing",
    "match_program",
    "Program",
    "ProgramEntry",
    "parse_program_map",
    "read_program",
    "EnrichReport",
    "enrich_library",
]
