"""The SQLite catalog: what is indexed, by record and chunk, plus receipts and candidates.

Why SQLite next to Chroma: the catalog is the source of truth for "what is indexed" (so a crash between
the two stores is repaired from it), it carries the lexical FTS5 index Chroma lacks locally, and it is
cheap to diff against the files for incremental seeds.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..records.row import RecordRow
from .migrations import SHARED_VIEW, VIEW_SQL, migrate


@dataclass
class ChunkRow:
    id: str
    record_id: str
    ordinal: int
    text_hash: str
    text: str
    body: str
    content_hash: str = ""  # the record version this chunk belongs to (set for new versions)


@dataclass
class CatalogChanges:
    """Everything one write changes in the catalog; applied in a single transaction."""

    upsert_records: list[RecordRow] = field(default_factory=list)
    delete_records: list[str] = field(default_factory=list)
    upsert_chunks: list[ChunkRow] = field(default_factory=list)
    delete_chunks: list[str] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    view: dict[str, Any] | None = None  # the `views` row of the catalog's current view, written with the rest
    drop_views: list[str] = field(default_factory=list)  # views to forget (LRU eviction, removed worktrees)
    dead_chunks: list[str] = field(default_factory=list)  # out: chunks no view uses any more (vectors to delete)


class Catalog:
    """One connection, reading through one view: `records` and `chunks` are what `view` holds plus the shared
    candidates. `view=None` sees the candidates only."""

    def __init__(self, path: Path, view: str | None = None):
        self.path = path
        self.db = sqlite3.connect(str(path), timeout=60, isolation_level=None, check_same_thread=False)
        try:
            self.db.row_factory = sqlite3.Row
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            migrate(self.db)
            self.db.executescript(VIEW_SQL)
            self.view: str | None = None
            self.use_view(view)
        except sqlite3.DatabaseError:  # e.g. a corrupt file (index.recovery decides what to do)
            self.db.close()
            raise

    def use_view(self, view: str | None) -> None:
        self.db.execute("DELETE FROM current_view")
        if view is not None:
            self.db.execute("INSERT INTO current_view(name) VALUES(?)", (view,))
        self.view = view

    @contextlib.contextmanager
    def viewing(self, view: str | None):
        """Read through another view for a while (an `--at` recall on a long-lived connection)."""
        before = self.view
        self.use_view(view)
        try:
            yield self
        finally:
            self.use_view(before)

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
        data = json.loads(row["data"])
        if row["origin"] == "file":  # contents are shared by every path holding the same bytes: the view's wins
            data["path"] = row["path"]
        return RecordRow(row["id"], row["path"], row["kind"], row["status"], row["effective"], row["title"],
                         row["content_hash"], row["commit_sha"], bool(row["dirty"]), row["origin"], data, row["error"])

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

    def _where_in(self, sql: str, values: Iterable[str], prefix: list | None = None) -> list[sqlite3.Row]:
        """Run `sql` (ending in `IN ({})`) over `values` in batches under SQLite's parameter limit."""
        values = list(values)
        rows: list[sqlite3.Row] = []
        for i in range(0, len(values), 500):
            part = values[i : i + 500]
            rows += self.db.execute(sql.format(",".join("?" * len(part))), [*(prefix or []), *part]).fetchall()
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
        """Chunk ids of the current view."""
        return {r[0] for r in self.db.execute("SELECT id FROM chunks")}

    def stored_chunk_ids(self) -> set[str]:
        """Every chunk any view uses (what Chroma should hold)."""
        return {r[0] for r in self.db.execute("SELECT id FROM chunk_store")}

    def parsed_by_hash(self, hashes: Iterable[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        """content hash -> (record id, parsed data) of stored file records: a new view reuses other views'
        parses instead of parsing the same bytes again."""
        return {r[0]: (r[1], json.loads(r[2])) for r in self._where_in(
            "SELECT content_hash, id, data FROM contents WHERE content_hash IN ({})", hashes)}

    def unreferenced_chunks(self) -> list[str]:
        """Stored chunks no record version uses (a crash or a manual edit; the doctor reports them)."""
        return sorted(r[0] for r in self.db.execute(
            "SELECT id FROM chunk_store s WHERE NOT EXISTS (SELECT 1 FROM version_chunks v WHERE v.chunk_id = s.id)"))

    def version_chunks(self, versions: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[ChunkRow]]:
        """Stored chunks of record versions (id, content hash), in order; versions not stored are absent."""
        out: dict[tuple[str, str], list[ChunkRow]] = {}
        sql = ("SELECT s.id, s.record_id, vc.ordinal, s.text_hash, s.text, s.body, vc.content_hash "
               "FROM version_chunks vc JOIN chunk_store s ON s.id = vc.chunk_id "
               "WHERE vc.record_id = ? AND vc.content_hash = ? ORDER BY vc.ordinal")
        for key in versions:
            rows = self.db.execute(sql, key).fetchall()
            if rows:
                out[key] = [ChunkRow(*r) for r in rows]
        return out

    def view_chunk_map(self) -> dict[str, tuple[str, str, str]]:
        """chunk id -> (record id, kind, effective status) for every chunk the current view holds."""
        return {r[0]: (r[1], r[2], r[3]) for r in self.db.execute(
            "SELECT c.id, r.id, r.kind, r.effective FROM records r JOIN version_chunks vc "
            "ON vc.record_id = r.id AND vc.content_hash = r.content_hash JOIN chunk_store c ON c.id = vc.chunk_id")}

    # -- views --------------------------------------------------------------------------------
    def get_view(self, name: str | None = None) -> dict[str, Any] | None:
        row = self.db.execute("SELECT * FROM views WHERE name=?", (name or self.view,)).fetchone()
        return dict(row) if row else None

    def views(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db.execute("SELECT * FROM views ORDER BY used_at")]

    def touch_view(self, name: str) -> None:
        self.db.execute("UPDATE views SET used_at=? WHERE name=?", (time.time(), name))

    def lexical(self, match: str, allowed: dict[str, tuple[str, str, str]], statuses: list[str],
                kinds: list[str] | None, limit: int, chunk_window: int = 200) -> list[tuple[str, str, str, str, float]]:
        """Best lexical chunk per allowed record: [(record_id, chunk_id, kind, effective, score)], best first.

        `allowed` is the view's chunk map (view_chunk_map): the FTS index holds the chunks of every view,
        so a chunk counts only when the view holds it. bm25 is negated so higher is better. Only the best
        `chunk_window` chunks are ranked: this runs on every hybrid recall (measured: the FTS5 OR-query is
        most of its cost; a join or a rowid filter inside SQLite made it slower, not faster)."""
        try:
            rows = self.db.execute(
                "SELECT chunk_id, bm25(chunks_fts, 0, 0, 2.0, 1.0) AS s FROM chunks_fts "
                "WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?", (match, chunk_window)).fetchall()
        except sqlite3.OperationalError:  # a query FTS5 cannot parse: no lexical evidence
            return []
        out: list[tuple[str, str, str, str, float]] = []
        seen: set[str] = set()
        for cid, bm in rows:  # rows come best first
            if cid not in allowed:
                continue
            rid, kind, effective = allowed[cid]
            if rid in seen:
                continue
            seen.add(rid)
            if effective in statuses and (not kinds or kind in kinds):
                out.append((rid, cid, kind, effective, -float(bm)))
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

    def term_records(self, terms: list[str]) -> dict[str, set[str]]:
        """term -> ids of the records with a chunk containing it (porter-stemmed, as the lexical index)."""
        out = {}
        for t in terms:
            try:
                out[t] = {r[0] for r in self.db.execute(
                    "SELECT DISTINCT record_id FROM chunks_fts WHERE chunks_fts MATCH ?", (f'"{t}"',))}
            except sqlite3.OperationalError:
                out[t] = set()
        return out

    def record_count(self) -> int:
        return self.db.execute("SELECT count(*) FROM records").fetchone()[0]

    # -- writes -------------------------------------------------------------------------------
    def apply(self, ch: CatalogChanges) -> int:
        """Apply `ch` atomically and bump the generation; returns the new generation.

        File records go to the current view, candidates to the shared one. Record versions and chunks that
        no view holds any more are deleted in the same transaction and listed in `ch.dead_chunks`."""
        if self.view is None and (ch.view or any(r.origin == "file" for r in ch.upsert_records)):
            raise RuntimeError("catalog has no view to write file records to")
        now = time.time()
        cur = self.db.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            touched = self._write_view(cur, ch, now)
            for name in ch.drop_views:
                touched |= {tuple(r) for r in cur.execute("SELECT id, content_hash FROM view_records WHERE view=?", (name,))}
                cur.execute("DELETE FROM view_records WHERE view=?", (name,))
                cur.execute("DELETE FROM views WHERE name=?", (name,))
            self._write_chunks(cur, ch)
            ch.dead_chunks = self._collect(cur, touched, ch.delete_chunks)
            gen = self.generation() + 1
            meta = dict(ch.meta, generation=str(gen))
            cur.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", list(meta.items()))
            cur.execute("COMMIT")
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        return gen

    def _write_view(self, cur: sqlite3.Cursor, ch: CatalogChanges, now: float) -> set[tuple[str, str]]:
        views = (self.view, SHARED_VIEW)
        ids = list(ch.delete_records) + [r.id for r in ch.upsert_records]
        touched = {(r[0], r[1]) for r in self._where_in(
            f"SELECT id, content_hash FROM view_records WHERE view IN ('{SHARED_VIEW}', ?) AND id IN ({{}})", ids,
            prefix=[self.view or SHARED_VIEW])} if ids else set()
        for rid in ch.delete_records:
            cur.execute("DELETE FROM view_records WHERE view IN (?, ?) AND id=?", (*views, rid))
        for verb, rows in (("IGNORE", [r for r in ch.upsert_records if r.origin == "file"]),
                           ("REPLACE", [r for r in ch.upsert_records if r.origin != "file"])):
            # a file version's bytes fix its parse; a candidate's state and evidence change under one hash
            cur.executemany(f"INSERT OR {verb} INTO contents VALUES(?,?,?,?,?,?)",
                            [(r.id, r.content_hash, r.kind, r.status, r.title, json.dumps(r.data, sort_keys=True))
                             for r in rows])
        cur.executemany(
            "INSERT OR REPLACE INTO view_records VALUES(?,?,?,?,?,?,?,?,?,?)",
            [(self.view if r.origin == "file" else SHARED_VIEW, r.id, r.content_hash, r.effective, r.path,
              r.commit_sha, int(r.dirty), r.origin, r.error, now) for r in ch.upsert_records])
        if ch.view:
            v = dict(ch.view, name=self.view, built_at=now, used_at=now)
            cols = ",".join(v)
            cur.execute(f"INSERT OR REPLACE INTO views({cols}) VALUES({','.join('?' * len(v))})", list(v.values()))
        return touched

    def _write_chunks(self, cur: sqlite3.Cursor, ch: CatalogChanges) -> None:
        hashes = {r.id: r.content_hash for r in ch.upsert_records}
        titles = {r.id: r.title for r in ch.upsert_records}
        for c in ch.upsert_chunks:
            version = c.content_hash or hashes.get(c.record_id, "")
            cur.execute("INSERT OR REPLACE INTO version_chunks VALUES(?,?,?,?)", (c.record_id, version, c.ordinal, c.id))
            cur.execute("INSERT OR IGNORE INTO chunk_store VALUES(?,?,?,?,?)", (c.id, c.record_id, c.text_hash, c.text, c.body))
            if cur.rowcount == 1:  # a chunk new to the store: index its text once
                title = titles.get(c.record_id)
                if title is None:
                    got = cur.execute("SELECT title FROM contents WHERE id=? AND content_hash=?", (c.record_id, version)).fetchone()
                    title = got[0] if got else ""
                cur.execute("INSERT INTO chunks_fts(chunk_id, record_id, title, body) VALUES(?,?,?,?)",
                            (c.id, c.record_id, title, c.body))

    def _collect(self, cur: sqlite3.Cursor, touched: set[tuple[str, str]], delete_chunks: list[str]) -> list[str]:
        """Delete versions no view holds and chunks no version uses; returns the deleted chunk ids."""
        maybe: set[str] = set(delete_chunks)
        for cid in delete_chunks:  # explicit deletes (doctor repair): chunks of no record
            cur.execute("DELETE FROM version_chunks WHERE chunk_id=?", (cid,))
        for rid, h in touched:
            if cur.execute("SELECT 1 FROM view_records WHERE id=? AND content_hash=? LIMIT 1", (rid, h)).fetchone():
                continue
            cur.execute("DELETE FROM contents WHERE id=? AND content_hash=?", (rid, h))
            maybe |= {r[0] for r in cur.execute("SELECT chunk_id FROM version_chunks WHERE record_id=? AND content_hash=?", (rid, h))}
            cur.execute("DELETE FROM version_chunks WHERE record_id=? AND content_hash=?", (rid, h))
        dead = sorted(cid for cid in maybe
                      if not cur.execute("SELECT 1 FROM version_chunks WHERE chunk_id=? LIMIT 1", (cid,)).fetchone())
        for i in range(0, len(dead), 500):
            part = dead[i : i + 500]
            marks = ",".join("?" * len(part))
            cur.execute(f"DELETE FROM chunk_store WHERE id IN ({marks})", part)
            cur.execute(f"DELETE FROM chunks_fts WHERE chunk_id IN ({marks})", part)
        return dead

    def clear_chunks(self) -> None:
        """Forget every chunk and every view but the current one (used by `seed --rebuild`: other views
        rebuild themselves on their next read); records, candidates and receipts stay, and the next seed
        re-chunks and re-embeds them all."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            for sql in ("DELETE FROM chunk_store", "DELETE FROM version_chunks", "DELETE FROM chunks_fts"):
                self.db.execute(sql)
            self.db.execute("DELETE FROM view_records WHERE view NOT IN (?, ?)", (SHARED_VIEW, self.view or ""))
            self.db.execute("DELETE FROM views WHERE name != ?", (self.view or "",))
            self.db.execute("DELETE FROM contents WHERE NOT EXISTS (SELECT 1 FROM view_records v "
                            "WHERE v.id = contents.id AND v.content_hash = contents.content_hash)")
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
