"""Numbered schema migrations, applied in order on open; ``PRAGMA user_version`` records the last."""

from __future__ import annotations

__all__ = ["MIGRATIONS"]

#: One SQL script per schema version; index i upgrades version i to i + 1. Never edit a shipped
#: script: add a new one. User tables (stars, tags, notes, triage) are created here and never dropped.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE papers (
        paper_id     TEXT PRIMARY KEY,
        abstract     TEXT NOT NULL,
        clean_text   TEXT NOT NULL,
        title        TEXT,
        authors      TEXT NOT NULL DEFAULT '[]',
        venue        TEXT,
        year         INTEGER,
        decision     TEXT,
        keywords     TEXT NOT NULL DEFAULT '[]',
        source_area  TEXT,
        urls         TEXT NOT NULL DEFAULT '[]',
        external_ids TEXT NOT NULL DEFAULT '{}',
        content_hash TEXT NOT NULL,
        added_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
    );
    CREATE INDEX papers_venue_year ON papers (venue, year);
    CREATE TABLE sources (
        paper_id TEXT NOT NULL REFERENCES papers (paper_id),
        path     TEXT NOT NULL,
        line     INTEGER NOT NULL,
        format   TEXT NOT NULL,
        PRIMARY KEY (paper_id, path, line)
    );
    CREATE TABLE cards (
        paper_id          TEXT PRIMARY KEY REFERENCES papers (paper_id),
        label             TEXT NOT NULL,
        data              TEXT NOT NULL,
        extractor_version TEXT NOT NULL
    );
    CREATE VIRTUAL TABLE papers_fts USING fts5 (
        paper_id UNINDEXED, title, body, tokenize = 'unicode61 remove_diacritics 2'
    );
    CREATE TABLE stars (
        paper_id   TEXT PRIMARY KEY,
        starred_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
    );
    CREATE TABLE tags (
        paper_id TEXT NOT NULL,
        tag      TEXT NOT NULL,
        added_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
        PRIMARY KEY (paper_id, tag)
    );
    CREATE TABLE notes (
        paper_id   TEXT PRIMARY KEY,
        body       TEXT NOT NULL,
        updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
    );
    """,
    # 1: cached embedding vectors, keyed by (paper_id, model_id), checked by content_hash.
    """
    CREATE TABLE embeddings (
        paper_id     TEXT NOT NULL REFERENCES papers (paper_id),
        model_id     TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        dim          INTEGER NOT NULL,
        vector       BLOB NOT NULL,
        n_chunks     INTEGER NOT NULL DEFAULT 1,
        PRIMARY KEY (paper_id, model_id)
    );
    CREATE INDEX embeddings_model ON embeddings (model_id, content_hash);
    """,
    # 2: near-duplicate keys (ingest/dedup.py) and a filterable decision column.
    """
    CREATE TABLE dedup_keys (
        key      INTEGER NOT NULL,
        paper_id TEXT NOT NULL REFERENCES papers (paper_id),
        PRIMARY KEY (key, paper_id)
    ) WITHOUT ROWID;
    ALTER TABLE papers ADD COLUMN dedup_indexed INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX papers_not_dedup_indexed ON papers (paper_id) WHERE dedup_indexed = 0;
    CREATE INDEX papers_decision ON papers (decision);
    """,
    # 3: topics, per-paper assignments and map coordinates; a refit replaces every row in one
    # transaction.
    """
    CREATE TABLE topics (
        topic_id           INTEGER PRIMARY KEY,
        name               TEXT NOT NULL,
        level              INTEGER NOT NULL,
        size               INTEGER NOT NULL,
        key_phrases        TEXT NOT NULL DEFAULT '[]',
        parent_id          INTEGER,
        is_unassigned      INTEGER NOT NULL DEFAULT 0,
        representative_ids TEXT NOT NULL DEFAULT '[]',
        x                  REAL NOT NULL,
        y                  REAL NOT NULL
    );
    CREATE TABLE paper_topics (
        paper_id    TEXT PRIMARY KEY REFERENCES papers (paper_id),
        topic_id    INTEGER NOT NULL,
        subtopic_id INTEGER,
        is_outlier  INTEGER NOT NULL DEFAULT 0,
        x           REAL NOT NULL,
        y           REAL NOT NULL
    );
    CREATE INDEX paper_topics_topic ON paper_topics (topic_id);
    CREATE TABLE topic_runs (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # 4: what on-disk caches (vector matrix, HNSW graph, BM25 statistics) are keyed by: a random
    # library_id made once (a new file at the same path never reads the old file's caches) and
    # a generation that every in-place change bumps. Inserts need no trigger: they raise
    # max(rowid) of papers or embeddings, which the cache keys hold too.
    """
    CREATE TABLE library_state (
        key   TEXT PRIMARY KEY,
        value NOT NULL
    );
    INSERT INTO library_state (key, value) VALUES ('library_id', lower(hex(randomblob(16))));
    INSERT INTO library_state (key, value) VALUES ('generation', 0);
    CREATE TRIGGER papers_text_changed AFTER UPDATE OF title, clean_text, content_hash ON papers
    BEGIN
        UPDATE library_state SET value = value + 1 WHERE key = 'generation';
    END;
    CREATE TRIGGER papers_deleted AFTER DELETE ON papers
    BEGIN
        UPDATE library_state SET value = value + 1 WHERE key = 'generation';
    END;
    CREATE TRIGGER embeddings_changed AFTER UPDATE ON embeddings
    BEGIN
        UPDATE library_state SET value = value + 1 WHERE key = 'generation';
    END;
    CREATE TRIGGER embeddings_deleted AFTER DELETE ON embeddings
    BEGIN
        UPDATE library_state SET value = value + 1 WHERE key = 'generation';
    END;
    """,
    # 5: the triage state of a paper (keep / maybe / reject), the user's own data like stars.
    """
    CREATE TABLE triage (
        paper_id   TEXT PRIMARY KEY,
        state      TEXT NOT NULL CHECK (state IN ('keep', 'maybe', 'reject')),
        updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
    );
    """,
    # 6: the card values the search page counts as facets (area, contribution, dataset by its
    # matching key, has_code), one row per paper and value, kept by triggers on cards: counting
    # them from the card JSON took 1 s on 21k papers.
    """
    CREATE TABLE card_facets (
        paper_id TEXT NOT NULL,
        facet    TEXT NOT NULL,
        key      TEXT NOT NULL,
        label    TEXT NOT NULL
    );
    CREATE INDEX card_facets_paper ON card_facets (paper_id);
    CREATE INDEX card_facets_key ON card_facets (facet, key);
    CREATE TRIGGER cards_facets_insert AFTER INSERT ON cards
    BEGIN
        DELETE FROM card_facets WHERE paper_id = NEW.paper_id;
        INSERT INTO card_facets (paper_id, facet, key, label)
        SELECT NEW.paper_id, 'area', json_extract(NEW.data, '$.area.label'), json_extract(NEW.data, '$.area.label')
        WHERE json_extract(NEW.data, '$.area.label') IS NOT NULL
        UNION ALL
        SELECT NEW.paper_id, 'contribution', json_extract(t.value, '$.type'), json_extract(t.value, '$.type')
        FROM json_each(NEW.data, '$.contribution_types') t WHERE json_extract(t.value, '$.type') IS NOT NULL
        UNION ALL
        SELECT NEW.paper_id, 'dataset',
            replace(replace(replace(replace(lower(json_extract(d.value, '$.name')), ' ', ''), '-', ''), '_', ''), '.', ''),
            json_extract(d.value, '$.name')
        FROM json_each(NEW.data, '$.datasets') d WHERE json_extract(d.value, '$.name') IS NOT NULL
        UNION ALL
        SELECT NEW.paper_id, 'has_code', 'true', 'true'
        WHERE json_array_length(json_extract(NEW.data, '$.code_urls')) > 0;
    END;
    CREATE TRIGGER cards_facets_update AFTER UPDATE OF data ON cards
    BEGIN
        DELETE FROM card_facets WHERE paper_id = NEW.paper_id;
        INSERT INTO card_facets (paper_id, facet, key, label)
        SELECT NEW.paper_id, 'area', json_extract(NEW.data, '$.area.label'), json_extract(NEW.data, '$.area.label')
        WHERE json_extract(NEW.data, '$.area.label') IS NOT NULL
        UNION ALL
        SELECT NEW.paper_id, 'contribution', json_extract(t.value, '$.type'), json_extract(t.value, '$.type')
        FROM json_each(NEW.data, '$.contribution_types') t WHERE json_extract(t.value, '$.type') IS NOT NULL
        UNION ALL
        SELECT NEW.paper_id, 'dataset',
            replace(replace(replace(replace(lower(json_extract(d.value, '$.name')), ' ', ''), '-', ''), '_', ''), '.', ''),
            json_extract(d.value, '$.name')
        FROM json_each(NEW.data, '$.datasets') d WHERE json_extract(d.value, '$.name') IS NOT NULL
        UNION ALL
        SELECT NEW.paper_id, 'has_code', 'true', 'true'
        WHERE json_array_length(json_extract(NEW.data, '$.code_urls')) > 0;
    END;
    CREATE TRIGGER cards_facets_delete AFTER DELETE ON cards
    BEGIN
        DELETE FROM card_facets WHERE paper_id = OLD.paper_id;
    END;
    INSERT INTO card_facets (paper_id, facet, key, label)
    SELECT * FROM (
        SELECT c.paper_id, 'area', json_extract(c.data, '$.area.label'), json_extract(c.data, '$.area.label')
        FROM cards c WHERE json_extract(c.data, '$.area.label') IS NOT NULL
        UNION ALL
        SELECT c.paper_id, 'contribution', json_extract(t.value, '$.type'), json_extract(t.value, '$.type')
        FROM cards c, json_each(c.data, '$.contribution_types') t WHERE json_extract(t.value, '$.type') IS NOT NULL
        UNION ALL
        SELECT c.paper_id, 'dataset',
            replace(replace(replace(replace(lower(json_extract(d.value, '$.name')), ' ', ''), '-', ''), '_', ''), '.', ''),
            json_extract(d.value, '$.name')
        FROM cards c, json_each(c.data, '$.datasets') d WHERE json_extract(d.value, '$.name') IS NOT NULL
        UNION ALL
        SELECT c.paper_id, 'has_code', 'true', 'true'
        FROM cards c WHERE json_array_length(json_extract(c.data, '$.code_urls')) > 0
    );
    """,
    # 7: near-duplicate keys are rebuilt (ingest/dedup.py, issue 13): shingles and title keys are
    # now taken over "match words" and external ids in canonical spelling, so every stored key is
    # stale. All of them go (alias keys too: they cannot be recomputed, and a record they pointed
    # at is matched again by its text); the next ingest re-indexes every paper
    # (pipeline._index_missing_keys).
    """
    DELETE FROM dedup_keys;
    UPDATE papers SET dedup_indexed = 0;
    """,
    # 8: triage gains the state "skimmed" (issue 14: unseen, i.e. no row, skimmed, maybe, keep,
    # reject). SQLite cannot alter a CHECK, so the table is rebuilt: new table, copy every row
    # with its rowid and time stamp, drop the old one, rename. The user's states are kept.
    """
    CREATE TABLE triage_v8 (
        paper_id   TEXT PRIMARY KEY,
        state      TEXT NOT NULL CHECK (state IN ('skimmed', 'maybe', 'keep', 'reject')),
        updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
    );
    INSERT INTO triage_v8 (rowid, paper_id, state, updated_at)
    SELECT rowid, paper_id, state, updated_at FROM triage;
    DROP TABLE triage;
    ALTER TABLE triage_v8 RENAME TO triage;
    """,
    # 9: titles from the official program (issue 15, ``paperscope enrich``). ``enrichments``
    # holds one row per paper whose fields were filled from a program entry: which program file
    # (resolved path), which entry (its line or record number, and the entry as read, JSON), how
    # (``agreed``: both rankings agreed; ``review``: accepted by hand), the score, when, and the
    # paper's columns, lexical-index title and card row before (JSON), so ``enrich --undo``
    # restores them exactly. ``enrich_suggestions`` holds the pairings left for review; a
    # rejected one is kept so a later run does not suggest it again. IF NOT EXISTS: tests re-run
    # migrations over a library that has these tables already.
    """
    CREATE TABLE IF NOT EXISTS enrichments (
        enrichment_id INTEGER PRIMARY KEY,
        paper_id      TEXT NOT NULL,
        program       TEXT NOT NULL,
        entry_line    INTEGER NOT NULL,
        entry         TEXT NOT NULL,
        session       TEXT,
        method        TEXT NOT NULL CHECK (method IN ('agreed', 'review')),
        score         REAL NOT NULL,
        before        TEXT NOT NULL,
        after         TEXT NOT NULL,
        attached_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
    );
    CREATE INDEX IF NOT EXISTS enrichments_paper ON enrichments (paper_id);
    CREATE TABLE IF NOT EXISTS enrich_suggestions (
        suggestion_id INTEGER PRIMARY KEY,
        paper_id      TEXT NOT NULL,
        program       TEXT NOT NULL,
        entry_line    INTEGER NOT NULL,
        entry         TEXT NOT NULL,
        rank          INTEGER NOT NULL,
        score         REAL NOT NULL,
        status        TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'rejected')),
        created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
        UNIQUE (paper_id, program, entry_line)
    );
    """,
    # 10: the sessions of a paper from the program (issue 23, the attendee's plan). One row per
    # session of the program entry attached to the paper (an oral listed twice in the program is
    # one entry with two sessions): its kind (``oral``, ``poster`` or the program's own word), the
    # session name, start and end as ISO 8601 with the program's UTC offset (``starts_at``), the
    # same instants in UTC (``starts_utc``, for ordering and overlap), the local day, the IANA time
    # zone when the program or ``--timezone`` names one, room or board, and the event's page.
    # Written in the transaction that attaches the entry, removed by ``enrich --undo``.
    """
    CREATE TABLE IF NOT EXISTS paper_sessions (
        paper_id   TEXT NOT NULL,
        program    TEXT NOT NULL,
        entry_line INTEGER NOT NULL,
        position   INTEGER NOT NULL,
        kind       TEXT NOT NULL,
        name       TEXT,
        starts_at  TEXT,
        ends_at    TEXT,
        starts_utc TEXT,
        ends_utc   TEXT,
        day        TEXT,
        timezone   TEXT,
        room       TEXT,
        url        TEXT,
        line       INTEGER NOT NULL,
        PRIMARY KEY (paper_id, program, position)
    );
    CREATE INDEX IF NOT EXISTS paper_sessions_day ON paper_sessions (day, starts_utc);
    """,
    # 11: the lexical index is stemmed (issue 24, :mod:`paperscope.analyzer`): ``title`` and
    # ``body`` hold Snowball English stems, and the new column ``exact`` the surface tokens whose
    # stem differs from them. The table is recreated empty with its new columns, and the analyzer
    # that built it is recorded as "none": on open, ``store.lexical.ensure_lexical_index``
    # rebuilds it from ``papers`` in Python (SQL cannot stem) in one transaction, and records the
    # analyzer. Old BM25 statistics (fts5vocab, the in-memory caches) are never read again: the
    # caches are keyed by the analyzer too.
    """
    DROP TABLE IF EXISTS papers_fts;
    CREATE VIRTUAL TABLE papers_fts USING fts5 (
        paper_id UNINDEXED, title, body, exact, tokenize = 'unicode61 remove_diacritics 2'
    );
    INSERT OR REPLACE INTO library_state (key, value) VALUES ('lexical_analyzer', 'none');
    """,
    # 12: a plain full-text index of the papers' title and abstract for other tools (issue 25):
    # ``datasette library.db`` offers a search box on ``papers``, and ``SELECT … FROM papers WHERE
    # rowid IN (SELECT rowid FROM papers_search_fts WHERE papers_search_fts MATCH 'pruning')``
    # works in any SQLite shell. paperscope's own BM25 index, ``papers_fts``, holds stemmed text
    # and a paper_id column, so no other tool can read it as a view of ``papers``. This one is an
    # FTS5 external-content table (it stores no text of its own: it reads ``papers`` by rowid),
    # kept in step by triggers on every insert, update of title or abstract, and delete of a
    # paper, and filled from the existing rows here. ``content="papers"`` is written with double
    # quotes: that is the spelling Datasette's ``detect_fts`` looks for in sqlite_master.
    """
    CREATE VIRTUAL TABLE IF NOT EXISTS papers_search_fts USING fts5 (
        title, abstract, content="papers", content_rowid="rowid",
        tokenize = 'unicode61 remove_diacritics 2'
    );
    INSERT INTO papers_search_fts (papers_search_fts) VALUES ('rebuild');
    CREATE TRIGGER IF NOT EXISTS papers_search_insert AFTER INSERT ON papers
    BEGIN
        INSERT INTO papers_search_fts (rowid, title, abstract) VALUES (NEW.rowid, NEW.title, NEW.abstract);
    END;
    CREATE TRIGGER IF NOT EXISTS papers_search_delete AFTER DELETE ON papers
    BEGIN
        INSERT INTO papers_search_fts (papers_search_fts, rowid, title, abstract)
        VALUES ('delete', OLD.rowid, OLD.title, OLD.abstract);
    END;
    CREATE TRIGGER IF NOT EXISTS papers_search_update AFTER UPDATE OF title, abstract ON papers
    BEGIN
        INSERT INTO papers_search_fts (papers_search_fts, rowid, title, abstract)
        VALUES ('delete', OLD.rowid, OLD.title, OLD.abstract);
        INSERT INTO papers_search_fts (rowid, title, abstract) VALUES (NEW.rowid, NEW.title, NEW.abstract);
    END;
    """,
    # 13: tags and notes without control characters (issue 26, kind 5). Before, a NUL or ESC
    # typed into a tag or note was stored raw, and the library's own CSV and BibTeX exports then
    # read as binary files on re-ingest. ``strip_controls`` is :func:`paperscope.text.strip_controls`,
    # registered on the connection for the migration only (``Store._migrate``). A cleaned tag that
    # equals one the paper has already is merged into it (INSERT OR IGNORE keeps the older row);
    # a tag or note with nothing left but blanks is removed, as ``marks.add_tag`` and
    # ``marks.set_note`` refuse or delete one today.
    """
    INSERT OR IGNORE INTO tags (paper_id, tag, added_at)
    SELECT paper_id, trim(strip_controls(tag)), added_at FROM tags
    WHERE tag <> trim(strip_controls(tag)) AND trim(strip_controls(tag)) <> '';
    DELETE FROM tags WHERE tag <> trim(strip_controls(tag));
    DELETE FROM notes WHERE body <> strip_controls(body) AND trim(strip_controls(body)) = '';
    UPDATE notes SET body = strip_controls(body) WHERE body <> strip_controls(body);
    """,
    # 14: title-less papers get the ``head`` key of rule 6 in ingest/dedup.py (issue 26, kind 7),
    # by which a titled record finds a stored list line that begins with its title. Papers stored
    # before it have none, so they are marked unindexed and the next ingest computes their keys
    # again (pipeline._index_missing_keys; the keys they have are kept, none is dropped).
    """
    UPDATE papers SET dedup_indexed = 0 WHERE title IS NULL OR title = '';
    """,
    # 15: a paper's lexical index row has the paper's own rowid (issue 28 item 3). ``paper_id`` is
    # an UNINDEXED column of ``papers_fts``, so replacing a row by ``DELETE … WHERE paper_id = ?``
    # read the whole table once per paper: ingest and ``load`` wrote 20,000 papers at 67 per
    # second, slower with every paper. With the rowids equal, a row is replaced by rowid (a
    # B-tree lookup). The stored rows are copied under their paper's rowid (FTS5 keeps the
    # indexed text: nothing is stemmed again); a row whose paper is gone is left out. A paper
    # with two rows (a damaged index ``doctor`` reported) cannot tell here which row is current:
    # then the analyzer is recorded as "none" and the whole index is rebuilt from ``papers`` on
    # open, as after migration 11 (``store.lexical.ensure_lexical_index``).
    """
    UPDATE library_state SET value = 'none' WHERE key = 'lexical_analyzer'
        AND EXISTS (SELECT 1 FROM papers_fts GROUP BY paper_id HAVING count(*) > 1);
    CREATE TEMP TABLE fts_by_rowid AS
        SELECT p.rowid AS rid, f.paper_id AS paper_id, f.title AS title, f.body AS body, f.exact AS exact
        FROM papers_fts f JOIN papers p ON p.paper_id = f.paper_id GROUP BY p.rowid;
    DELETE FROM papers_fts;
    INSERT INTO papers_fts (rowid, paper_id, title, body, exact)
        SELECT rid, paper_id, title, body, exact FROM temp.fts_by_rowid ORDER BY rid;
    DROP TABLE temp.fts_by_rowid;
    """,
]
