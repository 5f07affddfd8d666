"""Native extensions that must load in a fixed order in one process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from paperscope.index.dense import ann_installed

SCRIPT = """
import numpy as np
from paperscope.index.dense import DenseIndex
index = DenseIndex([str(i) for i in range(64)], np.eye(64, 384, dtype=np.float32), np.ones(64, dtype=np.int32))
index.ann_threshold = 0
index.build_ann()  # usearch is imported here, first of the two
from paperscope.index.embed import get_embedder
print(get_embedder("minilm").embed(["speculative decoding", "graph pruning"] * 12).shape)
"""


@pytest.mark.model
@pytest.mark.skipif(
    not ann_installed(), reason="the HNSW graph needs the ann extra: pip install 'paperscope[ann]'"
)
def test_the_embedding_model_loads_after_an_hnsw_index_was_built(tmp_path) -> None:
    # A fresh process: in this one usearch or OpenVINO may already be loaded in either order.
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "(24, 384)"
