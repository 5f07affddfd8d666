"""`paperscope build` (local engine) + `load` give the library `ingest` gives, and build only what is new."""

from __future__ import annotations

import shutil
import socket
import sqlite3
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperscope.cli import cli
from paperscope.errors import InputError
from paperscope.library import Library
from paperscope.scale import shards
from paperscope.scale.build import run_build
from paperscope.scale.load import load_shards

from .compare import assert_same_library

pytest.importorskip("pyarrow", reason="build/load need pyarrow: pip install 'paperscope[ray]'")


def _counts(report) -> list[tuple[str, int, int, int, int, int]]:
    return [
        (Path(f.path).name, f.read, f.new, f.present, f.merged, len(f.skipped))
        for f in report.files
        if not f.ignored
    ]


def _ingest(sources: list[Path], db: Path):
    with Library(db) as lib:
        return lib.ingest(sources)


def test_build_and_load_equal_ingest(mixed_sources: list[Path], tmp_path: Path) -> None:
    built = run_build([str(s) for s in mixed_sources], tmp_path / "shards")
    assert [Path(e["path"]).name for e in built.built][0] == "iclr_slice.csv"
    assert built.read == 120 + 95 + 50 and not built.failed
    with Library(tmp_path / "built.db") as lib:
        loaded = load_shards(lib, tmp_path / "shards")
    ingested = _ingest(mixed_sources, tmp_path / "ingested.db")
    assert _counts(loaded) == _counts(ingested)
    dups = next(f for f in loaded.files if f.path.endswith("dups.csv"))
    # The fixture works as meant: 20 exact copies, 20 new rows, 10 near-copies (one too short to
    # drop a sentence from, so an exact copy).
    assert (dups.present, dups.new, dups.merged) == (21, 20, 9)
    assert_same_library(tmp_path / "built.db", tmp_path / "ingested.db", min_cosine=1.0 - 1e-6)
    # The merged papers' cards were rebuilt with the keyword their duplicate added.
    conn = sqlite3.connect(tmp_path / "built.db")
    (n,) = conn.execute("SELECT count(*) FROM papers WHERE keywords LIKE '%zz-added keyword%'").fetchone()
    conn.close()
    assert n == 10


def test_two_workers_build_the_same_shards(mixed_sources: list[Path], tmp_path: Path) -> None:
    one = run_build([str(s) for s in mixed_sources], tmp_path / "one", workers=1)
    two = run_build([str(s) for s in mixed_sources], tmp_path / "two", workers=2)
    assert [e["shards"] for e in one.built] == [e["shards"] for e in two.built]
    for entry in one.built:
        for name in entry["shards"]:
            a = list(shards.read_shard(tmp_path / "one" / name))
            b = list(shards.read_shard(tmp_path / "two" / name))
            assert [r["paper"] for r in a] == [r["paper"] for r in b]
            assert [r["card"] for r in a] == [r["card"] for r in b]
            assert all((x["vector"] == y["vector"]).all() for x, y in zip(a, b, strict=True))


def test_building_again_with_a_new_file_builds_only_that_file(
    mixed_sources: list[Path], tmp_path: Path
) -> None:
    out = tmp_path / "shards"
    first = run_build([str(s) for s in mixed_sources[:2]], out)
    assert len(first.built) == 6  # the slice and five ICML lists
    again = run_build([str(s) for s in mixed_sources], out)
    assert [Path(e["path"]).name for e in again.built] == ["dups.csv"]
    assert len(again.kept) == 6 and again.read == 50
    with Library(tmp_path / "built.db") as lib:
        load_shards(lib, out)
    _ingest(mixed_sources, tmp_path / "ingested.db")
    assert_same_library(tmp_path / "built.db", tmp_path / "ingested.db", min_cosine=1.0 - 1e-6)


def test_a_killed_build_leaves_nothing_counted_twice(mixed_sources: list[Path], tmp_path: Path) -> None:
    """Shards of files never marked done and half-written temporary files are removed first."""
    out = tmp_path / "shards"
    run_build([str(mixed_sources[0])], out)
    stale = out / shards.shard_name(7, 0)
    stale.write_bytes(b"half a shard")
    temp = out / ".f00001-000000000.parquet.x.tmp"
    temp.write_bytes(b"")
    report = run_build([str(s) for s in mixed_sources], out)
    assert not stale.exists() and not temp.exists()
    assert report.read == 95 + 50 and len(report.kept) == 1


def test_a_file_failing_part_way_leaves_no_shard(mixed_sources: list[Path], tmp_path: Path) -> None:
    """Bytes that are not UTF-8 after 1,500 good lines: its finished first chunk is removed again."""
    bad = tmp_path / "bad.jsonl"
    lines = [
        f'{{"title": "Paper {i}", "abstract": "We study problem number {i} of learning with noisy labels."}}\n'
        for i in range(1500)
    ]
    bad.write_bytes("".join(lines).encode() + b'{"title": "B", "abstract": "caf\xe9 bad"}\n')
    out = tmp_path / "shards"
    report = run_build([str(mixed_sources[0]), str(bad)], out)
    assert len(report.failed) == 1 and "bad.jsonl:1501: not UTF-8" in report.failed[0]["error"]
    manifest = shards.load_manifest(out)
    assert [Path(e["path"]).name for e in manifest["inputs"]] == ["iclr_slice.csv"]
    assert len(list(out.glob("*.parquet"))) == 1
    with Library(tmp_path / "built.db") as lib:
        assert load_shards(lib, out).new == 120


def test_loading_a_build_that_stored_no_paper_is_refused_and_makes_no_library(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text('title,abstract\nA,"First abstract."\nB,"never closed\n', encoding="utf-8")
    out = tmp_path / "shards"
    runner = CliRunner()
    built = runner.invoke(cli, ["build", str(bad), "--out", str(out)])
    assert built.exit_code == 1 and "nothing was built" in built.output
    db = tmp_path / "empty.db"
    loaded = runner.invoke(cli, ["--db", str(db), "load", str(out)])
    assert loaded.exit_code == 1 and "Traceback" not in loaded.output
    assert loaded.output.strip().splitlines()[-1] == (
        f"Error: {out}: the build stored no paper (every file failed or held none); nothing was loaded"
    )
    assert not db.exists()


def test_load_keeps_marks_and_loading_twice_adds_nothing(mixed_sources: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "shards"
    run_build([str(s) for s in mixed_sources], out)
    with Library(tmp_path / "built.db") as lib:
        load_shards(lib, out)
        pid = next(iter(lib.papers())).paper_id
        lib.star(pid)
        lib.tag(pid, "keep-me")
        again = load_shards(lib, out)
        assert again.new == 0 and again.merged == 0
        assert lib.marks(pid)["starred"] and lib.marks(pid)["tags"] == ["keep-me"]
        assert len(lib) == sum(f.new for f in _ingest(mixed_sources, tmp_path / "i.db").files)


def test_missing_pyarrow_and_ray_say_what_to_install(
    mixed_sources: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(InputError, match=r"pip install 'paperscope\[ray\]'"):
        run_build([str(mixed_sources[0])], tmp_path / "r", engine="ray")
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(InputError, match=r"needs pyarrow: pip install 'paperscope\[ray\]'"):
        run_build([str(mixed_sources[0])], tmp_path / "p")


def test_cli_build_and_load(mixed_sources: list[Path], tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "shards"
    result = runner.invoke(cli, ["build", *map(str, mixed_sources), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "build cards (busy time over local workers)" in result.output and "papers/s" in result.output
    db = tmp_path / "lib.db"
    result = runner.invoke(cli, ["--db", str(db), "load", str(out)])
    assert result.exit_code == 0, result.output
    assert "merged 9" in result.output
    result = runner.invoke(cli, ["--db", str(tmp_path / "x.db"), "load", str(tmp_path)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "not a folder `paperscope build --out` wrote" in result.output
    assert not (tmp_path / "x.db").exists()


@pytest.mark.parametrize("address", ["127.0.0.1:{port}", "ray://127.0.0.1:{port}", "127.0.0.1:notaport"])
def test_an_address_no_cluster_answers_is_one_line_at_once(
    mixed_sources: list[Path], tmp_path: Path, address: str
) -> None:
    # ray.init on a dead address retried for minutes, logging each attempt (found on 2026-12-01).
    pytest.importorskip("ray", reason="the ray engine needs pip install 'paperscope[ray]'")
    with socket.socket() as probe:  # a port nothing listens on: bound, then closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = address.format(port=port)
    result = CliRunner().invoke(
        cli,
        [
            "build",
            str(mixed_sources[0]),
            "--out",
            str(tmp_path / "s"),
            "--engine",
            "ray",
            "--address",
            address,
        ],
    )
    assert result.exit_code == 1 and "Traceback" not in result.output
    (line,) = [x for x in result.output.splitlines() if x.strip()]
    assert line.startswith(f"Error: --address {address}: ")
    assert "no Ray cluster answers there" in line or "not HOST:PORT" in line
    assert not (tmp_path / "s").exists()  # the refused build leaves no empty --out folder


def test_a_build_refused_before_any_shard_leaves_no_folder_it_made(
    mixed_sources: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paperscope.errors import PaperscopeError
    from paperscope.scale import local_engine

    def refuse(*args: object, **kwargs: object) -> object:
        raise PaperscopeError("--device cuda: the Ray cluster has no GPU")
        yield  # a generator, as the engines are

    monkeypatch.setattr(local_engine, "run_local", refuse)
    with pytest.raises(PaperscopeError, match="no GPU"):
        run_build(mixed_sources[:1], tmp_path / "new" / "a" / "s")
    assert not (tmp_path / "new").exists()  # nor the folders above it that the run made
    kept = tmp_path / "mine"
    kept.mkdir()
    with pytest.raises(PaperscopeError, match="no GPU"):
        run_build(mixed_sources[:1], kept)
    assert kept.is_dir()  # a folder the user had is left as it was


def test_build_names_skipped_lines_and_says_when_nothing_was_built(tmp_path: Path) -> None:
    good = '{"id": "2101.0000%d", "abstract": "We study sparse attention number %d for long documents.", "versions": [], "categories": "cs.CL"}'
    broken = tmp_path / "b.jsonl"
    broken.write_text("\n".join([good % (1, 1), '{"id": "x", "abstract": "cut', good % (2, 2)]) + "\n")
    runner = CliRunner()
    result = runner.invoke(cli, ["build", str(broken), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert f"  skipped: {broken}: line 2: invalid JSON" in result.stderr
    assert "wrote " in result.stderr
    (tmp_path / "empty").mkdir()
    (tmp_path / "x.bin").write_bytes(b"\x00\x01binary")
    for source, why in (("empty", "no paper list found in the sources"), ("x.bin", "every file failed")):
        result = runner.invoke(cli, ["build", str(tmp_path / source), "--out", str(tmp_path / f"o-{source}")])
        assert result.exit_code == 1 and "Traceback" not in result.output
        assert f"Error: {why}; nothing was built" in result.stderr and "wrote" not in result.stderr


def test_build_progress_counts_lines_of_a_total(
    mixed_sources: list[Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A log (no terminal) gets periodic lines with the total and an ETA, and they reach the total."""
    from paperscope.ingest.files import count_lines
    from paperscope.scale import stages

    monkeypatch.setenv("PAPERSCOPE_PROGRESS_INTERVAL_S", "0.001")
    monkeypatch.setattr(stages, "CHUNK_ITEMS", 40)  # several chunks per file: several lines
    run_build([str(s) for s in mixed_sources], tmp_path / "shards", progress=True)
    total = sum(count_lines(p) for src in mixed_sources for p in ([src] if src.is_file() else src.iterdir()))
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("build: ")]
    assert len(lines) >= 3, lines
    assert all(f"/{total:,} (" in line for line in lines), lines
    assert any("ETA" in line for line in lines), lines
    counts = [int(line.split()[1].split("/")[0].replace(",", "")) for line in lines]
    assert counts == sorted(counts) and counts[-1] >= 0.95 * total  # never backwards, nearly done


def _rewrite_shards(folder: Path, change) -> None:  # type: ignore[no-untyped-def]
    """Rewrite every shard of ``folder`` with ``change(table) -> table``."""
    import pyarrow.parquet as pq

    for path in sorted(folder.glob("*.parquet")):
        pq.write_table(change(pq.read_table(path)), path)


def _replace_column(table, name: str, values: list):  # type: ignore[no-untyped-def]
    import pyarrow as pa

    field = table.schema.field(name)
    return table.set_column(table.schema.get_field_index(name), field, pa.array(values, type=field.type))


def test_load_stores_the_lexical_rows_and_fingerprints_the_build_made(
    icml_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``load`` stems and fingerprints nothing: the shards carry each paper's lexical row and dedup keys."""
    from paperscope.ingest import dedup

    sources = [str(p) for p in sorted(icml_dir.glob("*.txt"))]
    run_build(sources, tmp_path / "shards")
    n_shards = len(list((tmp_path / "shards").glob("*.parquet")))
    ingested = tmp_path / "ingested.db"
    with Library(ingested) as lib:
        lib.ingest(sources)
        n_papers = len(lib)
    fingerprinted: list[int] = []
    make = dedup.fingerprints
    monkeypatch.setattr(
        dedup, "fingerprints", lambda papers, *a: fingerprinted.append(len(papers)) or make(papers, *a)
    )

    def changed_first_shingles(table):  # type: ignore[no-untyped-def]
        shingles = table.column("dd_shingles").to_pylist()
        return _replace_column(table, "dd_shingles", [[1, 2, 3], *shingles[1:]])

    # Built shards, shards of an older build (no such columns), of another dedup version, and
    # of a dedup change that kept the version (the first paper's check) load as ingest does.
    dd = [
        "dedup_version",
        "dd_shingles",
        "dd_bands",
        "dd_title",
        "dd_head",
        "dd_lead",
        "dd_id_keys",
        "dd_ids",
    ]
    for name, change, made in (
        ("built", None, n_shards),
        (
            "older",
            lambda t: t.drop_columns(["fts_title", "fts_body", "fts_exact", "analyzer", "card_label", *dd]),
            n_papers,
        ),
        ("other", lambda t: _replace_column(t, "dedup_version", ["0"] * t.num_rows), n_papers),
        ("changed", changed_first_shingles, n_shards + n_papers),
    ):
        folder = tmp_path / name
        shutil.copytree(tmp_path / "shards", folder)
        if change is not None:
            _rewrite_shards(folder, change)
        fingerprinted.clear()
        with Library(tmp_path / f"{name}.db") as lib:
            load_shards(lib, folder)
        # One paper per shard is fingerprinted again as a check, every paper when the shards' are not used.
        assert sum(fingerprinted) == made, (name, fingerprinted)
        assert_same_library(tmp_path / f"{name}.db", ingested, min_cosine=1.0 - 1e-6)

    def mark(table):  # type: ignore[no-untyped-def]
        return _replace_column(
            table, "fts_body", [body + " zzbuildmark" for body in table.column("fts_body").to_pylist()]
        )

    _rewrite_shards(tmp_path / "shards", mark)
    with Library(tmp_path / "marked.db") as lib:
        load_shards(lib, tmp_path / "shards")
        conn = lib.store.conn
        (marked,) = conn.execute(
            "SELECT count(*) FROM papers_fts WHERE papers_fts MATCH 'zzbuildmark'"
        ).fetchone()
        assert marked == len(lib) > 50
        every = {pid for (pid,) in conn.execute("SELECT paper_id FROM papers")}
        assert {hit.paper_id for hit in lib.search("zzbuildmark", mode="bm25", limit=200)} == every


def test_load_looks_up_only_the_keys_some_paper_holds(
    mixed_sources: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Into an empty library, a key no loaded paper holds is never looked up in SQLite (issue 28)."""
    from paperscope.store import papers

    run_build([str(s) for s in mixed_sources], tmp_path / "shards")
    asked: list[int] = []
    found: list[int] = []
    find = papers.find_dedup_keys

    def counting(conn, keys):  # type: ignore[no-untyped-def]
        keys = set(keys)
        asked.extend(keys)
        result = find(conn, keys)
        found.extend(result)
        return result

    monkeypatch.setattr(papers, "find_dedup_keys", counting)
    with Library(tmp_path / "built.db") as lib:
        load_shards(lib, tmp_path / "shards")
    # Every key asked is held by a stored paper (the duplicates of dups.csv and their own keys).
    assert asked and sorted(asked) == sorted(found)
    assert_same_library(tmp_path / "built.db", tmp_path / "built.db")
    ingested = _ingest(mixed_sources, tmp_path / "ingested.db")
    with Library(tmp_path / "built.db") as lib:
        assert len(lib) == sum(f.new for f in ingested.files)
