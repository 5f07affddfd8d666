"""Bench data: labelled paper sets (ICLR 2026 primary areas, IJCAI 2024 areas) and cached embeddings."""

from __future__ import annotations

import csv
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from paperscope.text import clean_text

REPO = Path(__file__).resolve().parents[1]
ICLR_DIR = REPO.parent / "shared" / "data" / "iclr2026-primary-area"
PAPERCOPILOT_DIR = REPO.parent / "shared" / "data" / "papercopilot-paperlists"
CACHE_DIR = Path(tempfile.gettempdir()) / "paperscope-bench"


def load_iclr2026() -> tuple[list[str], list[str], list[str]]:
    """Return (titles, clean abstracts, primary areas) of the 4,302 papers, files in sorted order."""
    csv.field_size_limit(1 << 24)
    titles, texts, areas = [], [], []
    for path in sorted(ICLR_DIR.glob("*.csv")):
        with path.open(encoding="utf-8-sig", newline="") as handle:
            for row in csv.DictReader(handle):
                titles.append(clean_text(row["title"]))
                texts.append(clean_text(row["abstract"]))
                areas.append(row["primary_area"])
    return titles, texts, areas


def load_ijcai2024() -> tuple[list[str], list[str], list[str]]:
    """Return (titles, clean abstracts, primary areas) of the 787 IJCAI 2024 main-track papers.

    Only the 790 main-track records carry ``primary_area`` (15 IJCAI areas, papercopilot
    ``ijcai2024.json``, see ``shared/data/SOURCES.md``); the 3 without an abstract are left out.
    No other papercopilot file has area labels (ICLR 2017/2018 and COLM carry only a track).
    """
    records = json.loads((PAPERCOPILOT_DIR / "ijcai2024.json").read_text(encoding="utf-8"))
    titles, texts, areas = [], [], []
    for record in records:
        if not record.get("primary_area") or not (record.get("abstract") or "").strip():
            continue
        titles.append(clean_text(record["title"]))
        texts.append(clean_text(record["abstract"]))
        areas.append(record["primary_area"])
    return titles, texts, areas


def embed_documents(docs: list[str]) -> tuple[np.ndarray, str]:
    """Return (float32 (n, 384) unit rows, name of the embedder); cached by content hash in /tmp."""
    key = hashlib.sha256("\n\0".join(docs).encode()).hexdigest()[:16]
    from paperscope.index.embed import get_embedder

    name, embed = "paperscope.index.embed", get_embedder("minilm").embed
    CACHE_DIR.mkdir(exist_ok=True)
    cache = CACHE_DIR / f"emb-{key}-{name.split()[0]}.npy"
    if cache.exists():
        return np.load(cache), name + " [cached]"
    start = time.perf_counter()
    matrix = np.asarray(embed(docs), dtype=np.float32)
    print(f"embedded {len(docs)} docs in {time.perf_counter() - start:.0f} s with {name}", file=sys.stderr)
    np.save(cache, matrix)
    return matrix, name
