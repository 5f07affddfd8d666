"""``paperscope doctor``: check a library file and repair what can be repaired in place.

Checks, in order (:func:`check`):

- ``integrity``: SQLite's ``PRAGMA integrity_check`` (every page, index and constraint) and
  FTS5's own ``integrity-check`` of the lexical index ``papers_fts``.
- ``fts``: ``papers_fts`` holds exactly one row per paper (none missing, none extra).
- ``search_fts``: the full-text index for other tools (``papers_search_fts``) is not left paused
  by a load that died (:mod:`paperscope.store.search_fts`).
- ``cards``: every paper has a full card of the current extractor version (a quick first card
  or an older version is not current).
- ``vectors``: every paper has a vector of the active embedder for its current text.
- ``orphans``: no source, card, vector, near-duplicate key or topic assignment of a paper that
  is not stored.
- ``topics`` (a note, never a problem: topics are fitted on request): papers with no
  assignment in the stored fit.
- ``marks`` (a note): stars, tags, notes and triage states of papers not stored. They are
  never deleted (the user's own data); they hold again when the paper is ingested again.

:func:`repair_store` fixes what needs no model: it rebuilds the lexical index, reindexes, and
deletes orphan rows, and rebuilds an abandoned ``papers_search_fts``. Cards and vectors are built by ``Library.doctor`` (it has the models).
"""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass, field
from typing import Any

from . import cleanup, search_fts, vectors
from .lexical import rebuild_fts

__all__ = ["Finding", "DoctorReport", "check", "repair_store", "rebuild_fts"]

#: Rows of ``PRAGMA integrity_check`` kept in a finding (SQLite stops at 100 by default).
_MAX_INTEGRITY_LINES = 20


@dataclass
class Finding:
    """One result of a check.

    Attributes:
        check: the check's name (``integrity``, ``fts``, ``search_fts``, ``cards``, ``vectors``, ``orphans``,
            ``topics``, ``marks``).
        ok: True when the check found nothing wrong.
        problem: True when what was found is a problem (it makes ``doctor`` exit non-zero);
            notes (topics not fitted for new papers, marks of missing papers) are not.
        message: one line saying what was found.
        repair: how to repair it (a command), or None when nothing is to be done.
        count: how many rows or papers the finding is about (0 when ok).
    """

    check: str
    ok: bool
    message: str
    problem: bool = False
    repair: str | None = None
    count: int = 0


@dataclass
class DoctorReport:
    """The findings of one ``doctor`` run, and what ``--repair`` did before the final check."""

    findings: list[Finding]
    repaired: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[Finding]:
        """The findings that are problems (non-zero exit)."""
        return [f for f in self.findings if f.problem]

    @property
    def ok(self) -> bool:
        """True when no problem remains."""
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        """Return ``{ok, problems, findings: [...], repaired: [...]}`` for ``--json``."""
        return {
            "ok": self.ok,
            "problems": len(self.problems),
            "findings": [asdict(f) for f in self.findings],
            "repaired": list(self.repaired),
        }


def check(
    conn: sqlite3.Connection, model_id: str, extractor_version: str, command: str = "paperscope"
) -> list[Finding]:
    """Run every check on the open library; return one Finding per check.

    Args:
        conn: the library's connection (read-only is enough).
        model_id: the active embedder's model id (whose vectors must be current).
        extractor_version: the current card extractor version.
        command: how to run paperscope on this library (``paperscope --db PATH``), for the
            repair lines.

    Reads every page once (``integrity_check``: about 1 s per 100 MB of library).
    """
    findings = [*_integrity(conn, command), _fts(conn, command), _search_fts(conn, command)]
    for name, run in (
        ("cards", _cards),
        ("vectors", _vectors),
        ("orphans", _orphans),
        ("topics", _topics),
        ("marks", _marks),
    ):
        try:
            findings.append(run(conn, command, model_id=model_id, extractor_version=extractor_version))
        except sqlite3.DatabaseError as exc:  # a damaged table: say so, and check the others
            findings.append(
                Finding(
                    name,
                    False,
                    f"cannot be checked: {exc}",
                    problem=True,
                    repair="see the integrity check's repair",
                    count=1,
                )
            )
    return findings


def _cards(conn: sqlite3.Connection, command: str, extractor_version: str, **_: str) -> Finding:
    (cards,) = conn.execute(
        "SELECT count(*) FROM papers p LEFT JOIN cards c USING (paper_id)"
        " WHERE c.extractor_version IS NULL OR c.extractor_version != ?",
        (extractor_version,),
    ).fetchone()
    return (
        Finding("cards", True, "every paper has a current card")
        if not cards
        else Finding(
            "cards",
            False,
            f"{cards:,} papers lack a full card of extractor version {extractor_version}",
            problem=True,
            repair=f"`{command} doctor --repair` (or `{command} cards`)",
            count=int(cards),
        )
    )


def _vectors(conn: sqlite3.Connection, command: str, model_id: str, **_: str) -> Finding:
    missing = vectors.count_missing_vectors(conn, model_id)
    return (
        Finding("vectors", True, f"every paper has a current vector of {model_id}")
        if not missing
        else Finding(
            "vectors",
            False,
            f"{missing:,} papers lack a current vector of {model_id}",
            problem=True,
            repair=f"`{command} doctor --repair` (or `{command} embed`)",
            count=missing,
        )
    )


def _orphans(conn: sqlite3.Connection, command: str, **_: str) -> Finding:
    orphans = cleanup.orphan_counts(conn)
    derived = {t: n for t, n in orphans.items() if n and t in cleanup.DERIVED_TABLES}
    return (
        Finding("orphans", True, "no row refers to a missing paper")
        if not derived
        else Finding(
            "orphans",
            False,
            "rows of missing papers: " + ", ".join(f"{t} {n:,}" for t, n in derived.items()),
            problem=True,
            repair=f"`{command} doctor --repair` deletes them",
            count=sum(derived.values()),
        )
    )


def _marks(conn: sqlite3.Connection, command: str, **_: str) -> Finding:
    marks = {t: n for t, n in cleanup.orphan_counts(conn).items() if n and t in cleanup.MARK_TABLES}
    return (
        Finding("marks", True, "every mark belongs to a stored paper")
        if not marks
        else Finding(
            "marks",
            False,
            "marks of papers not in the library (kept; they return when the paper is ingested"
            " again): " + ", ".join(f"{t} {n:,}" for t, n in marks.items()),
            count=sum(marks.values()),
        )
    )


def _integrity(conn: sqlite3.Connection, command: str) -> list[Finding]:
    try:
        rows = [r[0] for r in conn.execute("PRAGMA integrity_check")]
    except sqlite3.DatabaseError as exc:
        rows = [str(exc)]
    if rows == ["ok"]:
        found = [Finding("integrity", True, "SQLite integrity check: ok")]
    else:
        shown = "; ".join(rows[:_MAX_INTEGRITY_LINES]) + (
            f"; and {len(rows) - _MAX_INTEGRITY_LINES} more" if len(rows) > _MAX_INTEGRITY_LINES else ""
        )
        found = [
            Finding(
                "integrity",
                False,
                f"SQLite integrity check failed: {shown}",
                problem=True,
                repair=(
                    f"`{command} doctor --repair` reindexes and rebuilds the search index; if the"
                    f" check still fails, `{command} doctor --salvage NEW.db` copies every readable"
                    " row (papers, cards, vectors, stars, tags, notes, triage) into a new library"
                    " and repairs it there; the damaged file is left as it is"
                ),
                count=len(rows),
            )
        ]
    try:
        conn.execute("SAVEPOINT doctor_fts")
        try:
            conn.execute("INSERT INTO papers_fts (papers_fts, rank) VALUES ('integrity-check', 1)")
        finally:
            conn.execute("ROLLBACK TO doctor_fts")
            conn.execute("RELEASE doctor_fts")
    except sqlite3.DatabaseError as exc:
        if "readonly" not in str(exc) and "read-only" not in str(exc):
            found.append(
                Finding(
                    "integrity",
                    False,
                    f"the lexical index papers_fts is damaged: {exc}",
                    problem=True,
                    repair=f"`{command} doctor --repair` rebuilds it",
                    count=1,
                )
            )
    return found


def _fts(conn: sqlite3.Connection, command: str) -> Finding:
    try:
        indexed: dict[str, int] = {}
        rowid_of: dict[str, int] = {}
        for rowid, pid in conn.execute("SELECT rowid, paper_id FROM papers_fts"):
            indexed[pid] = indexed.get(pid, 0) + 1
            rowid_of[pid] = rowid
        stored = dict(conn.execute("SELECT paper_id, rowid FROM papers").fetchall())
    except sqlite3.DatabaseError as exc:
        return Finding(
            "fts",
            False,
            f"the lexical index cannot be read: {exc}",
            problem=True,
            repair=f"`{command} doctor --repair` rebuilds it",
            count=1,
        )
    missing = len(stored.keys() - indexed.keys())
    extra = sum(n for pid, n in indexed.items() if pid not in stored)
    doubled = sum(n - 1 for pid, n in indexed.items() if n > 1 and pid in stored)
    # A row under another rowid than its paper's (migration 15) would not be replaced by a write.
    misplaced = sum(
        1 for pid, n in indexed.items() if n == 1 and pid in stored and rowid_of[pid] != stored[pid]
    )
    if not (missing or extra or doubled or misplaced):
        return Finding("fts", True, f"the lexical index holds every paper once ({len(stored):,})")
    parts = [
        f"{n:,} {what}"
        for n, what in (
            (missing, "papers missing from it"),
            (extra, "rows of papers not stored"),
            (doubled, "duplicate rows"),
            (misplaced, "rows under another rowid than their paper's"),
        )
        if n
    ]
    return Finding(
        "fts",
        False,
        "the lexical index papers_fts is out of sync with papers: " + ", ".join(parts),
        problem=True,
        repair=f"`{command} doctor --repair` rebuilds it",
        count=missing + extra + doubled + misplaced,
    )


def _search_fts(conn: sqlite3.Connection, command: str) -> Finding:
    """The plain index other tools search (``papers_search_fts``): kept in step, or paused by a load."""
    try:
        holder = search_fts.paused_by(conn)
    except sqlite3.DatabaseError as exc:
        return Finding("search_fts", False, f"cannot be checked: {exc}", problem=True, count=1)
    if holder is None:
        return Finding("search_fts", True, "the full-text index for other tools follows every paper")
    if search_fts.holder_running(holder):
        return Finding(
            "search_fts",
            False,
            f"the full-text index for other tools is paused by a load still running ({holder});"
            " the load rebuilds it when it ends",
        )
    return Finding(
        "search_fts",
        False,
        f"the full-text index for other tools (papers_search_fts) was paused by a load that did not"
        f" finish ({holder}): Datasette and SQLite searches miss the papers stored since",
        problem=True,
        repair=f"`{command} doctor --repair` rebuilds it (the next load or ingest does too)",
        count=1,
    )


def _topics(conn: sqlite3.Connection, command: str, **_: str) -> Finding:
    if conn.execute("SELECT 1 FROM paper_topics LIMIT 1").fetchone() is None:
        return Finding("topics", True, f"no topics fitted yet (`{command} topics` fits them)")
    (n,) = conn.execute(
        "SELECT count(*) FROM papers p WHERE NOT EXISTS"
        " (SELECT 1 FROM paper_topics t WHERE t.paper_id = p.paper_id)"
    ).fetchone()
    if not n:
        return Finding("topics", True, "every paper is in the stored topic fit")
    return Finding(
        "topics",
        False,
        f"{n:,} papers were added since the topics were fitted and have no topic",
        repair=f"`{command} topics` (assigns them to the stored topics)",
        count=int(n),
    )


def repair_store(conn: sqlite3.Connection, findings: list[Finding]) -> list[str]:
    """Repair what ``findings`` show and needs no model (call inside a transaction).

    ``REINDEX`` when the integrity check failed, a rebuilt lexical index when it is damaged or
    out of sync, the index for other tools rebuilt when a load that paused it died, and orphan
    rows deleted (marks are kept). Returns one line per repair done.
    """
    done: list[str] = []
    broken = {f.check for f in findings if f.problem}
    if "integrity" in broken:
        conn.execute("REINDEX")
        done.append("rebuilt every index (REINDEX)")
    if broken & {"integrity", "fts"}:
        done.append(f"rebuilt the lexical index ({rebuild_fts(conn):,} papers)")
    if "search_fts" in broken and search_fts.resume_abandoned(conn):
        done.append("rebuilt the full-text index for other tools (papers_search_fts)")
    if "orphans" in broken:
        deleted = {t: n for t, n in cleanup.delete_orphans(conn).items() if n}
        done.append("deleted rows of missing papers: " + ", ".join(f"{t} {n:,}" for t, n in deleted.items()))
    return done
