"""The opt-in text block of the topic pipeline: LSA of TF-IDF n-grams joined to the embeddings."""

from __future__ import annotations

import numpy as np
import pytest
from topics_helpers import lsa_embed

from paperscope.errors import InputError
from paperscope.topics import fit_topics
from paperscope.topics.features import MIN_TEXT_PAPERS, join_features, lsa_features

THEMES = [
    "diffusion models denoising steps sampler image generation",
    "reinforcement learning policy reward offline agents",
    "graph neural networks message passing node classification",
]


def themed_docs(n: int) -> list[str]:
    """Return n short abstracts, theme i % 3, each with its own number so no two are equal."""
    return [
        f"Paper {i} studies {THEMES[i % 3]} with variant {i} of the {THEMES[(i + 1) % 3].split()[0]}."
        for i in range(n)
    ]


def test_joined_cosine_mixes_embedding_and_text_cosines_by_weight():
    emb = np.array([[1.0, 0.0], [0.6, 0.8]], dtype=np.float32)  # cosine 0.6
    text = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], dtype=np.float32)  # cosine 0
    joined = join_features(emb, text, 0.25)
    assert joined.shape == (2, 5)
    assert np.linalg.norm(joined, axis=1) == pytest.approx([1.0, 1.0])
    assert float(joined[0] @ joined[1]) == pytest.approx(0.75 * 0.6 + 0.25 * 0.0)


def test_lsa_features_skip_small_libraries_and_are_unit_rows_and_repeatable():
    assert lsa_features(themed_docs(MIN_TEXT_PAPERS - 1)) is None
    docs = themed_docs(60)
    block = lsa_features(docs)
    assert block is not None and block.dtype == np.float32
    assert block.shape == (60, block.shape[1]) and 1 <= block.shape[1] <= 59
    assert np.linalg.norm(block, axis=1) == pytest.approx(np.ones(60), abs=1e-5)
    assert np.array_equal(block, lsa_features(docs))


def test_text_weight_is_checked_and_leaves_small_libraries_unchanged():
    docs = themed_docs(30)
    emb = lsa_embed(docs)
    paper_ids = [f"p{i:03d}" for i in range(30)]
    with pytest.raises(InputError, match=r"text_weight must be in \[0, 1\), got 1.0"):
        fit_topics(paper_ids, docs, emb, text_weight=1.0)
    plain = fit_topics(paper_ids, docs, emb)
    joined = fit_topics(paper_ids, docs, emb, text_weight=0.2)
    assert joined.fingerprint() == plain.fingerprint()
    assert joined.settings["text_weight"] == 0.2


def test_text_weight_fit_is_deterministic_and_places_every_paper():
    docs = themed_docs(90)
    emb = lsa_embed(docs)
    paper_ids = [f"p{i:03d}" for i in range(90)]
    first = fit_topics(paper_ids, docs, emb, text_weight=0.2)
    again = fit_topics(paper_ids, docs, emb, text_weight=0.2)
    assert first.fingerprint() == again.fingerprint()
    assert first.unassigned_fraction == 0.0
