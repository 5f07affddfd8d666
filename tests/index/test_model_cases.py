"""Bug cases 16 and 17 and the Chinese dev queries with the real bundled model (marked `model`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paperscope import Library
from paperscope.evaluation.qrels import read_dev_queries
from paperscope.index import minilm as minilm_module
from paperscope.index.embed import get_embedder
from paperscope.ingest.pipeline import record_to_paper
from paperscope.ingest.text_list import read_text_list

pytestmark = pytest.mark.model

F13_FIRST_FIVE = [
    "We predict protein side-chain packing with a lattice model.",
    "We analyse revenue in second-price auctions with budget limits.",
    "We schedule register allocation in a just-in-time compiler.",
    "We estimate river sediment transport from satellite imagery.",
    "We model crowd evacuation with cellular automata.",
]


@pytest.fixture(scope="module")
def minilm():
    return get_embedder("minilm")


@pytest.mark.skipif(
    not minilm_module.onnx_runtime_installed(), reason="needs the onnx extra: pip install 'paperscope[onnx]'"
)
def test_minilm_vectors_are_unit_length_and_match_fp32(minilm):
    texts = ["Diffusion models generate images by denoising.", "Reward shaping for offline RL."]
    int8 = minilm.embed(texts)
    fp32 = get_embedder("minilm-fp32").embed(texts)
    assert int8.shape == (2, 384) and int8.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(int8, axis=1), [1.0, 1.0], rtol=1e-5)
    assert float((int8 * fp32).sum(axis=1).min()) > 0.98
    assert float(int8[0] @ int8[1]) < 0.5


def test_case16_long_abstract_is_chunked_not_truncated(tmp_path: Path):
    long_text = "The experimental setup follows standard practice. " * 300
    long_text += "Our key contribution is spectral pruning of attention heads."
    short = "We study spectral pruning of attention heads in small transformers."
    body = "ICML 2026 Papers\n\n" + "\n\n".join([long_text, short, *F13_FIRST_FIVE]) + "\n"
    (tmp_path / "f16.txt").write_text(body, encoding="utf-8")
    with Library(tmp_path / "lib.db", embedder="minilm") as lib:
        lib.ingest([tmp_path / "f16.txt"])
        ids = {p.clean_text[:20]: p.paper_id for p in lib.papers()}
        long_id, short_id = ids[long_text[:20]], ids[short[:20]]
        assert lib.related(short_id, limit=1)[0].paper_id == long_id
        dense = lib.search("spectral pruning of attention heads", mode="dense", limit=2)
        assert {h.paper_id for h in dense} == {short_id, long_id}


def test_long_abstract_is_embedded_in_windows_and_recorded(tmp_path: Path):
    # 300 distinct sentences, about 19k characters (under ingest's 20k cap): far past the model's
    # 256-wordpiece window.
    long_text = " ".join(
        f"Ablation {i} varies the learning rate schedule of the encoder." for i in range(300)
    )
    assert 15_000 < len(long_text) < 20_000
    body = f"ICML 2026 Papers\n\n{long_text}\n\n{F13_FIRST_FIVE[0]}\n"
    (tmp_path / "long.txt").write_text(body, encoding="utf-8")
    with Library(tmp_path / "lib.db", embedder="minilm") as lib:
        lib.ingest([tmp_path / "long.txt"])
        long_id, short_id = (p.paper_id for p in lib.papers())
        index = lib.dense_index()
        wordpieces = len(lib.embedder.tokenizer.encode(long_text, add_special_tokens=False).ids)
        assert wordpieces == 4_200
        # Windows of at most 254 wordpieces plus [CLS]/[SEP]: ceil(4,200 / 254) = 17.
        assert int(index.n_chunks[index.row_of[long_id]]) == 17
        assert int(index.n_chunks[index.row_of[short_id]]) == 1
        row = lib.store.conn.execute(
            "SELECT n_chunks FROM embeddings WHERE paper_id = ?", (long_id,)
        ).fetchone()
        assert row[0] == 17


def test_case17_chinese_abstracts_warn_and_relate(tmp_path: Path):
    body = """ICML 2026 论文列表

我们提出一种更快的扩散模型采样方法，用更少的去噪步数生成高质量图像。

本文改进扩散模型的图像生成质量，通过新的噪声调度减少采样步骤。

我们研究离线强化学习中的奖励塑形，以提升策略的累计回报。

本文提出一种用于多智能体强化学习的奖励分解方法。
"""
    (tmp_path / "f17.txt").write_text(body, encoding="utf-8")
    with Library(tmp_path / "lib.db", embedder="minilm") as lib:
        report = lib.ingest([tmp_path / "f17.txt"])
        assert any("4 abstract(s) are mostly in a non-Latin script" in w for w in report.warnings)
        ids = [p.paper_id for p in lib.papers()]
        assert lib.related(ids[0], limit=1)[0].paper_id == ids[1]
        assert lib.related(ids[2], limit=1)[0].paper_id == ids[3]


def test_chinese_dev_queries_find_their_english_abstracts(shared_data: Path, tmp_path: Path):
    folder = shared_data / "icml2026"
    with Library(tmp_path / "lib.db", embedder="minilm") as lib:
        lib.ingest([folder])
        position = {
            (path.name, i): record_to_paper(r).paper_id
            for path in sorted(folder.glob("*.txt"))
            for i, r in enumerate(read_text_list(path))
        }
        found = []
        for row in read_dev_queries(shared_data / "gold" / "icml2026_queries_dev.jsonl"):
            if row["lang"] != "zh":
                continue
            best = {position[(f, i)] for f, i, grade in row["relevant"] if grade == 2}
            top5 = [h.paper_id for h in lib.search(row["query"], limit=5)]
            found.append(bool(best & set(top5)))
        assert found == [True, True, True, True]
