"""paperscope: turn a conference's paper list into a library you can search, map and triage.

``Library`` is imported on first use (PEP 562 module ``__getattr__``), so ``paperscope --help``
and other light commands do not pay for numpy and every stage at start-up.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from .errors import InputError, ModelUnavailable, NotFound, PaperscopeError, StoreError
from .models import Card, FileReport, Hit, IngestReport, Paper, Record, Skip, Source, Topic
from .offline import block_telemetry as _block_telemetry

_block_telemetry()  # before OpenVINO or NNCF is imported: they would send usage data (offline.py)

if _TYPE_CHECKING:
    from .library import Library

__version__ = "0.2.0"

__all__ = [
    "Library",
    "Paper",
    "Card",
    "Hit",
    "Topic",
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


def __getattr__(name: str) -> _Any:
    if name == "Library":
        from .library import Library

        return Library
    raise AttributeError(f"module 'paperscope' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
