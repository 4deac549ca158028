"""The SQLite catalog: what is indexed, by record and chunk, plus receipts and candidates.

Why SQLite next to Chroma: the catalog is the source of truth for "what is indexed" (so a crash between
the two stores is repaired from it), it carries the lexical FTS5 index Chroma lacks locally, and it is
cheap to diff against the files for incremental seeds.

The connection is private: reads are the named queries of `CatalogReads` (index/queries.py), and every
write, meta and receipts included, is one `apply(CatalogChanges)` transaction (index/writer.py adds the
vectors around it). Opening writes nothing unless `write=True` (a writer under the exclusive lock), which
also migrates an older schema (index/migrations.py).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..base.errors import store_failures
from ..records.lexical import index_text
from ..records.row import RecordRow
from .damage import damaged, is_corruption
from .migrations import PROMOTION, SHARED_VIEW, VIEW_SQL, check_version, migrate
from .queries import CatalogReads, ChunkRow, owners_lock
from .term_index import Owners, holding

_beside_lock = threading.Lock()  # a server's threads open a catalog's second connection once


def store_errors(path: Path):
    """A full or read-only disk under the catalog as StoreFull / StoreReadOnly naming it; corruption and
    everything else as it came (index.recovery decides about damage)."""
    return store_failures(path, sqlite3.Error, unless=is_corruption)


def _file_id(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


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
    rebuild: bool = False  # a re-read (`seed --rebuild`, a parser change): clear every chunk first and
    # replace the stored parses, in the same transaction
    receipts: list[dict] = field(default_factory=list)  # append-only; no generation bump
    touch_views: list[str] = field(default_factory=list)  # views just read (their LRU time); no bump
    drift: list[dict[str, Any]] | None = None  # the current view's evidence drift, replacing what it had
    dead_chunks: list[str] = field(default_factory=list)  # out: chunks no view uses any more (vectors to delete)

    def changes_index(self) -> bool:
        return bool(
            self.upsert_records
            or self.delete_records
            or self.upsert_chunks
            or self.delete_chunks
            or self.meta
            or self.view
            or self.drop_views
            or self.rebuild
            or self.drift is not None
        )


class Catalog(CatalogReads):
    """One connection, reading through one view: `records` and `chunks` are what `view` holds plus the shared
    candidates. `view=None` sees the candidates only."""

    def __init__(self, path: Path, view: str | None = None, write: bool = False):
        with store_errors(path):
            self._open(path, view, write)

    def _open(self, path: Path, view: str | None, write: bool) -> None:
        self.path = path
        # a reader of a catalog nobody has written yet reads an empty one in memory: connecting would create
        # the file (a write), and an empty answer is what it holds anyway
        blank = not write and (not path.exists() or path.stat().st_size == 0)
        self.blank = blank  # long-lived readers reopen once a writer has made the file (Recaller.index)
        self._beside: sqlite3.Connection | None = None  # a second connection, opened when first asked
        self._beside_busy = threading.Lock()  # one read transaction at a time on it
        self._file = None if blank else _file_id(path)  # before connecting: a swap in between reopens once more
        where = ":memory:" if blank else str(path)
        self._db = sqlite3.connect(where, timeout=60, isolation_level=None, check_same_thread=False)
        try:
            self._db.row_factory = sqlite3.Row
            if write:
                self._db.execute("PRAGMA journal_mode=WAL")  # persistent: set once, by a writer
                migrate(self._db, path)
            elif blank:
                migrate(self._db, path)
            else:
                check_version(self._db, path)  # never migrates: a reader holds only the shared lock
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(VIEW_SQL)  # TEMP objects: this connection's, not the file's
            self.view: str | None = None
            self.use_view(view)
        except BaseException:  # e.g. a corrupt file (index.recovery decides what to do)
            self._db.close()
            raise

    def use_view(self, view: str | None) -> None:
        self._db.execute("DELETE FROM current_view")
        if view is not None:
            self._db.execute("INSERT INTO current_view(name) VALUES(?)", (view,))
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
        self._db.close()
        if self._beside is not None:
            self._beside.close()

    def prefetch_holders(self, terms: list[str], held: dict[str, tuple[Owners, np.ndarray]]) -> None:
        """Read each term's holders into a find's `held` memo (term_holders), on a second connection: SQLite
        runs one statement at a time per connection, and the lexical worker's FTS query holds the first for
        10-40 ms at 100,000 chunks. One read transaction, so the rowid map (kept per generation, as
        `_fts_owners` keeps it) and the doclists are of the same generation."""
        db = self._second()
        if db is None:
            return
        with self._beside_busy, store_errors(self.path):
            db.execute("BEGIN")
            try:
                gen = db.execute("SELECT value FROM meta WHERE key='generation'").fetchone()
                key = (self._file, int(gen[0]) if gen else 0)  # what stamp() reads, in this transaction
                with owners_lock:  # the map _fts_owners keeps, read here when this generation has none yet
                    owners = self._per_generation("owners", key, lambda: Owners.read(db))
                for t in terms:
                    if t not in held:
                        held[t] = (owners, holding(db, t, owners))
            finally:
                db.execute("COMMIT")

    def _second(self) -> sqlite3.Connection | None:
        """The second connection, for reads only (one deferred transaction at a time); None for a catalog kept
        in memory. Opened `mode=rw` (it never creates the file), not `mode=ro`: with a read-only connection
        beside it, a receipt a hook process committed on the first connection reached the WAL file, yet no
        other process saw it (tests/test_hook_receipts.py)."""
        if self.blank:
            return None
        with _beside_lock:
            if self._beside is None:
                uri = f"{Path(self.path).resolve().as_uri()}?mode=rw"
                self._beside = sqlite3.connect(uri, uri=True, timeout=60, isolation_level=None, check_same_thread=False)
            return self._beside

    def stamp(self) -> tuple:
        """What a cache of this catalog's content is keyed on: the file and its generation (a catalog rebuilt
        after a recovery starts its generations again, so the number alone would match an older file)."""
        return self._file, self.generation()

    def replaced(self) -> bool:
        """Whether `path` is no longer the file this connection reads: another process's recovery moved a
        corrupt catalog aside and made a new one. The old connection would go on answering from the old
        file, generation and all, so a long-lived reader reopens (Recaller.index). So it does when the file
        was torn under it (cut short, overwritten): its cached pages and its `-wal` would go on answering
        from a state the file no longer holds, and the reopen names the damage (index.recovery.check)."""
        if self._file is None:
            return False
        return _file_id(self.path) != self._file or self.damage() is not None

    def damage(self) -> str | None:
        """What is wrong with the file under this connection (index.damage.damaged), or None."""
        return None if self.blank else damaged(self._db, self.path)

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def generation(self) -> int:
        return int(self.get_meta("generation", "0") or 0)

    def touch_view(self, name: str) -> None:
        """Mark a view used now (LRU eviction keeps the recently read `--at` views)."""
        self.apply(CatalogChanges(touch_views=[name]))

    # -- the one write ------------------------------------------------------------------------
    def apply(self, ch: CatalogChanges) -> int:
        """Apply `ch` atomically; returns the generation, bumped when what is indexed changed.

        File records and promotions go to the current view, candidates to the shared one (a candidate written
        there drops this view's promotion of it; a deleted one is gone from every view). Record versions and
        chunks that no view holds any more are deleted in the same transaction and listed in `ch.dead_chunks`. Receipts
        and view use times are bookkeeping: they change no answer, so they bump nothing (a recall that
        stores its receipt does not make every reader reopen the index)."""
        if self.view is None and (ch.view or any(r.origin in ("file", PROMOTION) for r in ch.upsert_records)):
            raise RuntimeError("catalog has no view to write file records to")
        with store_errors(self.path):
            return self._apply(ch)

    def _apply(self, ch: CatalogChanges) -> int:
        now = time.time()
        cur = self._db.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            cur.executemany(
                "INSERT INTO receipts(id, created_at, data) VALUES(?,?,?)",
                [(r["id"], r["timestamp"], json.dumps(r, sort_keys=True)) for r in ch.receipts],
            )
            cur.executemany("UPDATE views SET used_at=? WHERE name=?", [(now, name) for name in ch.touch_views])
            if not ch.changes_index():
                cur.execute("COMMIT")
                return self.generation()
            if ch.rebuild:
                self._clear_chunks(cur)
            touched = self._write_view(cur, ch, now)
            for name in ch.drop_views:
                touched |= {
                    tuple(r) for r in cur.execute("SELECT id, content_hash FROM view_records WHERE view=?", (name,))
                }
                cur.execute("DELETE FROM view_records WHERE view=?", (name,))
                cur.execute("DELETE FROM drift WHERE view=?", (name,))
                cur.execute("DELETE FROM views WHERE name=?", (name,))
            if ch.drift is not None:
                cur.execute("DELETE FROM drift WHERE view=?", (self.view,))
                cur.executemany(
                    "INSERT INTO drift(view, id, state, data) VALUES(?,?,?,?)",
                    [(self.view, d["id"], d["state"], json.dumps(d, sort_keys=True)) for d in ch.drift],
                )
            self._write_chunks(cur, ch)
            ch.dead_chunks = self._collect(cur, touched, ch.delete_chunks)
            gen = self.generation() + 1
            meta = dict(ch.meta, generation=str(gen))
            cur.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", list(meta.items()))
            cur.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:  # SQLite may have rolled back itself (a full disk): then nothing to undo
                with contextlib.suppress(sqlite3.Error):  # never hide the error that brought us here
                    cur.execute("ROLLBACK")
            raise
        return gen

    def _write_view(self, cur: sqlite3.Cursor, ch: CatalogChanges, now: float) -> set[tuple[str, str]]:
        views = (self.view, SHARED_VIEW)
        ids = list(ch.delete_records) + [r.id for r in ch.upsert_records]
        touched = (
            {
                (r[0], r[1])
                for r in self._where_in(
                    f"SELECT id, content_hash FROM view_records WHERE (view IN ('{SHARED_VIEW}', ?) OR origin = '{PROMOTION}') "
                    "AND id IN ({})",
                    ids,
                    prefix=[self.view or SHARED_VIEW],
                )
            }
            if ids
            else set()
        )
        for rid in ch.delete_records:
            cur.execute(
                "DELETE FROM view_records WHERE (view IN (?, ?) OR origin = ?) AND id=?", (*views, PROMOTION, rid)
            )
        for r in ch.upsert_records:
            if r.origin == "candidate":
                cur.execute("DELETE FROM view_records WHERE view=? AND id=? AND origin=?", (self.view, r.id, PROMOTION))
        for verb, rows in (
            ("REPLACE" if ch.rebuild else "IGNORE", [r for r in ch.upsert_records if r.origin == "file"]),
            ("REPLACE", [r for r in ch.upsert_records if r.origin != "file"]),
        ):
            # a file version's bytes fix its parse (until the parser changes: a re-read replaces it); a
            # candidate's state and evidence change under one hash
            cur.executemany(
                f"INSERT OR {verb} INTO contents(id, content_hash, kind, status, title, data) VALUES(?,?,?,?,?,?)",
                [
                    (r.id, r.content_hash, r.kind, r.declared_status, r.title, json.dumps(r.data, sort_keys=True))
                    for r in rows
                ],
            )
        cur.executemany(
            "INSERT OR REPLACE INTO view_records(view, id, content_hash, effective, path, commit_sha, dirty, origin, "
            "error, updated_at) VALUES(?,?,?,?,?,?,?,?,?,?)",
            [
                (
                    SHARED_VIEW if r.origin == "candidate" else self.view,
                    r.id,
                    r.content_hash,
                    r.effective_status,
                    r.path,
                    r.commit_sha,
                    int(r.dirty),
                    r.origin,
                    r.error,
                    now,
                )
                for r in ch.upsert_records
            ],
        )
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
            cur.execute(
                "INSERT OR REPLACE INTO version_chunks(record_id, content_hash, ordinal, chunk_id) VALUES(?,?,?,?)",
                (c.record_id, version, c.ordinal, c.id),
            )
            cur.execute(
                "INSERT OR IGNORE INTO chunk_store(id, record_id, text_hash, text, body) VALUES(?,?,?,?,?)",
                (c.id, c.record_id, c.text_hash, c.text, c.body),
            )
            if cur.rowcount == 1:  # a chunk new to the store: index its text once
                title = titles.get(c.record_id)
                if title is None:
                    got = cur.execute(
                        "SELECT title FROM contents WHERE id=? AND content_hash=?", (c.record_id, version)
                    ).fetchone()
                    title = got[0] if got else ""
                cur.execute(
                    "INSERT INTO chunks_fts(chunk_id, record_id, title, body) VALUES(?,?,?,?)",
                    (c.id, c.record_id, index_text(title), index_text(c.body)),  # as migrations.reindex_lexical
                )

    def _collect(self, cur: sqlite3.Cursor, touched: set[tuple[str, str]], delete_chunks: list[str]) -> list[str]:
        """Delete versions no view holds and chunks no version uses; returns the deleted chunk ids."""
        maybe: set[str] = set(delete_chunks)
        for cid in delete_chunks:  # explicit deletes (doctor repair): chunks of no record
            cur.execute("DELETE FROM version_chunks WHERE chunk_id=?", (cid,))
        for rid, h in touched:
            if cur.execute("SELECT 1 FROM view_records WHERE id=? AND content_hash=? LIMIT 1", (rid, h)).fetchone():
                continue
            cur.execute("DELETE FROM contents WHERE id=? AND content_hash=?", (rid, h))
            maybe |= {
                r[0]
                for r in cur.execute(
                    "SELECT chunk_id FROM version_chunks WHERE record_id=? AND content_hash=?", (rid, h)
                )
            }
            cur.execute("DELETE FROM version_chunks WHERE record_id=? AND content_hash=?", (rid, h))
        dead = sorted(
            cid
            for cid in maybe
            if not cur.execute("SELECT 1 FROM version_chunks WHERE chunk_id=? LIMIT 1", (cid,)).fetchone()
        )
        for i in range(0, len(dead), 500):
            part = dead[i : i + 500]
            marks = ",".join("?" * len(part))
            cur.execute(f"DELETE FROM chunk_store WHERE id IN ({marks})", part)
            cur.execute(f"DELETE FROM chunks_fts WHERE chunk_id IN ({marks})", part)
        return dead

    def _clear_chunks(self, cur: sqlite3.Cursor) -> None:
        """`seed --rebuild`, inside its write: forget every chunk and every view but the current one (other
        views rebuild themselves on their next read); records, candidates and receipts stay, and the same
        write re-chunks the current view (its vectors were dropped when the index was opened)."""
        for sql in ("DELETE FROM chunk_store", "DELETE FROM version_chunks", "DELETE FROM chunks_fts"):
            cur.execute(sql)
        cur.execute("DELETE FROM view_records WHERE view NOT IN (?, ?)", (SHARED_VIEW, self.view or ""))
        cur.execute("DELETE FROM views WHERE name != ?", (self.view or "",))
        cur.execute("DELETE FROM drift WHERE view != ?", (self.view or "",))
        cur.execute(
            "DELETE FROM contents WHERE NOT EXISTS (SELECT 1 FROM view_records v "
            "WHERE v.id = contents.id AND v.content_hash = contents.content_hash)"
        )
