"""Parquet shards of a build and its manifest: one shard per chunk, written atomically.

A shard holds one chunk's papers (:mod:`.stages`), one row each: the source order key
(``file``: the input's index, ``item``: the record's 0-based position in its file), the
paper's fields and sources as JSON, its full card as JSON, its content hash, its vector as a
fixed-size ``list<float32>`` with the model id, the extractor version, and its lexical index
row (``fts_title``, ``fts_body``, ``fts_exact``: :func:`paperscope.analyzer.index_row`, with the
``analyzer`` that made it; ``load`` stores it as it is), and its dedup fingerprint (``dd_*``
columns with the ``dedup_version``: shingles, MinHash band keys, title, head, lead and id
keys; ``load`` looks them up). Shards are named by
their chunk (``f00003-000012000.parquet``) and written to a temporary name then renamed
(``os.replace``), so a retried task rewrites the same file and a half-written one never counts.

``manifest.json`` says which inputs are done (by path, size and mtime) and their shards, so
building the same sources again with more files builds only the new ones.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..models import Card, Paper, Source

__all__ = [
    "MANIFEST",
    "shard_name",
    "write_shard",
    "read_shard",
    "paper_to_json",
    "paper_from_json",
    "card_from_json",
    "fingerprint_from_row",
    "load_manifest",
    "save_manifest",
    "require_pyarrow",
]

MANIFEST = "manifest.json"
#: Manifest layout version; another value is refused by ``load``.
MANIFEST_VERSION = 1
_INSTALL = "pip install 'paperscope[ray]'"


def require_pyarrow() -> Any:
    """Return the ``pyarrow.parquet`` module.

    Raises:
        InputError: pyarrow is not installed (it comes with the ``ray`` extra; one line says so).
    """
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(f"build and load write Parquet shards, which needs pyarrow: {_INSTALL}") from None
    return pq


def shard_name(file: int, start: int) -> str:
    """The shard file name of the chunk starting at item ``start`` of input ``file``."""
    return f"f{file:05d}-{start:09d}.parquet"


def paper_to_json(paper: Paper) -> str:
    """Return ``paper``'s stored fields and full sources (absolute path, line, format) as JSON."""
    data = {
        "paper_id": paper.paper_id,
        "abstract": paper.abstract,
        "clean_text": paper.clean_text,
        "title": paper.title,
        "authors": paper.authors,
        "venue": paper.venue,
        "year": paper.year,
        "decision": paper.decision,
        "keywords": paper.keywords,
        "source_area": paper.source_area,
        "urls": paper.urls,
        "external_ids": paper.external_ids,
        "sources": [[s.path, s.line, s.format] for s in paper.sources],
    }
    return json.dumps(data, ensure_ascii=False)


def paper_from_json(text: str) -> Paper:
    """Return the Paper :func:`paper_to_json` wrote."""
    data = json.loads(text)
    data["sources"] = [Source(path, line, fmt) for path, line, fmt in data["sources"]]
    return Paper(**data)


def card_from_json(text: str) -> Card:
    """Return the Card whose ``to_dict`` is ``text`` (the layout ``store.papers.save_cards`` stores)."""
    raw = json.loads(text)
    known = {k: raw.pop(k) for k in ("label", "method_names", "code_urls", "extractor_version") if k in raw}
    return Card(**known, extra=raw)


def write_shard(
    out_dir: Path,
    file: int,
    start: int,
    items: list[int],
    papers: list[Paper],
    cards: list[Card],
    vectors: np.ndarray,
    n_chunks: np.ndarray,
    model_id: str,
    extractor_version: str,
) -> str:
    """Write one chunk's shard (temporary name, then rename); return its file name.

    A chunk without papers (every record skipped) still gets a shard, with no rows, so the
    manifest can tell a finished chunk from a missing one.
    """
    import pyarrow as pa

    from ..analyzer import LEXICAL_ANALYZER, index_row
    from ..ingest import dedup
    from ..ingest.pipeline import content_hash_for

    pq = require_pyarrow()
    dim = int(vectors.shape[1]) if vectors.ndim == 2 and vectors.shape[0] else 0
    # The lexical index rows and dedup fingerprints, made here in the cluster so `load` only
    # stores rows and looks keys up (issue 28).
    lexical = [index_row(p.title, p.clean_text) for p in papers]
    prints = dedup.fingerprints(papers)
    flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1), type=pa.float32())
    table = pa.table(
        {
            "file": pa.array([file] * len(papers), type=pa.int32()),
            "item": pa.array(items, type=pa.int32()),
            "paper_id": pa.array([p.paper_id for p in papers], type=pa.string()),
            "paper": pa.array([paper_to_json(p) for p in papers], type=pa.string()),
            "card": pa.array([c.to_json() for c in cards], type=pa.string()),
            "card_label": pa.array([c.label for c in cards], type=pa.string()),
            "content_hash": pa.array(
                [content_hash_for(p.title, p.clean_text) for p in papers], type=pa.string()
            ),
            "vector": pa.FixedSizeListArray.from_arrays(flat, dim)
            if dim
            else pa.array([], pa.list_(pa.float32(), 1)),
            "n_chunks": pa.array(np.asarray(n_chunks, dtype=np.int32), type=pa.int32()),
            "model_id": pa.array([model_id] * len(papers), type=pa.string()),
            "extractor_version": pa.array([extractor_version] * len(papers), type=pa.string()),
            "fts_title": pa.array([row[0] for row in lexical], type=pa.string()),
            "fts_body": pa.array([row[1] for row in lexical], type=pa.string()),
            "fts_exact": pa.array([row[2] for row in lexical], type=pa.string()),
            "analyzer": pa.array([LEXICAL_ANALYZER] * len(papers), type=pa.string()),
            **_fingerprint_columns(prints),
        }
    )
    name = shard_name(file, start)
    out_dir.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out_dir)
    os.close(handle)
    try:
        pq.write_table(table, temp)
        os.replace(temp, out_dir / name)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return name


def _fingerprint_columns(prints: list[Any]) -> dict[str, Any]:
    """The shard columns of each paper's ``dedup.Fingerprint`` (``dd_*``, with its version)."""
    import pyarrow as pa

    from ..ingest import dedup

    def int_lists(values: list[list[int]]) -> Any:
        return pa.array(values, type=pa.list_(pa.int64()))

    lengths = np.fromiter((len(fp.shingles) for fp in prints), dtype=np.int32, count=len(prints))
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    shingles = (
        np.concatenate([fp.shingles for fp in prints]).astype(np.uint64) if prints else np.zeros(0, np.uint64)
    )
    return {
        "dedup_version": pa.array([dedup.FINGERPRINT_VERSION] * len(prints), type=pa.string()),
        "dd_shingles": pa.ListArray.from_arrays(pa.array(offsets), pa.array(shingles, type=pa.uint64())),
        "dd_bands": int_lists([fp.band_keys for fp in prints]),
        "dd_title": pa.array([fp.title_key for fp in prints], type=pa.int64()),
        "dd_head": pa.array([fp.head_key for fp in prints], type=pa.int64()),
        "dd_lead": int_lists([fp.lead_keys for fp in prints]),
        "dd_id_keys": int_lists([fp.id_keys for fp in prints]),
        "dd_ids": pa.array([json.dumps(fp.ids, ensure_ascii=False) for fp in prints], type=pa.string()),
    }


def fingerprint_from_row(row: dict[str, Any]) -> Any:
    """Return the ``dedup.Fingerprint`` a shard row holds (its ``dd_*`` columns)."""
    from ..ingest import dedup

    return dedup.Fingerprint(
        shingles=row["dd_shingles"],
        band_keys=row["dd_bands"],
        title_key=row["dd_title"],
        id_keys=row["dd_id_keys"],
        ids=json.loads(row["dd_ids"]),
        head_key=row["dd_head"],
        lead_keys=row["dd_lead"],
    )


def read_shard(path: Path) -> Iterator[dict[str, Any]]:
    """Yield each row of a shard as a dict (``vector`` as float32 numpy, shape (dim,)).

    Raises:
        InputError: the file is not a readable shard.
    """
    pq = require_pyarrow()
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises its own ArrowInvalid / OSError types
        raise InputError(f"not a readable Parquet shard ({str(exc).splitlines()[0]})", str(path)) from None
    if table.num_rows == 0:
        return
    dim = table.schema.field("vector").type.list_size
    matrix = table.column("vector").combine_chunks().flatten().to_numpy().reshape(-1, dim)
    arrays = {"vector", "dd_shingles"}
    columns = {name: table.column(name).to_pylist() for name in table.column_names if name not in arrays}
    if "dd_shingles" in table.column_names:  # uint64 arrays without a Python int per shingle
        shingles = table.column("dd_shingles").combine_chunks()
        offsets, values = shingles.offsets.to_numpy(), shingles.values.to_numpy(zero_copy_only=False)
        columns["dd_shingles"] = [values[offsets[i] : offsets[i + 1]] for i in range(table.num_rows)]
    for i in range(table.num_rows):
        row = {name: values[i] for name, values in columns.items()}
        row["vector"] = matrix[i]
        yield row


def load_manifest(out_dir: Path) -> dict[str, Any]:
    """Return the build manifest of ``out_dir`` (an empty one when there is none yet).

    Raises:
        InputError: the manifest is unreadable or of another layout version.
    """
    path = out_dir / MANIFEST
    if not path.is_file():
        return {"version": MANIFEST_VERSION, "inputs": []}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"the build manifest cannot be read ({exc})", str(path)) from None
    if data.get("version") != MANIFEST_VERSION:
        raise InputError(
            f"build manifest version {data.get('version')!r}, this paperscope reads {MANIFEST_VERSION}",
            str(path),
        )
    return data  # type: ignore[no-any-return]


def save_manifest(out_dir: Path, manifest: dict[str, Any]) -> None:
    """Write the manifest atomically (temporary file, then rename)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    temp = out_dir / f".{MANIFEST}.tmp"
    temp.write_text(json.dumps(manifest, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(temp, out_dir / MANIFEST)
