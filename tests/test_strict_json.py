"""Every JSON paperscope writes is strict (RFC 8259): no NaN or Infinity a browser cannot parse."""

from __future__ import annotations

import json
import math

import pytest

from paperscope.strict_json import dumps, finite


def _strict_loads(text: str):
    def refuse(name: str):
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def test_non_finite_floats_become_null_at_any_depth() -> None:
    value = {
        "year": math.nan,
        "scores": [1.5, math.inf, (-math.inf, 2)],
        "nested": {"x": math.nan},
        "s": "NaN",
    }
    text = dumps(value, ensure_ascii=False)
    assert _strict_loads(text) == {
        "year": None,
        "scores": [1.5, None, [None, 2]],
        "nested": {"x": None},
        "s": "NaN",
    }
    assert "NaN" not in text.replace('"NaN"', "") and "Infinity" not in text


def test_finite_values_are_written_exactly_as_json_dumps_writes_them() -> None:
    value = {"a": [1, 2.25, "é", None, True], "b": {"c": -0.0}}
    assert dumps(value, ensure_ascii=False, indent=2) == json.dumps(value, ensure_ascii=False, indent=2)
    assert finite(value) == value


def test_what_json_cannot_write_is_still_an_error() -> None:
    with pytest.raises(TypeError):
        dumps({"a": object()})
