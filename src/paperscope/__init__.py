"""paperscope: turn a conference's paper list into a library you can search, map and triage."""

from .errors import InputError, ModelUnavailable, NotFound, PaperscopeError, StoreError
from .library import Library
from .models import Card, FileReport, Hit, IngestReport, Paper, Record, Skip, Source

__version__ = "0.1.0"

__all__ = [
    "Library",
    "Paper",
    "Card",
    "Hit",
    "Record",
    "Source",
    "Skip",
    "FileReport",
    "IngestReport",
    "PaperscopeError",
    "InputError",
    "NotFound",
    "ModelUnavailable",
    "StoreError",
    "__version__",
]
