"""The query model's runtime import leaves out OpenVINO's converter, and nothing else breaks."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("openvino")


def test_runtime_import_skips_the_converter_which_stays_importable():
    code = (
        "import sys; from paperscope.index.minilm import import_openvino_runtime as imp;"
        "ov = imp(); assert 'openvino.tools.ovc' not in sys.modules, 'converter loaded';"
        "assert ov.Core is not None;"
        "from openvino.tools.ovc import convert_model; assert callable(convert_model);"
        "print('ok')"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr


@pytest.mark.model
def test_a_query_vector_is_the_same_through_the_primed_runtime_only_path():
    code = (
        "import numpy as np;"
        "from paperscope.index.embed import get_embedder;"
        "e = get_embedder('minilm'); e.prime_query_path(); e.prime_query_path();"
        "v = e.embed(['speculative decoding for large language models'])[0];"
        "print(' '.join(f'{x:.7f}' for x in v))"
    )
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    full = subprocess.run(
        [sys.executable, "-c", "import openvino; " + code], capture_output=True, text=True, timeout=300
    )
    assert first.returncode == 0 and full.returncode == 0, first.stderr + full.stderr
    assert first.stdout == full.stdout and len(first.stdout.split()) == 384
