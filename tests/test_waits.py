"""A step with nothing to count names itself once it outlasts the watch's delay, and only then."""

from __future__ import annotations

import io
import threading

from paperscope.waits import doing, watch


def _wait(seconds: float) -> None:
    threading.Event().wait(seconds)


def test_a_step_that_outlasts_the_delay_says_what_it_is_doing() -> None:
    out = io.StringIO()
    with watch("paperscope", stream=out, after_s=0.05), doing("learning from 5 kept and 0 rejected papers"):
        _wait(0.5)
    assert out.getvalue() == "paperscope: learning from 5 kept and 0 rejected papers…\n"


def test_a_quick_step_and_a_step_without_a_watch_stay_quiet() -> None:
    out = io.StringIO()
    with watch("paperscope", stream=out, after_s=5.0), doing("loading the embedding model"):
        _wait(0.01)
    with doing("loading the embedding model"):  # the Python API: no watch, no line
        _wait(0.1)
    _wait(0.1)
    assert out.getvalue() == ""
