"""Lexical search against the bug cases of ../shared/bugs/CASES.md (1, 2, 3, 6 and 11b)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperscope import Library
from paperscope.errors import InputError

F1 = (
    "ICML 2026 Papers\n\n"
    "We present APM, an adaptive pruning method that reaches a 9.6$\\times$ speedup on CIFAR-10 while "
    "keeping state-of-the-art accuracy. Code: https://github.com/acme/apm.\n\n"
    "We revisit loss::mse style objectives and don't-care labels for sequence tagging.\n"
)
F2 = (
    "ICML 2026 论文列表\n\n"
    "我们提出一种新的图神经网络剪枝方法，在多个基准上显著提升推理效率。\n\n"
    "本文研究基于Transformer的检索增强生成，并在开放域问答上验证其有效性。\n"
)
F6 = (
    "ICML 2026 Papers\n\n"
    "We introduce Cross-Consistency Regularization (C$^2$R), which trains $f_\\theta$$g_\\phi$ jointly and is "
    "9.6$\\times$ faster than \\textit{dense} baselines while using $\\mathcal{O}(n)$ memory.\n"
)


def _library(tmp_path: Path, body: str) -> tuple[Library, list[str]]:
    path = tmp_path / "list.txt"
    path.write_text(body, encoding="utf-8")
    lib = Library(tmp_path / "lib.db")
    lib.ingest([path])
    ids = [p.paper_id for p in sorted(lib.papers(), key=lambda p: p.sources[0].line)]
    return lib, ids


def _top(lib: Library, query: str, mode: str = "bm25") -> list[str]:
    return [h.paper_id for h in lib.search(query, limit=10, mode=mode)]


def test_case1_query_syntax_never_breaks(tmp_path: Path) -> None:
    lib, (apm, other) = _library(tmp_path, F1)
    assert _top(lib, "CIFAR-10") == [apm]
    assert _top(lib, "state-of-the-art") == [apm]
    assert _top(lib, "don't") == [other]
    assert _top(lib, "loss::mse") == [other]
    for query in [
        '"',
        "(",
        "*",
        "AND",
        "NOT",
        "zqxjv",
        "the of and",
        "9.6x",
        "C$^2$R",
        "OR",
        "a:b",
        "NEAR(x y)",
    ]:
        assert _top(lib, query) == [], query
    for query in ["", "   "]:
        with pytest.raises(InputError, match="empty query"):
            lib.search(query)
    # Hybrid (the default) keeps APM first and returns nothing for junk, not dense noise.
    assert _top(lib, "CIFAR-10", mode="hybrid")[0] == apm
    assert _top(lib, "state-of-the-art", mode="hybrid")[0] == apm
    assert _top(lib, "zqxjv", mode="hybrid") == []
    assert _top(lib, "the of and", mode="hybrid") == []


def test_case2_chinese_subwords_found_lexically(tmp_path: Path) -> None:
    lib, (pruning, rag) = _library(tmp_path, F2)
    (paper,) = [p for p in lib.papers() if p.paper_id == pruning]
    assert (paper.venue, paper.year) == ("ICML", 2026)
    assert _top(lib, "剪枝") == [pruning]
    assert _top(lib, "检索增强") == [rag]
    assert _top(lib, "Transformer") == [rag]
    assert _top(lib, "基于Transformer的") == [rag]


def test_case3_wildcards_and_injection_are_plain_text(tmp_path: Path) -> None:
    lib, _ = _library(tmp_path, F1)
    for query in ["%", "_", "100%", "' OR '1'='1", 'x"; DROP TABLE papers; --']:
        assert _top(lib, query) == [], query
    for limit in ["abc", -1, 0, 10_001, True]:
        with pytest.raises(InputError, match="limit"):
            lib.search("pruning", limit=limit, mode="bm25")  # type: ignore[arg-type]
    assert lib.stats()["papers"] == 2


def test_case6_latex_query_finds_latex_abstract(tmp_path: Path) -> None:
    lib, (paper,) = _library(tmp_path, F6)
    assert _top(lib, "$\\mathcal{O}(n)$") == [paper]
    assert _top(lib, "C$^2$R") == [paper]
    assert _top(lib, "C2R") == [paper]
    assert _top(lib, "$\\") == []
    stored = lib.get(paper)
    assert "C²R" in stored.clean_text and "9.6× faster" in stored.clean_text
    assert "f_θ g_φ" in stored.clean_text


def test_case11b_blank_records_skipped_and_search_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "f11b.txt"
    path.write_text("ICML 2026 Papers\n\n—\n\n$ $\n", encoding="utf-8")
    lib = Library(tmp_path / "lib.db")
    report = lib.ingest([path])
    assert (report.read, report.new) == (2, 0)
    assert [(s.line, s.reason) for s in report.skipped] == [
        (3, "empty abstract (no letter or digit)"),
        (5, "empty abstract (no letter or digit)"),
    ]
    assert lib.search("attention") == []
    assert lib.search("attention", mode="bm25") == []


def test_search_hits_carry_ids_scores_labels_and_sources(icml_library: Library, icml_dir: Path) -> None:
    hits = icml_library.search("dataset distillation", limit=3, mode="bm25")
    assert [h.rank for h in hits] == [1, 2, 3]
    assert hits[0].score >= hits[1].score >= hits[2].score > 0
    top = icml_library.get(hits[0].paper_id)
    assert "dataset distillation" in top.clean_text.lower()
    assert hits[0].sources[0].path.endswith(".txt") and hits[0].sources[0].line > 1
    assert hits[0].legs["bm25"]["rank"] == 1


def test_a_chinese_word_indexed_with_sub_words_is_found_whole(tmp_path: Path) -> None:
    body = (
        "ICML 2026 论文列表\n\n我们提出了一种用于扩散模型加速的新方法，称为快速采样器，实现了3倍加速。\n\n"
        "我们研究快速收敛的优化器。\n"
    )
    lib, (sampler, optimizer) = _library(tmp_path, body)
    # jieba indexes 快速采样器 as "快速 采样 采样器": the query's words are near, not adjacent.
    assert _top(lib, "快速采样器")[0] == sampler
    assert _top(lib, "快速收敛") == [optimizer]
