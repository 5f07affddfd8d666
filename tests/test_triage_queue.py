"""The triage queue (issue 14): progress, both orders, resuming, skip/undo, never embedding, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli
from paperscope.errors import InputError, NotFound
from paperscope.models import Topic
from paperscope.triage.queue import progress_text, topic_sequence


def _topic(
    tid: int, size: int, level: int = 0, reps: list[str] | None = None, parent: int | None = None
) -> Topic:
    return Topic(
        topic_id=tid, name=f"t{tid}", level=level, size=size, representative_ids=reps or [], parent_id=parent
    )


def test_topic_sequence_goes_largest_topic_first_representatives_first_then_subtopics() -> None:
    topics = [
        _topic(0, 2, reps=["b"]),
        _topic(1, 5, reps=["e"]),
        _topic(2, 1, level=1, parent=1),
        _topic(3, 4, level=1, parent=1),
    ]
    assignments = {
        "a": {"topic_id": 0, "subtopic_id": None, "is_outlier": False},
        "b": {"topic_id": 0, "subtopic_id": None, "is_outlier": False},
        "c": {"topic_id": 1, "subtopic_id": 2, "is_outlier": False},
        "d": {"topic_id": 1, "subtopic_id": 3, "is_outlier": False},
        "e": {"topic_id": 1, "subtopic_id": 2, "is_outlier": False},
        "f": {"topic_id": 1, "subtopic_id": 3, "is_outlier": True},
    }
    # topic 1 (size 5) first: its representative e, then subtopic 3 (size 4) before 2; then topic 0
    # with its representative b first; the outlier f and the unassigned g last, in input order.
    assert topic_sequence(list("gfedcba"), assignments, topics) == list("edcbagf")
    assert topic_sequence(["x", "y"], {}, []) == ["x", "y"]  # no topics fitted: as added
    assert progress_text(412, 3300) == "412 of 3,300 seen"


def test_progress_counts_and_resuming_in_a_new_process(unmarked: Library) -> None:
    queue = unmarked.queue(order="topic", limit=3)
    assert (queue.total, queue.seen, queue.counts, queue.progress) == (95, 0, {}, "0 of 95 seen")
    first, second, third = (item.hit.paper_id for item in queue.items)
    assert [item.hit.rank for item in queue.items] == [1, 2, 3]
    unmarked.set_triage(first, "keep")
    unmarked.set_triage(second, "reject")
    # A second Library on the same file (another process, the web server) resumes at the third.
    with Library(unmarked.store.path) as other:
        again = other.queue(order="topic", limit=1)
    assert again.items[0].hit.paper_id == third
    assert (again.seen, again.counts, again.progress) == (2, {"keep": 1, "reject": 1}, "2 of 95 seen")
    assert again.to_dict()["items"][0]["marks"]["triage"] is None


def test_recommended_order_learns_from_keeps_and_falls_back_until_then(unmarked: Library) -> None:
    before = unmarked.queue(limit=1)
    assert before.ordered_by == "topic" and "no paper is kept or starred yet" in before.notice
    kept = before.items[0].hit
    unmarked.set_triage(kept.paper_id, "keep")
    after = unmarked.queue(limit=5)
    assert (after.order, after.ordered_by, after.notice) == ("recommended", "recommended", None)
    assert kept.paper_id not in [i.hit.paper_id for i in after.items]
    top = after.items[0].hit
    # Explained: the kept paper it is like (by its label, marked) and the terms that weighed most.
    assert top.like == [f"[Label] {kept.label}"] and top.terms
    assert [i.hit.score for i in after.items] == sorted((i.hit.score for i in after.items), reverse=True)
    # A reject of the top paper moves it out and reorders what follows.
    unmarked.set_triage(top.paper_id, "reject")
    assert top.paper_id not in [i.hit.paper_id for i in unmarked.queue(limit=5).items]


def test_skip_and_first_and_topic_scope(unmarked: Library) -> None:
    order = [i.hit.paper_id for i in unmarked.queue(order="topic", limit=4).items]
    skipped = unmarked.queue(order="topic", limit=2, skip=[order[0][:6]])
    assert [i.hit.paper_id for i in skipped.items] == order[1:3] and skipped.seen == 0
    unmarked.set_triage(order[0], "maybe")
    undo = unmarked.queue(order="topic", limit=2, first=order[0])  # undo shows the paper again, marked
    assert [i.hit.paper_id for i in undo.items] == [order[0], order[1]]
    assert undo.items[0].marks["triage"] == "maybe"
    topic_id = undo.items[1].topic["topic_id"]
    scoped = unmarked.queue(order="topic", limit=1000, topic_id=topic_id)
    members = unmarked.topic_members(topic_id)
    assert scoped.total == len(members) and {i.hit.paper_id for i in scoped.items} <= members
    assert all(i.topic["topic_id"] == topic_id or i.topic["subtopic_id"] == topic_id for i in scoped.items)


def test_bad_queue_arguments_are_clear_errors(unmarked: Library) -> None:
    with pytest.raises(InputError, match="unknown queue order 'random'"):
        unmarked.queue(order="random")
    with pytest.raises(InputError, match="limit must be an integer"):
        unmarked.queue(limit=0)
    with pytest.raises(InputError, match="at most 500 papers can be skipped"):
        unmarked.queue(skip=["abcd"] * 501)
    with pytest.raises(NotFound):
        unmarked.queue(topic_id=9999)
    with pytest.raises(NotFound):
        unmarked.queue(first="ffffffffffff")


def test_the_queue_never_embeds(tmp_path: Path, icml_dir: Path) -> None:
    with Library(tmp_path / "lazy.db") as lib:
        lib.ingest([icml_dir / sorted(p.name for p in icml_dir.iterdir())[0]], embed=False)
        pid = next(iter(lib.papers())).paper_id
        lib.set_triage(pid, "keep")
        queue = lib.queue(limit=2)
        assert queue.ordered_by == "topic" and "have no embedding yet" in queue.notice
        assert lib.missing_vectors() == len(lib)  # still none: nothing was embedded


def test_cli_queue_marks_with_one_key_per_paper_and_resumes(unmarked: Library) -> None:
    db = str(unmarked.store.path)
    runner = CliRunner()
    expected = [i.hit.paper_id for i in unmarked.queue(order="topic", limit=4).items]
    result = runner.invoke(cli, ["--db", db, "queue", "--order", "topic"], input="3\n4\ns\nq\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Queue: 0 of 95 seen · topic by topic" in out
    assert out.count("[1] skimmed  [2] maybe  [3] keep  [4] reject") == 4
    assert "Stopped: 2 of 95 seen. `paperscope queue` resumes here." in out
    with Library(db) as lib:
        assert [lib.marks(p)["triage"] for p in expected] == ["keep", "reject", None, None]
    resumed = runner.invoke(cli, ["--db", db, "queue", "--order", "topic"], input="u\n2\n")
    assert "Resuming: 2 of 95 seen." in resumed.output and "nothing to undo" in resumed.output
    with Library(db) as lib:  # the skipped paper comes back in a new session; end of input stops
        assert lib.marks(expected[2])["triage"] == "maybe"


def test_cli_queue_undo_restores_the_state_before(unmarked: Library) -> None:
    db = str(unmarked.store.path)
    first = unmarked.queue(order="topic").items[0].hit.paper_id
    unmarked.set_triage(first, None)
    result = CliRunner().invoke(cli, ["--db", db, "queue", "--order", "topic"], input="3\nu\nq\n")
    assert f"undone: {first} is unseen again" in result.output
    assert unmarked.marks(first)["triage"] is None
    assert "Marked:" not in result.output  # nothing left marked


def test_cli_queue_next_and_json(unmarked: Library) -> None:
    db = str(unmarked.store.path)
    runner = CliRunner()
    data = json.loads(runner.invoke(cli, ["--db", db, "queue", "--json", "--limit", "3"]).output)
    assert data == json.loads(json.dumps(unmarked.queue(limit=3).to_dict()))
    assert data["progress"] == "0 of 95 seen" and data["ordered_by"] == "topic" and len(data["items"]) == 3
    text = runner.invoke(cli, ["--db", db, "queue", "--next", "--limit", "2", "--order", "topic"]).output
    labels = [i["label"] for i in data["items"][:2]]
    assert all(label in text for label in labels) and "[2/95]" in text
    bad = runner.invoke(cli, ["--db", db, "queue", "--topic", "9999"])
    assert bad.exit_code == 1 and "no topic 9999" in bad.output and "Traceback" not in bad.output


def test_warm_recommendations_builds_only_when_the_queue_will_use_them(unmarked: Library) -> None:
    from paperscope import library as library_module

    library_module._REC_FEATURES.clear()
    assert unmarked.warm_recommendations() is False and not library_module._REC_FEATURES
    unmarked.set_triage(next(iter(unmarked.papers())).paper_id, "keep")
    assert unmarked.warm_recommendations() is True and len(library_module._REC_FEATURES) == 1
    with Library(unmarked.store.path) as other:  # another Library on the file reuses them
        before = dict(library_module._REC_FEATURES)
        other.queue(limit=1)
        assert library_module._REC_FEATURES.keys() == before.keys()
        assert next(iter(library_module._REC_FEATURES.values()))[1] is next(iter(before.values()))[1]


def test_keys_typed_ahead_on_a_terminal_are_kept(unmarked: Library) -> None:
    """On a pty, "3", "4" and "q" typed before the queue is ready all act, in order (none is flushed)."""
    import os
    import pty
    import select
    import subprocess
    import sys
    import time

    db = str(unmarked.store.path)
    expected = [i.hit.paper_id for i in unmarked.queue(order="topic", limit=2).items]
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "paperscope", "--db", db, "queue", "--order", "topic"],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        close_fds=True,
    )
    os.close(follower)
    os.write(leader, b"34q")  # all at once, while the process is still starting
    out = b""
    deadline = time.monotonic() + 60
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            if select.select([leader], [], [], 0.2)[0]:
                try:
                    out += os.read(leader, 65536)
                except OSError:
                    break
    finally:
        if proc.poll() is None:  # a lost key leaves the queue waiting for one
            proc.kill()
        proc.wait(timeout=10)
        os.close(leader)
    text = out.decode("utf-8", "replace")
    assert proc.returncode == 0, text[-2000:]
    assert "Stopped: 2 of 95 seen." in text
    with Library(db) as lib:
        assert [lib.marks(p)["triage"] for p in expected] == ["keep", "reject"]
