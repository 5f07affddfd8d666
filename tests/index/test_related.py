from __future__ import annotations

from pathlib import Path

import pytest

from paperscope import InputError, Library

F12 = """ICML 2026 Papers

We propose a sparse attention method for long documents.

We study reward shaping for offline reinforcement learning.

We present a diffusion sampler that needs fewer denoising steps.
"""


@pytest.fixture
def fake_library(tmp_path: Path) -> Library:
    lib = Library(tmp_path / "lib.db", embedder="fake")
    yield lib
    lib.close()


def test_related_never_returns_the_paper_or_a_duplicate(fake_library, tmp_path):
    body = F12 + "\nFor long documents, we propose a sparse attention method!\n"
    (tmp_path / "f.txt").write_text(body, encoding="utf-8")
    fake_library.ingest([tmp_path / "f.txt"])
    assert len(fake_library) == 4
    first = fake_library.search("sparse attention long documents", mode="bm25")
    original, reworded = first[0].paper_id, first[1].paper_id
    related = fake_library.related(original, limit=10)
    ids = [h.paper_id for h in related]
    assert original not in ids and reworded not in ids
    assert len(ids) == 2
    assert [h.rank for h in related] == [1, 2]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_related_on_tiny_libraries(fake_library, tmp_path, n):
    paragraphs = F12.split("\n\n")
    (tmp_path / "f.txt").write_text("\n\n".join(paragraphs[: n + 1]) + "\n", encoding="utf-8")
    fake_library.ingest([tmp_path / "f.txt"])
    pid = next(fake_library.papers()).paper_id
    related = fake_library.related(pid, limit=5)
    assert len(related) == n - 1
    assert pid not in [h.paper_id for h in related]


def test_related_explains_with_shared_words(fake_library, tmp_path):
    body = F12 + "\nWe propose denoising diffusion steps for audio generation.\n"
    (tmp_path / "f.txt").write_text(body, encoding="utf-8")
    fake_library.ingest([tmp_path / "f.txt"])
    sampler = fake_library.search("diffusion sampler", mode="bm25")[0].paper_id
    top = fake_library.related(sampler, limit=1)[0]
    assert "denoising" in fake_library.get(top.paper_id).clean_text
    assert top.terms == ["denoising", "diffusion", "steps"]


def test_related_checks_limit(fake_library):
    with pytest.raises(InputError, match="limit must be an integer from 1 to 1000"):
        fake_library.related("abcd", limit=0)


def test_shared_words_leave_out_bare_numbers_and_function_words(fake_library, tmp_path):
    body = (
        "ICML 2026 Papers\n\n"
        "But we train 2 samplers on CIFAR10 with 100 steps near the denoising limit.\n\n"
        "But we prune 2 samplers on CIFAR10 with 100 steps near the denoising limit.\n"
    )
    (tmp_path / "f.txt").write_text(body, encoding="utf-8")
    fake_library.ingest([tmp_path / "f.txt"])
    first = next(fake_library.papers()).paper_id
    (top,) = fake_library.related(first, limit=1)
    assert top.terms == ["cifar10", "denoising", "limit", "samplers", "steps"]


def test_more_like_this_terms_are_the_rarest_frequent_words():
    from paperscope.index.related import more_like_this_terms
    from paperscope.models import Paper

    text = "Tetrahedral kernels. Tetrahedral meshes beat graph kernels."
    paper = Paper(paper_id="p", abstract=text, clean_text=text)
    df = {"tetrahedral": 1, "kernels": 50, "meshes": 5, "beat": 80, "graph": 90}
    terms = more_like_this_terms(paper, lambda ts: {t: df.get(t, 0) for t in ts}, n_papers=100, limit=3)
    # tf-idf: tetrahedral (tf 2, df 1) > meshes (tf 1, df 5) > kernels (tf 2, df 50) > beat > graph
    assert terms == ["tetrahedral", "meshes", "kernels"]


def test_related_hits_report_both_legs(fake_library, tmp_path):
    body = F12 + "\nWe propose tetrahedral sparse attention for meshes.\n"
    (tmp_path / "f.txt").write_text(body, encoding="utf-8")
    fake_library.ingest([tmp_path / "f.txt"])
    sparse = fake_library.search("sparse attention long documents", mode="bm25")[0].paper_id
    hits = fake_library.related(sparse, limit=3)
    top = hits[0]
    assert "attention" in fake_library.get(top.paper_id).clean_text
    assert set(top.legs) == {"dense", "bm25"}
    assert top.legs["bm25"]["rank"] == 1 and top.legs["dense"]["score"] <= 1.0


def test_task_words_of_the_card_follow_the_tf_idf_terms():
    from paperscope.index.related import more_like_this_terms
    from paperscope.models import Card, Paper

    text = "Tetrahedral meshes beat graph kernels."
    card = Card(label="x", extra={"tasks": [{"text": "mesh generation", "start": 0, "end": 15}]})
    paper = Paper(paper_id="p", abstract=text, clean_text=text, card=card)
    terms = more_like_this_terms(paper, lambda ts: {t: 1 for t in ts}, n_papers=100, limit=2)
    assert terms[:2] == ["beat", "graph"] and terms[2:] == ["mesh", "generation"]


def _write_jsonl(path: Path, records: list[dict[str, str]]) -> Path:
    import json

    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_related_shows_a_different_paper_that_shares_the_title(fake_library, tmp_path):
    title = "Scaling Laws for Sparse Attention"
    records = [
        {
            "title": title,
            "abstract": "We fit scaling laws for sparse attention in long document language models.",
        },
        {
            "title": title,
            "abstract": "Sparse attention kernels on GPUs: we measure memory traffic and throughput.",
        },
        {
            "title": "Reward Shaping Offline",
            "abstract": "We study reward shaping for offline reinforcement learning.",
        },
    ]
    fake_library.ingest([_write_jsonl(tmp_path / "p.jsonl", records)])
    assert len(fake_library) == 3
    first, second = (fake_library.search(r["abstract"], mode="bm25")[0].paper_id for r in records[:2])
    assert first != second
    ids = [h.paper_id for h in fake_library.related(first, limit=5)]
    assert ids[0] == second and first not in ids


def test_same_paper_is_the_ingest_identity_not_the_title():
    from paperscope.ingest.dedup import is_same_paper
    from paperscope.models import Paper

    abstract = (
        "We fit scaling laws for sparse attention in long document language models and show that"
        " the optimal sparsity grows with context length across six model sizes and three tasks."
    )
    a = Paper(paper_id="a", abstract=abstract, clean_text=abstract, title="Scaling Laws for Sparse Attention")
    other = "Sparse attention kernels on GPUs: we measure memory traffic and throughput on four accelerators."
    b = Paper(paper_id="b", abstract=other, clean_text=other, title="Scaling Laws for Sparse Attention")
    assert not is_same_paper(a, b)
    # The same arXiv id (one written with its version) and the same title: one paper.
    a.external_ids, b.external_ids = {"arxiv": "2601.01234"}, {"arxiv": "arXiv:2601.01234v2"}
    assert is_same_paper(a, b)
    # A revised abstract of the same titled paper (rule 3), no ids at all.
    revised = abstract.replace("six model sizes", "seven model sizes")
    c = Paper(paper_id="c", abstract=revised, clean_text=revised, title="Scaling laws for sparse attention.")
    a.external_ids = {}
    assert is_same_paper(a, c)
    assert is_same_paper(a, a)


def test_shared_words_skip_url_pieces_and_stop_words(icml_dir):
    from paperscope.index.related import shared_terms
    from paperscope.models import Paper
    from paperscope.text import clean_text

    # Two real ICML 2026 abstracts, each ending with its GitHub link ("[here](https://github.com/…)").
    paragraphs = [
        p for f in sorted(icml_dir.glob("*.txt")) for p in f.read_text(encoding="utf-8").split("\n\n")
    ]
    fix = next(p for p in paragraphs if "Fine-grained Forgetting Transformer" in p)
    eco = next(p for p in paragraphs if "EcoVLA" in p and "github.com" in p)
    a, b = (Paper(paper_id=str(i), abstract=t, clean_text=clean_text(t)) for i, t in enumerate((fix, eco)))
    # df {}: every word equally rare, so the order is alphabetical; "com", "github", "https" were listed.
    assert shared_terms(None, a, b, limit=50, df={}) == [
        "available",
        "benchmarks",
        "coarse",
        "code",
        "inference",
        "language",
        "large",
        "layer",
        "models",
        "performance",
        "training",
    ]
    # English stop words (scikit-learn's list) are no explanation either; DOIs and e-mails are addresses.
    text = (
        "Nevertheless, sparse kernels thereafter amongst GPUs; doi 10.1145/3600006.3613165, mail x@lab.org."
    )
    c, d = (Paper(paper_id=i, abstract=text, clean_text=text) for i in "cd")
    assert shared_terms(None, c, d, limit=50, df={}) == ["doi", "gpus", "kernels", "mail", "sparse"]


def test_shared_words_skip_a_link_text_that_names_its_host():
    from paperscope.index.related import shared_terms
    from paperscope.models import Paper
    from paperscope.text import clean_text

    texts = (
        "Causal probes make transformers interpretable. Code: [GitHub](https://github.com/a/probe).",
        "Interpretable causal circuits, see the accompanying GitHub link (https://github.com/b/circuits) "
        "and weights on huggingface.co/b/circuits.",
    )
    a, b = (Paper(paper_id=str(i), abstract=t, clean_text=clean_text(t)) for i, t in enumerate(texts))
    assert shared_terms(None, a, b, limit=50, df={}) == ["causal", "interpretable"]
