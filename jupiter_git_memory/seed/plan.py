"""Diff the desired index state against the catalog and Chroma's actual ids (pure).

Chunk ids are `record_id#sha(text)`, so unchanged text keeps its vector: a moved file or a status change
only updates metadata, and only new or edited chunks are embedded.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable

from ..chunking.chunker import Chunk
from ..index.catalog import CatalogChanges, ChunkRow, RecordRow
from ..index.writer import WritePlan, meta_hash

Chunker = Callable[[str, str], list[Chunk]]


@dataclass
class SeedCounts:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    embedded_chunks: int = 0
    metadata_updates: int = 0
    deleted_vectors: int = 0


def chunk_meta(row: RecordRow, ordinal: int) -> dict:
    """What Chroma stores per chunk: enough to filter by kind/status/origin without the catalog."""
    return {"record_id": row.id, "kind": row.kind, "status": row.effective, "path": row.path or "",
            "commit": row.commit_sha or "", "origin": row.origin, "ordinal": ordinal}


def _row_changed(a: RecordRow, b: RecordRow) -> bool:
    return (a.content_hash, a.effective, a.path, a.commit_sha, a.dirty, a.status, a.error, a.data) != \
           (b.content_hash, b.effective, b.path, b.commit_sha, b.dirty, b.status, b.error, b.data)


def chunk_rows(row: RecordRow, chunks: list[Chunk]) -> list[ChunkRow]:
    out, seen = [], set()
    for c in chunks:
        cid = f"{row.id}#{c.hash[:16]}"
        n = 1
        while cid in seen:  # the same text twice in one record
            n += 1
            cid = f"{row.id}#{c.hash[:16]}~{n}"
        seen.add(cid)
        out.append(ChunkRow(cid, row.id, c.ordinal, c.hash, meta_hash(chunk_meta(row, c.ordinal)), c.text, c.body))
    return out


def plan_changes(desired: dict[str, RecordRow], previous: dict[str, RecordRow], prev_chunks: dict[str, ChunkRow],
                 chroma_ids: set[str], chunker: Chunker, scope: set[str] | None = None) -> tuple[WritePlan, SeedCounts]:
    """`desired` is the complete wanted state of the records in `scope` (default: every previous record).

    Records outside `scope` are left alone, which lets the candidate flow write one candidate through
    the same path without touching file-backed records.
    """
    counts = SeedCounts()
    plan = WritePlan(catalog=CatalogChanges())
    by_record: dict[str, list[ChunkRow]] = defaultdict(list)
    for c in prev_chunks.values():
        by_record[c.record_id].append(c)
    in_scope = set(previous) if scope is None else scope
    wanted_chunks: dict[str, tuple[ChunkRow, dict]] = {}
    for rid, row in desired.items():
        prev = previous.get(rid)
        old = sorted(by_record.get(rid, []), key=lambda c: c.ordinal)
        if prev is not None and prev.content_hash == row.content_hash and old:
            rows = [ChunkRow(c.id, rid, c.ordinal, c.text_hash, meta_hash(chunk_meta(row, c.ordinal)), c.text, c.body)
                    for c in old]
        else:
            rows = chunk_rows(row, chunker(row.title, str(row.data.get("body", ""))))
        for c in rows:
            wanted_chunks[c.id] = (c, chunk_meta(row, c.ordinal))
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
    scoped_prev_chunks = {cid for cid, c in prev_chunks.items() if c.record_id in in_scope or c.record_id in desired}
    for cid, (c, meta) in wanted_chunks.items():
        prev_c = prev_chunks.get(cid)
        if cid not in chroma_ids:
            plan.embed.append((c, meta))
            plan.catalog.upsert_chunks.append(c)
        elif prev_c is None or prev_c.meta_hash != c.meta_hash:
            plan.update_meta.append((cid, meta))
            plan.catalog.upsert_chunks.append(c)
    plan.catalog.delete_chunks = sorted(scoped_prev_chunks - set(wanted_chunks))
    if scope is None:  # a full seed also removes vectors no catalog row explains (crash leftovers)
        known = set(wanted_chunks) | {cid for cid, c in prev_chunks.items() if c.record_id not in in_scope}
        plan.delete_vectors = sorted(chroma_ids - known)
    else:
        plan.delete_vectors = sorted((scoped_prev_chunks - set(wanted_chunks)) & chroma_ids)
    counts.embedded_chunks = len(plan.embed)
    counts.metadata_updates = len(plan.update_meta)
    counts.deleted_vectors = len(plan.delete_vectors)
    return plan, counts
