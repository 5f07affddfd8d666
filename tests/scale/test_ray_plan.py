"""The Ray engine's plan (no cluster): actors per GPU for a GPU embedder, per CPU otherwise."""

from __future__ import annotations

import pytest

from paperscope.errors import PaperscopeError
from paperscope.scale.ray_engine import _plan, _plan_line

TWO_NODES = {"CPU": 32.0, "GPU": 4.0, "node:10.0.0.1": 1.0, "node:10.0.0.2": 1.0}


def test_a_gpu_embedder_gets_one_actor_per_gpu_holding_it():
    assert _plan(TWO_NODES, "minilm-cuda") == (4, {"num_gpus": 1, "num_cpus": 1.0})
    line = _plan_line(TWO_NODES, "minilm-cuda", 4, 2)
    assert line == (
        "plan: 4 embedding actors with one GPU each (minilm-cuda); reading and cards as tasks on 32 CPUs"
        " of 2 nodes; expected about 32,000 papers/s (cards: about 250 papers/s per CPU)"
    )


def test_the_cpu_embedder_gets_one_actor_per_cpu():
    assert _plan(TWO_NODES, "minilm") == (32, {"num_cpus": 0.5})
    assert _plan_line(TWO_NODES, "minilm", 32, 2).endswith("expected about 960 papers/s")


def test_a_gpu_embedder_on_a_cluster_without_gpus_is_one_clear_error():
    with pytest.raises(PaperscopeError, match="the Ray cluster has no GPU.*--device cpu"):
        _plan({"CPU": 2.0}, "minilm-cuda")
