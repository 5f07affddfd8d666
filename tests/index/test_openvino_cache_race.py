"""A failed write of OpenVINO's shared model cache compiles again without the cache (two Ray actors)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from paperscope.index.minilm import compile_model

_RACE = (
    "Exception from src/inference/src/cpp/core.cpp:132:\nfilesystem error: cannot set permissions:"
    " No such file or directory [/cache/models/compiled/1075.blob]"
)


class _Core:
    """OpenVINO's Core as compile_model uses it: a cache folder property and compile_model."""

    def __init__(self, cache_dir: str, failures: int) -> None:
        self.properties = {"CACHE_DIR": cache_dir}
        self.failures = failures
        self.calls: list[tuple[str, str]] = []

    def get_property(self, name: str) -> str:
        return self.properties[name]

    def set_property(self, values: dict[str, str]) -> None:
        self.properties.update(values)

    def compile_model(self, ir: str, device: str, config: dict[str, str]) -> Any:
        self.calls.append((ir, self.properties["CACHE_DIR"]))
        if self.failures:
            self.failures -= 1
            raise RuntimeError(_RACE)
        return ("compiled", ir, device, dict(config))


def test_a_cache_write_that_fails_compiles_again_without_the_cache() -> None:
    core = _Core("/cache/models/compiled", failures=1)
    compiled = compile_model(core, Path("/m/model.xml"), {"NUM_STREAMS": "1"})
    assert compiled == ("compiled", "/m/model.xml", "CPU", {"NUM_STREAMS": "1"})
    assert core.calls == [("/m/model.xml", "/cache/models/compiled"), ("/m/model.xml", "")]


@pytest.mark.parametrize(("cache_dir", "failures", "calls"), [("", 1, 1), ("/cache/models/compiled", 2, 2)])
def test_an_error_without_the_cache_is_raised(cache_dir: str, failures: int, calls: int) -> None:
    core = _Core(cache_dir, failures=failures)
    with pytest.raises(RuntimeError, match="cannot set permissions"):
        compile_model(core, Path("/m/model.xml"), {})
    assert len(core.calls) == calls
