"""Diff one view's desired state against the catalog and Chroma's actual ids (pure).

Chunk ids are `record_id#sha(text)`, so unchanged text keeps its vector across edits, moves, status
changes, branches and commits: only chunks no view has embedded yet are embedded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..chunking.chunker import Chunk
from ..records.row import RecordRow
from .catalog import CatalogChanges, ChunkRow
from .writer import WritePlan

Chunker = Callable[[str, str], list[Chunk]]


@dataclass
class SeedCounts:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    embedded_chunks: int = 0  # embedded by this seed (on a server: not found in the team's content collection)
    fetched_chunks: int = 0  # on a server: vectors another store had embedded, fetched instead
    deleted_vectors: int = 0


def chunk_meta(row: RecordRow, ordinal: int = 0) -> dict:
    """What Chroma stores per chunk: only what every view agrees on. A chunk id is `record_id#sha(text)`,
    so its record never changes; status, path and commit differ between views and live in the catalog."""
    return {"record_id": row.id}


def _row_changed(a: RecordRow, b: RecordRow) -> bool:
    return (a.content_hash, a.effective_status, a.path, a.commit_sha, a.dirty, a.declared_status, a.error, a.data) != (
        b.content_hash,
        b.effective_status,
        b.path,
        b.commit_sha,
        b.dirty,
        b.declared_status,
        b.error,
        b.data,
    )


def chunk_rows(row: RecordRow, chunks: list[Chunk]) -> list[ChunkRow]:
    out, seen = [], set()
    for c in chunks:
        cid = f"{row.id}#{c.hash[:16]}"
        n = 1
        while cid in seen:  # the same text twice in one record
            n += 1
            cid = f"{row.id}#{c.hash[:16]}~{n}"
        seen.add(cid)
        out.append(ChunkRow(cid, row.id, c.ordinal, c.hash, c.text, c.body, row.content_hash))
    return out


def plan_changes(
    desired: dict[str, RecordRow],
    previous: dict[str, RecordRow],
    known: dict[tuple[str, str], list[ChunkRow]],
    chroma_ids: set[str],
    chunker: Chunker,
    scope: set[str] | None = None,
    stored_chunks: set[str] | None = None,
) -> tuple[WritePlan, SeedCounts]:
    """`desired` is the complete wanted state of one view's records in `scope` (default: every previous one).

    `known` holds the stored chunks of record versions (id, content hash) any view already has: those are
    not chunked again, and their chunks are embedded only when Chroma lacks them. Records outside `scope`
    are left alone, which lets the candidate flow write one candidate through the same path. With
    `stored_chunks` (every chunk the catalog knows), vectors no chunk explains (crash leftovers) are deleted.
    Chunks of versions no view holds any more are collected by the catalog write itself.
    """
    counts = SeedCounts()
    plan = WritePlan(catalog=CatalogChanges())
    in_scope = set(previous) if scope is None else scope
    wanted: dict[str, ChunkRow] = {}
    for rid, row in desired.items():
        prev = previous.get(rid)
        rows = known.get((rid, row.content_hash))
        if rows is None:  # a version no view has: chunk it and store its chunks
            rows = chunk_rows(row, chunker(row.title, str(row.data.get("body", ""))))
            plan.catalog.upsert_chunks += rows
        for c in rows:
            wanted[c.id] = c
        if prev is None:
            counts.added.append(rid)
            plan.catalog.upsert_records.append(row)
        elif _row_changed(prev, row):
            counts.updated.append(rid)
            plan.catalog.upsert_records.append(row)
        else:
            counts.unchanged += 1
    for rid in sorted(in_scope - set(desired)):
        if rid in previous:
            counts.removed.append(rid)
            plan.catalog.delete_records.append(rid)
    for cid, c in wanted.items():
        if cid not in chroma_ids:
            plan.embed.append((c, chunk_meta(desired[c.record_id], c.ordinal)))
    if stored_chunks is not None:
        plan.delete_vectors = sorted(chroma_ids - stored_chunks - set(wanted))
    counts.embedded_chunks = len(plan.embed)
    counts.deleted_vectors = len(plan.delete_vectors)
    return plan, counts
