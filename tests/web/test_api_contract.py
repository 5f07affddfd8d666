"""The JSON API keeps the contract /openapi.json states: Schemathesis fuzzes it in-process.

Schemathesis (https://schemathesis.readthedocs.io) reads the schema from the ASGI app and runs
every phase its command line runs (probing, examples, coverage, fuzzing, and the stateful phase,
which chains calls along the links it infers, e.g. an upload's ``job_id`` into
``GET /api/ingest/{job_id}``) with every check: no 5xx, status codes and bodies as declared,
schema-valid requests accepted and schema-violating ones rejected, a 405 with ``Allow`` for an
undeclared method, and the rest. The library is one ICML 2026 list (19 papers) with the fake
embedder, so the run needs neither ../shared nor a model; about 15 s and 1,800 requests on a
2-core machine.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from paperscope import Library
from paperscope.web import create_app

schemathesis = pytest.importorskip("schemathesis", reason="the dev extra installs schemathesis")
from schemathesis import engine  # noqa: E402
from schemathesis.engine import Status, events  # noqa: E402

#: Examples per operation and phase (Schemathesis' default is 100; the brief's CI budget is 25).
MAX_EXAMPLES = 25

#: What a schema-violating request may be answered with: Schemathesis' default list for the
#: negative_data_rejection check, plus the two size refusals our schema documents on every
#: operation, 413 (a body over its limit, e.g. a note of 100,001 astral characters sent as \u
#: escapes: 1.2 MB) and 414 (a URL over 256 KiB). Without them a too-long note fails the check
#: whenever the fuzzer's draw makes the body pass 1 MiB before it passes MAX_NOTE_CHARS.
REJECTION_STATUSES = [
    *("400", "401", "403", "404", "405", "406", "409", "413", "414", "415", "422", "428", "429"),
    "5xx",
]


@pytest.fixture
def app(tmp_path: Path, icml_dir: Path) -> Iterator[object]:
    lib = Library(tmp_path / "contract.db")
    lib.ingest([sorted(icml_dir.glob("*.txt"))[0]])
    yield create_app(lib, uploads_dir=tmp_path / "uploads")
    lib.close()


def _short(value: object, limit: int = 300) -> str:
    """``repr`` of a request part, cut to ``limit`` characters, so a failure names its input."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"


def _run(app: object, seed: int) -> tuple[list[str], dict[str, str], int]:
    """Run every phase and check; return (failures as lines, phase → status, requests sent)."""
    config = schemathesis.Config.from_dict(
        {
            "seed": seed,
            "workers": 1,
            "generation": {"max-examples": MAX_EXAMPLES, "database": "none"},
            "cache": {"enabled": False},
            "checks": {"negative_data_rejection": {"expected-statuses": REJECTION_STATUSES}},
        }
    )
    schema = schemathesis.openapi.from_asgi("/openapi.json", app, config=config)
    failures: list[str] = []
    phases: dict[str, str] = {}
    requests = 0
    for event in engine.from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            recorder = event.recorder
            requests += len(recorder.interactions)
            for case_id, checks in recorder.checks.items():
                for check in checks:
                    if check.status == Status.FAILURE and check.failure_info is not None:
                        case = recorder.cases[case_id].value
                        failure = check.failure_info.failure
                        failures.append(
                            f"{event.phase.value}: {check.name}: {failure.title}: {case.method}"
                            f" {case.formatted_path} query={case.query!r}"
                            f" headers={case.headers!r} media_type={case.media_type!r}"
                            f" body={_short(case.body)}"
                        )
        elif isinstance(event, events.PhaseFinished):
            phases[event.phase.name.value] = event.status.value
        elif isinstance(event, events.NonFatalError | events.FatalError):
            failures.append(f"error: {event!r}")
    return failures, phases, requests


@pytest.mark.slow
def test_schemathesis_finds_no_failure_in_any_phase(app: object) -> None:
    failures, phases, requests = _run(app, seed=26)
    assert failures == []
    # Every testing phase ran and passed (examples: the schema gives none, so it skips).
    assert {name: phases[name] for name in ("coverage", "fuzzing", "stateful")} == {
        "coverage": "success",
        "fuzzing": "success",
        "stateful": "success",
    }
    assert requests > 1000  # 25 operations, a few phases each: a run that tested nothing fails here
