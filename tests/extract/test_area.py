"""Primary area: bundled model, zero-shot lexicons, source labels, save/load round trip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paperscope.extract.area import (
    AREAS,
    AreaModel,
    lexicon_scores,
    load_area_model,
    predict_area,
    train_area_model,
)

GRAPH_ABSTRACT = (
    "Hypergraph contrastive learning is an effective paradigm for representation learning on higher-order "
    "relational data. We introduce a hypergraph neural network with message passing over hyperedges and "
    "evaluate node classification on 15 hypergraph datasets with homophilic and heterophilic regimes."
)
RL_ABSTRACT = (
    "We study offline reinforcement learning where the agent learns a policy from a fixed dataset of "
    "transitions. Our actor-critic algorithm constrains the policy to the behavior policy and improves the "
    "return on D4RL locomotion tasks while keeping value estimates conservative."
)


def test_taxonomy_has_the_21_iclr_areas(shared_data: Path):
    listed = [
        line.strip()
        for line in (shared_data / "gold" / "iclr2026_primary_areas.txt")
        .read_text(encoding="utf-8")
        .splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert sorted(AREAS) == sorted(listed)
    assert len(AREAS) == 21


def test_bundled_model_covers_the_12_trained_areas():
    model = load_area_model()
    assert len(model.classes) == 12
    assert set(model.classes) < set(AREAS)
    assert model.coef.shape == (12, 60000)


def test_trained_area_for_a_clear_abstract():
    prediction = predict_area(RL_ABSTRACT)
    assert (prediction.label, prediction.source) == ("reinforcement learning", "model")
    assert 0.5 < prediction.confidence <= 1.0


def test_zero_shot_area_for_an_unseen_area():
    prediction = predict_area(GRAPH_ABSTRACT)
    assert (prediction.label, prediction.source) == (
        "learning on graphs and other geometries & topologies",
        "lexicon",
    )


def test_source_label_is_kept():
    prediction = predict_area(RL_ABSTRACT, source_area="optimization")
    assert prediction.to_dict() == {"label": "optimization", "confidence": 1.0, "source": "source"}


def test_lexicon_needs_a_word_start():
    # "generate" holds "gene" and "knowledge" holds "edge": neither is a biology or graph term.
    scores = lexicon_scores(
        "We generate knowledge.", ["applications to physical sciences (physics, chemistry, biology, etc.)"]
    )
    assert scores == {"applications to physical sciences (physics, chemistry, biology, etc.)": 0.0}


@pytest.mark.slow
def test_train_save_load_round_trip(tmp_path: Path, shared_data: Path):
    from paperscope.evaluation.cards import load_iclr_area_papers

    papers = [p for p in load_iclr_area_papers(shared_data / "iclr2026-primary-area")]
    rng = np.random.default_rng(0)
    sample = [papers[i] for i in rng.choice(len(papers), 400, replace=False)]
    model = train_area_model(sample, seed=0, max_features=3000)
    path = tmp_path / "area.npz"
    model.save(path)
    loaded = AreaModel.load(path)
    for abstract, title, keywords, _ in sample[:20]:
        a = model.decision(abstract, title, keywords)
        b = loaded.decision(abstract, title, keywords)
        assert int(a.argmax()) == int(b.argmax())
        assert np.abs(a - b).max() < 0.02  # float16 weights on disk
    assert loaded.classes == model.classes
    assert loaded.temperature == pytest.approx(model.temperature)
