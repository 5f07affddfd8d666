"""Backup and restore of the user's marks (stars, tags, notes, triage states) as one JSON file.

A backup names each marked paper twice: by ``paper_id`` and by a **content key**, the SHA-1 of
its title and its abstract as the source gave it (NFKC, case-folded, whitespace collapsed; first
16 hex digits). The key is deliberately simpler than ``paper_id`` (a hash of the *cleaned*
abstract): when a later paperscope cleans text differently, ids change but the source text and
so the content key do not. Restoring into a library built again from the same lists finds most
papers by id, a paper whose id changed by content, and lists the rest, with their titles, as
not matched. The file (``"format": "paperscope-marks"``, ``"version": 1``) is strict UTF-8 JSON::

    {"format": "paperscope-marks", "version": 1, "created_at": "2026-05-01T12:00:00Z",
     "papers": [{"paper_id": "…", "content_key": "…", "title": "…" | null, "label": "…",
                 "starred": true, "tags": ["to-read"], "note": "…" | null, "triage": "keep" | null}]}

Restore adds stars and tags, and sets each note and triage state the backup holds (a different
note already in the library is replaced, and counted); marks the backup does not mention are
left alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import strict_json
from ..errors import InputError, NotFound
from ..models import Paper
from ..store import marks, papers
from ..text import strip_controls

__all__ = ["BACKUP_FORMAT", "RestoreReport", "content_key", "write_backup", "read_backup", "restore_marks"]

BACKUP_FORMAT = "paperscope-marks"
_VERSION = 1


def _plain(text: str | None) -> str:
    return " ".join(unicodedata.normalize("NFKC", text or "").casefold().split())


def content_key(title: str | None, abstract: str) -> str:
    """Return the content key of a paper (title and source abstract, see the module doc): 16 hex digits."""
    return hashlib.sha1(f"{_plain(title)}\n{_plain(abstract)}".encode()).hexdigest()[:16]


@dataclass
class RestoreReport:
    """What a restore did: papers matched by id and by content, and the backup entries not matched.

    ``unmatched`` holds ``{"paper_id", "title"}`` per entry (``title`` is the label for a
    title-less paper); ``notes_replaced`` counts notes that differed and were replaced.
    """

    path: str
    entries: int = 0
    by_id: int = 0
    by_content: int = 0
    unmatched: list[dict[str, Any]] = field(default_factory=list)
    notes_replaced: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Return the report as plain JSON-ready data."""
        return {
            "path": self.path,
            "entries": self.entries,
            "by_id": self.by_id,
            "by_content": self.by_content,
            "unmatched": self.unmatched,
            "notes_replaced": self.notes_replaced,
        }


def _entry(conn: sqlite3.Connection, paper_id: str) -> dict[str, Any]:
    try:
        paper: Paper | None = papers.get_paper(conn, paper_id)
    except NotFound:  # marks of a paper no longer stored (doctor keeps them): back up by id
        paper = None
    return {
        "paper_id": paper_id,
        "content_key": content_key(paper.title, paper.abstract) if paper else None,
        "title": paper.title if paper else None,
        "label": paper.label if paper else None,
        "starred": marks.is_starred(conn, paper_id),
        "tags": marks.tags_of(conn, paper_id),
        "note": marks.note_of(conn, paper_id),
        "triage": marks.triage_of(conn, paper_id),
    }


def write_backup(conn: sqlite3.Connection, path: Path) -> int:
    """Write every marked paper's marks to ``path`` (atomically: a temporary file, then renamed).

    Returns:
        the number of papers written.

    Raises:
        InputError: the folder of ``path`` does not exist.
    """
    if not path.parent.is_dir():
        raise InputError(f"folder {path.parent} does not exist", str(path))
    entries = [_entry(conn, pid) for pid in sorted(marks.marked_in_order(conn, "all"))]
    doc = {
        "format": BACKUP_FORMAT,
        "version": _VERSION,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "papers": entries,
    }
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(strict_json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return len(entries)


def read_backup(path: Path) -> list[dict[str, Any]]:
    """Return the paper entries of a backup file.

    Raises:
        InputError: the file is missing, not JSON, not a paperscope marks backup, of a newer
            version, or an entry lacks its ``paper_id`` (the message names the entry's index).
    """
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("no such file", str(path)) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise InputError(f"not a marks backup (not UTF-8 JSON: {exc})", str(path), line) from None
    if not isinstance(doc, dict) or doc.get("format") != BACKUP_FORMAT:
        raise InputError(f'not a marks backup (no "format": "{BACKUP_FORMAT}")', str(path))
    if not isinstance(doc.get("version"), int) or doc["version"] > _VERSION:
        raise InputError(
            f"backup version {doc.get('version')!r} is newer than this paperscope reads", str(path)
        )
    entries = doc.get("papers")
    if not isinstance(entries, list):
        raise InputError('not a marks backup ("papers" is not a list)', str(path))
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("paper_id"), str):
            raise InputError(f"entry {i} has no paper_id", str(path), i + 1)
    return entries


def restore_marks(conn: sqlite3.Connection, entries: list[dict[str, Any]], path: str) -> RestoreReport:
    """Apply backup ``entries`` to the library behind ``conn`` (call inside one transaction)."""
    ids: set[str] = set()
    by_content: dict[str, str] = {}
    for paper in papers.iter_papers(conn):
        ids.add(paper.paper_id)
        by_content.setdefault(content_key(paper.title, paper.abstract), paper.paper_id)
    report = RestoreReport(path=path, entries=len(entries))
    for entry in entries:
        pid = entry["paper_id"]
        if pid in ids:
            report.by_id += 1
        elif entry.get("content_key") in by_content:
            pid = by_content[entry["content_key"]]
            report.by_content += 1
        else:
            report.unmatched.append({"paper_id": pid, "title": entry.get("title") or entry.get("label")})
            continue
        if entry.get("starred"):
            marks.set_star(conn, pid, True)
        for tag in entry.get("tags") or []:
            if isinstance(tag, str):
                marks.add_tag(conn, pid, tag)  # a tag with no text is skipped there
        note = entry.get("note")
        # As stored (marks.set_note): a note of only control characters would delete the current one.
        note = strip_controls(note) if isinstance(note, str) else None
        if note is not None and note.strip():
            current = marks.note_of(conn, pid)
            if current != note:
                report.notes_replaced += current is not None
                marks.set_note(conn, pid, note)
        state = entry.get("triage")
        if state in marks.TRIAGE_STATES:
            marks.set_triage(conn, pid, state)
    return report
