"""Reading candidates: the queue (list), one candidate (show, row) and whether an id exists. Shared lock
only, so reads run beside a seed's or another agent's write."""

from __future__ import annotations

from typing import Any

from ..base import error_codes as E
from ..records.checks import check_id
from ..records.row import RecordRow
from .access import CandidateAccess
from .errors import CandidateError
from .model import OPEN, PROPOSED, STATES, view


def listing(access: CandidateAccess, state: str | None = "queue") -> list[dict[str, Any]]:
    """Candidates oldest first. `state`: one of STATES, `queue` (open + proposed, the default) or `all`."""
    if state not in (None, "all", "queue", *STATES):
        raise CandidateError(
            E.REQUEST_BAD_FILTER,
            f"unknown state {state!r}; use one of all, queue, {', '.join(STATES)}",
            exit_code=1,
        )
    wanted = {"queue": (OPEN, PROPOSED), None: STATES, "all": STATES}.get(state, (state,))
    with access.open_index(exclusive=False) as index:
        rows = index.catalog.records(origin="candidate")
        indexed = index.catalog.indexed_candidates()
    ordered = sorted(rows.values(), key=lambda r: (r.data.get("created_at") or 0, r.id))
    return [view(row, row.id in indexed) for row in ordered if row.data.get("state") in wanted]


def row(access: CandidateAccess, cid: str) -> RecordRow:
    with access.open_index(exclusive=False) as index:
        return access.candidate(index, check_id(cid))


def exists(access: CandidateAccess, rid: str) -> bool:
    """Whether any record (candidate or file) has id `rid`."""
    with access.open_index(exclusive=False) as index:
        return index.catalog.record(rid) is not None


def show(access: CandidateAccess, cid: str) -> dict[str, Any]:
    with access.open_index(exclusive=False) as index:
        found = access.candidate(index, check_id(cid))
        return view(found, access.is_indexed(index, cid))
