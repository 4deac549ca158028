"""The candidate service every surface calls: one workspace's candidates, by job in their own modules.

- access.py: the lock, the catalog row and its indexing (save-then-index), shared by all of them;
- recording.py: record / validate (check → run-key replay → near-duplicate check → save → index);
- reads.py: the queue, one candidate, whether an id exists;
- transitions.py: reject, mark proposed, revise, forget;
- review.py (duplicate of, merge into, supersedes) and propose.py take the service as their access.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from ..base.errors import JgmError
from ..index.failures import chroma_failures
from ..records.row import RecordRow
from . import reads, recording, transitions
from .access import CandidateAccess
from .errors import unavailable
from .model import Answer, CandidateInput

SERVER_LOCK_TIMEOUT = 120.0  # servers answer "index busy" (LockTimeout) rather than hang forever


class CandidateService(CandidateAccess):
    """One workspace's candidates. Pass a Seeder to share its loaded model (API/MCP servers)."""

    def validate(self, inp: CandidateInput) -> Answer:
        return recording.record(self, inp, dry_run=True)

    def record(self, inp: CandidateInput, dry_run: bool = False) -> Answer:
        return recording.record(self, inp, dry_run)

    def list(self, state: str | None = "queue") -> list[dict[str, Any]]:
        """Candidates oldest first. `state`: one of STATES, `queue` (open + proposed, the default) or `all`."""
        return reads.listing(self, state)

    def row(self, cid: str) -> RecordRow:
        return reads.row(self, cid)

    def exists(self, rid: str) -> bool:
        return reads.exists(self, rid)

    def show(self, cid: str) -> dict[str, Any]:
        return reads.show(self, cid)

    def reject(self, cid: str, why: str) -> dict[str, Any]:
        return transitions.reject(self, cid, why)

    def mark_proposed(self, cid: str, proposal: dict[str, Any]) -> dict[str, Any]:
        return transitions.mark_proposed(self, cid, proposal)

    def revise(self, rid: str, agent: str | None = None, **changes: Any) -> dict[str, Any]:
        """Edit an open candidate in the store: `changes` are REVISABLE fields (None keeps one); re-checked
        like a new one. File-backed: memory/file-backed."""
        return transitions.revise(self, rid, changes, agent)

    def forget(self, rid: str, agent: str | None = None, reviewer: bool = False) -> dict[str, Any]:
        """Delete an open candidate, by its recorder `agent` or a reviewer (transitions.forget says why)."""
        return transitions.forget(self, rid, agent, reviewer)


_by_handle: weakref.WeakKeyDictionary[Any, CandidateService] = weakref.WeakKeyDictionary()
_by_handle_lock = threading.Lock()


def for_handle(handle: Any) -> CandidateService:
    """The service of a server's WorkspaceHandle, sharing the handle's Seeder (one loaded model). A JgmError
    (a broken config: `config/invalid`) keeps its own code on every surface; anything else that stops the
    service starting is `memory/unavailable`."""
    with _by_handle_lock:
        svc = _by_handle.get(handle)
        if svc is None:
            try:
                seeder = handle.seeder()
            except JgmError:
                raise
            except chroma_failures() as e:  # the workspace's store cannot be opened
                raise unavailable(e) from e
            svc = _by_handle[handle] = CandidateService(seeder=seeder, lock_timeout=SERVER_LOCK_TIMEOUT)
        return svc
