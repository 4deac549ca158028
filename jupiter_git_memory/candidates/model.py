"""Candidate values: what an agent sends (CandidateInput), what it gets back (Answer), and how a
candidate is stored as a catalog row (origin 'candidate', declared status 'candidate').

A candidate keeps the kind it asked for, but its status is always `candidate`: asking for a decision
never makes one. Its *effective* status says what recall sees: `candidate` while open or proposed,
`rejected` once a reviewer rejected it, `superseded` once its promoted file record is merged.
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from dataclasses import asdict, dataclass, field, replace
from typing import Any

# The review states live with promotion in lifecycle/; candidates re-export them for their callers.
from ..lifecycle.promote import CANDIDATE_ID_PREFIX, EFFECTIVE_BY_STATE, OPEN
from ..lifecycle.promote import PROMOTED as PROMOTED
from ..lifecycle.promote import PROPOSED as PROPOSED
from ..lifecycle.promote import REJECTED as REJECTED
from ..lifecycle.promote import STATES as STATES
from ..records.kinds import REQUESTABLE_KINDS as REQUESTABLE_KINDS
from ..records.row import RecordRow
from .fields import PROVENANCE
from .fields import REVISABLE as REVISABLE
from .fields import SCOPES as SCOPES
from .fields import TEXT_FIELDS as TEXT_FIELDS
from .fields import CandidateInput as CandidateInput
from .fields import content_hash as content_hash


@dataclass
class Answer:
    """The outcome of record/validate. `decision` is created | merged | skipped | rejected; `written` says
    whether the store changed, so a successful call is never mistaken for a created record."""

    decision: str
    reason_code: str
    reason: str
    warnings: list[str] = field(default_factory=list)
    id: str | None = None  # the candidate created or merged into
    matched: dict[str, Any] | None = None  # the record/candidate that made it merged/skipped
    written: bool = False
    dry_run: bool = False
    indexed: bool | None = None  # None when nothing was to be indexed
    index_error: str | None = None
    replayed: bool = False  # the (agent, run key) was answered before: this is that answer
    agent: str | None = None
    run_key: str | None = None
    fields: list[str] = field(default_factory=list)  # for rejections: the offending fields
    rejected_before: dict[str, Any] | None = None  # a reviewer rejected this before: {id, reason, rejected_at}

    @property
    def ok(self) -> bool:
        return self.decision != "rejected"

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["ok"] = self.ok
        # the candidate is saved but its indexing is still owed (a retry with the run key, or a seed, pays it)
        d["pending"] = "index" if self.id and self.indexed is False and not self.dry_run else None
        if self.index_error:
            d["retry"] = (
                "the candidate is saved but not indexed yet: call again with the same run key, "
                "or run `jgm seed`, to finish indexing"
            )
        return d


def new_candidate_id() -> str:
    return CANDIDATE_ID_PREFIX + uuid.uuid4().hex[:12]


def is_candidate(row: RecordRow | None) -> bool:
    return row is not None and row.origin == "candidate"


def evidence_entry(inp: CandidateInput, now: float) -> dict[str, Any]:
    """What one observation contributes: its provenance and backing (and its text when merged)."""
    e = {"at": now, **inp.provenance(), "source": inp.source, "evidence": list(inp.evidence or []), **inp.structured()}
    return {k: v for k, v in e.items() if v not in (None, [], "")}


def revision_entry(
    agent: str | None, fields: list[str], now: float, before: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One revision: who changed which fields, when, and what they said before (so a reviewer sees the diff).
    The candidate's `provenance` stays the recorder's."""
    return {"at": now, "agent": agent or "unknown", "fields": list(fields), "before": dict(before or {})}


def new_row(
    cid: str, inp: CandidateInput, run: dict | None, warnings: list[str], now: float | None = None
) -> RecordRow:
    now = now or time.time()
    data = {
        "title": inp.title.strip(),
        "body": inp.body.strip(),
        "tags": list(inp.tags or []),
        "source": inp.source,
        "requested_kind": inp.kind,
        **_stored(inp.structured()),
        "provenance": inp.provenance(),
        "evidence": [evidence_entry(inp, now)],
        "runs": [run] if run else [],
        "state": OPEN,
        "reason": None,
        "proposal": None,
        "promoted_to": None,
        "warnings": warnings,
        "created_at": now,
        "updated_at": now,
    }
    return RecordRow(
        cid,
        None,
        inp.kind,
        "candidate",
        EFFECTIVE_BY_STATE[OPEN],
        inp.title.strip(),
        inp.content_sha(),
        None,
        False,
        "candidate",
        data,
    )


def _stored(structured: dict[str, Any]) -> dict[str, Any]:
    """The structured fields as candidate data: `supersedes` is kept as `proposed_supersedes`, so the
    supersede links of the index never read a candidate's proposal as a link (it retires nothing)."""
    out = dict(structured)
    if "supersedes" in out:
        out["proposed_supersedes"] = out.pop("supersedes")
    return out


def with_data(row: RecordRow, **changes: Any) -> RecordRow:
    """A copy of `row` with data keys changed; `state` also moves the effective status."""
    data = dict(row.data, **changes, updated_at=time.time())
    effective = EFFECTIVE_BY_STATE.get(data.get("state", OPEN), row.effective_status)
    title = data.get("title", row.title)
    return replace(
        row, effective_status=effective, title=title, content_hash=content_hash(title, data.get("body", "")), data=data
    )


# Fields of CandidateInput kept as top-level candidate data under their own name (trigger, change, …; a new
# structured field too): the view shows them as sent. The others it shows as the page knows them: kind (the
# row's), title, body, tags, source, the provenance, `evidence` (the observations) and `supersedes` (stored as
# proposed_supersedes).
STORED_AS_SENT = tuple(
    f.name
    for f in dataclasses.fields(CandidateInput)
    if f.name not in ("kind", "title", "body", "tags", "source", "evidence", "supersedes", *PROVENANCE)
)


def view(row: RecordRow, indexed: bool | None = None) -> dict[str, Any]:
    """A candidate as shown to reviewers and agents."""
    d = row.data
    out = {
        "id": row.id,
        "kind": row.kind,
        "status": row.declared_status,
        "effective": row.effective_status,
        "state": d.get("state"),
        "title": row.title,
        "body": d.get("body", ""),
        "tags": d.get("tags", []),
        "source": d.get("source"),
        **{k: d[k] for k in STORED_AS_SENT if d.get(k)},  # the structured fields the agent gave
        "supersedes": d.get("proposed_supersedes") or [],
        "provenance": d.get("provenance", {}),
        "evidence": d.get("evidence", []),
        "revisions": d.get("revisions", []),
        "reason": d.get("reason"),
        "proposal": d.get("proposal"),
        "promoted_to": d.get("promoted_to"),
        "duplicate_of": d.get("duplicate_of"),  # closed by a reviewer as a duplicate of this record/candidate
        "merged_into": d.get("merged_into"),  # closed by a reviewer by merging it into this candidate
        "warnings": d.get("warnings", []),
        "created_at": d.get("created_at"),
        "updated_at": d.get("updated_at"),
        "run_keys": [
            {"agent": r.get("agent"), "run_key": r.get("run_key"), "decision": r.get("decision")}
            for r in d.get("runs", [])
        ],
    }
    if indexed is not None:
        out["indexed"] = indexed
    return out
