"""On-disk caches a fresh process reads: each equals what it replaces and is never read stale."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from paperscope import Library
from paperscope.index.dense import DenseIndex
from paperscope.store import vectors


def test_jieba_on_disk_dictionary_segments_like_plain_jieba(shared_data: Path) -> None:
    import jieba

    from paperscope.text import _jieba

    texts = [
        "我们提出一种新的图神经网络剪枝方法，在多个基准上显著提升推理效率。",
        "本文研究基于Transformer的检索增强生成",
    ]
    path = shared_data / "iclr2026-primary-area" / "primary_area__learning-theory.csv"
    with path.open(encoding="utf-8-sig", newline="") as handle:
        texts += [row["explain_zh"] for row in csv.DictReader(handle) if row["explain_zh"]][:150]
    ours = _jieba()
    assert ours.FREQ is not jieba.dt.FREQ and len(texts) > 100
    for text in texts:
        assert list(ours.cut(text)) == list(jieba.cut(text))
        assert list(ours.cut_for_search(text)) == list(jieba.cut_for_search(text))


def test_cedict_table_holds_exactly_the_parsed_senses() -> None:
    from paperscope.index.crosslingual import _dictionary, _parse_cedict

    parsed = _parse_cedict()
    table = _dictionary()
    assert len(table) == len(parsed) > 100_000
    for word in list(parsed)[::97] + ["扩散", "采样", "神经网络"]:
        assert table[word] == parsed[word]
    assert "不是一个词语吧" not in table


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
