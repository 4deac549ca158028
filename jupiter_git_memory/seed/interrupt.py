"""A seed interrupted (Ctrl-C) while it embeds: what it keeps, and the error that says so.

Why keep anything: an interrupted first seed of a large collection would otherwise lose minutes of embedding,
and the user would not know whether the index was damaged. What is kept goes through the one write path in
one transaction, so the store stays consistent whatever the timing; the view's row (its commit, fingerprint
and drift) is not written, so the next read or seed still sees the view as behind and finishes it.
"""

from __future__ import annotations

from ..base import error_codes as E
from ..base.errors import JgmError
from ..index.catalog import CatalogChanges
from ..index.handle import Index
from ..index.plan import SeedCounts
from ..index.writer import WritePlan, apply_plan


class SeedInterrupted(JgmError):
    """Ctrl-C during a seed's embedding: the records whose chunks were all embedded were written (one
    transaction through the one write path), the rest left as they were; the message says how many."""

    entry = E.INDEX_SEED_INTERRUPTED


class Cut(Exception):
    """KeyboardInterrupt inside the embedding, with the vectors of the batches that finished."""

    def __init__(self, vectors) -> None:
        super().__init__("interrupted")
        self.vectors = vectors


def keep_whole(index: Index, plan: WritePlan, counts: SeedCounts, vectors, had_records: bool) -> SeedInterrupted:
    """Write the part of `plan` whose records need no vector still missing: every record whose chunks were all
    embedded before the interrupt, and the removals. Why not keep nothing: an interrupted first seed of a large
    collection would lose minutes of embedding. Why a record at a time: a record with half its chunks would
    answer with half its text. A re-read (`--rebuild`, a parser change) of an index that has records writes
    nothing: it clears every chunk first, so a part of it would drop the rest."""
    done = 0 if vectors is None else len(vectors)
    changed = set(counts.added) | set(counts.updated)
    pending = {c.record_id for c, _ in plan.embed[done:]}
    finish = "run `jgm seed` to finish (it embeds only what is missing)"
    if index.replaces or (plan.catalog.rebuild and had_records):
        return SeedInterrupted(f"interrupted: nothing written, the index is as it was; {finish}")
    part = WritePlan(
        embed=plan.embed[:done],
        delete_vectors=plan.delete_vectors,
        catalog=CatalogChanges(
            upsert_records=[r for r in plan.catalog.upsert_records if r.id not in pending],
            delete_records=plan.catalog.delete_records,
            upsert_chunks=[c for c in plan.catalog.upsert_chunks if c.record_id not in pending],
            rebuild=plan.catalog.rebuild,  # a first seed's: nothing to clear
            meta={k: v for k, v in plan.catalog.meta.items() if k == "parse_options"},
        ),
    )
    apply_plan(index, part, vectors)
    kept = len(changed - pending)
    removed = f", {len(counts.removed)} removed" if counts.removed else ""
    return SeedInterrupted(
        f"interrupted: {kept} of {len(changed)} new or changed records indexed and kept{removed}, "
        f"the other {len(changed) - kept} as they were; {finish}"
    )
