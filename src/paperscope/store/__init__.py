"""The only code that speaks SQL: schema and migrations, papers, cards, marks, lexical search."""

from .db import SCHEMA_VERSION, Store

__all__ = ["Store", "SCHEMA_VERSION"]
