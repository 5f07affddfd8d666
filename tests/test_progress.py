"""Progress output: lines every interval off a terminal, tqdm bars on one, nothing when disabled."""

from __future__ import annotations

import io

import pytest

from paperscope.progress import format_duration, format_rate, progress, steps, summary, track


class FakeClock:
    """A clock the test moves by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class FakeTerminal(io.StringIO):
    """A stream that says it is a terminal, so tqdm draws its bar into it."""

    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _fixed_width(monkeypatch: pytest.MonkeyPatch) -> None:
    # tqdm sizes a bar on a stream without a terminal from $COLUMNS.
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")  # TERM=dumb draws no bar (tests/test_progress_terminals.py)
    monkeypatch.delenv("PAPERSCOPE_PROGRESS_INTERVAL_S", raising=False)


def test_non_tty_writes_nothing_before_the_interval_then_one_line_with_rate_and_eta() -> None:
    stream, clock = io.StringIO(), FakeClock()
    bar = progress(total=4302, desc="cards", stream=stream, interval_s=10.0, clock=clock)
    clock.now += 4.0
    bar.update(600)
    assert stream.getvalue() == ""
    clock.now += 4.0
    bar.update(600)  # 8 s in, still inside the interval
    assert stream.getvalue() == ""
    clock.now += 2.0
    bar.update(300)  # 1,500 papers in 10 s: 150 papers/s, 2,802 left: 19 s
    assert stream.getvalue() == "cards: 1,500/4,302 (35%), 150 papers/s, ETA 19 s\n"
    clock.now += 5.0
    bar.update(500)  # 5 s after the last line: no new one
    assert stream.getvalue().count("\n") == 1
    clock.now += 70.0
    bar.update(100)
    bar.close()
    assert (
        stream.getvalue().splitlines()[1] == "cards: 2,100/4,302 (49%), 25 papers/s, ETA 1 min 29 s"
    )  # 85 s in: 2,202 left at 24.7/s


def test_non_tty_line_without_total_has_count_and_rate_only() -> None:
    stream, clock = io.StringIO(), FakeClock()
    with progress(desc="reading", unit="records", stream=stream, interval_s=1.0, clock=clock) as bar:
        clock.now += 4.0
        bar.update(14)
    assert stream.getvalue() == "reading: 14, 3.5 records/s\n"


def test_non_tty_line_names_the_stage() -> None:
    stream, clock = io.StringIO(), FakeClock()
    with progress(total=200, desc="reading", unit="lines", stream=stream, interval_s=1.0, clock=clock) as bar:
        bar.stage("icml_2022.json")
        assert stream.getvalue() == ""  # a counting progress writes the stage with its next line
        clock.now += 2.0
        bar.update(50)
    assert stream.getvalue() == "reading: 50/200 (25%), 25 lines/s, ETA 6 s [icml_2022.json]\n"


def test_steps_write_a_line_as_each_step_starts() -> None:
    stream, clock = io.StringIO(), FakeClock()
    with steps(6, desc="topics", stream=stream, clock=clock) as bar:
        bar.stage("neighbours")
        clock.now += 0.4
        bar.update()
        bar.stage("reduce: UMAP to 5D")
        clock.now += 45.0
        bar.update()
        bar.stage("cluster")
        clock.now += 30.0
        bar.update()
    assert stream.getvalue().splitlines() == [
        "topics: 0/6 steps (neighbours), 0 s",
        "topics: 1/6 steps (reduce: UMAP to 5D), 0 s",
        "topics: 2/6 steps (cluster), 45 s",
    ]


def test_fake_terminal_gets_a_tqdm_bar() -> None:
    stream = FakeTerminal()
    with progress(total=4, desc="cards", stream=stream) as bar:
        bar.update(1)
    # tqdm draws the bar at once, redraws at most every 0.1 s, and clears it on close (leave=False).
    assert stream.getvalue().startswith("\rcards:   0%|          | 0/4 [00:00<?, ? papers/s]")
    assert stream.getvalue().endswith("\r")


def test_fake_terminal_steps_bar_shows_the_stage_and_no_rate() -> None:
    stream = FakeTerminal()
    with steps(3, desc="topics", stream=stream) as bar:
        bar.stage("reduce")
        bar.update()
        bar.stage("cluster")
    drawn = stream.getvalue().split("\r")
    assert drawn[1:4] == [
        "topics: 0/3 steps [00:00]",
        "topics: 0/3 steps, reduce [00:00]",
        "topics: 1/3 steps, cluster [00:00]",
    ]


@pytest.mark.parametrize("stream_class", [io.StringIO, FakeTerminal])
def test_disabled_prints_nothing_but_still_counts(stream_class: type[io.StringIO]) -> None:
    stream, clock = stream_class(), FakeClock()
    with progress(total=10, desc="cards", enabled=False, stream=stream, interval_s=0.0, clock=clock) as bar:
        clock.now += 20.0
        bar.update(7)
        bar.stage("x")
    with steps(2, desc="topics", enabled=False, stream=stream, clock=clock) as job:
        job.stage("reduce")
        job.update()
    assert stream.getvalue() == ""
    assert (bar.count, bar.elapsed_s, job.count) == (7, 20.0, 1)


def test_track_yields_every_item_and_counts_them() -> None:
    stream, clock = io.StringIO(), FakeClock()
    seen = []
    for item in track(
        ["a", "b", "c"], desc="eval", unit="queries", stream=stream, interval_s=0.0, clock=clock
    ):
        clock.now += 1.0
        seen.append(item)
    assert seen == ["a", "b", "c"]
    # interval 0: a line after each item (the first item's update comes when the second is asked for)
    assert stream.getvalue().splitlines() == [
        "eval: 1/3 (33%), 1.0 queries/s, ETA 2 s",
        "eval: 2/3 (67%), 1.0 queries/s, ETA 1 s",
        "eval: 3/3 (100%), 1.0 queries/s",
    ]


def test_summary_text_is_exact_and_printed_only_when_enabled() -> None:
    stream = io.StringIO()
    line = summary("cards", 4302, 28.7, unit="papers", stream=stream)
    assert line == "cards: 4,302 papers in 28.7 s (150 papers/s)"
    assert stream.getvalue() == line + "\n"
    quiet = io.StringIO()
    assert summary("read", 12, 245.0, unit="records", enabled=False, stream=quiet) == (
        "read: 12 records in 4 min 05 s (0.049 records/s)"
    )
    assert quiet.getvalue() == ""


@pytest.mark.parametrize(
    ("count", "elapsed_s", "text"),
    [
        (4302, 28.7, "150 papers/s"),
        (7, 2.0, "3.5 papers/s"),
        (1, 80.0, "0.013 papers/s"),
        (5, 0.0, "- papers/s"),
    ],
)
def test_format_rate(count: int, elapsed_s: float, text: str) -> None:
    assert format_rate(count, elapsed_s, "papers") == text


@pytest.mark.parametrize(
    ("seconds", "text"), [(21.4, "21 s"), (59.6, "1 min 00 s"), (245.0, "4 min 05 s"), (7620.0, "2 h 07 min")]
)
def test_format_duration(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


def test_observe_sees_every_count_of_this_thread_only() -> None:
    import threading

    from paperscope.progress import observe, progress

    seen: list[tuple[str, str, int, int | None]] = []
    with observe(lambda *args: seen.append(args)):
        with progress(total=3, desc="cards", enabled=False) as bar:
            for _ in range(3):
                bar.update(1)

        def elsewhere() -> None:
            with progress(total=1, desc="other", enabled=False) as other:
                other.update(1)

        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
    with progress(total=1, desc="after", enabled=False) as late:
        late.update(1)
    assert seen == [("cards", "papers", n, 3) for n in range(4)]


def test_an_observed_silent_ingest_counts_the_lines_it_reads(tmp_path) -> None:
    from paperscope import Library
    from paperscope.progress import observe

    path = tmp_path / "list.txt"
    path.write_text(
        "ICML 2026 Papers\n\nWe study graph pruning.\n\nWe study sparse attention.\n", encoding="utf-8"
    )
    seen: list[tuple[str, str, int, int | None]] = []
    with Library(tmp_path / "lib.db", embedder="fake") as lib, observe(lambda *a: seen.append(a)):
        lib.ingest([path], embed=False)
    reading = [s for s in seen if s[0] == "reading"]
    assert reading[0] == ("reading", "lines", 0, 5) and reading[-1] == ("reading", "lines", 5, 5)
    assert ("cards", "papers", 2, 2) in seen


@pytest.mark.parametrize(
    ("value", "interval_s"), [("0.5", 0.5), ("", 10.0), ("soon", 10.0), ("0", 10.0), ("-3", 10.0)]
)
def test_the_line_interval_comes_from_the_environment_when_it_is_a_positive_number(
    monkeypatch: pytest.MonkeyPatch, value: str, interval_s: float
) -> None:
    monkeypatch.setenv("PAPERSCOPE_PROGRESS_INTERVAL_S", value)
    stream, clock = io.StringIO(), FakeClock()
    bar = progress(total=100, desc="cards", stream=stream, clock=clock)
    clock.now += interval_s - 0.01
    bar.update(1)
    assert stream.getvalue() == ""
    clock.now += 0.01
    bar.update(1)
    assert stream.getvalue().startswith("cards: 2/100 (2%), ")


def test_a_dumb_terminal_gets_lines_not_a_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "dumb")
    stream, clock = FakeTerminal(), FakeClock()
    bar = progress(total=10, desc="cards", stream=stream, interval_s=1.0, clock=clock)
    clock.now += 2.0
    bar.update(5)
    bar.close()
    assert stream.getvalue() == "cards: 5/10 (50%), 2.5 papers/s, ETA 2 s\n"
