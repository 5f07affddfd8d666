from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import paperscope.library as library_module
from paperscope import Library
from paperscope.index.bm25 import MemoryBM25, match_expression, scoring_terms
from paperscope.store.lexical import EXACT_WEIGHT, TITLE_WEIGHT, search_fts


@pytest.fixture
def icml(tmp_path: Path, icml_dir: Path) -> Library:
    lib = Library(tmp_path / "lib.db", embedder="fake")
    lib.ingest([icml_dir])
    yield lib
    lib.close()


def _memory(lib: Library) -> MemoryBM25:
    rows = lib.store.conn.execute("SELECT paper_id, title, clean_text FROM papers ORDER BY rowid")
    return MemoryBM25.build(rows, title_weight=TITLE_WEIGHT, exact_weight=EXACT_WEIGHT)


@pytest.mark.parametrize(
    "query",
    # Stems and exact forms both score: "distillation" is the stem "distil" plus the exact form.
    ["distillation", "pruning robots", "unlearning forgetting evaluation", "剪枝", "optimizers", "models"],
)
def test_memory_bm25_scores_equal_fts5(icml, query):
    fts = search_fts(icml.store.conn, match_expression(query), 20)
    memory = _memory(icml).search(scoring_terms(query), 20)
    assert [pid for pid, _ in memory] == [pid for pid, _ in fts]
    assert [s for _, s in memory] == pytest.approx([s for _, s in fts], rel=1e-5)


def test_memory_bm25_round_trips_through_a_file(icml, tmp_path):
    index = _memory(icml)
    index.save(tmp_path / "bm25")
    loaded = MemoryBM25.load(tmp_path / "bm25")
    assert isinstance(loaded.rows, np.memmap)
    assert loaded.search(["distil"], 5) == index.search(["distil"], 5) != []
    assert loaded.search(["zqxjv"], 5) == []


def test_large_libraries_search_in_memory_with_filters(icml, monkeypatch):
    monkeypatch.setattr(library_module, "MEMORY_BM25_THRESHOLD", 10)
    assert icml.memory_bm25() is not None
    fts_top = search_fts(icml.store.conn, match_expression("dataset distillation"), 1)[0][0]
    assert icml.search("dataset distillation", mode="bm25")[0].paper_id == fts_top
    assert icml.search("dataset distillation", mode="bm25", venue="NeurIPS") == []
    every_match = search_fts(icml.store.conn, match_expression("model"), 1000)
    # 70 papers say "model", "models" or "modeling" (the stem "model"); 43 said "model" itself.
    assert len(icml.search("model", mode="bm25", limit=100, year=2026)) == len(every_match) == 70
    cached = list((icml._cache_dir()).glob("bm25-*"))
    assert len(cached) == 1 and (cached[0] / "rows.npy").is_file()
