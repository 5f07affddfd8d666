"""Recommendations from stars/tags: exemplar SVM ranking, explanations, and errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paperscope import Library
from paperscope.errors import InputError
from paperscope.triage.learn import build_features, rank_with_feedback


def _unit(rows: list[list[float]]) -> np.ndarray:
    m = np.asarray(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_svm_ranks_the_cluster_of_the_positives_first() -> None:
    # Two clusters of embeddings: rows 0-3 near the x axis, rows 4-7 near the y axis; the texts
    # are all alike, so only the embeddings (and the graph over them) can tell the clusters apart.
    dense = _unit([[1, 0.1], [1, 0.2], [1, -0.1], [1, 0.05], [0.1, 1], [0.2, 1], [-0.1, 1], [0.05, 1]])
    features = build_features(["a paper"] * 8, dense)
    ranked = rank_with_feedback(features, [0, 1], [], limit=6)
    assert {r.row for r in ranked[:2]} == {2, 3}
    assert {r.row for r in ranked} == {2, 3, 4, 5, 6, 7}
    assert all(set(r.like) <= {0, 1} and r.like for r in ranked)
    assert ranked[0].score > ranked[2].score


def test_no_positive_or_all_positive_is_an_error() -> None:
    features = build_features(["one paper", "another paper"], _unit([[1, 0], [0, 1]]))
    with pytest.raises(ValueError, match="star, keep or tag"):
        rank_with_feedback(features, [], [], 5)
    with pytest.raises(ValueError, match="nothing left"):
        rank_with_feedback(features, [0, 1], [], 5)


def test_graph_averages_each_papers_nearest_neighbours() -> None:
    # 30 random papers: each row of the graph sums to 1, holds no self-loop, at least NEIGHBOURS
    # papers (more where it is someone else's neighbour) and weighs its nearest paper most.
    from paperscope.triage.learn import NEIGHBOURS

    rng = np.random.default_rng(0)
    dense = _unit(rng.normal(size=(30, 5)).tolist())
    graph = build_features([f"paper {i}" for i in range(30)], dense).graph.toarray()
    cosine = dense @ dense.T
    np.fill_diagonal(cosine, -np.inf)
    assert np.allclose(graph.sum(axis=1), 1) and not graph.diagonal().any()
    assert ((graph > 0).sum(axis=1) >= np.minimum(NEIGHBOURS, (cosine > 0).sum(axis=1))).all()
    assert (graph.argmax(axis=1) == cosine.argmax(axis=1)).all()


def test_library_recommend_excludes_marked_papers(icml_library: Library) -> None:
    with pytest.raises(InputError, match="no paper is starred"):
        icml_library.recommend()
    liked = [h.paper_id for h in icml_library.search("dataset distillation", limit=2, mode="bm25")]
    for paper_id in liked:
        icml_library.star(paper_id)
    hits = icml_library.recommend(limit=5)
    assert len(hits) == 5 and not {h.paper_id for h in hits} & set(liked)
    assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
    icml_library.tag(liked[0], "distill")
    tagged = icml_library.recommend(limit=3, tag="distill")
    assert liked[0] not in {h.paper_id for h in tagged}


def _texts_and_dense(texts: list[str]) -> tuple[list[str], np.ndarray]:
    return texts, np.zeros((len(texts), 4), dtype=np.float32)  # TF-IDF only: the words decide


_CORPUS = [
    "graph neural networks for molecules and proteins",  # 0 kept
    "graph neural networks for protein structure",  # 1 kept
    "graph neural networks for chemical reaction yield prediction",  # 2 rejected
    "graph neural networks predict chemical reaction yield and selectivity",  # 3 like the reject
    "graph neural networks for protein docking and molecules",  # 4 like the keeps only
    "language models for translation of speech",
    "reinforcement learning for robot control",
    "image diffusion models for text to image generation",
    "language models and speech recognition",
    "robot control with reinforcement learning from pixels",
    "diffusion models for image editing",
    "chemical reaction conditions from literature text",
]


def test_a_reject_pushes_papers_like_it_down() -> None:
    features = build_features(*_texts_and_dense(_CORPUS))
    ignored = {
        r.row: i for i, r in enumerate(rank_with_feedback(features, [0, 1], [], limit=20, exclude_rows=[2]))
    }
    learned = {r.row: i for i, r in enumerate(rank_with_feedback(features, [0, 1], [2], limit=20))}
    unrelated = (5, 6, 7, 8, 9, 10)
    # Without the reject the reaction-yield paper (a graph network paper) ranks above every unrelated one;
    # with it, below all of them, while the protein paper stays first.
    assert ignored[3] < min(ignored[r] for r in unrelated)
    assert learned[3] > max(learned[r] for r in unrelated)
    assert learned[4] == 0


def test_explanations_name_terms_and_the_kept_papers(icml_library: Library) -> None:
    liked = [h.paper_id for h in icml_library.search("dataset distillation", limit=2, mode="bm25")]
    titles = {icml_library.get(p).display_label for p in liked}  # "[Label] …": no titles
    icml_library.star(liked[0])
    icml_library.set_triage(liked[1], "keep")
    hits = icml_library.recommend(limit=5)
    assert all(h.like and set(h.like) <= titles for h in hits)
    assert not {h.like[0] for h in hits} & set(liked)  # labels, not ids
    assert all(h.terms for h in hits) and all(isinstance(t, str) for h in hits for t in h.terms)
    assert hits[0].to_dict()["like"] == hits[0].like


def test_rejected_and_triaged_papers_are_not_recommended(icml_library: Library) -> None:
    liked = [h.paper_id for h in icml_library.search("dataset distillation", limit=1, mode="bm25")]
    icml_library.star(liked[0])
    first = icml_library.recommend(limit=3)
    icml_library.set_triage(first[0].paper_id, "reject")
    icml_library.set_triage(first[1].paper_id, "maybe")
    again = {h.paper_id for h in icml_library.recommend(limit=10)}
    assert not again & {first[0].paper_id, first[1].paper_id}


def test_recommend_like_ranks_without_adding_papers(icml_library: Library, tmp_path: Path) -> None:
    paper = icml_library.get(icml_library.search("dataset distillation", limit=1, mode="bm25")[0].paper_id)
    mine = tmp_path / "mine.json"
    mine.write_text(
        json.dumps([{"title": "My distillation paper", "abstract": paper.clean_text}]), encoding="utf-8"
    )
    before = len(icml_library)
    hits = icml_library.recommend_like(mine, limit=5)
    assert len(icml_library) == before
    assert hits[0].paper_id == paper.paper_id and hits[0].like == ["My distillation paper"]
    assert hits[0].terms and [h.rank for h in hits] == [1, 2, 3, 4, 5]
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps([{"title": "x", "abstract": "?"}]), encoding="utf-8")
    with pytest.raises(InputError, match="no paper with an abstract"):
        icml_library.recommend_like(empty)


def test_cli_recommend_prints_the_explanation(icml_library: Library, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from paperscope.cli import cli

    pid = icml_library.search("dataset distillation", limit=1, mode="bm25")[0].paper_id
    icml_library.star(pid)
    label = icml_library.get(pid).display_label
    db = str(icml_library.store.path)
    icml_library.close()
    result = CliRunner().invoke(cli, ["--db", db, "recommend", "--limit", "2"])
    assert result.exit_code == 0, result.output
    assert f"like: {label}" in result.output and "terms: " in result.output


def test_recommendations_never_embed_on_their_own_and_the_cli_says_it_embeds(
    tmp_path: Path, icml_dir: Path
) -> None:
    from click.testing import CliRunner

    from paperscope.cli import cli

    first = sorted(icml_dir.iterdir())[0]
    with Library(tmp_path / "lazy.db") as lib:
        lib.ingest([first], embed=False)
        pid = next(iter(lib.papers())).paper_id
        lib.set_triage(pid, "keep")
        n = len(lib)
        with pytest.raises(InputError, match=f"{n} papers have no embedding yet"):
            lib.recommend()
        assert lib.missing_vectors() == n  # nothing was embedded behind the call
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "lazy.db"), "recommend", "--limit", "3"])
    assert result.exit_code == 0, result.output
    assert f"{n} papers have no embedding yet; embedding them first" in result.stderr
    with Library(tmp_path / "lazy.db") as lib:
        assert lib.missing_vectors() == 0


def test_recommend_like_says_which_entries_it_left_out(icml_library: Library, tmp_path: Path) -> None:
    paper = icml_library.get(icml_library.search("dataset distillation", limit=1, mode="bm25")[0].paper_id)
    mine = tmp_path / "mine.bib"
    mine.write_text(
        "@article{a, title = {Mine}, abstract = {" + paper.clean_text.replace("%", "\\%") + "}}\n\n"
        "@article{b, title = {Only a title}}\n",
        encoding="utf-8",
    )
    hits = icml_library.recommend_like(mine, limit=3)
    assert hits and hits[0].like == ["Mine"]
    notice = icml_library.recommend_notice
    assert (
        notice.startswith("compared with 1 of 2 papers of mine.bib; 1 left out") and "no abstract" in notice
    )
