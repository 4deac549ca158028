"""Promotion: a candidate is promoted exactly when a committed record file claims it (`candidate: cand-…`).

A lifecycle step like supersession, so it is pure and sits below the index (the candidate review states
live here for it). The seeder applies it to the rows it is about to write, so the post-merge reseed (a plain
`jgm seed` after `git merge`) marks the candidate in the same write that indexes the new file. Why
"committed": a file only in someone's working tree (e.g. the proposal branch checked out and edited)
has not been through review. Why reversible: the tree is the truth — seeding an older commit where
the file does not exist puts the candidate back to the state it had before. Why per view: the claim is
in one checkout's files, so the promoted row is that view's own (origin `promotion`, a version of its own);
the shared candidate row, which every other worktree reads, is never changed by a seed
(dec-candidate-promotion-per-view).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any

from ..records.row import RecordRow

# Review states. `open` and `proposed` are the queue; the other two are outcomes.
OPEN, PROPOSED, PROMOTED, REJECTED = "open", "proposed", "promoted", "rejected"
STATES = (OPEN, PROPOSED, PROMOTED, REJECTED)
EFFECTIVE_BY_STATE = {OPEN: "candidate", PROPOSED: "candidate", PROMOTED: "superseded", REJECTED: "rejected"}
CANDIDATE_ID_PREFIX = "cand-"
PROMOTION = "promotion"  # origin of a view's own row for a shared candidate (the catalog reads it as `candidate`)


def claims(desired: dict[str, RecordRow]) -> dict[str, RecordRow]:
    """candidate id -> the committed file record that claims it (first by id when several do)."""
    out: dict[str, RecordRow] = {}
    for rid in sorted(desired):
        row = desired[rid]
        if row.origin != "file" or row.dirty:
            continue
        cid = (row.data.get("metadata") or {}).get("candidate")
        if isinstance(cid, str) and cid.startswith(CANDIDATE_ID_PREFIX):
            out.setdefault(cid, row)
    return out


def _own(row: RecordRow, effective: str, data: dict[str, Any]) -> RecordRow:
    """The view's own row: a version keyed by what it says, so views promoting differently never share one."""
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]
    return replace(
        row, effective_status=effective, content_hash=f"{row.content_hash}~{digest}", origin=PROMOTION, data=data
    )


def _promoted(row: RecordRow, by: RecordRow) -> RecordRow:
    data = dict(
        row.data,
        state=PROMOTED,
        promoted_to=by.id,
        promoted_path=by.path,
        promoted_commit=by.commit_sha,
        state_before_promotion=row.data.get("state_before_promotion") or row.data.get("state") or OPEN,
    )
    return _own(row, EFFECTIVE_BY_STATE[PROMOTED], data)


def _unpromoted(row: RecordRow) -> RecordRow:
    """A shared row promoted by a store made before promotions were per view, seen from a view without the claim."""
    data = dict(row.data)
    state = data.pop("state_before_promotion", None) or OPEN
    for k in ("promoted_to", "promoted_path", "promoted_commit"):
        data.pop(k, None)
    data["state"] = state
    return _own(row, EFFECTIVE_BY_STATE.get(state, "candidate"), data)


def mark_promotions(desired: dict[str, RecordRow]) -> dict[str, RecordRow]:
    """Replace shared candidate rows in `desired` (in place, also returned) by this view's own row where the
    view's file records' claims say otherwise."""
    claimed = claims(desired)
    for rid, row in list(desired.items()):
        if row.origin != "candidate":
            continue
        by = claimed.get(rid)
        state = row.data.get("state")
        if by is not None and (state != PROMOTED or row.data.get("promoted_to") != by.id):
            desired[rid] = _promoted(row, by)
        elif by is None and state == PROMOTED:
            desired[rid] = _unpromoted(row)
    return desired
