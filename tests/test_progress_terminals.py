"""Progress on any terminal (issue 29): a terminal of 0 columns, ``TERM=dumb`` and a pipe all get
the periodic progress line (done/total, rate, ETA) that a log gets; a sized terminal gets the bar.

Each case runs ``paperscope cards --rebuild`` in a fresh process, its stderr on a pseudo-terminal
(``os.openpty``, its size set with ``TIOCSWINSZ``) or a pipe, with the line interval shortened
through ``$PAPERSCOPE_PROGRESS_INTERVAL_S``.
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from paperscope import Library

#: The periodic line of the cards stage, e.g. ``cards: 7/19 (37%), 41 papers/s, ETA 0 s``.
LINE = re.compile(r"cards: (\d+)/(\d+) \(\d+%\), [\d.,]+ papers/s(, ETA \d+ s)?")


@pytest.fixture(scope="module")
def carded_db(tmp_path_factory: pytest.TempPathFactory, icml_dir: Path) -> Path:
    """One ICML list (19 papers) with cards; ``cards --rebuild`` counts them all again."""
    path = tmp_path_factory.mktemp("progress") / "lib.db"
    with Library(path) as lib:
        lib.ingest([sorted(icml_dir.glob("*.txt"))[0]], embed=False)
    return path


def _command(db: Path) -> list[str]:
    return [sys.executable, "-m", "paperscope", "--db", str(db), "cards", "--rebuild"]


def _env(term: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["TERM"] = term
    env["PAPERSCOPE_PROGRESS_INTERVAL_S"] = "0.001"  # a line at every card after the first
    return env


def _run_on_pty(args: list[str], env: dict[str, str], columns: int) -> str:
    """Run ``args`` with stdout and stderr on a new pseudo-terminal of ``columns`` columns; return what it wrote."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    chunks, deadline = [], time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
    assert process.returncode == 0, b"".join(chunks).decode("utf-8", "replace")
    return b"".join(chunks).decode("utf-8", "replace")


def _periodic_lines(output: str) -> list[tuple[int, int]]:
    return [(int(m.group(1)), int(m.group(2))) for m in LINE.finditer(output)]


def test_a_terminal_of_0_columns_gets_the_periodic_line(carded_db: Path) -> None:
    lines = _periodic_lines(_run_on_pty(_command(carded_db), _env("xterm-256color"), columns=0))
    assert lines, "no progress line on a 0-column terminal"
    assert {total for _, total in lines} == {19}
    assert [done for done, _ in lines] == sorted(done for done, _ in lines)


def test_a_dumb_terminal_gets_the_periodic_line(carded_db: Path) -> None:
    lines = _periodic_lines(_run_on_pty(_command(carded_db), _env("dumb"), columns=80))
    assert lines, "no progress line on TERM=dumb"
    assert {total for _, total in lines} == {19}


def test_a_pipe_gets_the_periodic_line(carded_db: Path) -> None:
    result = subprocess.run(
        _command(carded_db), capture_output=True, text=True, env=_env("xterm-256color"), timeout=120
    )
    assert result.returncode == 0, result.stderr
    lines = _periodic_lines(result.stderr)
    assert lines and {total for _, total in lines} == {19}
    assert "\r" not in result.stderr
    assert result.stderr.splitlines()[-1].startswith("cards: 19 papers in ")


def test_a_sized_terminal_still_gets_the_bar(carded_db: Path) -> None:
    output = _run_on_pty(_command(carded_db), _env("xterm-256color"), columns=80)
    assert _periodic_lines(output) == []
    assert re.search(r"cards: +\d+%\|", output), output  # tqdm's bar: "cards:  53%|█████     | 10/19"
