"""Identity that is safe: a shared id merges only what the text confirms, and nothing is swallowed.

One test per rule of ``ingest/dedup.py`` (its docstring numbers them), on small files written
here: shared ids with agreeing and with different text (conflicts), proceedings-volume DOIs,
reused ids, versioned and differently spelled arXiv ids and DOIs, different ids of one kind,
and the same abstract from a title-less text list and from a titled export however the list
writes it. The migration that rebuilds stored keys is tested last.
"""

from __future__ import annotations

import csv
import json
import sqlite3
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli
from paperscope.ingest import dedup
from paperscope.store.migrations import MIGRATIONS
from paperscope.text import clean_text

# Three different papers (about 120 words each), the kind a proceedings volume holds.
PAPERS = [
    (
        "Sparse Routers for Long Documents",
        "We propose a sparse attention method for long documents that selects a small set of key "
        "tokens per query with a learned router, so that memory grows linearly with the sequence "
        "length instead of quadratically. On three long-document benchmarks the method matches dense "
        "attention while using four times less memory, and it trains twice as fast on sequences of "
        "sixteen thousand tokens. We further show that the router learns interpretable patterns that "
        "align with document structure, such as section boundaries and citations, and we release code "
        "and trained checkpoints for all of our experiments so that others can reproduce the results.",
    ),
    (
        "Calibrated Uncertainty for Graph Regression",
        "Graph neural networks are often overconfident when they predict molecular properties far from "
        "their training distribution. We introduce a conformal procedure for graph regression that "
        "wraps any trained message-passing network and returns intervals with guaranteed marginal "
        "coverage. The procedure reweights calibration molecules by their similarity to the query in a "
        "learned embedding space, which keeps intervals narrow where data are dense. Across twelve "
        "property prediction tasks, intervals are thirty percent shorter than split conformal "
        "prediction at the same coverage, and the method flags out-of-distribution scaffolds reliably.",
    ),
    (
        "Reward Shaping from Human Sketches",
        "Designing reward functions for robot manipulation remains tedious and brittle. We let users "
        "draw rough sketches of the desired end state, and learn a dense reward from the sketch with a "
        "contrastive model trained on simulated rollouts. The reward transfers to real robots without "
        "fine-tuning and lets a standard policy-gradient learner solve eight tabletop tasks that sparse "
        "rewards leave unsolved. A user study with twenty participants shows that sketches take less "
        "than a minute to draw, and that the learned rewards are preferred over hand-written ones by "
        "experienced roboticists for both effort and final task success.",
    ),
]


def _json(path: Path, records: list[dict]) -> Path:
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def _csv(path: Path, rows: list[dict]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def _rewrite(abstract: str) -> str:
    """The abstract with its middle sentence replaced (J about 0.6: a revision, not the same text)."""
    sentences = abstract.split(". ")
    middle = len(sentences) // 2
    sentences[middle] = "In this version the middle sentence was written again from scratch by us"
    return ". ".join(sentences)


# Rule 1: a shared id merges records whose text agrees: the same title, or J >= ID_TEXT_JACCARD.


def test_rule1_a_shared_doi_in_any_spelling_merges_when_the_title_or_abstract_agrees(tmp_path: Path) -> None:
    title, abstract = PAPERS[0]
    rewritten = _rewrite(abstract)
    similarity = dedup.jaccard(dedup.shingles(abstract), dedup.shingles(rewritten))
    assert dedup.ID_TEXT_JACCARD <= similarity < dedup.NEAR_DUP_JACCARD  # no text-only rule would merge
    first = _csv(
        tmp_path / "a.csv", [{"title": title, "abstract": abstract, "doi": "https://doi.org/10.5555/ABC.123"}]
    )
    # Same title, an unrelated placeholder abstract: the title agrees.
    second = _csv(
        tmp_path / "b.csv",
        [
            {
                "title": title.upper(),
                "abstract": "Abstract to be added later by the authors.",
                "doi": "doi:10.5555/abc.123",
            }
        ],
    )
    # No title, a revised abstract: the abstract agrees.
    third = _json(tmp_path / "c.json", [{"abstract": rewritten, "doi": "10.5555/Abc.123"}])
    with Library(tmp_path / "lib.db") as lib:
        report = lib.ingest([first, second, third])
        assert (report.new, report.merged, report.conflicts) == (1, 2, [])
        (paper,) = lib.papers()
        assert paper.abstract == abstract
        assert len(paper.sources) == 3


def test_rule1_a_shared_id_with_different_text_is_a_conflict_kept_as_two_papers(tmp_path: Path) -> None:
    (title_a, abstract_a), (title_b, abstract_b) = PAPERS[:2]
    reused = "Hx7Q2pLmN0"  # an export that gave the second paper the first one's forum id
    path = _json(
        tmp_path / "or.json",
        [
            {"title": title_a, "abstract": abstract_a, "forum": reused},
            {"title": title_b, "abstract": abstract_b, "site": f"https://openreview.net/forum?id={reused}"},
        ],
    )
    with Library(tmp_path / "lib.db") as lib:
        report = lib.ingest([path])
        assert (report.new, report.merged, len(lib)) == (2, 0, 2)
        (conflict,) = report.conflicts
        by_title = {p.title: p for p in lib.papers()}
        assert (conflict.kind, conflict.value) == ("openreview", reused)
        assert (conflict.paper_id, conflict.other_id) == (
            by_title[title_b].paper_id,
            by_title[title_a].paper_id,
        )
        assert (conflict.unit, conflict.line, conflict.other_title) == ("record", 2, title_a)
        assert str(conflict).endswith(
            f"is also on paper {by_title[title_a].paper_id} ({title_a}), whose text differs: kept apart"
        )
        # Both abstracts can be found again.
        assert [h.paper_id for h in lib.search("conformal graph regression")][:1] == [
            by_title[title_b].paper_id
        ]
        data = report.to_dict()
        assert data["conflicts"] == 1
        assert data["files"][0]["conflicts"] == [
            {
                "record": 2,
                "kind": "openreview",
                "value": reused,
                "paper_id": by_title[title_b].paper_id,
                "other_id": by_title[title_a].paper_id,
                "other_title": title_a,
            }
        ]
        # Re-ingesting changes nothing and reports nothing new.
        again = lib.ingest([path])
        assert (again.new, again.present, again.conflicts) == (0, 2, [])


def test_a_proceedings_volume_doi_on_three_papers_keeps_all_three(tmp_path: Path) -> None:
    # The reported failure: three different papers exported with their volume's DOI became one.
    volume = "10.1145/3600000"
    path = _csv(tmp_path / "proc.csv", [{"title": t, "abstract": a, "doi": volume} for t, a in PAPERS])
    runner = CliRunner()
    db = str(tmp_path / "lib.db")
    result = runner.invoke(cli, ["--db", db, "ingest", str(path), "--no-embed"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "new 3, already present 0, merged 0, skipped 0, conflicts 2" in result.output
    assert f"proc.csv:2: doi {volume}" not in result.output  # the first paper holds it alone
    assert result.output.count(f"conflict {path}:") == 2
    assert "conflicts 2 (same id, different text: kept apart)" in result.output
    with Library(tmp_path / "lib.db") as lib:
        assert sorted(p.title for p in lib.papers()) == sorted(t for t, _ in PAPERS)
        for _title, abstract in PAPERS:  # every abstract can still be found
            assert lib.search(" ".join(abstract.split()[:12]))


# Shared ids: once an id is on SHARED_ID_PAPERS papers it neither merges nor keeps apart.


def test_a_shared_volume_doi_neither_merges_nor_blocks(tmp_path: Path) -> None:
    volume = "10.1145/3600000"
    (title_a, abstract_a), (title_b, abstract_b), _ = PAPERS
    proceedings = _json(
        tmp_path / "proc.json",
        [
            {"title": title_a, "abstract": abstract_a, "doi": volume},
            {"title": title_b, "abstract": abstract_b, "doi": volume},
        ],
    )
    # A title-less revision of paper A with the volume DOI: J >= 0.4 would merge it by a paper's own
    # id, but the volume DOI is no paper's own id, and no text rule merges it: a paper of its own.
    revision = _json(tmp_path / "rev.json", [{"abstract": _rewrite(abstract_a), "doi": volume}])
    # Paper A with its own DOI and one changed word: the volume DOI on the stored paper does not
    # keep it apart (rule 2 ignores shared ids), so rule 4 merges it.
    own_doi = _json(
        tmp_path / "own.json",
        [
            {
                "title": title_a,
                "abstract": abstract_a.replace("four times", "five times"),
                "doi": "10.1145/3600001",
            }
        ],
    )
    with Library(tmp_path / "lib.db") as lib:
        first = lib.ingest([proceedings])
        assert (first.new, len(first.conflicts)) == (2, 1)
        report = lib.ingest([revision])
        assert (report.new, report.merged) == (1, 0)
        (conflict,) = report.conflicts
        assert (conflict.kind, conflict.value) == ("doi", volume)
        report = lib.ingest([own_doi])
        assert (report.new, report.merged, report.conflicts) == (0, 1, [])
        assert len(lib) == 3


def _distinct_abstracts(n: int) -> list[str]:
    """``n`` abstracts of 60 words drawn from 400 (pairwise shingle Jaccard about 0)."""
    import random

    rng = random.Random(13)
    vocabulary = [
        f"{a}{b}" for a in ("gra", "mol", "tok", "rew", "ker", "vec", "lat", "spa") for b in range(50)
    ]
    return [" ".join(rng.choice(vocabulary) for _ in range(60)) + "." for _ in range(n)]


def test_forty_papers_on_one_doi_are_all_kept_and_the_summary_stays_short(tmp_path: Path) -> None:
    abstracts = _distinct_abstracts(40)
    rows = [
        {"title": f"Paper {i} of the volume", "abstract": a, "doi": "10.1145/3600000"}
        for i, a in enumerate(abstracts)
    ]
    path = _csv(tmp_path / "many.csv", rows)
    result = CliRunner().invoke(
        cli, ["--db", str(tmp_path / "lib.db"), "ingest", str(path), "--no-embed"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "new 40, already present 0, merged 0, skipped 0, conflicts 39" in result.output
    assert result.output.count(f"conflict {path}:") == 10
    assert "… and 29 more conflicts (--json lists every one)" in result.output
    as_json = CliRunner().invoke(
        cli,
        ["--db", str(tmp_path / "other.db"), "ingest", str(path), "--no-embed", "--json"],
        catch_exceptions=False,
    )
    data = json.loads(as_json.stdout)
    assert data["conflicts"] == 39
    assert [c["line"] for c in data["files"][0]["conflicts"]] == list(range(3, 42))


# Rule 2: different ids of one kind are two papers whatever the text.


def test_rule2_different_dois_keep_near_identical_abstracts_apart(tmp_path: Path) -> None:
    title, abstract = PAPERS[2]
    conference = _json(
        tmp_path / "conf.json", [{"title": title, "abstract": abstract, "doi": "10.5555/conf.7"}]
    )
    journal = _json(
        tmp_path / "journal.json",
        [{"title": title, "abstract": abstract.replace("eight", "ten"), "doi": "10.5555/journal.7"}],
    )
    with Library(tmp_path / "lib.db") as lib:
        lib.ingest([conference])
        report = lib.ingest([journal])
        assert (report.new, report.merged, report.conflicts) == (1, 0, [])
        assert len(lib) == 2


# Rule 3: same title (written any way) and J >= SAME_TITLE_JACCARD.


def test_rule3_the_same_title_written_differently_merges_a_rewrite(tmp_path: Path) -> None:
    _, abstract = PAPERS[0]
    rewritten = _rewrite(abstract)
    assert (
        dedup.SAME_TITLE_JACCARD <= dedup.jaccard(dedup.shingles(abstract), dedup.shingles(rewritten)) < 0.8
    )
    a = _json(tmp_path / "a.json", [{"title": "GPT-4 Routers for Long Documents", "abstract": abstract}])
    b = _json(tmp_path / "b.json", [{"title": "GPT4 routers for long documents", "abstract": rewritten}])
    with Library(tmp_path / "lib.db") as lib:
        assert lib.ingest([a, b]).merged == 1
        assert len(lib) == 1


# Rule 4: 40+ shingles and J >= NEAR_DUP_JACCARD, no id and no title needed.


def test_rule4_a_small_edit_merges_without_title_or_id(tmp_path: Path) -> None:
    _, abstract = PAPERS[1]
    edited = abstract.replace("twelve", "eleven").replace("thirty percent", "a third")
    assert dedup.jaccard(dedup.shingles(abstract), dedup.shingles(edited)) >= dedup.NEAR_DUP_JACCARD
    a = tmp_path / "a.txt"
    a.write_text(abstract + "\n", encoding="utf-8")
    b = tmp_path / "b.txt"
    b.write_text(edited + "\n", encoding="utf-8")
    with Library(tmp_path / "lib.db") as lib:
        assert lib.ingest([a, b]).merged == 1


# Rule 5: identical match words at any length (a short abstract from a list and from an export).


def test_rule5_a_short_abstract_from_a_list_and_an_export_is_one_paper(tmp_path: Path) -> None:
    listed = tmp_path / "list.txt"
    listed.write_text(
        "ICML 2026 Papers\n\n3. We make **diffusion** sampling 4$\\times$ faster’s way.\n", encoding="utf-8"
    )
    export = _csv(
        tmp_path / "export.csv",
        [{"title": "Fast Sampling", "abstract": "We make diffusion sampling 4x faster's way"}],
    )
    short = dedup.shingles(clean_text("We make diffusion sampling 4x faster's way"))
    assert len(short) < dedup.MIN_NEAR_DUP_SHINGLES
    with Library(tmp_path / "lib.db") as lib:
        report = lib.ingest([listed, export])
        assert (report.new, report.merged) == (1, 1)
        (paper,) = lib.papers()
        assert (paper.title, paper.venue) == ("Fast Sampling", "ICML")


# The same paper from a title-less list and from a titled export, however the list writes it.

EXPORT_ABSTRACT = (
    "Multi-modal dataset distillation compresses large multi-modal datasets into a compact set of "
    "synthetic pairs. Existing methods match training trajectories of teacher and student models in "
    "each modality, which costs memory for checkpoints and bi-level optimization. We propose analytic "
    "parameter matching (APM), which derives the analytic parameters of modal projectors in closed form "
    "and aligns them between teacher and student. APM stores only two cached matrices instead of "
    "checkpoints and computes the parameters in one forward pass. It achieves up to 65x storage "
    "reduction and 9.6x faster distillation, and the model's retrieval results on Flickr30k improve "
    "by 12.8 IR@1 with 100 synthetic pairs; we also report O(n^2) costs for Renyi-based variants."
)

LIST_WRITINGS = {
    "latex": EXPORT_ABSTRACT.replace("65x", "65$\\times$")
    .replace("9.6x", "9.6$\\times$")
    .replace("O(n^2)", "$\\mathcal{O}(n^2)$"),
    "markdown": EXPORT_ABSTRACT.replace(
        "analytic parameter matching (APM)", "**analytic parameter matching (APM)**"
    ).replace("closed form", "*closed form*"),
    "hard-wrapped": textwrap.fill(EXPORT_ABSTRACT, width=60),  # breaks at spaces and after hyphens
    "smart quotes and dashes": EXPORT_ABSTRACT.replace("model's", "model’s")
    .replace("Multi-modal", "Multi‐modal")
    .replace("; we", " — we"),
    "numbered": "12. " + EXPORT_ABSTRACT,
    "accents and unicode": EXPORT_ABSTRACT.replace("Renyi", "Rényi")
    .replace("65x", "65×")
    .replace("O(n^2)", "O(n²)"),
    "all at once": "[7] "
    + EXPORT_ABSTRACT.replace("65x", "65$\\times$")
    .replace("model's", "model’s")
    .replace("(APM)", "(**APM**)")
    .replace("Renyi", "R\\'enyi")
    .replace(" in each modality,", "\nin each modality,"),
}


@pytest.mark.parametrize("writing", sorted(LIST_WRITINGS))
def test_a_title_less_list_and_a_titled_export_give_one_paper(tmp_path: Path, writing: str) -> None:
    listed = tmp_path / "list.txt"
    listed.write_text(f"ICML 2026 Papers\n\n{LIST_WRITINGS[writing]}\n", encoding="utf-8")
    export = _csv(
        tmp_path / "export.csv",
        [
            {
                "title": "Analytic Parameter Matching for Dataset Distillation",
                "abstract": EXPORT_ABSTRACT,
                "forum": "Xk3mPq9RtZ",
            }
        ],
    )
    assert LIST_WRITINGS[writing] != EXPORT_ABSTRACT  # the list really writes it differently
    listed_text = clean_text(LIST_WRITINGS[writing])  # markdown and wrapped lines clean to the same text
    assert dedup.jaccard(dedup.shingles(listed_text), dedup.shingles(EXPORT_ABSTRACT)) >= 0.95
    for order in ([listed, export], [export, listed]):
        with Library(tmp_path / f"lib-{order[0].suffix[1:]}.db") as lib:
            report = lib.ingest(order)
            assert (report.new, report.read, len(lib)) == (1, 2, 1)
            (paper,) = lib.papers()
            assert paper.title == "Analytic Parameter Matching for Dataset Distillation"
            assert paper.venue == "ICML"
            assert len(paper.sources) == 2


def test_match_words_are_the_words_the_shingles_hash() -> None:
    texts = [clean_text(t) for t in LIST_WRITINGS.values()] + ["中文摘要 mixed 3D text", "नमस्ते दुनिया", ""]
    for text in texts:
        words = dedup.match_words(text)
        assert list(dedup.shingles(text)) == list(dedup.shingles(" ".join(words)))
    assert dedup.match_words(clean_text("12. **GPT-4** is 65$\\times$ faster’s")) == dedup.match_words(
        "GPT4 is 65x faster's"
    )


# External ids in every spelling.


@pytest.mark.parametrize(
    ("kind", "spellings", "canonical"),
    [
        (
            "arxiv",
            [
                "2601.01234",
                "2601.01234v1",
                "2601.01234V12",
                "arXiv:2601.01234v2",
                "https://arxiv.org/abs/2601.01234v3",
                "http://arxiv.org/pdf/2601.01234v1.pdf",
                " 2601.01234 ",
            ],
            "2601.01234",
        ),
        (
            "arxiv",
            [
                "cs/0601001",
                "cs/0601001v2",
                "cs.LG/0601001",
                "arXiv:cs.lg/0601001v1",
                "https://arxiv.org/abs/cs/0601001",
            ],
            "cs/0601001",
        ),
        (
            "doi",
            [
                "10.5555/ABC.123",
                "https://doi.org/10.5555/abc.123",
                "http://dx.doi.org/10.5555/Abc.123",
                "doi:10.5555/ABC.123",
                "DOI: 10.5555/abc.123.",
                "https://doi.org/10.5555%2Fabc.123",
            ],
            "10.5555/abc.123",
        ),
        (
            "openreview",
            [
                "Xk3mPq9RtZ",
                "https://openreview.net/forum?id=Xk3mPq9RtZ",
                "https://openreview.net/pdf?id=Xk3mPq9RtZ&noteId=1",
            ],
            "Xk3mPq9RtZ",
        ),
    ],
)
def test_external_ids_are_normalised_in_every_spelling(
    kind: str, spellings: list[str], canonical: str
) -> None:
    for spelling in spellings:
        assert dedup.normalise_id(kind, spelling) == canonical, spelling
        assert dedup.id_keys({kind: spelling}) == dedup.id_keys({kind: canonical})
    assert dedup.normalise_ids(dedup.normalise_ids({kind: spellings[-1]})) == {kind: canonical}


def test_openreview_ids_keep_their_case_and_junk_is_no_id() -> None:
    assert dedup.id_keys({"openreview": "Xk3mPq9RtZ"}) != dedup.id_keys({"openreview": "xk3mpq9rtz"})
    assert dedup.normalise_ids({"arxiv": "arXiv preprint", "doi": "n/a", "openreview": "x"}) == {}
    assert dedup.normalise_ids({"doi": "10.48550/arXiv.2601.01234"}) == {"arxiv": "2601.01234"}
    assert dedup.normalise_ids({"doi": "10.48550/arXiv.2601.01234", "arxiv": "2601.09999"}) == {
        "arxiv": "2601.09999"
    }


def test_versioned_arxiv_ids_from_different_readers_merge(tmp_path: Path) -> None:
    title, abstract = PAPERS[0]
    a = _csv(tmp_path / "a.csv", [{"title": title, "abstract": abstract, "arxiv_id": "arXiv:2601.01234v1"}])
    b = _json(
        tmp_path / "b.json", [{"abstract": _rewrite(abstract), "url": "https://arxiv.org/abs/2601.01234v2"}]
    )
    with Library(tmp_path / "lib.db") as lib:
        report = lib.ingest([a, b])
        assert (report.new, report.merged, report.conflicts) == (1, 1, [])


def test_judge_names_the_rule_and_the_conflict() -> None:
    title = dedup.title_key("Sparse Routers")
    ids = {"doi": "10.5555/x"}
    assert dedup.judge(ids, ids, title, title, 0.0, 5) == dedup.Verdict(True, 1)
    assert dedup.judge(ids, ids, None, title, 0.1, 100) == dedup.Verdict(False, 1, ("doi", "10.5555/x"))
    shared = {("doi", "10.5555/x")}
    assert dedup.judge(ids, ids, None, title, 0.1, 100, shared) == dedup.Verdict(
        False, 0, ("doi", "10.5555/x")
    )
    assert dedup.judge(ids, {"doi": "10.5555/y"}, title, title, 0.9, 100, shared) == dedup.Verdict(True, 3)
    assert dedup.judge({}, {}, None, None, 1.0, 3) == dedup.Verdict(True, 5)
    assert dedup.title_key("Withdrawn") is None  # one word: no evidence
    assert dedup.title_key("Siamese DETR") is not None


# Libraries indexed by the old keys are re-indexed (schema migration 7).


_KEYS_MIGRATION = next(i for i, script in enumerate(MIGRATIONS) if "DELETE FROM dedup_keys" in script)


def test_keys_stored_before_match_words_are_rebuilt_on_the_next_ingest(tmp_path: Path) -> None:
    title, abstract = PAPERS[1]
    a = _json(tmp_path / "a.json", [{"title": title, "abstract": abstract}])
    with Library(tmp_path / "lib.db") as lib:
        lib.ingest([a])
    # Make it look like a library of schema 7 whose keys came from the old shingles.
    conn = sqlite3.connect(tmp_path / "lib.db")
    with conn:
        conn.execute("DELETE FROM dedup_keys")
        (paper_id,) = conn.execute("SELECT paper_id FROM papers").fetchone()
        conn.executemany(
            "INSERT INTO dedup_keys (key, paper_id) VALUES (?, ?)", [(k, paper_id) for k in range(1, 12)]
        )
        # The schema just before the migration that drops the old keys (later ones run again too).
        conn.execute(f"PRAGMA user_version = {_KEYS_MIGRATION}")
    conn.close()
    listed = tmp_path / "list.txt"
    listed.write_text(
        "1. " + abstract.replace("model", "**model**").replace("twelve", "12") + "\n", encoding="utf-8"
    )
    with Library(tmp_path / "lib.db") as lib:
        conn = lib.store.conn
        assert conn.execute("SELECT count(*) FROM dedup_keys").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM papers WHERE dedup_indexed = 0").fetchone()[0] == 1
        assert lib.ingest([listed]).merged == 1
        assert conn.execute("SELECT count(*) FROM papers WHERE dedup_indexed = 0").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM dedup_keys WHERE key BETWEEN 1 AND 11").fetchone()[0] == 0


@pytest.mark.parametrize(
    ("field", "written", "kind"),
    [
        ("arxiv_id", "https://arxiv.org/abs/2601.05555v2", "arxiv"),
        ("arxiv_id", "https://arxiv.org/pdf/2601.05555.pdf", "arxiv"),
        ("forum", "https://openreview.net/forum?id=Zfdn5hOP0k", "openreview"),
    ],
)
def test_an_id_field_written_as_a_url_is_read_and_its_conflict_reported(
    tmp_path: Path, field, written, kind
) -> None:
    (title_a, abstract_a), (title_b, abstract_b), _ = PAPERS
    bare = {"arxiv": "2601.05555", "openreview": "Zfdn5hOP0k"}[kind]
    path = _json(
        tmp_path / "ids.json",
        [
            {"title": title_a, "abstract": abstract_a, field: written},
            {"title": title_b, "abstract": abstract_b, field: bare},
        ],
    )
    with Library(tmp_path / "lib.db") as lib:
        report = lib.ingest([path], embed=False)
        assert {p.external_ids.get(kind) for p in lib.papers()} == {bare}
    assert report.new == 2 and [(c.kind, c.value) for c in report.conflicts] == [(kind, bare)]
