"""A reviewer's and an agent's changes to a stored candidate: reject, mark proposed, revise, forget.

Each takes the exclusive workspace lock, checks the candidate's state, saves the new row and indexes it
(CandidateAccess.save_indexed). File-backed records answer memory/file-backed: only the store's
candidates change here; a file changes by a commit. The duplicate/merge/supersede conclusions are in
review.py.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ..base import error_codes as E
from ..records.checks import check_id
from .access import CandidateAccess
from .errors import CandidateError, invalid_state, not_owner
from .model import OPEN, PROMOTED, PROPOSED, REJECTED, REVISABLE, CandidateInput, revision_entry, with_data
from .validate import check

MAX_REASON_CHARS = 2000


def reject(access: CandidateAccess, cid: str, why: str) -> dict[str, Any]:
    why = checked_reason(why)
    with access.open_index(exclusive=True) as index:
        row = access.candidate(index, check_id(cid))
        state = row.data.get("state")
        if state not in (OPEN, PROPOSED):
            raise invalid_state(cid, str(state), "only open or proposed candidates can be rejected")
        new = with_data(row, state=REJECTED, reason=why, rejected_at=time.time())
        return access.save_indexed(index, new)


def mark_proposed(access: CandidateAccess, cid: str, proposal: dict[str, Any]) -> dict[str, Any]:
    """The candidate's proposal (branch, file) is written (candidates/propose.py): it leaves the queue's open part."""
    with access.open_index(exclusive=True) as index:
        row = access.candidate(index, cid)
        return access.save_indexed(index, with_data(row, state=PROPOSED, proposal=proposal))


def revise(access: CandidateAccess, rid: str, changes: Mapping[str, Any], agent: str | None = None) -> dict[str, Any]:
    """Edit an open candidate in the store (re-checked like a new one). `changes`: REVISABLE fields, None
    keeps the candidate's. File-backed: memory/file-backed."""
    if set(changes) - set(REVISABLE):
        raise TypeError(
            f"revise changes only {', '.join(REVISABLE)}, not {', '.join(sorted(set(changes) - set(REVISABLE)))}"
        )
    with access.open_index(exclusive=True) as index:
        row = access.candidate(index, check_id(rid))
        if row.data.get("state") != OPEN:
            raise invalid_state(
                rid,
                str(row.data.get("state")),
                "only open candidates can be revised; a proposed one "
                "is edited on its branch, a rejected one is recorded anew",
            )
        d = row.data
        now = {k: (list(d.get(k, [])) if k == "tags" else d.get(k)) for k in REVISABLE}
        given = {k: v for k, v in changes.items() if v is not None}
        inp = CandidateInput(row.kind, **{**now, **given}, agent=agent or d.get("provenance", {}).get("agent"))
        verdict = check(inp)
        if verdict.code:
            raise CandidateError(E.rejection(verdict.code), verdict.reason, id=rid, fields=verdict.fields)
        stored = {
            "title": inp.title.strip(),
            "body": inp.body.strip(),
            "tags": list(inp.tags),
            "source": inp.source,
        }
        changed = [k for k, v in stored.items() if v != d.get(k, [] if k == "tags" else None)]
        revisions = list(d.get("revisions", []))
        if changed:  # who changed what, beside the untouched provenance of the agent who recorded it
            revisions.append(revision_entry(agent, changed, time.time(), {k: d.get(k) for k in changed}))
        new = with_data(row, **stored, revisions=revisions, warnings=verdict.warnings)
        return access.save_indexed(index, new)


def forget(access: CandidateAccess, rid: str, agent: str | None = None, reviewer: bool = False) -> dict[str, Any]:
    """Delete an open candidate (row, chunks, vectors): only its recorder (`agent`, None is "unknown" as when
    recording) or a reviewer may. A rejected one is kept (its reason is what `rejected_before` warns the next
    agent with), a proposed one has a branch to close. File-backed records: memory/file-backed."""
    with access.open_index(exclusive=True) as index:
        row = access.candidate(index, check_id(rid))
        state = str(row.data.get("state"))
        if state != OPEN:
            raise invalid_state(rid, state, _KEPT.get(state, "only open candidates can be forgotten"))
        recorder = row.data.get("provenance", {}).get("agent") or "unknown"
        if not reviewer and (agent or "unknown") != recorder:
            raise not_owner(rid, agent or "unknown", recorder)
        access.reindex(index, rid, None)
        return {"id": rid, "forgotten": True, "state": state}


_KEPT = {
    REJECTED: "a rejected candidate is never forgotten: its reason is kept so the same observation, "
    "recorded again, answers with `rejected_before`",
    PROMOTED: "a promoted candidate is the history of the record it became; it is kept",
    PROPOSED: "only open candidates can be forgotten; a proposed one has a branch: reject it "
    "(and close its pull request) instead",
}


def checked_reason(why: str) -> str:
    """A rejection's reason, stripped: said, within MAX_REASON_CHARS, and free of secrets (it is stored)."""
    from .secrets import scan_text

    why = (why or "").strip()
    if not why:
        raise CandidateError(
            E.REQUEST_MISSING_REASON, "say why it is rejected (--why): the reason is kept for the agent"
        )
    if len(why) > MAX_REASON_CHARS:
        raise CandidateError(E.REQUEST_TOO_LONG, f"the reason must be at most {MAX_REASON_CHARS} characters")
    if scan_text(why):
        raise CandidateError(E.CANDIDATE_SECRET, "the reason contains a secret; nothing was stored")
    return why
