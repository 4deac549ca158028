"""Candidate endpoints: record / validate an observation, the review queue, propose, reject, the reviewer's
conclusions (duplicate of, merge into, supersedes: candidates/review.py), and revise/forget (which only candidates allow; file-backed records answer `memory/file-backed`).

Status codes tell a write from a non-write: 201 created, 200 merged or skipped (`written` says whether
the store changed), 202 saved but not indexed yet (retry with the same run key), 422 rejected (the
error body carries the full answer). `/candidates/validate` always answers 200 with what would happen.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse
from pydantic import Field

from ...app.candidate_fields import (
    MAX_ID_CHARS,
    MAX_NAME,
    Body,
    CandidateScope,
    Change,
    Evidence,
    Files,
    Name,
    Short,
    Supersedes,
    Tags,
    Title,
    Trigger,
    Verification,
)
from ...base import error_codes as E
from ...candidates import service as candidate_service
from ...candidates.answers import CandidateAnswer, CandidateList, CandidateShown, Forgotten, Proposal
from ...candidates.model import REQUESTABLE_KINDS, STATES, CandidateInput
from ...candidates.transitions import MAX_REASON_CHARS
from ...records.model import ID_PATTERN
from .deps import Scope
from .errors import COMMON_RESPONSES, ErrorBody, typed
from .schemas import Strict

RequestedKind = Literal[REQUESTABLE_KINDS]  # type: ignore[valid-type]
StateFilter = Literal[("queue", "all", *STATES)]  # type: ignore[valid-type]
RecordId = Annotated[str, Path(pattern=ID_PATTERN, max_length=MAX_ID_CHARS, description="Record or candidate id")]
ForgetAgent = Annotated[
    str | None, Query(max_length=MAX_NAME, description="The agent that recorded the candidate (as sent when recording)")
]
RESPONSES: dict[int | str, dict[str, Any]] = {
    **COMMON_RESPONSES,
    409: {
        "model": ErrorBody,
        "description": "File-backed record (edit it in Git), wrong candidate state, or busy index",
    },
    503: {"model": ErrorBody, "description": "Model or index unavailable"},
}
router = APIRouter(tags=["candidates"], responses=RESPONSES)


class CandidateRequest(Strict):
    kind: RequestedKind = Field(description="Requested kind; the result is always a candidate of that kind.")
    title: Title
    body: Body
    tags: Tags = []
    source: Short | None = Field(None, description="Where it comes from (path, URL, command).")
    evidence: Evidence = []
    agent: Name | None = Field(None, description="Who observed it.")
    session: Name | None = None
    work_item: Name | None = Field(None, description="Work item or bundle id.")
    run_key: Name | None = Field(
        None, description="Idempotency key: the same (agent, run_key) never creates a second candidate."
    )
    trigger: Trigger | None = None
    change: Change | None = None
    verification: Verification | None = None
    scope: CandidateScope | None = Field(None, description="project (this repository only) or transferable.")
    files: Files = []
    supersedes: Supersedes = []

    def to_input(self) -> CandidateInput:
        return CandidateInput(
            self.kind,
            self.title,
            self.body,
            list(self.tags),
            self.source,
            list(self.evidence),
            self.agent,
            self.session,
            self.work_item,
            self.run_key,
            self.trigger,
            self.change,
            self.verification,
            self.scope,
            list(self.files),
            list(self.supersedes),
        )


class ProposeRequest(Strict):
    status: Literal["proposed", "accepted"] = "proposed"
    base: Annotated[str, Field(max_length=200, pattern=r"^[A-Za-z0-9][A-Za-z0-9._/^~-]*$")] | None = None
    open_pr: bool = False


class RejectRequest(Strict):
    why: str = Field(min_length=1, max_length=MAX_REASON_CHARS, description="Kept with the candidate for the agent.")


class ConcludeRequest(Strict):
    target: str = Field(
        pattern=ID_PATTERN,
        max_length=MAX_ID_CHARS,
        description="The record or candidate it duplicates, merges into or supersedes.",
    )
    reviewer: Name | None = None


class ReviseRequest(Strict):
    title: Title | None = None
    body: Body | None = None
    tags: Tags | None = None
    source: Short | None = None
    agent: Name | None = None


def _svc(scope):
    return candidate_service.for_handle(scope)  # its errors keep their own codes (config/invalid, ...)


@router.post(
    "/candidates",
    status_code=201,
    response_model=CandidateAnswer,
    summary="Record an observation as a candidate (never a rule by itself)",
    responses={
        200: {"description": "Merged into an existing candidate, or skipped (see `written`)"},
        202: {"description": "Saved but not indexed yet: retry with the same run key"},
        422: {
            "model": ErrorBody,
            "description": "Rejected by the checks (the body has the answer), or an invalid request",
        },
    },
)
def record_candidate(body: CandidateRequest, scope: Scope):
    a = _svc(scope).record(body.to_input())
    data = dict(a.to_json(), workspace=scope.id)
    if a.decision == "rejected":
        return JSONResponse(
            {"error": {"code": E.rejection(a.reason_code).code, "message": a.reason}, "answer": data}, status_code=422
        )
    status = 202 if a.index_error else (201 if a.decision == "created" and a.written else 200)
    return JSONResponse(data, status_code=status)


@router.post(
    "/candidates/validate", summary="Run the candidate checks without writing anything", **typed(CandidateAnswer)
)
def validate_candidate(body: CandidateRequest, scope: Scope):
    a = _svc(scope).validate(body.to_input())
    return dict(a.to_json(), workspace=scope.id)


@router.get("/candidates", summary="Candidates, oldest first (the review queue by default)", **typed(CandidateList))
def list_candidates(scope: Scope, state: Annotated[StateFilter, Query()] = "queue") -> dict[str, Any]:
    rows = _svc(scope).list(state)
    return {"candidates": rows, "workspace": scope.id}


@router.get("/candidates/{candidate_id}", summary="One candidate with provenance and evidence", **typed(CandidateShown))
def show_candidate(candidate_id: RecordId, scope: Scope):
    return {"candidate": _svc(scope).show(candidate_id), "workspace": scope.id}


@router.post(
    "/candidates/{candidate_id}/propose",
    summary="Write the record file on a new branch (the served checkout is not touched)",
    **typed(Proposal),
)
def propose_candidate(candidate_id: RecordId, scope: Scope, body: ProposeRequest | None = None):
    from ...candidates.propose import propose

    body = body or ProposeRequest()
    return dict(propose(_svc(scope), candidate_id, body.status, body.base, body.open_pr), workspace=scope.id)


@router.post(
    "/candidates/{candidate_id}/reject", summary="Reject a candidate; the reason is kept", **typed(CandidateShown)
)
def reject_candidate(candidate_id: RecordId, body: RejectRequest, scope: Scope):
    return {"candidate": _svc(scope).reject(candidate_id, body.why), "workspace": scope.id}


@router.patch(
    "/records/{record_id}",
    summary="Revise an open candidate (file-backed records: edit them in Git)",
    **typed(CandidateShown),
)
def revise(record_id: RecordId, body: ReviseRequest, scope: Scope):
    c = _svc(scope).revise(
        record_id, title=body.title, body=body.body, tags=body.tags, source=body.source, agent=body.agent
    )
    return {"candidate": c, "workspace": scope.id}


@router.delete(
    "/records/{record_id}",
    summary="Forget an open candidate its recorder names (file-backed records: remove them in Git)",
    responses={403: {"model": ErrorBody, "description": "Workspace not granted, or another agent's candidate"}},
    **typed(Forgotten),
)
def forget(record_id: RecordId, scope: Scope, agent: ForgetAgent = None):
    """Only the agent that recorded it (`agent`, as sent when recording) forgets a candidate, and only while
    it is open: a rejected one keeps its reason, another agent's answers 403 `memory/not-owner`."""
    return dict(_svc(scope).forget(record_id, agent=agent), workspace=scope.id)


_CONCLUDE = {
    "duplicate": (
        "Close a candidate as a duplicate of a record or candidate; its evidence is kept on the target",
        "duplicate_of",
    ),
    "merge": ("Merge a candidate into an open candidate: its text becomes an observation of the target", "merge_into"),
    "supersede": (
        "Make the candidate's proposal supersede an in-force record (`supersedes:` in its file)",
        "supersedes",
    ),
}


def _conclude_route(action: str, summary: str, fn_name: str) -> None:
    from ...candidates import review

    def conclude(candidate_id: RecordId, body: ConcludeRequest, scope: Scope):
        fn = getattr(review, fn_name)
        return {"candidate": fn(_svc(scope), candidate_id, body.target, body.reviewer or "api"), "workspace": scope.id}

    conclude.__name__ = f"{action}_candidate"
    router.post(f"/candidates/{{candidate_id}}/{action}", summary=summary, **typed(CandidateShown))(conclude)


for _action, (_summary, _fn) in _CONCLUDE.items():
    _conclude_route(_action, _summary, _fn)
