"""Lexical query building: user text → a safe FTS5 MATCH expression ranked by BM25.

User text never reaches ``MATCH`` raw. Each whitespace-separated chunk of the query is
tokenised and stemmed exactly as the index was (:mod:`paperscope.analyzer`), and its stems
become one double-quoted FTS5 phrase over the ``title`` and ``body`` columns, so
``state-of-the-art`` is the phrase "state of the art" and ``AND``, ``*``, ``:``, quotes or ``%``
are plain text, never operators. A query word whose stem differs from it also matches as written
in the ``exact`` column (``exact : "transformers"``), so a paper with the exact word ranks above
one that only shares the stem. Phrases are OR-ed and ranked by SQLite's ``bm25()`` (Robertson &
Zaragoza, 2009; FTS5 uses k1 = 1.2, b = 0.75).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..analyzer import index_row, query_tokens, stem_tokens
from ..store.lexical import EXACT_WEIGHT
from ..text import clean_text, has_cjk, segment, tokenize
from .topk import top_k

__all__ = [
    "STOP_WORDS",
    "EXACT_PREFIX",
    "match_expression",
    "query_terms",
    "scoring_terms",
    "MemoryBM25",
    "K1",
    "B",
    "IDF_FLOOR",
]

#: Function words dropped from queries: a query of only these matches nothing (not everything).
STOP_WORDS = frozenset(
    """a an and are as at be by for from has have how in into is it its of on or that the their
    this to was were what which with we our you your via vs""".split()
)
#: Prefix of an exact-form term in :class:`MemoryBM25`'s vocabulary (a token never holds ":").
EXACT_PREFIX = "exact:"


def _chunks(query: str) -> list[list[tuple[str, str]]]:
    """Return the ``(surface, stem)`` tokens of each query chunk that is not only stop words."""
    out = []
    for chunk in clean_text(query).split():
        tokens = query_tokens(chunk)
        if tokens and not all(t in STOP_WORDS for t, _ in tokens):
            out.append(tokens)
    return out


def match_expression(query: str) -> str | None:
    """Return the FTS5 MATCH expression for ``query``, or None when nothing searchable is left.

    LaTeX and markdown in the query are cleaned like abstracts (``C$^2$R`` → ``C²R``), so a
    query written like the source text finds it. ``"Transformers for graphs"`` gives
    ``{title body} : ("transform" OR "graph") OR exact : "transformers" OR exact : "graphs"``.
    """
    parts: list[str] = []
    exact: list[str] = []
    for tokens in _chunks(query):
        stems = [stem for _, stem in tokens]
        if len(stems) > 1 and any(has_cjk(t) for t in stems):
            # A Chinese run is several words, which the index holds with sub-words between them
            # ("快速采样器" is indexed "快速 采样 采样器"): the words must be near, not adjacent.
            quoted = " ".join(_quote(t) for t in stems)
            part = f"NEAR({quoted}, {2 * len(stems)})"
        else:
            part = _quote(" ".join(stems))  # a hyphenated word ("state-of-the-art") is one phrase
        if part not in parts:
            parts.append(part)
        for surface, stem in tokens:
            phrase = f"exact : {_quote(surface)}"
            if surface != stem and surface not in STOP_WORDS and phrase not in exact:
                exact.append(phrase)
    if not parts:
        return None
    return " OR ".join([f"{{title body}} : ({' OR '.join(parts)})", *exact])


def _quote(phrase: str) -> str:
    return '"' + phrase.replace('"', '""') + '"'


#: FTS5's bm25() constants (SQLite fts5_aux.c): k1 = 1.2, b = 0.75, idf floor 1e-6.
K1, B, IDF_FLOOR = 1.2, 0.75, 1e-6


def query_terms(query: str, stem: bool = True) -> list[str]:
    """Return the distinct index terms of ``query`` (stop words dropped): stems, or plain tokens.

    The words of a hyphenated chunk (``state-of-the-art``) become separate terms: the
    in-memory index keeps no positions, so it scores them as a bag, not as a phrase. ``stem``
    False gives the folded tokens, for a :class:`MemoryBM25` built with ``stem=False``.
    """
    terms: list[str] = []
    for chunk in clean_text(query).split():
        for surface, stemmed in query_tokens(chunk):
            term = stemmed if stem else surface
            if surface not in STOP_WORDS and term not in terms:
                terms.append(term)
    return terms


def scoring_terms(query: str) -> list[str]:
    """Return the terms :meth:`MemoryBM25.search` scores ``query`` by, as :func:`match_expression` does.

    The stems of :func:`query_terms`, then :data:`EXACT_PREFIX` + each query word whose stem
    differs from it (``"transformers"`` gives ``["transform", "exact:transformers"]``).
    """
    exact: list[str] = []
    for tokens in _chunks(query):
        for surface, stem in tokens:
            key = EXACT_PREFIX + surface
            if surface != stem and surface not in STOP_WORDS and key not in exact:
                exact.append(key)
    return query_terms(query) + exact


class MemoryBM25:
    """BM25 over title, body and exact forms held in numpy arrays, scored as FTS5's ``bm25()`` does.

    FTS5 reads every matching row and its column sizes for each query, which costs tens of
    milliseconds per query at 100k papers; here each term is one vectorised scatter-add over
    its postings. Scores equal FTS5's (Robertson & Zaragoza, 2009, BM25 with k1 = 1.2,
    b = 0.75, ``idf = log((N - n + 0.5) / (n + 0.5))`` floored at 1e-6, term frequency summed
    over columns with the title weighted ``title_weight``, document length = all tokens) for
    single-word query chunks; multi-word chunks are scored as separate words. Built with ``stem``
    (the lexical index's analysis, :func:`paperscope.analyzer.index_row`), a stem's postings are
    its title and body matches, and an :data:`EXACT_PREFIX` term's its ``exact`` column matches
    weighted ``exact_weight``; the exact forms count in the document length, as in FTS5. A paper without
    a title can have its body weighted ``titleless_body_weight`` at query time, as
    :func:`paperscope.store.lexical.search_fts` does (issue 23).

    Attributes:
        paper_ids: row order.
        vocabulary: term → column index into the postings.
        indptr: int64, shape (n_terms + 1,): postings of term t are ``indptr[t]:indptr[t+1]``.
        rows: int32, shape (n_postings,): paper rows.
        weights: float32, shape (n_postings,): the BM25 term-frequency part of each posting.
        idf: float32, shape (n_terms,).
        titleless: bool, shape (n_papers,): the paper has no title token.
        stem: the index holds stems (:meth:`document_frequencies` looks words up by their stem).
    """

    def __init__(self, paper_ids, vocabulary, indptr, rows, weights, idf, titleless, stem=True):  # type: ignore[no-untyped-def]
        self.stem = stem
        self.paper_ids = paper_ids
        self.vocabulary = vocabulary
        self.indptr = indptr
        self.rows = rows
        self.weights = weights
        self.idf = idf
        self.titleless = titleless
        self.row_of = {pid: i for i, pid in enumerate(paper_ids)}

    @classmethod
    def build(
        cls,
        documents: Iterable[tuple[str, str | None, str]],
        title_weight: float = 2.0,
        exact_weight: float = EXACT_WEIGHT,
        stem: bool = True,
        analysed: bool = False,
    ) -> MemoryBM25:
        """Build from ``(paper_id, title, clean_text)`` triples (texts as stored, segmented here).

        ``stem`` True analyses as the lexical index does (``exact_weight``, > 0, weighs the exact
        forms); False indexes the folded tokens of title and body as they are (enrich's matchers).
        ``analysed`` True takes ``(paper_id, title, body, exact)`` rows already analysed, as
        :func:`paperscope.analyzer.index_row` gives them and ``papers_fts`` stores them (space-
        separated stems and exact forms): nothing is segmented or stemmed again (``stem`` True).

        ``documents`` is read once, as a stream. Postings are gathered in typed arrays (4 bytes
        each: term id int32, term frequency float32) rather than Python lists of int and float
        objects, which took about 80 bytes per posting: at 100k papers (11.5M postings) the
        build peaked at +900 MB, now about +350 MB.
        """
        from array import array

        import numpy as np

        paper_ids: list[str] = []
        vocabulary: dict[str, int] = {}
        term_ids = array("i")  # int32 term id of each posting, in document order
        freqs = array("f")  # float32 title-weighted term frequency of each posting
        n_terms = array("i")  # int32 postings per document
        lengths = array("i")  # int32 tokens per document
        titleless = array("b")  # 1 where the title has no token
        for paper_id, *texts in documents:
            paper_ids.append(paper_id)
            counts: dict[str, float] = {}
            size = 0
            fields = (
                _analysed_fields(*texts, title_weight, exact_weight)
                if analysed
                else _fields(*texts, title_weight, exact_weight, stem)
            )
            for field, (tokens, weight) in enumerate(fields):
                size += len(tokens)
                if field == 0:
                    titleless.append(not tokens)
                for token in tokens:
                    counts[token] = counts.get(token, 0.0) + weight
            lengths.append(size)
            n_terms.append(len(counts))
            term_ids.extend([vocabulary.setdefault(token, len(vocabulary)) for token in counts])
            freqs.extend(counts.values())
        n = len(paper_ids)
        terms = np.frombuffer(term_ids, dtype=np.int32) if term_ids else np.zeros(0, dtype=np.int32)
        order = np.argsort(terms, kind="stable")
        doc_freq = np.bincount(terms, minlength=len(vocabulary))
        del terms, term_ids
        rows = np.repeat(np.arange(n, dtype=np.int32), np.frombuffer(n_terms, dtype=np.int32) if n else 0)
        rows = rows[order]
        tf = np.frombuffer(freqs, dtype=np.float32) if freqs else np.zeros(0, dtype=np.float32)
        tf = tf[order]
        del order, freqs
        indptr = np.concatenate([[0], np.cumsum(doc_freq)]).astype(np.int64)
        length = np.frombuffer(lengths, dtype=np.int32).astype(np.float32) if n else np.zeros(0, np.float32)
        average = float(length.mean()) if n else 1.0
        norm = K1 * (1 - B + B * length[rows] / max(average, 1e-9))
        weights = (tf * (K1 + 1) / (tf + norm)).astype(np.float32)
        del norm, tf
        idf = np.log((n - doc_freq + 0.5) / (doc_freq + 0.5))
        idf = np.where(idf <= 0, IDF_FLOOR, idf).astype(np.float32)
        bare = np.frombuffer(titleless, dtype=np.int8).astype(bool) if n else np.zeros(0, dtype=bool)
        return cls(paper_ids, vocabulary, indptr, rows, weights, idf, bare, stem)

    def __len__(self) -> int:
        return len(self.paper_ids)

    def document_frequencies(self, words: list[str]) -> dict[str, int]:
        """Return word → number of papers holding it in title or body, for the words the index knows.

        ``words`` are folded tokens as written; a stemmed index looks each up by its stem, as
        :func:`paperscope.store.retrieval.document_frequencies` does.
        """
        keys = stem_tokens(list(words)) if self.stem else list(words)
        out = {}
        for word, key in zip(words, keys, strict=True):
            t = self.vocabulary.get(key)
            if t is not None:
                out[word] = int(self.indptr[t + 1] - self.indptr[t])
        return out

    def search(self, terms: list[str], limit: int, allowed_rows=None, titleless_body_weight: float = 1.0):  # type: ignore[no-untyped-def]
        """Return up to ``limit`` ``(paper_id, score)`` best first; only rows matching a term count.

        Args:
            terms: index terms (see :func:`scoring_terms`).
            limit: how many to return.
            allowed_rows: optional bool array, shape (n_papers,): rows that may be returned.
            titleless_body_weight: weight c of a title-less paper's body terms (1.0: as FTS5's
                plain ``bm25()``). A stored weight ``w = tf (k1 + 1) / (tf + norm)`` becomes
                ``c tf (k1 + 1) / (c tf + norm) = (k1 + 1) c w / (k1 + 1 + (c - 1) w)``, so the
                weight of any c follows from the stored one, without a second index. Exact-form
                terms keep their weight, as the SQL weighs only the body by c.

        Returns:
            list of ``(paper_id, score)``.
        """
        import numpy as np

        ids = [self.vocabulary[t] for t in terms if t in self.vocabulary]
        if not ids or not self.paper_ids:
            return []
        scores = np.zeros(len(self.paper_ids), dtype=np.float32)
        reweight = titleless_body_weight != 1.0 and bool(self.titleless.any())
        c, k = np.float32(titleless_body_weight), np.float32(K1 + 1)
        exact = {self.vocabulary[t] for t in terms if t.startswith(EXACT_PREFIX) and t in self.vocabulary}
        for t in ids:
            start, end = int(self.indptr[t]), int(self.indptr[t + 1])
            rows, weights = self.rows[start:end], self.weights[start:end]
            if reweight and t not in exact:
                weights = np.where(self.titleless[rows], k * c * weights / (k + (c - 1) * weights), weights)
            # Rows are distinct within one term's postings, so a fancy-index add is exact.
            scores[rows] += self.idf[t] * weights
        # Every posting adds idf (>= IDF_FLOOR > 0) x weight (> 0, as tf > 0), so a row matched
        # a term exactly when its score is positive: no separate "matched" mask is needed.
        matched = scores > 0
        if allowed_rows is not None:
            matched &= allowed_rows
        candidates = np.flatnonzero(matched)
        if candidates.size == 0:
            return []
        top = candidates[top_k(scores[candidates], limit, tie=candidates)]
        ids_of = self.paper_ids
        return [(ids_of[r], s) for r, s in zip(top.tolist(), scores[top].tolist(), strict=True)]

    _ARRAYS = ("indptr", "rows", "weights", "idf", "titleless")

    def save(self, path) -> None:  # type: ignore[no-untyped-def]
        """Write the index to the folder ``path`` (one ``.npy`` per array), renamed into place.

        Separate uncompressed arrays let :meth:`load` memory-map the postings (92 MB at 100k
        papers) instead of reading them whole, as an ``.npz`` would.
        """
        import os
        import shutil
        import tempfile
        from pathlib import Path

        import numpy as np

        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=target.name, suffix=".tmp", dir=target.parent))
        try:
            terms = sorted(self.vocabulary, key=self.vocabulary.__getitem__)
            np.save(tmp / "paper_ids.npy", np.array(self.paper_ids), allow_pickle=False)
            np.save(tmp / "terms.npy", np.array(terms), allow_pickle=False)
            for name in self._ARRAYS:
                np.save(tmp / f"{name}.npy", getattr(self, name), allow_pickle=False)
            try:
                os.replace(tmp, target)
            except OSError:
                if not (target / "idf.npy").is_file():  # not a lost race with another process
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def save_titleless(self, path, titleless) -> None:  # type: ignore[no-untyped-def]
        """Set ``titleless`` (bool, shape (n_papers,)) and add it to the index saved in ``path``."""
        import os
        from pathlib import Path

        import numpy as np

        self.titleless = np.asarray(titleless, dtype=bool)
        target = Path(path) / "titleless.npy"
        tmp = target.with_name(f"titleless.{os.getpid()}.tmp.npy")
        np.save(tmp, self.titleless, allow_pickle=False)
        os.replace(tmp, target)

    @classmethod
    def load(cls, path, stem: bool = True) -> MemoryBM25:  # type: ignore[no-untyped-def]
        """Read an index written by :meth:`save`; the postings stay memory-mapped (read-only).

        An index written before issue 23 has ``titleless`` None (see :meth:`save_titleless`).
        ``stem`` says how it was built (not saved: the caller keys its cache by the analyzer).
        """
        from pathlib import Path

        import numpy as np

        folder = Path(path)
        terms = np.load(folder / "terms.npy").tolist()
        # An index saved before issue 23 has no titleless.npy: None, for the caller to fill in.
        arrays = [
            np.load(folder / f"{name}.npy", mmap_mode="r")
            if name != "titleless" or (folder / f"{name}.npy").is_file()
            else None
            for name in cls._ARRAYS
        ]
        return cls(
            np.load(folder / "paper_ids.npy").tolist(),
            {t: i for i, t in enumerate(terms)},
            *arrays,
            stem,
        )


def _fields(
    title: str | None, body: str, title_weight: float, exact_weight: float, stem: bool
) -> list[tuple[list[str], float]]:
    """Return ``(tokens, weight)`` of each field: title, body, and with ``stem`` the exact forms."""
    if not stem:
        return [
            (tokenize(segment(text, for_index=True)) if text else [], weight)
            for text, weight in ((title, title_weight), (body, 1.0))
        ]
    return _analysed_fields(*index_row(title, body), title_weight, exact_weight)


def _analysed_fields(
    title_stems: str, body_stems: str, exact: str, title_weight: float, exact_weight: float
) -> list[tuple[list[str], float]]:
    """Return ``(tokens, weight)`` of title, body and exact forms from a lexical index row."""
    return [
        (title_stems.split(), title_weight),
        (body_stems.split(), 1.0),
        ([EXACT_PREFIX + t for t in exact.split()], exact_weight),
    ]
