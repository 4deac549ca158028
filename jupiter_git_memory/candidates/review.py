"""What a reviewer concludes about a candidate besides propose/reject: it is a duplicate of something, it
merges into another candidate, or its proposal supersedes a record. Functions over a CandidateService (the
one every surface uses; its CandidateAccess part), so the API and the review UI offer the same actions with the same
checks. MCP offers none of them: they are a reviewer's verdicts (dec-mcp-no-review-verdicts).

How a duplicate keeps its evidence (dec-review-duplicate-evidence): the closed candidate is `rejected` with
`duplicate_of` naming the target, so recall, the queue and a later agent repeating it all see why. When the
target is an open or proposed candidate, the closed one's observations (provenance and backing, each marked
`moved_from`) are appended to the target's evidence, within the size a candidate may have, so the proposal
written from the target cites them. A file record cannot be changed in the store: its page lists the
candidates closed as its duplicates with their evidence (`duplicates_of`), until a reviewer edits the file.
A merge is a duplicate whose text is kept too: the closed candidate's title and body become one more
observation of the target (candidates/merge.py), as when an agent records a near-duplicate.
"""

from __future__ import annotations

import time
from typing import Any

from ..base import error_codes as E
from ..index.handle import Index
from ..records.checks import check_id
from ..records.model import IN_FORCE
from ..records.row import RecordRow
from . import merge
from .access import CandidateAccess
from .errors import CandidateError, invalid_state, not_found
from .model import (
    OPEN,
    PROMOTED,
    PROPOSED,
    REJECTED,
    CandidateInput,
    is_candidate,
    revision_entry,
    view,
    with_data,
)


def _open_candidate(svc: CandidateAccess, index: Index, cid: str, what: str) -> RecordRow:
    row: RecordRow = svc.candidate(index, cid)
    state = row.data.get("state")
    if state not in (OPEN, PROPOSED):
        fix = f"only open or proposed candidates can {what}"
        if state == PROMOTED:
            fix += f"; it was promoted to {row.data.get('promoted_to')}: use that record"
        raise invalid_state(cid, str(state), fix)
    return row


def _target(svc: CandidateAccess, index: Index, cid: str, target: str) -> RecordRow:
    target = check_id(target.strip())
    if target == cid:
        raise CandidateError(E.REQUEST_BAD_TARGET, f"candidate {cid} cannot be a duplicate of itself", id=cid)
    row = index.catalog.record(target)
    if row is None:
        raise not_found(target, svc.workspace.id)
    return row


def _moved(entries: list[dict[str, Any]], cid: str) -> list[dict[str, Any]]:
    return [dict(e, moved_from=cid) for e in entries]


def _checked_size(target: RecordRow, changes: dict[str, Any]) -> dict[str, Any]:
    if merge.stored_bytes(dict(target.data, **changes)) > merge.MAX_CANDIDATE_BYTES:
        raise CandidateError(
            E.MEMORY_CANDIDATE_FULL,
            f"{merge.full_reason(target.id, target.data)}; nothing was changed",
            id=target.id,
        )
    return changes


def _close(
    svc: CandidateAccess, index: Index, row: RecordRow, reason: str, reviewer: str, **links: str
) -> dict[str, Any]:
    new = with_data(row, state=REJECTED, reason=reason, rejected_at=time.time(), closed_by=reviewer, **links)
    return dict(svc.save_indexed(index, new), **links)


def _update(svc: CandidateAccess, index: Index, row: RecordRow, changes: dict[str, Any]) -> None:
    new = with_data(row, **changes)
    svc.save(index, new)
    svc.try_index(index, new)  # the evidence is saved; its vectors do not change with it


def duplicate_of(svc: CandidateAccess, cid: str, target: str, reviewer: str) -> dict[str, Any]:
    """Close candidate `cid` as a duplicate of record or candidate `target`, keeping its evidence there."""
    cid = check_id(cid)
    with svc.open_index(exclusive=True) as index:
        row = _open_candidate(svc, index, cid, "be closed as duplicates")
        to = _target(svc, index, cid, target)
        if is_candidate(to):
            to = _open_candidate(svc, index, to.id, "take a duplicate's evidence")
            evidence = list(to.data.get("evidence", [])) + _moved(list(row.data.get("evidence", [])), cid)
            _update(svc, index, to, _checked_size(to, {"evidence": evidence}))
        reason = f"duplicate of {to.id} ({to.title!r}), closed by {reviewer}"
        return _close(svc, index, row, reason, reviewer, duplicate_of=to.id)


def merge_into(svc: CandidateAccess, cid: str, target: str, reviewer: str) -> dict[str, Any]:
    """Merge candidate `cid` into open candidate `target`: its text becomes an observation of the target (as
    a near-duplicate an agent records does), its other observations follow, and `cid` is closed."""
    cid = check_id(cid)
    with svc.open_index(exclusive=True) as index:
        row = _open_candidate(svc, index, cid, "be merged")
        to = _target(svc, index, cid, target)
        if not is_candidate(to):
            raise CandidateError(
                E.REQUEST_BAD_TARGET,
                f"{to.id} is a file-backed record; merge only into a candidate (close {cid} as a duplicate of {to.id})",
                id=cid,
            )
        to = _open_candidate(svc, index, to.id, "take a merge")
        d = row.data
        first = (d.get("evidence") or [{}])[0]
        inp = CandidateInput(
            row.kind,
            row.title,
            d.get("body", ""),
            list(d.get("tags", [])),
            d.get("source"),
            list(first.get("evidence") or []),
            **{k: v for k, v in (d.get("provenance") or {}).items() if k in ("agent", "session", "work_item")},
        )
        changes, _ = merge.merged(to.data, inp, None, float(first.get("at") or time.time()))
        if changes is None:
            raise _full(to)
        changes["evidence"][-1]["moved_from"] = cid
        changes["evidence"] += _moved(list(d.get("evidence", []))[1:], cid)
        _update(svc, index, to, _checked_size(to, changes))
        reason = f"merged into {to.id} ({to.title!r}) by {reviewer}"
        return _close(svc, index, row, reason, reviewer, merged_into=to.id)


def _full(to: RecordRow) -> CandidateError:
    return CandidateError(
        E.MEMORY_CANDIDATE_FULL, f"{merge.full_reason(to.id, to.data)}; nothing was changed", id=to.id
    )


def supersedes(svc: CandidateAccess, cid: str, target: str, reviewer: str) -> dict[str, Any]:
    """Record that candidate `cid`'s proposal retires record `target`: the file `propose` writes then carries
    `supersedes: [target]`. The target must be a file record in force (dec-supersede-needs-in-force)."""
    cid = check_id(cid)
    with svc.open_index(exclusive=True) as index:
        row = svc.candidate(index, cid)
        if row.data.get("state") != OPEN:
            raise invalid_state(
                cid,
                str(row.data.get("state")),
                "only open candidates get a supersede link; a proposed one is edited on its branch",
            )
        to = _target(svc, index, cid, target)
        if is_candidate(to) or to.effective_status not in IN_FORCE:
            what = "a candidate" if is_candidate(to) else f"{to.effective_status}, not in force"
            raise CandidateError(
                "candidate/supersede-target",
                f"{to.id} is {what}; a proposal can retire only an accepted or verified record "
                "(`jgm relations ID` shows what is in force instead)",
                422,
                id=cid,
            )
        ids = list(dict.fromkeys([*(row.data.get("proposed_supersedes") or []), to.id]))
        revisions = list(row.data.get("revisions", []))
        revisions.append(revision_entry(reviewer, ["supersedes"], time.time(), {"supersedes": ids[:-1]}))
        new = with_data(row, proposed_supersedes=ids, revisions=revisions)
        return svc.save_indexed(index, new)


def duplicates_of(catalog: Any, rid: str) -> list[dict[str, Any]]:
    """The candidates closed as duplicates of (or merged into) `rid`, oldest first, with their evidence.
    Reads the catalog only (a record page needs no model for it)."""
    rows = catalog.records(origin="candidate")
    found = [r for r in rows.values() if rid in (r.data.get("duplicate_of"), r.data.get("merged_into"))]
    return [view(r) for r in sorted(found, key=lambda r: (r.data.get("created_at") or 0, r.id))]
