"""Near-duplicates become one paper with every source; different papers with similar text stay apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperscope import Library
from paperscope.ingest import dedup

ABSTRACT = (
    "We propose a sparse attention method for long documents that selects a small set of key tokens per "
    "query with a learned router, so that memory grows linearly with the sequence length instead of "
    "quadratically. On three long-document benchmarks the method matches dense attention while using "
    "four times less memory, and it trains twice as fast on sequences of sixteen thousand tokens. We "
    "further show that the router learns interpretable patterns that align with document structure, "
    "such as section boundaries and citations, and we release code and trained checkpoints for all "
    "of our experiments so that others can reproduce and extend the results on new tasks and domains."
)


def _json(path: Path, records: list[dict]) -> Path:
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def _edit(text: str, pairs: list[tuple[str, str]]) -> str:
    for old, new in pairs:
        assert old in text
        text = text.replace(old, new, 1)
    return text


def test_small_abstract_edit_is_the_same_paper_and_jaccard_stays_high(tmp_path: Path) -> None:
    edited = _edit(ABSTRACT, [("three", "four"), ("twice", "2x"), ("release code", "publish code")])
    similarity = dedup.jaccard(dedup.shingles(ABSTRACT), dedup.shingles(edited))
    assert 0.8 <= similarity < 0.95
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text(f"ICML 2026 Papers\n\n{ABSTRACT}\n", encoding="utf-8")
    b.write_text(f"{edited}\n", encoding="utf-8")
    with Library(tmp_path / "lib.db") as lib:
        lib.ingest([a])
        report = lib.ingest([b])
        assert (report.new, report.present, report.merged) == (0, 0, 1)
        (paper,) = lib.papers()
        assert [(Path(s.path).name, s.line) for s in paper.sources] == [("a.txt", 3), ("b.txt", 1)]
        assert paper.abstract == ABSTRACT  # the first source's text stays


def test_title_differing_in_case_punctuation_and_spacing_with_a_rewrite_merges(tmp_path: Path) -> None:
    sentences = ABSTRACT.split(". ")
    assert len(sentences) == 3
    rewrite = ". ".join(
        [sentences[0], "A new second sentence replaces the old one entirely here", sentences[2]]
    )
    assert 0.5 <= dedup.jaccard(dedup.shingles(ABSTRACT), dedup.shingles(rewrite)) < 0.8
    first = _json(
        tmp_path / "a.json", [{"title": "Sparse Attention for Long Documents", "abstract": ABSTRACT}]
    )
    second = _json(
        tmp_path / "b.json", [{"title": "sparse attention  for long-documents.", "abstract": rewrite}]
    )
    third = ". ".join(
        [sentences[0], "Another different sentence takes the middle place in this one", sentences[2]]
    )
    assert 0.5 <= dedup.jaccard(dedup.shingles(ABSTRACT), dedup.shingles(third)) < 0.8
    other = _json(tmp_path / "c.json", [{"title": "Dense Attention for Long Documents", "abstract": third}])
    with Library(tmp_path / "lib.db") as lib:
        assert lib.ingest([first, second]).merged == 1
        assert len(lib) == 1
        # A similar rewrite under another title: similar text alone (J < 0.8) is not enough.
        assert lib.ingest([other]).new == 1
        assert len(lib) == 2


def test_arxiv_versions_merge_by_id_when_rewritten_but_not_when_replaced(tmp_path: Path) -> None:
    # v2 is retitled and its abstract revised (J between ID_TEXT_JACCARD and the text-only rules):
    # the shared arXiv id merges it. v3 under the same id has another paper's text: a conflict.
    sentences = ABSTRACT.split(". ")
    revised = ". ".join(
        [sentences[0], "We rewrote this sentence for the second version entirely", sentences[2]]
    )
    similarity = dedup.jaccard(dedup.shingles(ABSTRACT), dedup.shingles(revised))
    assert dedup.ID_TEXT_JACCARD <= similarity < dedup.NEAR_DUP_JACCARD  # only the id can merge it
    v1 = {
        "id": "2101.00001v1",
        "abstract": ABSTRACT,
        "title": "Routers",
        "versions": [],
        "categories": "cs.LG",
    }
    v2 = {**v1, "id": "2101.00001v2", "title": "Learned Routers for Attention", "abstract": revised}
    v3 = {**v1, "id": "2101.00001v3", "title": "Graph Sets", "abstract": "An entirely new abstract text."}
    for name, record in (("v1", v1), ("v2", v2), ("v3", v3)):
        (tmp_path / f"{name}.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    with Library(tmp_path / "lib.db") as lib:
        lib.ingest([tmp_path / "v1.jsonl"])
        assert lib.ingest([tmp_path / "v2.jsonl"]).merged == 1
        (paper,) = lib.papers()
        assert (paper.title, paper.external_ids) == ("Routers", {"arxiv": "2101.00001"})
        report = lib.ingest([tmp_path / "v3.jsonl"])
        assert (report.new, report.merged, len(lib)) == (1, 0, 2)
        (conflict,) = report.conflicts
        assert (conflict.kind, conflict.value, conflict.other_id) == ("arxiv", "2101.00001", paper.paper_id)


def test_distinct_openreview_ids_keep_near_identical_abstracts_apart(tmp_path: Path) -> None:
    edited = _edit(ABSTRACT, [("three", "four")])
    path = _json(
        tmp_path / "or.json",
        [
            {"title": "A", "abstract": ABSTRACT, "site": "https://openreview.net/forum?id=AAAAAAA"},
            {"title": "A", "abstract": edited, "site": "https://openreview.net/forum?id=BBBBBBB"},
        ],
    )
    with Library(tmp_path / "lib.db") as lib:
        assert (lib.ingest([path]).new, len(lib)) == (2, 2)


def test_templated_abstracts_differing_in_one_word_stay_apart(tmp_path: Path) -> None:
    # Case 14's corpus: 20 short abstracts from two templates, one noun and one number changing.
    domains = ["images", "audio", "video", "text", "molecules"]
    lines = ["ICML 2026 Papers", ""]
    for i in range(1, 11):
        x = domains[(i - 1) % 5]
        lines += [
            f"In this paper we propose a novel method for diffusion models that reduces denoising steps for {x} "
            f"generation by {i}$\\times$ while keeping sample quality.",
            "",
            f"In this paper we propose a novel method for reinforcement learning that shapes the reward of policy "
            f"optimisation in {x} environments, improving return {i}$\\times$.",
            "",
        ]
    path = tmp_path / "f14.txt"
    path.write_text("\n".join(lines), encoding="utf-8")
    with Library(tmp_path / "lib.db") as lib:
        report = lib.ingest([path])
        assert (report.read, report.new, report.merged) == (20, 20, 0)


def test_withdrawn_placeholders_and_follow_up_work_stay_apart(tmp_path: Path, shared_data: Path) -> None:
    iclr2018 = json.loads(
        (shared_data / "papercopilot-paperlists" / "iclr2018.json").read_text(encoding="utf-8")
    )
    withdrawn = [r for r in iclr2018 if r["title"].strip().lower() == "withdrawn"]
    assert len(withdrawn) >= 2
    distinct = {r["abstract"] for r in withdrawn}
    icml = {
        year: json.loads((shared_data / "airas-papers-db" / f"icml_{year}.json").read_text(encoding="utf-8"))
        for year in (2020, 2021)
    }
    base = next(
        r for r in icml[2020] if r["title"] == "Correlation Clustering with Asymmetric Classification Errors"
    )
    follow = next(
        r for r in icml[2021] if r["title"].startswith("Local Correlation Clustering with Asymmetric")
    )
    path = _json(tmp_path / "mix.json", [*withdrawn, base, follow])
    with Library(tmp_path / "lib.db") as lib:
        report = lib.ingest([path])
        assert report.merged == 0
        assert len(lib) == len(distinct) + 2


def test_near_duplicate_index_persists_across_runs_and_reingest_is_present(tmp_path: Path) -> None:
    edited = _edit(ABSTRACT, [("three", "four")])
    a = _json(
        tmp_path / "a.json", [{"title": "Sparse Attention", "abstract": ABSTRACT, "keywords": "attention"}]
    )
    b = _json(
        tmp_path / "b.json",
        [
            {
                "title": "Sparse attention",
                "abstract": edited,
                "keywords": "sparsity; Attention",
                "authors": ["Ann"],
            }
        ],
    )
    with Library(tmp_path / "lib.db") as lib:
        lib.ingest([a])
        (first,) = lib.papers()
    with Library(tmp_path / "lib.db") as lib:
        assert lib.ingest([b]).merged == 1
        again = lib.ingest([a, b])
        assert (again.new, again.merged, again.present) == (0, 0, 2)
        (paper,) = lib.papers()
        assert paper.paper_id == first.paper_id
        assert (paper.title, paper.keywords, paper.authors) == (
            "Sparse Attention",
            ["attention", "sparsity"],
            ["Ann"],
        )
        assert len(paper.sources) == 2


def test_papers_stored_before_the_index_existed_are_indexed_on_next_ingest(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    a.write_text(ABSTRACT + "\n", encoding="utf-8")
    b = tmp_path / "b.txt"
    b.write_text(_edit(ABSTRACT, [("three", "four")]) + "\n", encoding="utf-8")
    with Library(tmp_path / "lib.db") as lib:
        lib.ingest([a])
        conn = lib.store.conn
        conn.execute("DELETE FROM dedup_keys")
        conn.execute("UPDATE papers SET dedup_indexed = 0")
        assert lib.ingest([b]).merged == 1
        assert conn.execute("SELECT count(*) FROM papers WHERE dedup_indexed = 0").fetchone()[0] == 0


@pytest.mark.parametrize(
    ("a_ids", "b_ids", "same_title", "similarity", "shortest", "expected"),
    [
        ({"doi": "10.1234/x"}, {"doi": "10.1234/X"}, True, 0.0, 5, True),
        ({"doi": "10.1234/x"}, {"doi": "https://doi.org/10.1234/X"}, False, 0.4, 5, True),
        ({"doi": "10.1234/x"}, {"doi": "doi:10.1234/X"}, False, 0.39, 100, False),
        ({"openreview": "AAAAAAA"}, {"openreview": "BBBBBBB"}, True, 0.99, 100, False),
        ({}, {}, True, 0.5, 5, True),
        ({}, {}, True, 0.49, 100, False),
        ({}, {}, False, 0.8, 40, True),
        ({}, {}, False, 0.79, 100, False),
        ({}, {}, False, 0.95, 39, False),
        ({"arxiv": "2101.00001"}, {"doi": "10.1234/x"}, False, 0.85, 100, True),
    ],
)
def test_is_same_paper_rules(
    a_ids: dict, b_ids: dict, same_title: bool, similarity: float, shortest: int, expected: bool
) -> None:
    title = dedup.title_key("Some Title")
    other = title if same_title else dedup.title_key("Other Title")
    a, b = dedup.normalise_ids(a_ids), dedup.normalise_ids(b_ids)
    assert dedup.judge(a, b, title, other, similarity, shortest).same is expected


def test_title_key_ignores_case_punctuation_and_spacing() -> None:
    assert dedup.title_key("Sparse Attention: for Long-Documents") == dedup.title_key(
        " sparse attention for long documents."
    )
    assert dedup.title_key("Sparse Attention") != dedup.title_key("Dense Attention")
    assert dedup.title_key("  ") is None


def test_lsh_bands_find_near_duplicates_and_only_rarely_unrelated_text() -> None:
    from paperscope.models import Paper

    texts = [
        ABSTRACT,
        _edit(ABSTRACT, [("three", "four")]),
        "A completely different abstract about graphs and sets.",
    ]
    prints = dedup.fingerprints([Paper(str(i), t, t) for i, t in enumerate(texts)])
    assert set(prints[0].band_keys) & set(prints[1].band_keys)
    assert not set(prints[0].band_keys) & set(prints[2].band_keys)
    assert len(prints[0].band_keys) == dedup.BANDS


def test_a_later_source_fills_the_title_index_card_and_content_hash(tmp_path: Path) -> None:
    text = tmp_path / "list.txt"
    text.write_text(f"ICML 2026 Papers\n\n{ABSTRACT}\n", encoding="utf-8")
    meta = _json(tmp_path / "meta.json", [{"title": "Routers for Sparse Attention", "abstract": ABSTRACT}])
    with Library(tmp_path / "lib.db") as lib:
        lib.ingest([text])
        (before,) = lib.papers()
        old_hash = lib.store.conn.execute("SELECT content_hash FROM papers").fetchone()[0]
        assert before.title is None
        assert lib.ingest([meta]).present == 1
        (after,) = lib.papers()
        assert (after.paper_id, after.title, after.venue) == (
            before.paper_id,
            "Routers for Sparse Attention",
            "ICML",
        )
        assert after.card.label.startswith("Routers for Sparse Attention")
        assert lib.store.conn.execute("SELECT content_hash FROM papers").fetchone()[0] != old_hash
        assert [h.paper_id for h in lib.search("Routers")] == [after.paper_id]
