"""Read the provenance of attached program fields (the ``enrichments`` table) without the enrich stage.

``paperscope show`` and the paper page list a paper's attachments; reading them here, not in
:mod:`paperscope.enrich.attach` (which writes them), keeps the matcher and its numpy and BM25
imports out of those commands (issue 29).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

__all__ = ["enrichments"]


def enrichments(
    conn: sqlite3.Connection, program: str | None = None, paper_id: str | None = None
) -> list[dict[str, Any]]:
    """Return the attachments (provenance rows), oldest first, without the saved ``before`` state.

    ``program`` keeps one program file's rows, ``paper_id`` one paper's (both may be given).
    """
    conditions, params = [], []
    if program is not None:
        conditions.append("program = ?")
        params.append(program)
    if paper_id is not None:
        conditions.append("paper_id = ?")
        params.append(paper_id)
    where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
    rows = conn.execute(
        "SELECT paper_id, program, entry_line, entry, session, method, score, attached_at, after"
        f" FROM enrichments{where} ORDER BY enrichment_id",
        params,
    ).fetchall()
    return [
        {
            "paper_id": r[0],
            "program": r[1],
            "entry_line": r[2],
            "title": json.loads(r[3])["title"],
            "session": r[4],
            "method": r[5],
            "score": r[6],
            "attached_at": r[7],
            "fields": [k for k in json.loads(r[8]) if k != "content_hash"],
        }
        for r in rows
    ]
