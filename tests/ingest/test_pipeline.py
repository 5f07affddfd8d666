"""Ingest pipeline: bug cases 5, 9, 10, 11; the per-file report; repairs; --strict; failed files change nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli

TABLES = ("papers", "sources", "cards", "papers_fts")


def _counts(lib: Library) -> dict[str, int]:
    counts = {t: lib.store.count(t) for t in TABLES}
    counts["dedup_keys"] = lib.store.conn.execute("SELECT count(*) FROM dedup_keys").fetchone()[0]
    return counts


def test_case5_entities_decoded_exactly_once(tmp_path: Path, fresh_library: Library) -> None:
    path = tmp_path / "f5.json"
    path.write_text(
        '[{"title": "Q&amp;A over Graphs with R&amp;D Priors",\n'
        '  "abstract": "Our error drops to &lt;1% and accuracy stays &gt; 90% on CIFAR-10. See &amp;amp;."}]',
        encoding="utf-8",
    )
    assert fresh_library.ingest([path]).new == 1
    (paper,) = fresh_library.papers()
    assert paper.title == "Q&A over Graphs with R&D Priors"
    assert paper.abstract == "Our error drops to <1% and accuracy stays > 90% on CIFAR-10. See &amp;."
    assert paper.clean_text == paper.abstract
    assert [h.paper_id for h in fresh_library.search("Graphs Priors")] == [paper.paper_id]


def test_case9_csv_gives_two_papers_with_title_paragraphs_and_url(
    tmp_path: Path, fresh_library: Library
) -> None:
    path = tmp_path / "f9.csv"
    body = (
        'title,abstract,url\r\n"APM: Adaptive Pruning","First paragraph on pruning.\r\n\r\n'
        'Second paragraph, with a comma.",https://github.com/acme/apm\r\n"Second Paper","Plain abstract.",\r\n'
    )
    path.write_bytes(b"\xef\xbb\xbf" + body.encode("utf-8"))
    report = fresh_library.ingest([path])
    assert (report.files[0].format, report.read, report.new, report.skipped) == ("csv", 2, 2, [])
    first, second = fresh_library.papers()
    assert first.title == "APM: Adaptive Pruning"
    assert first.abstract == "First paragraph on pruning.\n\nSecond paragraph, with a comma."
    assert first.urls == ["https://github.com/acme/apm"]
    assert (second.title, second.urls) == ("Second Paper", [])


def test_case10_bibtex_paper(tmp_path: Path, fresh_library: Library) -> None:
    path = tmp_path / "f10.bib"
    path.write_text(
        "@inproceedings{key1,\n"
        '  title     = {{APM}: Adaptive Pruning for {\\"U}ber-Large Models},\n'
        "  author    = {Jos{\\'e} Ejemplo and B{\\\"o}rk Platz and {\\^I}le Nom},\n"
        "  booktitle = {ICML 2026},\n"
        "  abstract  = {We show a 9.6$\\times$ speedup on CIFAR-10. Code: \\url{https://github.com/acme/apm}},\n"
        "  year      = {2026}\n}\n",
        encoding="utf-8",
    )
    report = fresh_library.ingest([path])
    assert (report.files[0].format, report.new) == ("bibtex", 1)
    (paper,) = fresh_library.papers()
    assert paper.title == "APM: Adaptive Pruning for Über-Large Models"
    assert paper.authors == ["José Ejemplo", "Börk Platz", "Île Nom"]
    assert not any(ch in "".join(paper.authors) for ch in "{}\\")
    assert (paper.venue, paper.year) == ("ICML", 2026)
    assert paper.clean_text == "We show a 9.6× speedup on CIFAR-10. Code: https://github.com/acme/apm"
    assert paper.card.code_urls == ["https://github.com/acme/apm"]


def test_case11_blank_and_missing_abstracts_are_skipped_and_reported(
    tmp_path: Path, fresh_library: Library
) -> None:
    path = tmp_path / "f11a.json"
    path.write_text(
        '[{"title": "Withdrawn Submission", "abstract": "   "},\n {"title": "   ", "abstract": null},\n'
        ' {"title": "Only Title Paper"},\n'
        ' {"title": "Real Paper", "abstract": "We propose a sparse attention method for long documents."}]',
        encoding="utf-8",
    )
    report = fresh_library.ingest([path])
    assert (report.read, report.new) == (4, 1)
    assert [str(s) for s in report.skipped] == [
        f"{path}: record 1: empty abstract (no letter or digit)",
        f"{path}: record 2: no abstract",
        f"{path}: record 3: no abstract",
    ]
    assert [h.label for h in fresh_library.search("sparse")] == ["Real Paper"]


def test_an_abstract_of_a_full_texts_length_is_skipped_with_its_size(
    tmp_path: Path, fresh_library: Library
) -> None:
    from paperscope.ingest.pipeline import MAX_ABSTRACT_CHARS

    huge = "word " * (MAX_ABSTRACT_CHARS // 5 + 10)
    path = tmp_path / "huge.txt"
    path.write_text(
        f"ICML 2026 Papers\n\nWe propose a sparse attention method.\n\n{huge}\n", encoding="utf-8"
    )
    report = fresh_library.ingest([path])
    assert (report.read, report.new) == (2, 1)
    (skip,) = report.skipped
    assert skip.line == 5 and skip.reason.startswith(
        f"abstract is {len(huge.strip()):,} characters, more than"
    )


def test_invalid_characters_are_removed_with_a_warning_not_a_failure(
    tmp_path: Path, fresh_library: Library
) -> None:
    path = tmp_path / "bad_chars.jsonl"
    lines = [
        json.dumps(
            {"title": "Ctrl\u0002 Title", "abstract": "An abstract\u0000 with a NUL and \ud800 a surrogate."}
        ),
        json.dumps({"title": "Clean", "abstract": "A clean abstract."}),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = fresh_library.ingest([path])
    assert (report.new, report.skipped, report.failed) == (2, [], [])
    assert [str(r) for r in report.files[0].repaired] == [
        f"{path}:1: removed 3 invalid characters (U+0000, U+0002, U+D800)"
    ]
    first = next(iter(fresh_library.papers()))
    assert (first.title, first.abstract) == ("Ctrl Title", "An abstract with a NUL and  a surrogate.")


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.json", None, "{path}: no such file"),
        ("empty.csv", b"\xef\xbb\xbf  \r\n", "{path}: empty file"),
        ("binary.json", b"[\x00\x01\x02]", "{path}: binary file (NUL bytes); expected UTF-8 text"),
        ("utf16.csv", "title,abstract\n".encode("utf-16"), "{path}: UTF-16 text; re-save the file as UTF-8"),
        (
            "latin1.csv",
            "title,abstract\nA,Good.\nB,Caf\xe9 au lait.\n".encode("latin-1"),
            "{path}:3: not UTF-8 (byte 0xe9 at offset 28); re-save the file as UTF-8",
        ),
        (
            "latin1.json",
            '[{"abstract": "ok"},\n{"abstract": "caf\xe9"}]'.encode("latin-1"),
            "{path}:2: not UTF-8 (byte 0xe9 at offset 38); re-save the file as UTF-8",
        ),
        (
            "truncated.json",
            b'[{"abstract": "one"},\n {"abstract": "two"},\n {"abstract": "thr',
            "{path}:3: malformed JSON: Unterminated string starting at (column 15)",
        ),
        (
            "quote.csv",
            b'title,abstract\nA,"never closed\n',
            "{path}:2: malformed CSV: unexpected end of data",
        ),
    ],
)
def test_a_failed_file_names_file_and_line_and_changes_nothing(
    tmp_path: Path, icml_dir: Path, name: str, content: bytes | None, message: str
) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with Library(tmp_path / "lib.db") as lib:
        lib.ingest([icml_dir / "000_9f997565051fc2a1.txt"])
        before = _counts(lib)
        report = lib.ingest([path, icml_dir / "001_d57e93a6687b01f8.txt"])
        assert [f.error for f in report.failed] == [message.format(path=path)]
        after = _counts(lib)
        assert after["papers"] == before["papers"] + 19
        assert after["sources"] == before["sources"] + 19


def test_malformed_csv_mid_file_rolls_back_that_file(tmp_path: Path, fresh_library: Library) -> None:
    path = tmp_path / "mid.csv"
    path.write_text('title,abstract\nA,"First abstract."\nB,"Second abstract\n', encoding="utf-8")
    before = _counts(fresh_library)
    report = fresh_library.ingest([path])
    assert report.failed[0].error == f"{path}:3: malformed CSV: unexpected end of data"
    assert _counts(fresh_library) == before


def test_a_file_failing_after_two_batches_says_what_it_read_and_stores_none(tmp_path: Path) -> None:
    # 2,500 records, then a quote never closed: a batch of 1,000 was stored, then undone.
    path = tmp_path / "long.csv"
    rows = [f'T{i},"Abstract number {i} about topic q{i}z."' for i in range(2500)]
    path.write_text("title,abstract\n" + "\n".join(rows) + '\nLast,"never closed\n', encoding="utf-8")
    db = tmp_path / "lib.db"
    result = CliRunner().invoke(cli, ["--db", str(db), "ingest", str(path), "--no-cards", "--no-embed"])
    error = f"error: {path}:2502: malformed CSV: unexpected end of data"
    lines = result.stderr.splitlines()
    assert error in lines
    said = lines[lines.index(error) + 1]
    read = int(said.split(": ")[1].split(" records")[0].replace(",", ""))
    assert read == 2500 and said.endswith("records were read before it; none of this file is stored")
    assert f"total: read {read}, new 0, already present 0, skipped 0, files failed 1" in result.stdout
    as_json = CliRunner().invoke(
        cli, ["--db", str(db), "ingest", str(path), "--no-cards", "--no-embed", "--json"]
    )
    data = json.loads(as_json.stdout)
    assert (data["files_failed"], data["read"], data["new"], data["files"][0]["read"]) == (1, 2500, 0, 2500)
    with Library(db) as lib:
        report = lib.ingest([path])
        assert [(f.read, f.new, f.present, f.merged) for f in report.files] == [(2500, 0, 0, 0)]
        assert _counts(lib)["papers"] == 0


def test_a_file_failing_after_merging_into_a_stored_paper_puts_that_paper_back(
    tmp_path: Path, icml_dir: Path
) -> None:
    # The first record is a stored title-less paper again, now with a title and a DOI; 2,100
    # other records commit two batches; then a byte that is not UTF-8 fails the file. The
    # merge (title, DOI, card, lexical row) was committed with the first batch.
    import random

    with Library(tmp_path / "lib.db", embedder="fake") as lib:
        lib.ingest([icml_dir / "000_9f997565051fc2a1.txt"])
        stored = next(p for p in lib.papers() if not p.title)
        conn = lib.store.conn

        def state() -> tuple[object, ...]:
            rowid = conn.execute(
                "SELECT rowid FROM papers WHERE paper_id = ?", (stored.paper_id,)
            ).fetchone()[0]
            return (
                tuple(conn.execute("SELECT * FROM papers WHERE paper_id = ?", (stored.paper_id,)).fetchone()),
                tuple(conn.execute("SELECT * FROM cards WHERE paper_id = ?", (stored.paper_id,)).fetchone()),
                tuple(conn.execute("SELECT * FROM papers_fts WHERE rowid = ?", (rowid,)).fetchone()),
                conn.execute(
                    "SELECT count(*) FROM card_facets WHERE paper_id = ?", (stored.paper_id,)
                ).fetchone(),
                len(lib),
            )

        before = state()
        rng = random.Random(7)
        lines = [
            json.dumps(
                {"title": "Zyxwv: The Real Title", "doi": "10.1234/zyxwv", "abstract": stored.abstract}
            )
        ]
        for i in range(2100):
            words = " ".join(f"w{rng.randrange(10**6)}" for _ in range(40))
            lines.append(json.dumps({"title": f"Filler {i}", "abstract": f"We study {words}."}))
        path = tmp_path / "merge_then_fail.jsonl"
        path.write_bytes(("\n".join(lines) + "\n").encode() + b'{"abstract": "bad \xff byte"}\n')
        report = lib.ingest([path], embed=False)
        (failed,) = report.failed
        assert failed.error is not None and failed.error.startswith(f"{path}:2102: not UTF-8 (byte 0xff")
        assert lib.get(stored.paper_id).title is None
        assert state() == before
        assert [h.paper_id for h in lib.search("Zyxwv", mode="bm25")] == []
        assert lib.doctor().ok


def test_strict_writes_nothing_when_a_record_would_be_skipped(tmp_path: Path, icml_dir: Path) -> None:
    bad = tmp_path / "blank.json"
    bad.write_text('[{"title": "x", "abstract": "  "}, {"abstract": "A fine abstract."}]', encoding="utf-8")
    with Library(tmp_path / "lib.db") as lib:
        before = _counts(lib)
        report = lib.ingest([icml_dir / "000_9f997565051fc2a1.txt", bad], strict=True)
        assert report.rolled_back
        assert [str(s) for s in report.skipped] == [f"{bad}: record 1: empty abstract (no letter or digit)"]
        assert _counts(lib) == before
        clean = lib.ingest([icml_dir / "000_9f997565051fc2a1.txt"], strict=True)
        assert (clean.rolled_back, clean.new, len(lib)) == (False, 19, 19)


def test_cli_ingest_report_map_and_strict(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    csv_path = tmp_path / "list.csv"
    csv_path.write_text("Paper,Body\nA Title,An abstract here.\nB Title,   \n", encoding="utf-8")
    runner = CliRunner()
    strict = runner.invoke(
        cli, ["--db", db, "ingest", str(csv_path), "--map", "title=Paper,abstract=Body", "--strict"]
    )
    assert strict.exit_code == 1
    assert f"skipped {csv_path}:3: empty abstract (no letter or digit)" in strict.stderr
    assert "nothing written (--strict): 1 records would be skipped, 0 files failed" in strict.stderr
    result = runner.invoke(cli, ["--db", db, "ingest", str(csv_path), "--map", "title=Paper,abstract=Body"])
    assert result.exit_code == 0
    assert (
        result.stdout.splitlines()[0] == f"{csv_path}: read 2, new 1, already present 0, merged 0, skipped 1"
    )
    assert result.stdout.splitlines()[-1].startswith(
        "total: read 2, new 1, already present 0, skipped 1, files failed 0, merged 0, files ignored 0"
    )
    bad_map = runner.invoke(cli, ["--db", db, "ingest", str(csv_path), "--map", "colour=Paper"])
    assert (
        bad_map.exit_code == 2 and "unknown field 'colour'" in bad_map.stderr
    )  # a usage error, like --format
    bad_format = runner.invoke(cli, ["--db", db, "ingest", str(csv_path), "--format", "xml"])
    assert bad_format.exit_code == 2
    shown = json.loads(runner.invoke(cli, ["--db", db, "search", "abstract", "--json"]).stdout)
    assert [h["label"] for h in shown] == ["A Title"]


def test_worker_processes_store_exactly_what_inline_ingest_stores(
    tmp_path: Path, shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import paperscope.ingest.pipeline as pipeline

    files = [
        shared_data / "airas-papers-db" / "icml_2022.json",
        shared_data / "papercopilot-paperlists" / "iclr2017.json",
    ]

    def stored(db: Path) -> list[dict]:
        with Library(db) as lib:
            report = lib.ingest(files)
            assert report.failed == []
            return [p.to_dict() for p in lib.papers()]

    inline = stored(tmp_path / "inline.db")
    monkeypatch.setattr(pipeline, "_POOL_MIN_BYTES", 0)
    monkeypatch.setattr(pipeline, "_idle_cores", lambda: 2.0)
    monkeypatch.setattr(pipeline, "_OFFLOAD_CARD_S", 0.0)
    pooled = stored(tmp_path / "pooled.db")
    assert len(inline) == 1233 + 489
    assert pooled == inline


def test_one_file_named_two_ways_is_one_source(tmp_path, monkeypatch):
    folder = tmp_path / "lists"
    folder.mkdir()
    (folder / "a.txt").write_text(
        "ICML 2026 Papers\n\nWe propose a sampler for diffusion models with fewer steps.\n", encoding="utf-8"
    )
    monkeypatch.chdir(folder)
    with Library(tmp_path / "lib.db", embedder="fake") as lib:
        lib.ingest(["a.txt"], cards=False)
        lib.ingest([str(folder / "a.txt")], cards=False)
        lib.ingest(["../lists/./a.txt"], cards=False)
        (paper,) = list(lib.papers())
        assert [(s.path, s.line) for s in paper.sources] == [(str(folder / "a.txt"), 3)]


def test_read_progress_counts_every_line_of_the_lists_and_leaves_the_report_unchanged(
    icml_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import re

    import paperscope.progress
    from paperscope.extract import build_first_card
    from paperscope.ingest import ingest_paths
    from paperscope.store import Store

    def report_of(progress: bool) -> dict:
        store = Store(":memory:")
        try:
            report = ingest_paths(store, [icml_dir], build_card=build_first_card, progress=progress)
        finally:
            store.close()
        return {k: v for k, v in report.to_dict().items() if k not in ("elapsed_s", "phases")}

    quiet = report_of(False)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(paperscope.progress, "LINE_INTERVAL_S", 0.0)  # a line at every update
    assert report_of(True) == quiet
    lines = capsys.readouterr().err.splitlines()
    files = sorted(icml_dir.glob("*.txt"))
    total = sum(len(f.read_text(encoding="utf-8").splitlines()) for f in files)
    counts = [int(re.match(r"reading: ([\d,]+)/", line)[1].replace(",", "")) for line in lines]
    assert counts == sorted(counts)
    assert re.fullmatch(
        rf"reading: {total:,}/{total:,} \(100%\), [\d,]+ lines/s \[{files[-1].name}\]", lines[-1]
    )
    assert {re.search(r"\[(.+)\]$", line)[1] for line in lines} == {f.name for f in files}


@pytest.mark.parametrize("chunk_bytes", [1, 3, 2**20])
def test_line_count_for_the_progress_total_matches_the_line_numbers_readers_give(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk_bytes: int
) -> None:
    from paperscope.ingest import files
    from paperscope.ingest.files import iter_lines

    path = tmp_path / "mixed.txt"
    path.write_bytes(b"unix\nwindows\r\nold mac\rcr\r\n\r\n\nlast line without an end")
    monkeypatch.setattr(files, "_COUNT_CHUNK_BYTES", chunk_bytes)  # 3: a CRLF split across chunks
    assert files.count_lines(path) == len(list(iter_lines(path))) == 7
    assert files.count_lines(tmp_path / "missing.txt") == 0
