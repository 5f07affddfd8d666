"""Retrieval: lexical (BM25 over SQLite FTS5), dense, and their fusion into ranked Hits."""
