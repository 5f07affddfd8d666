"""Batch builds of large libraries: ``paperscope build`` (shards) and ``paperscope load`` (merge).

``build`` runs ingest's heavy stages (read, normalise, full cards, embeddings) chunk by chunk,
on local processes (:mod:`.local_engine`) or a Ray cluster (:mod:`.ray_engine`), and writes
each chunk as one Parquet shard (:mod:`.shards`). ``load`` (:mod:`.load`) feeds the shards'
papers, in source order, through ingest's own dedup and store code, so the library equals a
local ``ingest`` of the same files; the prebuilt cards and vectors are stored, not rebuilt.
Parquet needs pyarrow, which comes with the optional extra ``pip install 'paperscope[ray]'``.
"""
