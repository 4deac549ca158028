"""Catalog schema versions and the migrations between them (`PRAGMA user_version`).

Version 1 (stores made before views): one `records` row per record id and one `chunks` row per chunk, so
whichever worktree seeded last decided what every worktree saw. Version 2 splits that into shared
content and per-checkout views (dec-views-over-shared-vectors):

- `contents` (record id, content hash) -> the parsed record, shared by every view that holds those bytes;
- `chunk_store` chunk id -> text (content-addressed: `record_id#sha(text)`), one vector each in Chroma;
- `version_chunks` which chunks make up one (record id, content hash);
- `views` one per worktree (`wt:<root>`) and per `--at` commit (`at:<sha>`), and `view_records`
  (view, record id, content hash, effective status, path, commit, dirty, error): the view itself.
  Candidates live in the shared view `*`, seen from every view; a view whose files claim a candidate holds
  its own row for it (origin `promotion`), which shadows the shared one in that view only.

A migration never re-embeds: chunk ids and vectors are kept as they are. Only a writer (holding the
exclusive lock) migrates; a reader that finds an older schema says so (CatalogNeedsMigration), and one
that finds a newer schema than this code knows refuses it (CatalogTooNew) rather than misread it.
Version 3 adds evidence drift (records/drift.py): `drift` (view, record id) -> state and its detail, and
`views.drift_key`, what the view's drift was computed from (a seed with the same key computes nothing).
Version 4 re-indexes the lexical table with CJK-aware text (records/lexical.py: width and
Traditional/Simplified folds, CJK bigrams) from the chunk texts the catalog holds, without re-embedding; meta
`lexical_text` names what made it, and a writer re-indexes again when that changes (e.g. new OpenCC tables).

To change the schema: bump SCHEMA_VERSION, add a step to STEPS, and keep the test that migrates a store
written by the previous release (tests/fixtures/catalog-v2.sql) green.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

from ..base import error_codes as E
from ..base.errors import JgmError
from ..lifecycle.promote import PROMOTION  # a view's own row for a shared candidate, read back as `candidate`
from ..records.lexical import index_text, lexical_key

SCHEMA_VERSION = 4
SHARED_VIEW = "*"

SCHEMA_V2 = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS contents (
  id TEXT NOT NULL, content_hash TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL, title TEXT NOT NULL,
  data TEXT NOT NULL, PRIMARY KEY (id, content_hash)
);
CREATE INDEX IF NOT EXISTS contents_hash ON contents(content_hash);
CREATE TABLE IF NOT EXISTS views (
  name TEXT PRIMARY KEY, kind TEXT NOT NULL, root TEXT, rev TEXT, commit_sha TEXT, dirty INTEGER NOT NULL DEFAULT 0,
  fingerprint TEXT NOT NULL DEFAULT '', commits_at TEXT NOT NULL DEFAULT '', built_at REAL NOT NULL,
  used_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS view_records (
  view TEXT NOT NULL, id TEXT NOT NULL, content_hash TEXT NOT NULL, effective TEXT NOT NULL, path TEXT,
  commit_sha TEXT, dirty INTEGER NOT NULL DEFAULT 0, origin TEXT NOT NULL DEFAULT 'file', error TEXT,
  updated_at REAL NOT NULL, PRIMARY KEY (view, id)
);
CREATE INDEX IF NOT EXISTS view_records_version ON view_records(id, content_hash);
CREATE TABLE IF NOT EXISTS chunk_store (
  id TEXT PRIMARY KEY, record_id TEXT NOT NULL, text_hash TEXT NOT NULL, text TEXT NOT NULL, body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS version_chunks (
  record_id TEXT NOT NULL, content_hash TEXT NOT NULL, ordinal INTEGER NOT NULL, chunk_id TEXT NOT NULL,
  PRIMARY KEY (record_id, content_hash, ordinal)
);
CREATE INDEX IF NOT EXISTS version_chunks_chunk ON version_chunks(chunk_id);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(chunk_id UNINDEXED, record_id UNINDEXED, title, body,
  tokenize = 'porter unicode61');
CREATE TABLE IF NOT EXISTS receipts (id TEXT PRIMARY KEY, created_at REAL NOT NULL, data TEXT NOT NULL);
"""

SCHEMA_V3 = """
ALTER TABLE views ADD COLUMN drift_key TEXT NOT NULL DEFAULT '';
CREATE TABLE IF NOT EXISTS drift (
  view TEXT NOT NULL, id TEXT NOT NULL, state TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (view, id)
);
"""

# Per connection: `records` and `chunks` read as before, but only what the connection's current view holds
# (plus the shared candidates, unless the view has its own row for one), so code written against one index
# keeps working against a view.
VIEW_SQL = f"""
CREATE TEMP TABLE IF NOT EXISTS current_view (name TEXT);
CREATE TEMP VIEW IF NOT EXISTS records AS
  SELECT v.id AS id, v.path AS path, c.kind AS kind, c.status AS status, v.effective AS effective,
         c.title AS title, v.content_hash AS content_hash, v.commit_sha AS commit_sha, v.dirty AS dirty,
         CASE v.origin WHEN '{PROMOTION}' THEN 'candidate' ELSE v.origin END AS origin, c.data AS data,
         v.error AS error, v.updated_at AS updated_at
  FROM view_records v JOIN contents c ON c.id = v.id AND c.content_hash = v.content_hash
  WHERE v.view = (SELECT name FROM current_view)
     OR (v.view = '{SHARED_VIEW}' AND NOT EXISTS (SELECT 1 FROM view_records o
                                        WHERE o.view = (SELECT name FROM current_view) AND o.id = v.id));
CREATE TEMP VIEW IF NOT EXISTS chunks AS
  SELECT s.id AS id, s.record_id AS record_id, vc.ordinal AS ordinal, s.text_hash AS text_hash,
         s.text AS text, s.body AS body, vc.content_hash AS content_hash
  FROM records r JOIN version_chunks vc ON vc.record_id = r.id AND vc.content_hash = r.content_hash
  JOIN chunk_store s ON s.id = vc.chunk_id;
"""


def _tables(db: sqlite3.Connection) -> set[str]:
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}


class CatalogTooNew(JgmError):
    entry = E.INDEX_SCHEMA_TOO_NEW


class CatalogNeedsMigration(JgmError):
    entry = E.INDEX_NEEDS_MIGRATION


def _version(db: sqlite3.Connection) -> int:
    return db.execute("PRAGMA user_version").fetchone()[0]


def check_version(db: sqlite3.Connection, path: Path | str = "catalog") -> int:
    """The schema version of the catalog on `db`, when this code can read it as it is."""
    found = _version(db)
    if found > SCHEMA_VERSION:
        raise CatalogTooNew(
            f"{path}: the catalog has schema v{found}, newer than this jgm knows (v{SCHEMA_VERSION}); "
            "a newer jupiter-git-memory wrote it: upgrade (`pip install -U jupiter-git-memory`), or "
            "use another store (`--home DIR`)",
            path=str(path),
        )
    if found < SCHEMA_VERSION:
        raise CatalogNeedsMigration(
            f"{path}: the catalog has schema v{found}; this jgm reads v{SCHEMA_VERSION}: "
            "run `jgm seed` once (it migrates the catalog, keeping every vector)",
            path=str(path),
        )
    return found


def migrate(db: sqlite3.Connection, path: Path | str = "catalog") -> int:
    """Bring the catalog on `db` to SCHEMA_VERSION, one step at a time; returns the version it found (0 for a
    new file). Refuses a newer schema (CatalogTooNew)."""
    found = _version(db)
    if found == SCHEMA_VERSION and _lexical_current(db):
        return found
    if found > SCHEMA_VERSION:
        check_version(db, path)
    db.execute("BEGIN IMMEDIATE")
    try:
        found = _version(db)  # another process may have just migrated
        if found == 0 and "records" not in _tables(db):  # a new file: today's schema directly
            _create(db)
        else:
            for version in range(max(found, 1), SCHEMA_VERSION):
                STEPS[version](db)
            if not _lexical_current(db):  # made by another version of the lexical text (v4 and on)
                reindex_lexical(db)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return found


def _run(db: sqlite3.Connection, script: str) -> None:
    for stmt in filter(str.strip, script.split(";\n")):  # executescript would COMMIT
        db.execute(stmt)


def _create(db: sqlite3.Connection) -> None:
    _run(db, SCHEMA_V2)
    _v2_to_v3(db)
    _set_lexical_key(db)


def _lexical_current(db: sqlite3.Connection) -> bool:
    if "meta" not in _tables(db):
        return False
    got = db.execute("SELECT value FROM meta WHERE key = 'lexical_text'").fetchone()
    return got is not None and got[0] == lexical_key()


def _set_lexical_key(db: sqlite3.Connection) -> None:
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('lexical_text', ?)", (lexical_key(),))


def reindex_lexical(db: sqlite3.Connection) -> int:
    """Rebuild the FTS table from `chunk_store` (each chunk under its record's title), as
    index/catalog.py writes it; vectors and chunk ids are untouched. Returns the number of chunks."""
    db.execute("DELETE FROM chunks_fts")
    rows = db.execute(
        "SELECT s.id, s.record_id, s.body, (SELECT c.title FROM version_chunks vc JOIN contents c "
        "ON c.id = vc.record_id AND c.content_hash = vc.content_hash WHERE vc.chunk_id = s.id LIMIT 1) "
        "FROM chunk_store s"
    ).fetchall()
    db.executemany(
        "INSERT INTO chunks_fts(chunk_id, record_id, title, body) VALUES(?,?,?,?)",
        [(cid, rid, index_text(title or ""), index_text(body)) for cid, rid, body, title in rows],
    )
    _set_lexical_key(db)
    return len(rows)


def _v3_to_v4(db: sqlite3.Connection) -> None:
    """v3 -> v4: the lexical table re-indexed as records/lexical.py makes its text (CJK bigrams, folds)."""
    reindex_lexical(db)


def _v2_to_v3(db: sqlite3.Connection) -> None:
    """v2 -> v3: the drift table and each view's drift key (empty: the next seed of a view computes it)."""
    _run(db, SCHEMA_V3)


def _v1_to_v2(db: sqlite3.Connection) -> None:
    db.execute("ALTER TABLE records RENAME TO records_v1")
    db.execute("ALTER TABLE chunks RENAME TO chunks_v1")
    _run(db, SCHEMA_V2)
    _from_v1(db)


def _from_v1(db: sqlite3.Connection) -> None:
    """v1 -> v2: the single index becomes the view of the worktree that last opened it (its fingerprint left
    empty, so the first read there refreshes it); candidates go to the shared view; chunks keep their ids."""
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    root = json.loads(meta.get("workspace") or "{}").get("root") or "?"
    name = f"wt:{root}"
    now = float(meta.get("last_seed_at") or 0) or 0.0
    db.execute(
        "INSERT OR REPLACE INTO views(name, kind, root, rev, commit_sha, dirty, fingerprint, commits_at, "
        "built_at, used_at) VALUES(?, 'worktree', ?, NULL, ?, ?, '', ?, ?, ?)",
        (
            name,
            root,
            meta.get("last_seeded_commit") or None,
            int(meta.get("dirty") == "true"),
            meta.get("commits_at") or "",
            now,
            now,
        ),
    )
    db.execute(
        "INSERT OR IGNORE INTO contents(id, content_hash, kind, status, title, data) "
        "SELECT id, content_hash, kind, status, title, data FROM records_v1"
    )
    db.execute(
        "INSERT INTO view_records(view, id, content_hash, effective, path, commit_sha, dirty, origin, error, "
        "updated_at) SELECT CASE origin WHEN 'file' THEN ? ELSE ? END, id, content_hash, effective, path, "
        "commit_sha, dirty, origin, error, updated_at FROM records_v1",
        (name, SHARED_VIEW),
    )
    db.execute(
        "INSERT OR IGNORE INTO chunk_store(id, record_id, text_hash, text, body) "
        "SELECT id, record_id, text_hash, text, body FROM chunks_v1"
    )
    db.execute(
        "INSERT OR REPLACE INTO version_chunks(record_id, content_hash, ordinal, chunk_id) "
        "SELECT c.record_id, r.content_hash, c.ordinal, c.id FROM chunks_v1 c JOIN records_v1 r ON r.id = c.record_id"
    )
    db.execute("DROP TABLE records_v1")
    db.execute("DROP TABLE chunks_v1")


# version -> the step that brings a catalog from it to the next version
STEPS: dict[int, Callable[[sqlite3.Connection], None]] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4}
