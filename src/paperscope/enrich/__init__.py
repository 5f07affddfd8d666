"""Titles from the official program: match title-less papers to a conference program and attach its fields.

``program`` reads the program file, ``match`` pairs papers and entries by two independent
rankings, ``attach`` writes the fields with their provenance and undoes them, ``run`` is one
``paperscope enrich`` run over a library.
"""

from .match import EVIDENCE_FLOOR, THRESHOLDS, MatchResult, Pairing, match_program
from .program import Program, ProgramEntry, parse_program_map, read_program
from .run import EnrichReport, enrich_library

__all__ = [
    "THRESHOLDS",
    "EVIDENCE_FLOOR",
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
