"""The lightest peer a user could pick instead of paperscope: a bm25s script over the same papers.

Three modes (each a plain script a user could have written from bm25s's README):

    python bench/_bm25s_peer.py build DB DIR        # index a paperscope library's papers into DIR
    python bench/_bm25s_peer.py query DIR "text"    # a fresh process: load the index (mmap), search, print
    python bench/_bm25s_peer.py serve DIR PORT      # answer GET /search?q=...&k=10 with JSON (stdlib server)

The index is bm25s's (Lucene BM25, k1 1.5, b 0.75, its defaults) over each paper's title and
abstract, tokenised by bm25s's tokenizer with English stop words and PyStemmer's English Snowball
stemmer, saved with ``save`` and loaded with ``load(mmap=True)``; the paper ids and titles are a
JSON file beside it. ``query`` prints the top 10 as "rank paper_id title" lines, as a CLI search
does. ``serve`` runs ``http.server.ThreadingHTTPServer`` (one thread per connection) and answers
``{"hits": [{"paper_id", "title", "score"}]}``.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path


def _stemmer():  # type: ignore[no-untyped-def]
    import Stemmer

    return Stemmer.Stemmer("english")


def build(db: Path, folder: Path) -> int:
    """Index the library at ``db`` into ``folder``; return the number of papers."""
    import bm25s

    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute(
            "SELECT paper_id, coalesce(title, ''), coalesce(abstract, '') FROM papers ORDER BY rowid"
        ).fetchall()
    texts = [f"{title}\n{abstract}" for _, title, abstract in rows]
    tokens = bm25s.tokenize(texts, stopwords="en", stemmer=_stemmer(), show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(tokens, show_progress=False)
    folder.mkdir(parents=True, exist_ok=True)
    retriever.save(str(folder))
    (folder / "papers.json").write_text(
        json.dumps([[pid, title] for pid, title, _ in rows]), encoding="utf-8"
    )
    return len(rows)


def _load(folder: Path):  # type: ignore[no-untyped-def]
    import bm25s

    retriever = bm25s.BM25.load(str(folder), mmap=True)
    papers = json.loads((folder / "papers.json").read_text(encoding="utf-8"))
    return retriever, papers


def search(retriever, papers, stemmer, text: str, k: int = 10) -> list[tuple[str, str, float]]:  # type: ignore[no-untyped-def]
    """Top ``k`` (paper_id, title, score) for ``text``."""
    import bm25s

    query = bm25s.tokenize([text], stopwords="en", stemmer=stemmer, show_progress=False)
    if not query.vocab:
        return []
    k = min(k, len(papers))
    docs, scores = retriever.retrieve(query, k=k, show_progress=False, n_threads=1)
    return [(papers[d][0], papers[d][1], float(s)) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]


def query(folder: Path, text: str) -> None:
    retriever, papers = _load(folder)
    for rank, (paper_id, title, _score) in enumerate(search(retriever, papers, _stemmer(), text), 1):
        print(rank, paper_id, title)


def serve(folder: Path, port: int) -> None:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import parse_qs, urlsplit

    retriever, papers = _load(folder)
    stemmer = _stemmer()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # One write per response and no Nagle delay: unbuffered, the headers and the body went
        # out as two segments and the second waited for the client's delayed ACK (40 ms).
        wbufsize = -1
        disable_nagle_algorithm = True

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            parts = urlsplit(self.path)
            params = parse_qs(parts.query)
            if parts.path != "/search" or "q" not in params:
                self.send_error(404)
                return
            hits = search(retriever, papers, stemmer, params["q"][0], int(params.get("k", ["10"])[0]))
            body = json.dumps(
                {"hits": [{"paper_id": p, "title": t, "score": s} for p, t, s in hits]}, ensure_ascii=False
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    mode, *rest = sys.argv[1:]
    if mode == "build":
        print(build(Path(rest[0]), Path(rest[1])), "papers indexed")
    elif mode == "query":
        query(Path(rest[0]), rest[1])
    elif mode == "serve":
        serve(Path(rest[0]), int(rest[1]))
    else:
        sys.exit(__doc__)
