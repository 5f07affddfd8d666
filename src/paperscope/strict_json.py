"""Strict JSON out: every JSON paperscope writes parses in a browser's ``JSON.parse`` (case 21).

Python's ``json.dumps`` writes ``NaN``, ``Infinity`` and ``-Infinity`` for non-finite floats by
default, which RFC 8259 JSON does not allow. :func:`dumps` writes them as ``null`` (missing),
the way pandas' readers and pydantic treat them, and refuses anything else non-standard.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["dumps", "finite"]


def finite(value: Any) -> Any:
    """Return ``value`` with every non-finite float (NaN, ±inf) inside dicts, lists and tuples made None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def dumps(value: Any, **kwargs: Any) -> str:
    """Return ``json.dumps(value, **kwargs)`` as strict JSON: NaN and ±Infinity become ``null``.

    Raises:
        TypeError: ``value`` holds something JSON cannot write (as ``json.dumps``).
    """
    try:
        return json.dumps(value, allow_nan=False, **kwargs)
    except ValueError:  # a non-finite float somewhere: rewrite only then (the common case pays nothing)
        return json.dumps(finite(value), allow_nan=False, **kwargs)
