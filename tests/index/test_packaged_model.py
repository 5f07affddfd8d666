"""The int8 embedding model shipped as package data is the one the build script makes, byte for byte."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from paperscope.index import minilm

REPO = Path(__file__).resolve().parents[2]


def test_the_shipped_ir_matches_its_manifest() -> None:
    xml = minilm.packaged_openvino_model()
    assert xml is not None and xml.parent.name == minilm.PACKAGED_IR
    manifest = json.loads((xml.parent / "manifest.json").read_text(encoding="utf-8"))
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((xml.parent / name).read_bytes()).hexdigest() == digest, name
    # Calibrated on the bundled example abstracts, the texts a local calibration would use.
    texts = minilm.calibration_texts()
    assert manifest["calibration"] == {
        "texts": len(texts),
        "sha256": hashlib.sha256("\n\n".join(texts).encode("utf-8")).hexdigest(),
    }


@pytest.mark.slow
@pytest.mark.model
def test_the_build_script_makes_the_shipped_bytes() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "build_int8_model.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
