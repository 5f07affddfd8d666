"""The enrich review page ``/enrich`` and its API: accept or reject what enrich could not settle."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from paperscope import Library
from paperscope.web import create_app

from .conftest import N_PAPERS, decoy_title, truth, write_library_list, write_program


def _text(html: str) -> str:
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", body)).split())


@pytest.mark.parametrize("accept", [False, True])
def test_the_page_lists_the_suggestion_and_accept_or_reject_settles_it(tmp_path: Path, accept: bool) -> None:
    # Paper 30's title is not in the program; a decoy sharing two of its words is only suggested.
    listing = write_library_list(tmp_path / "papers.txt", list(range(N_PAPERS + 1)))
    with Library(tmp_path / "lib.db") as lib:
        lib.ingest([listing])
        orphan = next(pid for pid, i in truth(lib).items() if i == 30)
        lib.enrich(
            write_program(
                tmp_path / "program.csv", list(range(N_PAPERS)), extra=(decoy_title(30, 5),), rest=True
            )
        )
        label = lib.get(orphan).label
        with TestClient(create_app(lib)) as client:
            data = client.get("/api/enrich/suggestions").json()["data"]
            (mine,) = [s for s in data if s["paper_id"] == orphan]
            assert mine["title"] == decoy_title(30, 5) and mine["label"] == label
            assert mine["program"] == "program.csv" and mine["line"] > N_PAPERS
            shown = _text(client.get("/enrich").text)
            for text in ("Titles from the program: to review", f"{len(data)} suggestions to review",
                         decoy_title(30, 5), label, "Same paper: attach", "Not this paper"):  # fmt: skip
                assert text in shown, text
            assert "[object Object]" not in shown and '{"' not in shown
            put = client.put(f"/api/enrich/suggestions/{mine['suggestion_id']}", json={"accept": accept})
            assert put.status_code == 200 and put.json()["data"] == {"accepted": accept}
            assert lib.get(orphan).title == (decoy_title(30, 5) if accept else None)
            again = client.put(f"/api/enrich/suggestions/{mine['suggestion_id']}", json={"accept": True})
            assert again.status_code == 404  # settled: never settled twice
            assert "No suggestion to review" in _text(client.get("/enrich").text) or len(data) > 1
            client.cookies.set("paperscope_lang", "zh")
            assert "会议日程中的标题：待审核" in _text(client.get("/enrich").text)


def test_paper_page_api_and_show_give_the_session_and_where_the_title_came_from(
    enrich_lib: Library, tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from paperscope.cli import cli

    program = write_program(tmp_path / "program.csv", list(range(N_PAPERS)), rest=True)
    enrich_lib.enrich(program)
    pid, index = next((p, i) for p, i in truth(enrich_lib).items() if i == 7)
    (row,) = enrich_lib.enrichments(paper_id=pid)
    assert row["session"] == "Poster session 2" and row["paper_id"] == pid
    assert enrich_lib.enrichments(paper_id="0" * 16) == []
    with TestClient(create_app(enrich_lib)) as client:
        data = client.get(f"/api/papers/{pid}").json()["data"]
        (attached,) = data["attached"]
        assert attached["program"] == "program.csv" and attached["session"] == "Poster session 2"
        assert attached["method"] == "agreed" and "title" in attached["fields"]
        assert attached["entry_line"] == index + 2  # the header is line 1
        shown = _text(client.get(f"/paper/{pid}").text)
        assert "Poster · Poster session 2" in shown  # the stored session: kind and name, no time given
        assert f"from the program program.csv, line {index + 2} (matched automatically)" in shown
        assert (
            "title, authors, decision, links, ids from the program" in shown and "external_ids" not in shown
        )
        assert str(tmp_path) not in shown and "[object Object]" not in shown
        client.cookies.set("paperscope_lang", "zh")
        assert "海报 · Poster session 2" in _text(client.get(f"/paper/{pid}").text)
    enrich_lib.close()
    out = CliRunner().invoke(cli, ["--db", str(tmp_path / "lib.db"), "show", pid])
    assert out.exit_code == 0, out.output
    assert "session: Poster session 2" in out.output
    assert f"program: {program.resolve()}:{index + 2} (" in out.output
