"""Rule 6 of ``ingest/dedup.py``: a title-less line that begins with a paper's title is that paper.

Issue 26, kind 7: a text list that writes a paper as its title followed by its abstract
("APM: Adaptive Pruning. We prune attention heads…") and the titled export of the same paper
stayed two papers, because the title's words lower the Jaccard of a short abstract below every
rule. Each writing below is ingested in three orders (the list first, the export first, and
both records in one file, so in one batch); each gives one paper with the export's title and
abstract and the ``paper_id`` of the record stored first. A shared title with a different
abstract stays two papers.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from paperscope import Library
from paperscope.ingest import dedup
from paperscope.ingest.pipeline import content_hash_for
from paperscope.models import Paper
from paperscope.store.migrations import MIGRATIONS
from paperscope.text import clean_text

SHORT = "We prune attention heads adaptively and keep accuracy on CIFAR-10."
LONG = (
    "Large transformers spend most of their inference time in attention heads that contribute "
    "little to the prediction. We score every head by the change in loss when it is masked, "
    "prune the lowest scoring heads, and recover accuracy with a short distillation phase. "
    "Pruned models run twice as fast."
)  # 47 distinct shingles: enough for rule 4, but the title's 13 words bring J down to 0.77
LONG_TITLE = (
    "Adaptive Pruning of Attention Heads in Vision Transformers with Loss-Aware Scores and Distillation"
)

# name: (list header, list paragraph, export title, export abstract)
WRITINGS = {
    "colon subtitle, full stop": (
        "ICML 2026 Papers",
        f"APM: Adaptive Pruning. {SHORT}",
        "APM: Adaptive Pruning",
        SHORT,
    ),
    "title holding a full stop": (
        "ICML 2026 Papers",
        f"Less Is More. Pruning Heads Adaptively. {SHORT}",
        "Less Is More. Pruning Heads Adaptively",
        SHORT,
    ),
    "question": (
        "ICML 2026 Papers",
        f"Do Attention Heads Matter? {SHORT}",
        "Do Attention Heads Matter?",
        SHORT,
    ),
    "markdown list, TeX export": (
        "ICML 2026 Papers",
        "**C²R**: Cross-Consistency Regularization. We regularise two views of each image to agree.",
        "C$^2$R: Cross-Consistency Regularization",
        "We regularise two views of each image to agree.",
    ),
    "title on its own line": (
        "ICML 2026 Papers",
        f"APM: Adaptive Pruning\n{SHORT}",
        "APM: Adaptive Pruning",
        SHORT,
    ),
    "numbered, Chinese header": (
        "ICML 2026 论文列表",
        f"12. APM: Adaptive Pruning. {SHORT}",
        "APM: Adaptive Pruning",
        SHORT,
    ),
    "long title, abstract of 49 words": ("ICML 2026 Papers", f"{LONG_TITLE}.\n{LONG}", LONG_TITLE, LONG),
}


def _json(path: Path, records: list[dict]) -> Path:
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    return path


def _files(tmp_path: Path, name: str, order: str) -> list[Path]:
    header, paragraph, title, abstract = WRITINGS[name]
    export = {"title": title, "abstract": abstract}
    if order == "one file":
        return [_json(tmp_path / "both.json", [{"abstract": paragraph}, export])]
    listed = tmp_path / "list.txt"
    listed.write_text(f"{header}\n\n{paragraph}\n", encoding="utf-8")
    exported = _json(tmp_path / "export.json", [export])
    return [listed, exported] if order == "list first" else [exported, listed]


@pytest.mark.parametrize("order", ["list first", "export first", "one file"])
@pytest.mark.parametrize("name", sorted(WRITINGS))
def test_a_list_line_that_begins_with_the_title_is_the_titled_paper(
    tmp_path: Path, name: str, order: str
) -> None:
    _, paragraph, title, abstract = WRITINGS[name]
    # Without rule 6 the two are apart: no title on one side, and too far apart for rules 4 and 5.
    assert dedup.jaccard(dedup.shingles(clean_text(paragraph)), dedup.shingles(clean_text(abstract))) < 0.8
    files = _files(tmp_path, name, order)
    with Library(tmp_path / "first.db") as alone:
        alone.ingest(files[:1] if order != "one file" else files)
        first_id = next(alone.papers()).paper_id  # the record stored first
    with Library(tmp_path / "lib.db") as lib:
        report = lib.ingest(files)
        assert (report.read, report.new, report.merged) == (2, 1, 1)
        (paper,) = lib.papers()
        assert paper.paper_id == first_id
        assert (paper.title, paper.abstract) == (clean_text(title), abstract)
        assert len(paper.sources) == 2
        row = tuple(lib.store.conn.execute("SELECT clean_text, content_hash FROM papers").fetchone())
        assert row == (clean_text(abstract), content_hash_for(paper.title, clean_text(abstract)))
        again = lib.ingest(files)  # idempotent
        assert (again.new, again.merged, again.present, len(lib)) == (0, 0, 2, 1)


@pytest.mark.parametrize("order", ["list first", "export first", "one file"])
def test_a_shared_title_with_another_abstract_stays_two_papers(tmp_path: Path, order: str) -> None:
    other = "We grow attention heads during training and report gains on machine translation."
    records = [
        {"abstract": f"APM: Adaptive Pruning. {other}"},
        {"title": "APM: Adaptive Pruning", "abstract": SHORT},
    ]
    if order == "one file":
        files = [_json(tmp_path / "both.json", records)]
    else:
        listed = tmp_path / "list.txt"
        listed.write_text(f"ICML 2026 Papers\n\nAPM: Adaptive Pruning. {other}\n", encoding="utf-8")
        exported = _json(tmp_path / "export.json", records[1:])
        files = [listed, exported] if order == "list first" else [exported, listed]
    with Library(tmp_path / "lib.db") as lib:
        report = lib.ingest(files)
        assert (report.new, report.merged, len(lib)) == (2, 0, 2)
        assert sorted((p.title or "", p.abstract) for p in lib.papers()) == [
            ("", f"APM: Adaptive Pruning. {other}"),
            ("APM: Adaptive Pruning", SHORT),
        ]


@pytest.mark.parametrize(
    ("text", "title", "rest"),
    [
        ("APM: Adaptive Pruning. We prune heads.", "APM: Adaptive Pruning", "We prune heads."),
        ("APM: Adaptive Pruning We prune heads.", "apm adaptive pruning", "We prune heads."),
        ("Less Is More. Pruning Heads. We prune.", "Less Is More. Pruning Heads", "We prune."),
        ("APM — Adaptive Pruning — we prune heads.", "APM: Adaptive Pruning", "— we prune heads."),
        ("12. APM: Adaptive Pruning. We prune heads.", "APM: Adaptive Pruning", "We prune heads."),
        # The sentence goes on: the opening words are not a title.
        ("Sparse experts route tokens to experts.", "Sparse Experts", None),
        ("Sparse Experts route tokens to experts.", "Sparse Experts", None),
        # Nothing follows, or the title is longer than the opening.
        ("APM: Adaptive Pruning.", "APM: Adaptive Pruning", None),
        ("APM: Adaptive. We prune heads.", "APM: Adaptive Pruning", None),
        # A one-word title is no evidence (placeholders such as "Withdrawn").
        ("Withdrawn. We prune heads.", "Withdrawn", None),
    ],
)
def test_split_lead_reads_a_title_only_where_one_ends(text: str, title: str, rest: str | None) -> None:
    assert dedup.split_lead(text, title) == rest


def test_judge_rule6_wants_the_rest_to_match_as_rule3_does() -> None:
    assert dedup.judge({}, {}, None, None, 0.3, 10, lead=0.5) == dedup.Verdict(True, 6)
    assert dedup.judge({}, {}, None, None, 0.3, 10, lead=0.49) == dedup.Verdict(False, 0)
    assert dedup.judge({}, {}, None, None, 0.3, 10) == dedup.Verdict(False, 0)
    # Different ids of one kind still keep them apart (rule 2 comes first).
    assert dedup.judge({"doi": "10.1/a"}, {"doi": "10.1/b"}, None, None, 0.3, 10, lead=1.0).same is False


def test_lead_similarity_needs_exactly_one_title() -> None:
    text = clean_text(f"APM: Adaptive Pruning. {SHORT}")
    empty = np.zeros(0, dtype=np.uint64)
    abstract = dedup.shingles(SHORT)
    assert dedup.lead_similarity(None, text, empty, "APM: Adaptive Pruning", SHORT, abstract) == 1.0
    assert dedup.lead_similarity("APM: Adaptive Pruning", SHORT, abstract, None, text, empty) == 1.0
    assert (
        dedup.lead_similarity("APM: Adaptive Pruning", text, empty, "APM: Adaptive Pruning", SHORT, abstract)
        is None
    )
    assert dedup.lead_similarity(None, text, empty, None, SHORT, abstract) is None


def test_is_same_paper_joins_a_pair_stored_apart_before_rule6() -> None:
    """Related lists ask ``is_same_paper``: a library that stored the pair as two no longer lists it twice."""
    listed = Paper(
        paper_id="aaaaaaaaaaaa", abstract="", clean_text=clean_text(f"APM: Adaptive Pruning\n{SHORT}")
    )
    titled = Paper(paper_id="bbbbbbbbbbbb", abstract=SHORT, clean_text=SHORT, title="APM: Adaptive Pruning")
    other = Paper(
        paper_id="cccccccccccc",
        abstract="",
        clean_text="APM: Adaptive Pruning. We grow attention heads during training for translation.",
    )
    assert dedup.is_same_paper(listed, titled) and dedup.is_same_paper(titled, listed)
    assert not dedup.is_same_paper(other, titled)


def test_a_title_less_record_stores_its_head_key_and_looks_up_its_leads() -> None:
    listed = Paper(paper_id="a" * 12, abstract="", clean_text=clean_text(f"APM: Adaptive Pruning. {SHORT}"))
    titled = Paper(paper_id="b" * 12, abstract=SHORT, clean_text=SHORT, title="APM: Adaptive Pruning")
    fp_list, fp_titled = dedup.fingerprints([listed, titled])
    assert fp_list.head_key is not None and fp_list.head_key in fp_list.keys
    assert fp_titled.title_key in fp_list.lead_keys  # list first: it finds the titled record's title key
    assert fp_titled.lead_keys == [fp_list.head_key]  # export first: the titled record finds the line
    assert fp_titled.head_key is None and fp_titled.head_key not in fp_titled.keys
    words = dedup.match_words(listed.clean_text)
    assert len(fp_list.lead_keys) == min(dedup.MAX_LEAD_WORDS, len(words) - 1) - 1


# On real titles: every ICLR 2026 paper of ../shared/data with a short abstract (its first 25
# words: below rule 4's 40 shingles, so only rule 6 can join them), written as a titled export
# and as a title-led list line with one of four separators; and each title followed by another
# paper's short abstract (a derangement), which must join neither paper.


def _iclr_short(shared_data: Path) -> list[tuple[str, str]]:
    rows = []
    for path in sorted((shared_data / "iclr2026-primary-area").glob("*.csv")):
        with path.open(encoding="utf-8-sig", newline="") as handle:
            rows += [(r["title"], " ".join(r["abstract"].split()[:25])) for r in csv.DictReader(handle)]
    return rows


@pytest.mark.slow
@pytest.mark.parametrize("lines", ["own abstracts", "other abstracts"])
@pytest.mark.parametrize("first", ["list", "export"])
def test_iclr_2026_titles_join_their_own_short_abstracts_and_no_other(
    tmp_path: Path, shared_data: Path, lines: str, first: str
) -> None:
    rows = _iclr_short(shared_data)
    assert len(rows) == 4302
    other = list(range(1, len(rows))) + [0]  # each line takes the next paper's abstract
    pick = range(len(rows)) if lines == "own abstracts" else other
    separators = [". ", "\n", ": ", " — "]
    listed = tmp_path / "list.txt"
    listed.write_text(
        "ICLR 2026 Papers\n\n"
        + "\n\n".join(f"{rows[i][0].rstrip('.')}{separators[i % 4]}{rows[j][1]}" for i, j in enumerate(pick))
        + "\n",
        encoding="utf-8",
    )
    export = _json(tmp_path / "export.json", [{"title": t, "abstract": a} for t, a in rows])
    with Library(tmp_path / "lib.db") as lib:
        report = lib.ingest(
            [listed, export] if first == "list" else [export, listed], cards=False, embed=False
        )
        conn = lib.store.conn
        line_paper = dict(conn.execute("SELECT line, paper_id FROM sources WHERE path = ?", (str(listed),)))
        exported = {
            pid for (pid,) in conn.execute("SELECT paper_id FROM sources WHERE path = ?", (str(export),))
        }
        titles = dict(conn.execute("SELECT paper_id, title FROM papers"))
        joined = [i for i, line in enumerate(sorted(line_paper)) if line_paper[line] in exported]
        if lines == "own abstracts":
            assert (report.merged, len(lib), len(joined)) == (4302, 4302, 4302)
            assert all(
                titles[line_paper[line]] == clean_text(rows[i][0])
                for i, line in enumerate(sorted(line_paper))
            )
        else:
            assert (report.merged, len(lib), joined) == (0, 8604, [])


_HEAD_MIGRATION = next(
    i for i, script in enumerate(MIGRATIONS) if "WHERE title IS NULL OR title = ''" in script
)


def test_a_list_stored_before_rule6_gets_its_head_key_and_merges_on_the_next_ingest(tmp_path: Path) -> None:
    files = _files(tmp_path, "colon subtitle, full stop", "list first")
    with Library(tmp_path / "lib.db") as lib:
        lib.ingest(files[:1])
        (listed,) = lib.papers()
    # Make it a library of the schema before the migration, whose title-less paper has no head key.
    head = dedup.head_key(dedup.match_words(listed.clean_text))
    conn = sqlite3.connect(tmp_path / "lib.db")
    with conn:
        assert conn.execute("DELETE FROM dedup_keys WHERE key = ?", (head,)).rowcount == 1
        conn.execute(f"PRAGMA user_version = {_HEAD_MIGRATION}")
    conn.close()
    with Library(tmp_path / "lib.db") as lib:
        conn = lib.store.conn
        assert conn.execute("SELECT count(*) FROM papers WHERE dedup_indexed = 0").fetchone()[0] == 1
        report = lib.ingest(files[1:])
        assert (report.new, report.merged, len(lib)) == (0, 1, 1)
        (paper,) = lib.papers()
        assert (paper.paper_id, paper.title, paper.abstract) == (
            listed.paper_id,
            "APM: Adaptive Pruning",
            SHORT,
        )
        assert conn.execute("SELECT count(*) FROM dedup_keys WHERE key = ?", (head,)).fetchone()[0] == 1
