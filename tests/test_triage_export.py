"""Reading-list exports: stars/tags filters and each format's exact shape."""

from __future__ import annotations

import csv
import io
import json
import re

import bibtexparser
import pytest
from click.testing import CliRunner

from paperscope import Library
from paperscope.cli import cli
from paperscope.confidence import shown_card
from paperscope.errors import InputError


@pytest.fixture
def marked(icml_library: Library) -> tuple[Library, list[str]]:
    # dense mode ranks every paper: three ids whatever the relevance floor of hybrid keeps
    ids = [h.paper_id for h in icml_library.search("dataset distillation", limit=3, mode="dense")]
    icml_library.star(ids[0])
    icml_library.star(ids[1])
    icml_library.tag(ids[1], "to-read")
    icml_library.tag(ids[2], "to-read")
    icml_library.set_note(ids[1], "R&D: compare 50% budgets")
    return icml_library, ids


def test_jsonl_starred_only(marked) -> None:
    lib, ids = marked
    rows = [json.loads(line) for line in "".join(lib.export("jsonl", starred=True)).splitlines()]
    assert sorted(r["paper_id"] for r in rows) == sorted(ids[:2])
    assert all(r["marks"]["starred"] for r in rows)


def test_csv_tag_filter_and_columns(marked) -> None:
    lib, ids = marked
    rows = list(csv.DictReader(io.StringIO("".join(lib.export("csv", tag="to-read")))))
    assert sorted(r["paper_id"] for r in rows) == sorted(ids[1:])
    row = next(r for r in rows if r["paper_id"] == ids[1])
    assert (row["starred"], row["user_tags"], row["note"]) == ("yes", "to-read", "R&D: compare 50% budgets")
    assert row["venue"] == "ICML" and row["year"] == "2026"
    assert row["abstract"] and row["citation_key"].startswith("icml2026") and row["title"] == ""


def test_bibtex_parses_back_with_escaped_specials(marked) -> None:
    from bibtexparser.middlewares import LatexDecodingMiddleware

    lib, ids = marked
    text = "".join(lib.export("bibtex", starred=True, tag="to-read"))
    assert r"R\&D: compare 50\% budgets" in text
    parsed = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    assert [e.key for e in parsed.entries] == [lib.citation_keys()[ids[1]]]
    entry = parsed.entries[0]
    assert entry.entry_type == "inproceedings"
    assert (
        entry["booktitle"] == "International Conference on Machine Learning" and entry["publisher"] == "PMLR"
    )
    # A title-less list: the label is the title, and the note says so after the user's note.
    assert entry["note"].startswith("R&D: compare 50% budgets") and "no title" in entry["note"]
    assert entry["year"] == "2026" and entry["keywords"] == "to-read"


def test_markdown_checklist(marked) -> None:
    lib, ids = marked
    lines = "".join(lib.export("markdown", starred=True)).splitlines()
    assert lines[0] == "# Reading list"
    items = [line for line in lines if line.startswith("- [ ] ")]
    assert len(items) == 2 and all(line.startswith("- [ ] ★ **") for line in items)
    assert "  - note: R&D: compare 50% budgets" in lines


def test_markdown_multi_line_note_stays_inside_its_item(marked) -> None:
    lib, ids = marked
    lib.set_note(ids[1], "first line\nsecond line\n\n- a list in the note")
    text = "".join(lib.export("markdown", tag="to-read"))
    assert "  - note: first line\n    second line\n    \n    - a list in the note\n" in text
    # After the header and the count, each topic is a "## name (n)" section of list items, and
    # every other line is indented under one.
    lines = text.splitlines()
    assert lines[2] == "2 papers in 1 group, by topic." or lines[2].endswith("groups, by topic.")
    body = [line for line in lines[3:] if line and not line.startswith("## ")]
    assert all(line.startswith(("- [ ] ", "  ")) for line in body)
    sections = [line for line in lines if line.startswith("## ")]
    assert sections and all(re.fullmatch(r"## .+ \(\d+\)", line) for line in sections)


def test_unknown_format_is_an_input_error(icml_library: Library) -> None:
    with pytest.raises(InputError, match="choose one of"):
        icml_library.export("pdf")


def test_cli_star_tag_note_and_export(tmp_path, icml_dir) -> None:
    runner = CliRunner()
    db = ["--db", str(tmp_path / "t.db")]
    runner.invoke(cli, [*db, "ingest", str(icml_dir)], catch_exceptions=False)
    hit = json.loads(runner.invoke(cli, [*db, "search", "unlearning", "--json", "--limit", "1"]).stdout)[0]
    pid = hit["paper_id"]
    assert runner.invoke(cli, [*db, "star", pid[:8]]).stdout.strip() == f"{pid} starred"
    assert runner.invoke(cli, [*db, "tags", "add", pid, "survey"]).stdout.strip() == "survey"
    assert runner.invoke(cli, [*db, "note", pid], input="check appendix\n").stdout.strip() == "check appendix"
    assert runner.invoke(cli, [*db, "tags", "list"]).stdout.split() == ["1", "survey"]
    assert runner.invoke(cli, [*db, "triage", pid[:8], "keep"]).stdout.strip() == f"{pid}  keep"
    assert "triage: keep" in runner.invoke(cli, [*db, "show", pid]).stdout
    refused = runner.invoke(cli, [*db, "triage", pid, "love"])
    assert refused.exit_code == 2 and "keep" in refused.stderr
    out = tmp_path / "list.md"
    result = runner.invoke(cli, [*db, "export", "--format", "markdown", "--starred", "--out", str(out)])
    assert result.exit_code == 0
    assert f"`{pid}`" in out.read_text(encoding="utf-8") and "#survey" in out.read_text(encoding="utf-8")


def test_markdown_escapes_html_and_markup_from_paper_text(tmp_path) -> None:
    from markdown_it import MarkdownIt

    listing = tmp_path / "list.json"
    listing.write_text(
        json.dumps(
            [
                {
                    "title": "<script>alert(1)</script> *Bold* [link](javascript:x) &amp; a_b_c",
                    "abstract": "We propose a sparse attention method for long documents with careful routing.",
                    "code_url": "https://github.com/acme/sparse",
                }
            ]
        ),
        encoding="utf-8",
    )
    with Library(tmp_path / "lib.db") as lib:
        lib.ingest([listing], embed=False)
        pid = next(lib.papers()).paper_id
        lib.star(pid)
        lib.tag(pid, "<b>hot</b>")
        lib.set_note(pid, "see <img src=x onerror=alert(1)> and **this**")
        text = "".join(lib.export("markdown", starred=True))
    html = MarkdownIt("commonmark").render(text)
    assert "<script" not in html and "<img" not in html and "<b>" not in html
    assert 'href="javascript' not in html and "<em>" not in html.split("note")[0].split("</strong>", 1)[1]
    # The text is still there, shown literally.
    # The text is still there, shown literally (ingest already decoded "&amp;" once and read
    # the title's own *emphasis*, case 5 and 6).
    for literal in ("&lt;script&gt;alert(1)&lt;/script&gt;", "[link](javascript:x)", "a_b_c", "&lt;b&gt;hot"):
        assert literal in html, literal
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "**this**" in html


def test_html_reading_list_escapes_marks_and_shows_them(marked) -> None:
    lib, ids = marked
    lib.set_note(ids[1], "<script>alert(1)</script> & see **this**")
    lib.tag(ids[1], "<b>hot</b>")
    text = "".join(lib.export("html", starred=True))
    assert "<script" not in text and "<b>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; see **this**" in text
    assert "#&lt;b&gt;hot&lt;/b&gt;" in text and "★ starred" in text
    assert text.count("<article ") == 2 and "Not in a topic (2)" in text  # no topics fitted here


def test_markdown_and_html_reading_lists_go_topic_by_topic_with_card_summaries(unmarked: Library) -> None:
    lib = unmarked
    topics = lib.paper_topics()
    text = "".join(lib.export("markdown"))
    sections = re.findall(r"^## (.+) \((\d+)\)$", text, flags=re.M)
    expected: dict[str, int] = {}
    for paper in lib.papers():
        name = (topics.get(paper.paper_id) or {}).get("topic") or "Not in a topic"
        expected[name] = expected.get(name, 0) + 1
    assert {name: int(n) for name, n in sections} == expected
    assert sum(int(n) for _, n in sections) == len(lib) == text.count("\n- [ ] ")
    # A summary lists the shown (confident) names only (issue 27).
    with_methods = [p for p in lib.papers() if p.card and shown_card(p.card.to_dict()).get("method_names")]
    assert with_methods and text.count("\n  - Methods: ") == len(with_methods)
    html = "".join(lib.export("html"))
    assert [f"{name} ({n})" for name, n in sections] == re.findall(r"<h2>(.+?)</h2>", html)
