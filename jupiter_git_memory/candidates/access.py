"""One workspace's candidates in the index: the lock, the catalog row, and its chunks and vectors.

Why save-then-index: the catalog row is the candidate; the vectors only make it findable. Saving first
(in its own catalog write) means a failed embedding or Chroma write leaves a saved candidate whose
answer says `indexed: false`, and the same (agent, run key) later finishes the indexing instead of
creating a second candidate. Every write goes through index.writer.apply_plan under the workspace lock.
The recording, review and proposal code (recording.py, transitions.py, review.py, propose.py) all write
through this one class.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..base.store import workspace_lock
from ..index.catalog import CatalogChanges
from ..index.handle import Index
from ..index.plan import plan_changes
from ..index.shared import join, take_fetched
from ..index.writer import WritePlan, apply_plan
from ..records.row import RecordRow
from .errors import file_backed, not_found
from .model import is_candidate, view


class CandidateAccess:
    """Pass a Seeder to share its loaded model (API/MCP servers); else one is made for `repo`."""

    def __init__(
        self,
        repo: Path | str | None = None,
        seeder: Any = None,
        store_root: Path | None = None,
        lock_timeout: float | None = None,
    ) -> None:
        if seeder is None:
            from ..seed.seeder import Seeder

            seeder = Seeder(repo, store_root=store_root)
        self.seeder = seeder
        self.workspace = seeder.workspace
        self.lock_timeout = lock_timeout
        self.fault: Callable[[str], None] | None = None  # tests inject indexing failures here

    @contextlib.contextmanager
    def open_index(self, exclusive: bool) -> Iterator[Index]:
        """The index under the workspace lock (`open` reopens Chroma if another process wrote)."""
        with workspace_lock(self.seeder.wsdir, exclusive=exclusive, timeout=self.lock_timeout):
            index: Index = self.seeder.open(write=exclusive)
            try:
                yield index
            finally:
                index.close()

    def save(self, index: Index, row: RecordRow) -> None:
        """Catalog only: the candidate exists (unindexed) even if indexing fails next."""
        apply_plan(index, WritePlan(catalog=CatalogChanges(upsert_records=[row])), None)

    def reindex(self, index: Index, rid: str, row: RecordRow | None) -> None:
        """Bring one record's chunks and vectors in line with `row` (None: remove it) via the one write path."""
        previous = index.catalog.records_by_ids([rid])
        known = index.catalog.version_chunks([(rid, row.content_hash)]) if row else {}
        plan, _ = plan_changes(
            {rid: row} if row else {}, previous, known, index.vectors.ids(), self.seeder.chunker, scope={rid}
        )
        fetched = take_fetched(index.content, plan)  # on a server another store may have embedded the text
        rest = [c.text for c, _ in plan.embed[plan.fetched :]]
        vectors = join(fetched, self.seeder.embedder.embed_passages(rest) if rest else None)
        apply_plan(index, plan, vectors, self.fault)

    def try_index(self, index: Index, row: RecordRow) -> tuple[bool, str | None]:
        """Index `row`; a failure is reported, not raised: the saved candidate waits for a retry or a seed."""
        try:
            self.reindex(index, row.id, row)
            return True, None
        except Exception as e:
            return False, f"{e.__class__.__name__}: {e}"

    def save_indexed(self, index: Index, row: RecordRow) -> dict[str, Any]:
        """Save `row`, then index it; its view with `index_error` (None when the vectors were written)."""
        self.save(index, row)
        indexed, err = self.try_index(index, row)
        return dict(view(row, indexed), index_error=err)

    @staticmethod
    def is_indexed(index: Index, rid: str) -> bool:
        return bool(index.catalog.chunks([rid]))

    @staticmethod
    def find_run(index: Index, agent: str, run_key: str) -> tuple[RecordRow, dict[str, Any]] | None:
        """The candidate an (agent, run key) recorded before and that run's answer, if any."""
        hit = index.catalog.candidate_run(agent, run_key)
        if not hit:
            return None
        row = index.catalog.record(hit[0])
        return (row, json.loads(hit[1])) if row is not None else None

    def candidate(self, index: Index, cid: str) -> RecordRow:
        """The candidate `cid`: memory/not-found if absent, memory/file-backed if it is a file record."""
        row = index.catalog.record(cid)
        if row is None:
            raise not_found(cid, self.workspace.id)
        if not is_candidate(row):
            raise file_backed(row.id, row.path, row.commit_sha, row.dirty)
        return row
