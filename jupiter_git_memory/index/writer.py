"""The one write path into the index. Seeding, candidates and repair all hand it a WritePlan.

Order matters for crash safety: vectors are written first and the catalog next, in one transaction; the
vectors of chunks that no view holds any more (found by that transaction) are deleted last. On a server, vectors
embedded now are first added to the team's content collection (append-only, index.shared). The next seed
diffs against Chroma's actual ids, so a crash at any point leaves at worst orphan vectors or missing ones,
which that seed deletes or re-embeds. A rebuild writes into a new collection and the catalog transaction
switches to it, so a killed rebuild leaves the old index answering.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .catalog import CatalogChanges, ChunkRow
from .handle import Index, index_meta, owns
from .vectors import VectorIndex, mark_current


@dataclass
class WritePlan:
    embed: list[tuple[ChunkRow, dict]] = field(default_factory=list)  # new vectors: chunk + chroma metadata
    update_meta: list[tuple[str, dict]] = field(default_factory=list)  # existing vectors, new metadata
    delete_vectors: list[str] = field(default_factory=list)
    fetched: int = 0  # the first `fetched` of `embed` came from the team's content collection (index.shared)
    catalog: CatalogChanges = field(default_factory=CatalogChanges)

    def empty(self) -> bool:
        c = self.catalog
        return not (
            self.embed
            or self.update_meta
            or self.delete_vectors
            or c.upsert_records
            or c.delete_records
            or c.upsert_chunks
            or c.delete_chunks
            or c.meta
        )


def apply_plan(index: Index, plan: WritePlan, vectors: np.ndarray | None, fault=None) -> int:
    """Write `plan` (vectors for `plan.embed`, in order). `fault(stage)` lets tests inject failures. A plan
    that changes the index also records the index's identity and workspace (index_meta) in the same write."""
    if not plan.empty() or plan.catalog.rebuild:
        plan.catalog.meta = {**index_meta(index), **plan.catalog.meta}
    if plan.embed:
        assert vectors is not None and len(vectors) == len(plan.embed)
        if index.content is not None and len(plan.embed) > plan.fetched:  # for the other stores, before ours
            index.content.publish([c.text for c, _ in plan.embed[plan.fetched :]], vectors[plan.fetched :])
        index.vectors.add([c.id for c, _ in plan.embed], vectors, [m for _, m in plan.embed])
    if fault:
        fault("after-add")
    if plan.update_meta:
        index.vectors.update_metadata([i for i, _ in plan.update_meta], [m for _, m in plan.update_meta])
    if plan.delete_vectors:
        index.vectors.delete(plan.delete_vectors)
    if fault:
        fault("before-catalog")
    generation = index.catalog.apply(plan.catalog)
    if index.replaces and index.replaces != index.vectors.name:  # a rebuild switched collections: retire the old
        if fault:
            fault("before-drop-old")
        if owns(index, index.replaces):  # on a server, another store's collection (an older jgm's) stays
            VectorIndex.drop(index.vectors.location, index.replaces)
        index.replaces = None
    if plan.catalog.dead_chunks:
        if fault:
            fault("before-gc")
        index.vectors.delete(plan.catalog.dead_chunks)
    mark_current(index.vectors.location, index.catalog.stamp())  # our own write: the cached client is current
    return generation
