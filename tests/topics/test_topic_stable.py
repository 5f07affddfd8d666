"""Topics stay put (issue 27, part 4): new papers join the stored topics, a refit carries ids over."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from topics_helpers import library_embeddings

from paperscope import Library
from paperscope.cli import cli
from paperscope.models import Topic
from paperscope.topics import UNASSIGNED_ID, TopicModel
from paperscope.topics.stable import REFIT_SHARE, carry_over, match_topics, place_new_papers

#: ICLR 2026 primary areas the acceptance corpus draws from (100 papers each, 500 in all).
AREAS = (
    "reinforcement-learning",
    "optimization",
    "generative-models",
    "learning-theory",
    "datasets-and-benchmarks",
)


def iclr_rows(shared_data: Path, per_area: int) -> list[dict[str, str]]:
    """Return the first ``per_area`` papers of each of :data:`AREAS`, sorted by OpenReview id."""
    csv.field_size_limit(
        max(csv.field_size_limit(), 1 << 24)
    )  # never lower the reader's limit (process-wide)
    rows: list[dict[str, str]] = []
    for area in AREAS:
        path = shared_data / "iclr2026-primary-area" / f"primary_area__{area}.csv"
        with path.open(encoding="utf-8-sig", newline="") as handle:
            rows += list(csv.DictReader(handle))[:per_area]
    return sorted(rows, key=lambda r: r["openreview_url"])


def write_csv(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["title", "abstract", "venue", "year"])
        for row in rows:
            writer.writerow([row["title"], row["abstract"], "ICLR", 2026])
    return path


def members(lib: Library, key: str = "topic_id") -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for pid, a in lib.paper_topics().items():
        if a[key] is not None:
            out.setdefault(a[key], set()).add(pid)
    return out


# -- the pure steps --------------------------------------------------------------------------


def test_match_topics_pairs_by_shared_members_and_leaves_weak_pairs_unmatched():
    old = {0: {"a", "b", "c", "d"}, 1: {"e", "f", "g"}, 2: {"x", "y", "z", "w"}}
    new = {0: {"e", "f", "g", "h"}, 1: {"a", "b", "c"}, 2: {"x", "q", "r", "s"}}
    # new 2 shares 1 of 7 papers with old 2: Jaccard 1/7 < 0.3, so it is a new topic.
    assert match_topics(old, new) == {0: (1, 0.75), 1: (0, 0.75)}


def test_match_topics_gives_a_split_topic_to_its_larger_half():
    old = {5: {f"p{i}" for i in range(10)}}
    new = {0: {f"p{i}" for i in range(4)}, 1: {f"p{i}" for i in range(4, 10)}}
    assert match_topics(old, new) == {1: (5, 0.6)}


def _model(paper_ids: list[str], broad: list[int], names: list[str]) -> TopicModel:
    labels = np.array(broad, dtype=np.int64)
    topics = [
        Topic(topic_id=i, name=name, level=0, size=int((labels == i).sum())) for i, name in enumerate(names)
    ]
    n = len(paper_ids)
    return TopicModel(
        list(paper_ids),
        labels,
        np.full(n, -1, dtype=np.int64),
        np.zeros(n, dtype=bool),
        np.zeros((n, 2)),
        topics,
    )


def test_carry_over_keeps_ids_and_names_and_never_reuses_an_id():
    pids = [f"p{i}" for i in range(12)]
    old_topics = [
        Topic(3, "sparse attention", 0, 4),
        Topic(7, "reward shaping", 0, 4),
        Topic(9, "gone", 0, 4),
    ]
    old = {pid: (3 if i < 4 else 7 if i < 8 else 9, None) for i, pid in enumerate(pids)}
    # New fit: topic 0 = p4..p8 (old 7: Jaccard 4/5), topic 1 = p0,p1 + p9..p11 (old 3: 2/7 < 0.3;
    # old 9: 3/6), topic 2 = p2,p3 (old 3: 2/4). Each Jaccard is at least 0.5: every name stays.
    broad = [1, 1, 2, 2, 0, 0, 0, 0, 0, 1, 1, 1]
    carried = carry_over(
        _model(pids, broad, ["reward rl", "mixed", "attention"]), old_topics, old, next_topic_id=12
    )
    names = {t.topic_id: t.name for t in carried.model.topics}
    assert names == {7: "reward shaping", 9: "gone", 3: "sparse attention"}
    assert carried.model.topic_ids.tolist() == [9, 9, 3, 3, 7, 7, 7, 7, 7, 9, 9, 9]
    assert (carried.kept_ids, carried.fresh_ids, carried.dropped_ids) == ([3, 7, 9], [], [])
    # A fit that matches nothing gets fresh ids from next_topic_id up, never 0-11 again.
    none_shared = carry_over(_model(["z1", "z2"], [0, 1], ["a", "b"]), old_topics, old, next_topic_id=12)
    assert [t.topic_id for t in none_shared.model.topics] == [12, 13]
    assert (none_shared.dropped_ids, none_shared.next_topic_id) == ([3, 7, 9], 14)


def test_carry_over_reports_the_new_name_of_a_loosely_matched_topic():
    pids = [f"p{i}" for i in range(10)]
    old_topics = [Topic(0, "old name", 0, 10)]
    old = {pid: (0, None) for pid in pids}
    # The old topic split: p4..p9 (Jaccard 6/10) keep its id and name, p0..p3 get a fresh id.
    carried = carry_over(_model(pids, [1] * 4 + [0] * 6, ["six", "four"]), old_topics, old)
    assert {t.topic_id: t.name for t in carried.model.topics} == {0: "old name", 1: "four"}
    loose = carry_over(_model(pids[:4] + ["n1", "n2", "n3", "n4"], [0] * 8, ["new name"]), old_topics, old)
    # 4 shared of 14 in the union: Jaccard 0.286 < 0.3, so not even the id carries.
    assert loose.kept_ids == [] and loose.fresh_ids == [1]
    looser = carry_over(_model(pids[:4] + ["n1", "n2"], [0] * 6, ["new name"]), old_topics, old)
    # 4 of 12: Jaccard 0.33: the id carries, the name changes, and the change is reported.
    assert [(t.topic_id, t.name) for t in looser.model.topics] == [(0, "new name")]
    assert looser.renamed == [(0, "old name", "new name")]


def test_place_new_papers_takes_the_nearest_centroid_and_its_neighbours_position():
    fitted = np.array([[1, 0, 0], [0.9, 0.1, 0], [0, 1, 0], [0, 0.9, 0.1]], dtype=np.float32)
    topics = np.array([4, 4, 8, 8])
    subtopics = np.array([-1, -1, 20, 21])
    xy = np.array([[-1.0, -1.0], [-0.5, -0.5], [1.0, 1.0], [0.5, 0.0]])
    new = np.array([[0.2, 1.0, 0.0], [1.0, 0.05, 0.0]], dtype=np.float32)
    placed = place_new_papers(new, fitted, topics, subtopics, xy)
    assert placed.topic_ids.tolist() == [8, 4]
    assert placed.subtopic_ids.tolist() == [20, -1]
    # Both members of each topic are among the 3 nearest: the mean of the topic's positions.
    assert placed.coordinates.tolist() == [[0.75, 0.5], [-0.75, -0.75]]


# -- the library: the acceptance test of issue 27 part 4 ----------------------------------------


@pytest.mark.slow
def test_added_papers_keep_every_topic_and_a_refit_carries_the_ids(shared_data: Path, tmp_path: Path):
    rows = iclr_rows(shared_data, per_area=100)
    lib = Library(tmp_path / "lib.db")
    lib.ingest([write_csv(tmp_path / "first.csv", rows[:440])])
    assert lib.update_topics(embeddings=library_embeddings(lib)).action == "fitted"
    before = {t.topic_id: t.name for t in lib.topics()}
    old_broad = members(lib)
    assert len(lib) == 440 and len(old_broad) >= 5

    lib.ingest([write_csv(tmp_path / "more.csv", rows[440:])])
    assert lib.topics_are_stale()
    update = lib.update_topics(embeddings=library_embeddings(lib))
    assert (
        update.notice()
        == "60 new papers assigned to existing topics; 12.0% of the library assigned since the last fit"
    )
    # No topic id or name changed, and every paper, the 60 new ones too, is in a real topic.
    assert {t.topic_id: t.name for t in lib.topics()} == before
    assigned = lib.paper_topics()
    assert len(assigned) == len(lib) == 500 and not lib.topics_are_stale()
    assert sum(a["topic_id"] == UNASSIGNED_ID for a in assigned.values()) == 0
    assert sum(t.size for t in lib.topics(level=0)) == 500
    new_ids = {r for r in assigned} - set().union(*old_broad.values())
    assert len(new_ids) == 60 and all(-1 <= assigned[p]["x"] <= 1 for p in new_ids)
    placed = {p: assigned[p]["topic_id"] for p in new_ids}
    # A topic filter (search, the web's ?topic=) now finds the new papers in their topics.
    some = next(iter(new_ids))
    assert some in lib.topic_members(placed[some])

    refit = lib.update_topics(refit=True, embeddings=library_embeddings(lib))
    assert refit.action == "refit" and refit.notice().startswith("topics refitted: asked for (refit)\n")
    new_broad = members(lib)
    survived = [t for t in old_broad if t in new_broad]
    # Most broad ids survive (10 of 10 here), each on a topic that keeps most of its old papers:
    # 82% of the surviving topics' old members are still under the same id.
    assert len(survived) >= 0.8 * len(old_broad)
    kept = sum(len(old_broad[t] & new_broad[t]) for t in survived)
    assert kept >= 0.75 * sum(len(old_broad[t]) for t in survived)
    # Ids of new topics were never given out before; the 60 placed papers mostly agree with the refit.
    fresh = set(refit.carried.fresh_ids) if refit.carried else set()
    assert all(i > max(before) for i in fresh)
    assert {t.topic_id for t in lib.topics()} - set(before) == fresh
    agree = sum(placed[p] == assigned_id for p, assigned_id in members_of(lib, new_ids).items())
    assert agree >= 0.6 * len(new_ids)
    lib.close()


def members_of(lib: Library, paper_ids: set[str]) -> dict[str, int]:
    return {pid: a["topic_id"] for pid, a in lib.paper_topics(sorted(paper_ids)).items()}


@pytest.mark.slow
def test_assigned_share_past_the_threshold_refits_with_a_message(
    icml_library: Library, shared_data: Path, tmp_path: Path
):
    rows = iclr_rows(shared_data, per_area=8)
    db = ["--db", str(icml_library.path)]
    runner = CliRunner()
    fitted = runner.invoke(cli, [*db, "topics"])
    assert fitted.exit_code == 0, fitted.output
    names = {t.topic_id: t.name for t in icml_library.topics()}
    icml_library.ingest([write_csv(tmp_path / "a.csv", rows[:20])])
    first = runner.invoke(cli, [*db, "topics"])
    # 20 of 115 papers: under the 25% threshold, assigned, nothing renamed.
    assert first.exit_code == 0, first.output
    assert "20 new papers assigned to existing topics; 17.4% of the library assigned since the last fit" in (
        first.stderr
    )
    assert {t.topic_id: t.name for t in icml_library.topics()} == names
    icml_library.ingest([write_csv(tmp_path / "b.csv", rows[20:40])])
    second = runner.invoke(cli, [*db, "topics"])
    # 40 of 135 assigned since the fit: 29.6% > 25%, so it refits and says why.
    assert second.exit_code == 0, second.output
    assert REFIT_SHARE == 0.25
    assert (
        "topics refitted: 40 papers (29.6% of the library) would be assigned since the last fit, more than"
        " the 25% that nearest-centroid assignment keeps in shape"
    ) in second.stderr
    run = icml_library.topic_run()
    assert (run["n_papers"], run["n_assigned_since_fit"]) == (135, 0)
    assert len(icml_library.paper_topics()) == 135
