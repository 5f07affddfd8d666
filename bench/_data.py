"""Bench data: the ICLR 2026 papers with their OpenReview primary areas, and cached embeddings."""

from __future__ import annotations

import csv
import hashlib
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from paperscope.text import clean_text

REPO = Path(__file__).resolve().parents[1]
ICLR_DIR = REPO.parent / "shared" / "data" / "iclr2026-primary-area"
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
