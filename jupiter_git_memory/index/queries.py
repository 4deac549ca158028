"""The catalog's reads: every query other packages need, by name, so SQL lives with the schema it reads
(`index/migrations.py`) and the connection stays private to the catalog. Rows come back by column name.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from ..records.row import RecordRow
from .term_index import Owners, holding


@dataclass
class ChunkRow:
    id: str
    record_id: str
    ordinal: int
    text_hash: str
    text: str
    body: str
    content_hash: str = ""  # the record version this chunk belongs to (set for new versions)


_CHUNK_COLS = tuple(f.name for f in fields(ChunkRow))
owners_lock = threading.Lock()  # recalls on a server's threads share a catalog's rowid map (term_index.py)
_BATCH = 400  # record versions per query: two parameters each, under SQLite's oldest limit (999)


def _chunk(row: sqlite3.Row) -> ChunkRow:
    have = row.keys()  # a new list on every call: asked once per row
    return ChunkRow(**{k: row[k] for k in _CHUNK_COLS if k in have})


def best_lexical(
    rows: list[tuple[str, float]],
    allowed: dict[str, tuple[str, str, str]],
    statuses: list[str],
    kinds: list[str] | None,
    limit: int,
) -> list[tuple[str, str, str, str, float]]:
    """Best lexical chunk per allowed record of a ranked window (`CatalogReads.lexical_rows`): [(record_id,
    chunk_id, kind, effective, score)], best first. `allowed` is the view's chunk map (view_chunk_map): the
    FTS index holds the chunks of every view, so a chunk counts only when the view holds it. bm25 is negated
    so higher is better."""
    out: list[tuple[str, str, str, str, float]] = []
    seen: set[str] = set()
    for cid, bm in rows:  # best first
        if cid not in allowed:
            continue
        rid, kind, effective = allowed[cid]
        if rid in seen:
            continue
        seen.add(rid)
        if effective in statuses and (not kinds or kind in kinds):
            out.append((rid, cid, kind, effective, -float(bm)))
    return out[:limit]


def record_row(row: sqlite3.Row) -> RecordRow:
    """A `records` row (the view's record joined with its content) as a RecordRow, by column name."""
    data = json.loads(row["data"])
    if row["origin"] == "file":  # contents are shared by every path holding the same bytes: the view's wins
        data["path"] = row["path"]
    return RecordRow(
        id=row["id"],
        path=row["path"],
        kind=row["kind"],
        declared_status=row["status"],
        effective_status=row["effective"],
        title=row["title"],
        content_hash=row["content_hash"],
        commit_sha=row["commit_sha"],
        dirty=bool(row["dirty"]),
        origin=row["origin"],
        data=data,
        error=row["error"],
    )


class CatalogReads:
    """Mixed into Catalog, which owns `_db` (the connection) and `view` (what `records`/`chunks` show)."""

    _db: sqlite3.Connection
    _memos: dict[str, tuple[Any, Any]]
    view: str | None
    stamp: Callable[[], tuple]  # Catalog's: the file and generation a cache of its content is keyed on
    _record = staticmethod(record_row)

    # -- records and chunks -------------------------------------------------------------------
    def shared_records(self) -> dict[str, RecordRow]:
        """The candidates as stored for every view, without this view's own rows for them (promotions)."""
        with self.viewing(None):  # type: ignore[attr-defined]  # Catalog's
            return self.records()

    def records(self, origin: str | None = None) -> dict[str, RecordRow]:
        q, args = "SELECT * FROM records", ()
        if origin:
            q, args = q + " WHERE origin=?", (origin,)
        return {r["id"]: self._record(r) for r in self._db.execute(q, args)}

    def count_in(self, statuses: Iterable[str]) -> int:
        """How many of the view's records have one of these effective statuses (no row decoded: the floor's
        check after every seed asks it)."""
        st = list(statuses)
        q = f"SELECT COUNT(*) FROM records WHERE effective IN ({','.join('?' * len(st))})"
        return int(self._db.execute(q, st).fetchone()[0]) if st else 0

    def is_empty(self) -> bool:
        return self._db.execute("SELECT 1 FROM records LIMIT 1").fetchone() is None

    def record(self, rid: str) -> RecordRow | None:
        row = self._db.execute("SELECT * FROM records WHERE id=?", (rid,)).fetchone()
        return self._record(row) if row else None

    def _where_in(self, sql: str, values: Iterable[str], prefix: list | None = None) -> list[sqlite3.Row]:
        """Run `sql` (ending in `IN ({})`) over `values` in batches under SQLite's parameter limit."""
        values = list(values)
        rows: list[sqlite3.Row] = []
        for i in range(0, len(values), 500):
            part = values[i : i + 500]
            rows += self._db.execute(sql.format(",".join("?" * len(part))), [*(prefix or []), *part]).fetchall()
        return rows

    def records_by_ids(self, ids: Iterable[str]) -> dict[str, RecordRow]:
        return {r["id"]: self._record(r) for r in self._where_in("SELECT * FROM records WHERE id IN ({})", ids)}

    def chunks(self, record_ids: Iterable[str] | None = None) -> dict[str, ChunkRow]:
        if record_ids is None:
            return {r["id"]: _chunk(r) for r in self._db.execute("SELECT * FROM chunks")}
        return {r["id"]: _chunk(r) for r in self._where_in("SELECT * FROM chunks WHERE record_id IN ({})", record_ids)}

    def version_chunk_ids(self, rid: str) -> list[str]:
        """The chunk ids of every version of `rid` the catalog holds, in any view (by its primary key)."""
        return [r[0] for r in self._db.execute("SELECT chunk_id FROM version_chunks WHERE record_id = ?", (rid,))]

    def chunks_by_id(self, chunk_ids: Iterable[str]) -> dict[str, ChunkRow]:
        return {r["id"]: _chunk(r) for r in self._where_in("SELECT * FROM chunks WHERE id IN ({})", chunk_ids)}

    def chunk_bodies(self) -> Iterator[tuple[str, str]]:
        """(record id, body) of every chunk in the view, streamed: a pass over a large index without holding it."""
        yield from self._db.execute("SELECT record_id, body FROM chunks")

    def chunk_ids(self) -> set[str]:
        """Chunk ids of the current view."""
        return {r[0] for r in self._db.execute("SELECT id FROM chunks")}

    def stored_chunk_ids(self) -> set[str]:
        """Every chunk any view uses (what Chroma should hold)."""
        return {r[0] for r in self._db.execute("SELECT id FROM chunk_store")}

    def stored_chunk_count(self) -> int:
        """How many vectors Chroma should hold (every write keeps the two equal; see Index.missing_vectors).
        Counted once per catalog generation (every write of chunks bumps it): every recall asks, and the
        count cost ~2.5 ms at 100,000 chunks."""
        return int(self._per_generation("stored", self.stamp(), lambda: self._count("chunk_store")))

    def parsed_by_hash(self, hashes: Iterable[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        """content hash -> (record id, parsed data) of stored file records: a new view reuses other views'
        parses instead of parsing the same bytes again."""
        return {
            r[0]: (r[1], json.loads(r[2]))
            for r in self._where_in("SELECT content_hash, id, data FROM contents WHERE content_hash IN ({})", hashes)
        }

    def unreferenced_chunks(self) -> list[str]:
        """Stored chunks no record version uses (a crash or a manual edit; the doctor reports them)."""
        return sorted(
            r[0]
            for r in self._db.execute(
                "SELECT id FROM chunk_store s WHERE NOT EXISTS (SELECT 1 FROM version_chunks v WHERE v.chunk_id = s.id)"
            )
        )

    def version_chunks(self, versions: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[ChunkRow]]:
        """Stored chunks of record versions (id, content hash), in order; versions not stored are absent.
        Asked in batches (a seed asks for every record of the view), not one query per version."""
        out: dict[tuple[str, str], list[ChunkRow]] = {}
        keys = list(dict.fromkeys(versions))
        for i in range(0, len(keys), _BATCH):
            batch = keys[i : i + _BATCH]
            sql = (
                "SELECT s.id, s.record_id, vc.ordinal, s.text_hash, s.text, s.body, vc.content_hash, "
                "vc.record_id AS version_record FROM version_chunks vc JOIN chunk_store s ON s.id = vc.chunk_id "
                f"WHERE (vc.record_id, vc.content_hash) IN (VALUES {','.join(['(?,?)'] * len(batch))}) "
                "ORDER BY vc.record_id, vc.content_hash, vc.ordinal"
            )
            for r in self._db.execute(sql, [x for key in batch for x in key]):
                out.setdefault((r["version_record"], r["content_hash"]), []).append(_chunk(r))
        return out

    def view_chunk_map(self) -> dict[str, tuple[str, str, str]]:
        """chunk id -> (record id, kind, effective status) for every chunk the current view holds."""
        return {
            r[0]: (r[1], r[2], r[3])
            for r in self._db.execute(
                "SELECT c.id, r.id, r.kind, r.effective FROM records r JOIN version_chunks vc "
                "ON vc.record_id = r.id AND vc.content_hash = r.content_hash JOIN chunk_store c ON c.id = vc.chunk_id"
            )
        }

    # -- views --------------------------------------------------------------------------------
    def get_view(self, name: str | None = None) -> dict[str, Any] | None:
        row = self._db.execute("SELECT * FROM views WHERE name=?", (name or self.view,)).fetchone()
        return dict(row) if row else None

    def drift(self, ids: list[str] | None = None) -> dict[str, dict[str, Any]]:
        """Record id -> its evidence drift in the current view (records/drift.py); records without one are absent."""
        rows = self._db.execute("SELECT id, data FROM drift WHERE view=?", (self.view,)).fetchall()
        want = set(ids) if ids is not None else None
        return {r[0]: json.loads(r[1]) for r in rows if want is None or r[0] in want}

    def views(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self._db.execute("SELECT * FROM views ORDER BY used_at")]

    def lexical_rows(self, match: str, chunk_window: int = 200) -> list[tuple[str, float]]:
        """[(chunk id, bm25)] of the best `chunk_window` chunks matching `match`, best first (bm25: lower is
        better), whatever view holds them. Only that window is ranked: this runs on every hybrid recall
        (measured: the FTS5 OR-query is most of its cost; a join or a rowid filter inside SQLite made it
        slower, not faster). The ranking sorts rowids and scores only; the window's chunk ids are read after
        it, in the same statement (reading each match's chunk id for the sorter cost ~7 % more at 100,000
        chunks; same rows in the same order on 46 questions)."""
        try:
            return self._db.execute(
                "SELECT (SELECT chunk_id FROM chunks_fts c WHERE c.rowid = t.r), t.s FROM "
                "(SELECT rowid AS r, bm25(chunks_fts, 0, 0, 2.0, 1.0) AS s FROM chunks_fts "
                "WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?) AS t",
                (match, chunk_window),
            ).fetchall()
        except sqlite3.OperationalError:  # a query FTS5 cannot parse: no lexical evidence
            return []

    def term_chunk_counts(self, terms: list[str]) -> dict[str, int]:
        """How many chunks contain each term (FTS5 counts are cheap: no ranking)."""
        out = {}
        for t in terms:
            try:
                out[t] = self._db.execute(
                    "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (f'"{t}"',)
                ).fetchone()[0]
            except sqlite3.OperationalError:
                out[t] = 0
        return out

    def term_records(self, terms: list[str]) -> dict[str, set[str]]:
        """term -> ids of the records with a chunk containing it (porter-stemmed, as the lexical index)."""
        owners = self._fts_owners()
        return {t: {owners.names[i] for i in np.flatnonzero(holding(self._db, t, owners))} for t in terms}

    def term_holders(
        self, terms: list[str], among: set[str], held: dict[str, tuple[Owners, np.ndarray]] | None = None
    ) -> tuple[dict[str, int], dict[str, set[str]]]:
        """(term -> how many records hold it, term -> which of `among` do): what corroboration weighs a band
        of hits with (recall/ranking.py `idf_mass`), the same figures as `term_records` without a set of
        every record that holds a common word.

        Why: reading `record_id` for each chunk a common word matches cost 50-120 ms per word at 50,000
        chunks. The matching rowids come from the FTS doclist alone (one string per word), and a rowid ->
        record table kept per catalog generation (`_fts_owners`) names their records. `held` (one find's):
        each term's holders, read once for both of a find's searches."""
        owners = self._fts_owners()
        ask = [(rid, owners.number[rid]) for rid in among if rid in owners.number]
        df, holders = {}, {}
        for t in terms:
            kept = held.get(t) if held is not None else None
            got = kept[1] if kept is not None and kept[0] is owners else None  # the same catalog generation
            if got is None:
                got = holding(self._db, t, owners)
                if held is not None:
                    held[t] = (owners, got)
            df[t] = int(np.count_nonzero(got))
            holders[t] = {rid for rid, i in ask if got[i]}
        return df, holders

    def _fts_owners(self) -> Owners:
        """Each indexed chunk's record, by FTS rowid, read once per catalog file and generation (every
        write of chunks bumps it): a server's recalls share one read."""
        with owners_lock:
            return self._per_generation("owners", self.stamp(), lambda: Owners.read(self._db))

    def record_count(self) -> int:
        """The view's records, counted once per catalog generation and view: every corroboration asks, and
        the count through the `records` view's join cost ~8 ms at 5,000 chunks."""
        return int(self._per_generation("records", (self.stamp(), self.view), lambda: self._count("records")))

    def _count(self, table: str) -> int:
        return int(self._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    def _per_generation(self, name: str, key: Any, read: Callable[[], Any]) -> Any:
        """`read()`, kept under `name` until `key` (the catalog's stamp, with what else the value depends on)
        changes: what every recall asks and only a write of the catalog changes."""
        memos = self.__dict__.setdefault("_memos", {})
        got = memos.get(name)
        if got is None or got[0] != key:
            got = memos[name] = (key, read())
        return got[1]

    # -- named queries for the surfaces and the candidate flow -------------------------------
    def find_records(
        self,
        limit: int,
        offset: int,
        *,
        kind: str | None = None,
        effective: str | None = None,
        origin: str | None = None,
        ids: list[str] | None = None,
        text: str | None = None,
        terms: list[str] | None = None,
    ) -> tuple[int, list[RecordRow]]:
        """(total, one page ordered by id) of the view's records matching every filter given: `ids` limits
        to those records (a tag's, from the link index); `text` keeps the records whose title or body holds
        every one of `terms` (FTS5) or whose id `text` is, or, without terms (only short words or stopwords),
        whose title holds `text` literally."""
        where: list[str] = []
        args: list[Any] = []
        for column, value in (("kind", kind), ("effective", effective), ("origin", origin)):
            if value:
                where.append(f"{column} = ?")
                args.append(value)
        if ids is not None:
            where.append("id IN (SELECT value FROM json_each(?))")
            args.append(json.dumps(ids))
        if text and terms:
            where.append("(id = ? OR id IN (SELECT record_id FROM chunks_fts WHERE chunks_fts MATCH ?))")
            args += [text, " AND ".join(f'"{w}"' for w in terms)]
        elif text:
            where.append("title LIKE ? ESCAPE '\\'")
            args.append("%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        clause = (" WHERE " + " AND ".join(where)) if where else ""
        total = self._db.execute(f"SELECT COUNT(*) FROM records{clause}", args).fetchone()[0]
        rows = self._db.execute(f"SELECT * FROM records{clause} ORDER BY id LIMIT ? OFFSET ?", [*args, limit, offset])
        return total, [record_row(r) for r in rows]

    def status_words(self) -> list[tuple[str, str | None, str, str | None]]:
        """(record id, path, effective status, unmapped status word or None) of every record in the view:
        what default recall's unmapped-majority rule reads (recall/fallback.py)."""
        return [
            (r[0], r[1], r[2], r[3] if isinstance(r[3], str) else None)
            for r in self._db.execute(
                "SELECT id, path, effective, json_extract(data, '$.metadata.status_unmapped') FROM records"
            )
        ]

    def list_field_links(self, field: str) -> Iterable[tuple[str, str]]:
        """(record id, JSON array) of every record whose data holds the list `field` (supersedes, tags ...)."""
        return self._db.execute(
            f"SELECT id, json_extract(data, '$.{field}') FROM records WHERE json_type(data, '$.{field}') = 'array'"
        ).fetchall()

    def candidate_run(self, agent: str, run_key: str) -> tuple[str, str] | None:
        """(candidate id, run JSON) of the candidate an agent's run already recorded, if any."""
        return self._db.execute(
            "SELECT r.id, j.value FROM records r, json_each(r.data, '$.runs') j WHERE r.origin = 'candidate' "
            "AND json_extract(j.value, '$.agent') = ? AND json_extract(j.value, '$.run_key') = ? LIMIT 1",
            (agent, run_key),
        ).fetchone()

    def indexed_candidates(self) -> set[str]:
        """Ids of the candidates that have chunks (by the chunks' record index, not a join)."""
        return {
            r[0]
            for r in self._db.execute(
                "SELECT DISTINCT record_id FROM chunks WHERE record_id IN (SELECT id FROM records WHERE origin='candidate')"
            )
        }

    def meta_items(self, hide: tuple[str, ...] = ("workspace",)) -> dict[str, str]:
        return {k: v for k, v in self._db.execute("SELECT key, value FROM meta") if k not in hide}

    def counts_by_kind(self) -> list[tuple[str, str, int]]:
        """(kind, effective status, count) of the view's file records."""
        return [
            tuple(r)
            for r in self._db.execute(
                "SELECT kind, effective, COUNT(*) FROM records WHERE origin = 'file' GROUP BY kind, effective "
                "ORDER BY kind, effective"
            )
        ]

    def counts_by_candidate_state(self) -> list[tuple[str, int]]:
        return [
            tuple(r)
            for r in self._db.execute(
                "SELECT json_extract(data, '$.state'), COUNT(*) FROM records WHERE origin = 'candidate' GROUP BY 1 ORDER BY 1"
            )
        ]

    # -- receipts (written through Catalog.apply) ---------------------------------------------
    def receipt(self, rid: str) -> dict | None:
        row = self._db.execute("SELECT data FROM receipts WHERE id=?", (rid,)).fetchone()
        return json.loads(row[0]) if row else None

    def receipt_count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM receipts").fetchone()[0]

    def receipts_returning(self, rid: str, window: int, limit: int) -> list[dict]:
        """The newest receipts (of the last `window`) whose answer included `rid`, newest first."""
        rows = self._db.execute(
            "SELECT data FROM (SELECT rowid, data FROM receipts ORDER BY rowid DESC LIMIT ?) AS r "
            "WHERE instr(r.data, ?) > 0 AND EXISTS (SELECT 1 FROM json_each(r.data, '$.ids') WHERE json_each.value = ?) "
            "ORDER BY rowid DESC LIMIT ?",
            (window, json.dumps(rid), rid, limit),
        ).fetchall()
        return [json.loads(d) for (d,) in rows]
