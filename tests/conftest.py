"""Shared fixtures: an isolated PAPERSCOPE_HOME per test, real example and gold data paths.

Tests of the real data ask for the ``shared_data`` fixture. On a clone without ``../shared/data``
they skip, all with one reason (``pytest -ra`` prints one line naming the folder). With
``PAPERSCOPE_REQUIRE_SHARED_DATA=1`` the folder must exist and the run fails if any test
skipped, so CI runs every test.

``.ci/run`` runs the suite in two passes, through these variables:

- ``PAPERSCOPE_STRICT_SKIPS=1``: a skip for any reason but the missing ../shared/data or an
  optional extra that is not installed (``pip install 'paperscope[...]'``) fails the run (the
  first pass, a clone with ../shared out of reach, as a new user has it);
- ``PAPERSCOPE_SKIPPED_OUT=FILE``: the skipped tests' node ids are written to FILE, one a line;
- ``PAPERSCOPE_ONLY_TESTS=FILE``: only the tests FILE names run (a module's node id names all of
  its tests): the second pass runs what the first skipped, with ../shared/data and every extra.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import NoReturn

import pytest
from hypothesis import HealthCheck, settings

from paperscope import Library
from paperscope.config import EXAMPLES_DIR

# Hypothesis profiles of the fuzz suite (tests/fuzz), registered here so that pytest has them
# before it configures Hypothesis whichever folder is named: ``ci`` (the default: derandomized,
# so a red run reproduces; no example database; no deadline on a shared machine; sized for CI)
# and ``long`` (a local soak: randomized, 20x the examples), chosen with --hypothesis-profile.
settings.register_profile(
    "ci",
    max_examples=150,
    deadline=None,
    database=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "long", max_examples=150 * 20, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
# Hypothesis loads its own "ci" profile when it sees a CI environment; ours replaces it. A profile
# named with --hypothesis-profile is loaded after this file and wins.
settings.load_profile(os.environ.get("PAPERSCOPE_HYPOTHESIS_PROFILE", "ci"))

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
REQUIRE_SHARED_DATA = os.environ.get("PAPERSCOPE_REQUIRE_SHARED_DATA") == "1"
SHARED_DATA_REASON = f"{SHARED_DATA} not found: the tests of the real data in ../shared/data skip"
#: What a skip's reason holds when an optional extra is missing (``pip install 'paperscope[ray]'``).
EXTRA_REASON = "pip install 'paperscope["
STRICT_SKIPS = os.environ.get("PAPERSCOPE_STRICT_SKIPS") == "1"
SKIPPED_OUT = os.environ.get("PAPERSCOPE_SKIPPED_OUT")
ONLY_TESTS = os.environ.get("PAPERSCOPE_ONLY_TESTS")
_skipped: list[str] = []
_bad_skips: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    if REQUIRE_SHARED_DATA and not SHARED_DATA.is_dir():
        raise pytest.UsageError(f"PAPERSCOPE_REQUIRE_SHARED_DATA=1 but {SHARED_DATA} is missing")


def _without_shared_data() -> NoReturn:
    pytest.skip(SHARED_DATA_REASON)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    """Around a test's setup and its call: a missing file never surfaces as a raw FileNotFoundError.

    A file of the missing ../shared/data skips the test like the ``shared_data`` fixture does;
    any other missing file fails it with one line naming the file.
    """
    try:
        return (yield)
    except FileNotFoundError as exc:
        what = str(exc.filename or exc)
        if str(SHARED_DATA) in what and not SHARED_DATA.is_dir():
            _without_shared_data()
        pytest.fail(f"file not found: {what}")


pytest_runtest_call = pytest_runtest_setup


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport:
    """Report every skip for the missing folder at one place, so ``-ra`` folds them into one line.

    pytest reports a skip raised in a fixture at the test's own line, one summary line per test.
    """
    report = yield
    if (
        report.skipped
        and isinstance(report.longrepr, tuple)
        and report.longrepr[2].endswith(SHARED_DATA_REASON)
    ):
        report.longrepr = (__file__, _without_shared_data.__code__.co_firstlineno, report.longrepr[2])
    return report


def _note_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    _skipped.append(report.nodeid)
    reason = str(report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr)
    if not (reason.endswith(SHARED_DATA_REASON) or EXTRA_REASON in reason):
        _bad_skips.append(f"{report.nodeid}: {reason}")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        _note_skip(report)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.skipped:
        _note_skip(report)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With PAPERSCOPE_ONLY_TESTS=FILE, keep the tests FILE names (a module's id keeps all of it)."""
    if not ONLY_TESTS:
        return
    wanted = {
        line.strip() for line in Path(ONLY_TESTS).read_text(encoding="utf-8").splitlines() if line.strip()
    }
    kept = [item for item in items if item.nodeid in wanted or item.nodeid.split("::")[0] in wanted]
    config.hook.pytest_deselected(items=[item for item in items if item not in kept])
    items[:] = kept


def _failed_by_skips() -> bool:
    return bool((REQUIRE_SHARED_DATA and _skipped) or (STRICT_SKIPS and _bad_skips))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if SKIPPED_OUT:
        Path(SKIPPED_OUT).write_text("".join(f"{nodeid}\n" for nodeid in _skipped), encoding="utf-8")
    if _failed_by_skips() and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter) -> None:  # type: ignore[no-untyped-def]
    if REQUIRE_SHARED_DATA and _skipped:
        terminalreporter.write_line(
            f"FAILED: PAPERSCOPE_REQUIRE_SHARED_DATA=1 and {len(_skipped)} tests skipped "
            f"(first: {_skipped[0]}); CI runs every test",
            red=True,
        )
    if STRICT_SKIPS and _bad_skips:
        terminalreporter.write_line(
            f"FAILED: PAPERSCOPE_STRICT_SKIPS=1 and {len(_bad_skips)} tests skipped for a reason other than"
            f" the missing ../shared/data or an optional extra (first: {_bad_skips[0]})",
            red=True,
        )


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache folder per test session, so the int8 model is quantised once, not per test."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="session", autouse=True)
def session_env(tmp_path_factory: pytest.TempPathFactory, model_cache: Path):
    """Set the same isolation for session- and module-scoped fixtures, which run before env_setup."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PAPERSCOPE_HOME", str(tmp_path_factory.mktemp("session-home")))
        patch.setenv("PAPERSCOPE_CACHE", str(model_cache))
        patch.setenv("PAPERSCOPE_EMBEDDER", "fake")
        patch.delenv("PAPERSCOPE_DB", raising=False)
        yield


@pytest.fixture(autouse=True)
def env_setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path) -> None:
    """Isolate each test: its own PAPERSCOPE_HOME, a shared model cache, the fake embedder.

    Tests that measure the real model pass ``embedder="minilm"`` and are marked ``model``.
    """
    monkeypatch.setenv("PAPERSCOPE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PAPERSCOPE_CACHE", str(model_cache))
    monkeypatch.setenv("PAPERSCOPE_EMBEDDER", "fake")
    monkeypatch.delenv("PAPERSCOPE_DB", raising=False)
    # Query vectors are cached per process by (model id, text); every FakeEmbedder shares one
    # model id, so a test that counts embedder calls must not see another test's queries.
    from paperscope.index.search import clear_query_vectors

    clear_query_vectors()


@pytest.fixture(scope="session")
def icml_dir() -> Path:
    """The five ICML 2026 lists: package data, also reachable as examples/icml2026 in a checkout."""
    return EXAMPLES_DIR


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real data folder ``../shared/data``; the test skips when it is missing (see the module doc)."""
    if not SHARED_DATA.is_dir():
        _without_shared_data()
    return SHARED_DATA


@pytest.fixture
def fresh_library(tmp_path: Path) -> Library:
    lib = Library(tmp_path / "lib.db")
    yield lib
    lib.close()


@pytest.fixture
def icml_library(tmp_path: Path, icml_dir: Path) -> Library:
    lib = Library(tmp_path / "icml.db")
    lib.ingest([icml_dir])
    yield lib
    lib.close()


def write_list(path: Path, body: str) -> Path:
    """Write a paper-list text file (UTF-8) and return its path."""
    path.write_text(body, encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def titled_csv(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """``(path, title)``: a CSV of one ICLR 2026 paper with a title, on dataset distillation."""
    title = "Distilling Datasets into a Handful of Synthetic Images"
    path = tmp_path_factory.mktemp("titled") / "titled.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["title", "abstract", "venue", "year"])
        writer.writerow(
            [
                title,
                "Dataset distillation compresses a large training set into a few synthetic images. We"
                " distill a dataset by matching training trajectories and report accuracy on CIFAR-10.",
                "ICLR",
                2026,
            ]
        )
    return path, title


@pytest.fixture(scope="session")
def topic_library(tmp_path_factory: pytest.TempPathFactory, icml_dir: Path):
    """The 95 ICML 2026 papers with cards, fake-embedder vectors and fitted topics (shared: reset marks)."""
    lib = Library(tmp_path_factory.mktemp("topic-library") / "lib.db")
    lib.ingest([icml_dir])
    lib.fit_topics()
    yield lib
    lib.close()


@pytest.fixture
def unmarked(topic_library: Library):
    """:func:`topic_library` with no star and no triage state before and after the test."""

    def reset() -> None:
        for pid in [p.paper_id for p in topic_library.papers()]:
            topic_library.set_triage(pid, None)
            topic_library.star(pid, False)

    reset()
    yield topic_library
    reset()
