"""The SQLite catalog: what is indexed, by record and chunk, plus receipts and candidates.

Why SQLite next to Chroma: the catalog is the source of truth for "what is indexed" (so a crash between
the two stores is repaired from it), it carries the lexical FTS5 index Chroma lacks locally, and it is
cheap to diff against the files for incremental seeds.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
  id TEXT PRIMARY KEY, path TEXT, kind TEXT NOT NULL, status TEXT NOT NULL, effective TEXT NOT NULL,
  title TEXT NOT NULL, content_hash TEXT NOT NULL, commit_sha TEXT, dirty INTEGER NOT NULL DEFAULT 0,
  origin TEXT NOT NULL DEFAULT 'file', data TEXT NOT NULL, error TEXT, updated_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS records_path ON records(path);
CREATE TABLE IF NOT EXISTS chunks (
  id TEXT PRIMARY KEY, record_id TEXT NOT NULL, ordinal INTEGER NOT NULL, text_hash TEXT NOT NULL,
  meta_hash TEXT NOT NULL, text TEXT NOT NULL, body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_record ON chunks(record_id);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(chunk_id UNINDEXED, record_id UNINDEXED, title, body,
  tokenize = 'porter unicode61');
CREATE TABLE IF NOT EXISTS receipts (
  id TEXT PRIMARY KEY, created_at REAL NOT NULL, data TEXT NOT NULL
);
"""


@dataclass
class ChunkRow:
    id: str
    record_id: str
    ordinal: int
    text_hash: str
    meta_hash: str
    text: str
    body: str


@dataclass
class RecordRow:
    id: str
    path: str | None
    kind: str
    status: str
    effective: str
    title: str
    content_hash: str
    commit_sha: str | None
    dirty: bool
    origin: str
    data: dict[str, Any]
    error: str | None = None

    def public(self) -> dict[str, Any]:
        d = dict(self.data)
        d.update(id=self.id, path=self.path, kind=self.kind, status=self.effective, declared_status=self.status,
                 title=self.title, commit=self.commit_sha, dirty=self.dirty, origin=self.origin)
        if self.error:
            d["stale_error"] = self.error
        d.pop("lines", None)
        return d


@dataclass
class CatalogChanges:
    """Everything one write changes in the catalog; applied in a single transaction."""

    upsert_records: list[RecordRow] = field(default_factory=list)
    delete_records: list[str] = field(default_factory=list)
    upsert_chunks: list[ChunkRow] = field(default_factory=list)
    delete_chunks: list[str] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)


class Catalog:
    def __init__(self, path: Path):
        self.path = path
        self.db = sqlite3.connect(str(path), timeout=60, isolation_level=None, check_same_thread=False)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    # -- meta ---------------------------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, value))

    def generation(self) -> int:
        return int(self.get_meta("generation", "0") or 0)

    # -- reads --------------------------------------------------------------------------------
    @staticmethod
    def _record(row: sqlite3.Row) -> RecordRow:
        return RecordRow(row["id"], row["path"], row["kind"], row["status"], row["effective"], row["title"],
                         row["content_hash"], row["commit_sha"], bool(row["dirty"]), row["origin"],
                         json.loads(row["data"]), row["error"])

    def records(self, origin: str | None = None) -> dict[str, RecordRow]:
        q, args = "SELECT * FROM records", ()
        if origin:
            q, args = q + " WHERE origin=?", (origin,)
        return {r["id"]: self._record(r) for r in self.db.execute(q, args)}

    def is_empty(self) -> bool:
        return self.db.execute("SELECT 1 FROM records LIMIT 1").fetchone() is None

    def record(self, rid: str) -> RecordRow | None:
        row = self.db.execute("SELECT * FROM records WHERE id=?", (rid,)).fetchone()
        return self._record(row) if row else None

    def _where_in(self, sql: str, values: Iterable[str]) -> list[sqlite3.Row]:
        """Run `sql` (ending in `IN ({})`) over `values` in batches under SQLite's parameter limit."""
        values = list(values)
        rows: list[sqlite3.Row] = []
        for i in range(0, len(values), 500):
            part = values[i : i + 500]
            rows += self.db.execute(sql.format(",".join("?" * len(part))), part).fetchall()
        return rows

    def records_by_ids(self, ids: Iterable[str]) -> dict[str, RecordRow]:
        return {r["id"]: self._record(r) for r in self._where_in("SELECT * FROM records WHERE id IN ({})", ids)}

    def chunks(self, record_ids: Iterable[str] | None = None) -> dict[str, ChunkRow]:
        if record_ids is None:
            return {r["id"]: ChunkRow(*r) for r in self.db.execute("SELECT * FROM chunks")}
        return {r["id"]: ChunkRow(*r) for r in self._where_in("SELECT * FROM chunks WHERE record_id IN ({})", record_ids)}

    def chunks_by_id(self, chunk_ids: Iterable[str]) -> dict[str, ChunkRow]:
        return {r["id"]: ChunkRow(*r) for r in self._where_in("SELECT * FROM chunks WHERE id IN ({})", chunk_ids)}

    def chunk_ids(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT id FROM chunks")}

    def lexical(self, match: str, statuses: list[str], kinds: list[str] | None, limit: int,
                chunk_window: int = 200) -> list[tuple[str, str, str, str, float]]:
        """Best lexical chunk per allowed record: [(record_id, chunk_id, kind, effective, score)], best first.

        bm25 is negated so higher is better. Only the best `chunk_window` chunks are ranked and only light
        record columns are read: this runs on every hybrid recall (measured: the FTS5 OR-query is most of
        its cost; a join or a rowid filter inside SQLite made it slower, not faster)."""
        try:
            rows = self.db.execute(
                "SELECT chunk_id, record_id, bm25(chunks_fts, 0, 0, 2.0, 1.0) AS s FROM chunks_fts "
                "WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?", (match, chunk_window)).fetchall()
        except sqlite3.OperationalError:  # a query FTS5 cannot parse: no lexical evidence
            return []
        best: dict[str, tuple[str, float]] = {}
        for cid, rid, bm in rows:
            if rid not in best:  # rows come best first
                best[rid] = (cid, -float(bm))
        meta = {r[0]: (r[1], r[2]) for r in self._where_in("SELECT id, kind, effective FROM records WHERE id IN ({})", best)}
        out = []
        for rid, (cid, score) in best.items():
            kind, effective = meta.get(rid, (None, None))
            if effective in statuses and (not kinds or kind in kinds):
                out.append((rid, cid, kind, effective, score))
        return out[:limit]

    def term_chunk_counts(self, terms: list[str]) -> dict[str, int]:
        """How many chunks contain each term (FTS5 counts are cheap: no ranking)."""
        out = {}
        for t in terms:
            try:
                out[t] = self.db.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (f'"{t}"',)).fetchone()[0]
            except sqlite3.OperationalError:
                out[t] = 0
        return out

    # -- writes -------------------------------------------------------------------------------
    def apply(self, ch: CatalogChanges) -> int:
        """Apply `ch` atomically and bump the generation; returns the new generation."""
        now = time.time()
        cur = self.db.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            for rid in ch.delete_records:
                cur.execute("DELETE FROM records WHERE id=?", (rid,))
            cur.executemany(
                "INSERT OR REPLACE INTO records VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [(r.id, r.path, r.kind, r.status, r.effective, r.title, r.content_hash, r.commit_sha, int(r.dirty),
                  r.origin, json.dumps(r.data, sort_keys=True), r.error, now) for r in ch.upsert_records])
            gone = list(ch.delete_chunks) + [c.id for c in ch.upsert_chunks]
            for i in range(0, len(gone), 500):
                part = gone[i : i + 500]
                marks = ",".join("?" * len(part))
                cur.execute(f"DELETE FROM chunks WHERE id IN ({marks})", part)
                cur.execute(f"DELETE FROM chunks_fts WHERE chunk_id IN ({marks})", part)
            cur.executemany("INSERT INTO chunks VALUES(?,?,?,?,?,?,?)",
                            [(c.id, c.record_id, c.ordinal, c.text_hash, c.meta_hash, c.text, c.body)
                             for c in ch.upsert_chunks])
            titles = {r.id: r.title for r in ch.upsert_records}
            missing = {c.record_id for c in ch.upsert_chunks} - set(titles)
            if missing:
                titles.update({k: v.title for k, v in self.records_by_ids(missing).items()})
            cur.executemany("INSERT INTO chunks_fts(chunk_id, record_id, title, body) VALUES(?,?,?,?)",
                            [(c.id, c.record_id, titles.get(c.record_id, ""), c.body) for c in ch.upsert_chunks])
            gen = self.generation() + 1
            meta = dict(ch.meta, generation=str(gen))
            cur.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", list(meta.items()))
            cur.execute("COMMIT")
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        return gen

    def clear_chunks(self) -> None:
        """Forget every chunk (used by `seed --rebuild`); records, candidates and receipts stay, and the
        next seed re-chunks and re-embeds them all."""
        self.db.executescript("BEGIN; DELETE FROM chunks; DELETE FROM chunks_fts; COMMIT;")
