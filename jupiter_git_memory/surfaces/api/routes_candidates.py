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

from ...app import candidates as ops
from ...app.candidate_requests import CandidateRequest, ConcludeRequest, ProposeRequest, RejectRequest, ReviseRequest
from ...candidates.answers import CandidateAnswer, CandidateList, CandidateShown, Forgotten, Proposal
from ...candidates.errors import CandidateRejected
from ...candidates.fields import MAX_ID_CHARS, MAX_NAME
from ...candidates.model import STATES
from ...records.model import ID_PATTERN
from .deps import Scope
from .errors import COMMON_RESPONSES, ErrorBody, typed

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


def _json(answer: Any) -> dict[str, Any]:
    return answer.model_dump(mode="json", exclude_unset=True)


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
    try:
        a = ops.Candidates.for_handle(scope).record(body)
    except CandidateRejected as e:
        error = {"code": e.code, "message": e.message}
        return JSONResponse({"error": error, "answer": _json(e.answer)}, status_code=422)
    status = 202 if a.index_error else (201 if a.decision == "created" and a.written else 200)
    return JSONResponse(_json(a), status_code=status)


@router.post(
    "/candidates/validate", summary="Run the candidate checks without writing anything", **typed(CandidateAnswer)
)
def validate_candidate(body: CandidateRequest, scope: Scope):
    return ops.Candidates.for_handle(scope).validate(body)


@router.get("/candidates", summary="Candidates, oldest first (the review queue by default)", **typed(CandidateList))
def list_candidates(scope: Scope, state: Annotated[StateFilter, Query()] = "queue"):
    return ops.Candidates.for_handle(scope).listing(state)


@router.get("/candidates/{candidate_id}", summary="One candidate with provenance and evidence", **typed(CandidateShown))
def show_candidate(candidate_id: RecordId, scope: Scope):
    return ops.Candidates.for_handle(scope).show(candidate_id)


@router.post(
    "/candidates/{candidate_id}/propose",
    summary="Write the record file on a new branch (the served checkout is not touched)",
    **typed(Proposal),
)
def propose_candidate(candidate_id: RecordId, scope: Scope, body: ProposeRequest | None = None):
    return ops.Candidates.for_handle(scope).propose(candidate_id, body or ProposeRequest())


@router.post(
    "/candidates/{candidate_id}/reject", summary="Reject a candidate; the reason is kept", **typed(CandidateShown)
)
def reject_candidate(candidate_id: RecordId, body: RejectRequest, scope: Scope):
    return ops.Candidates.for_handle(scope).reject(candidate_id, body)


@router.patch(
    "/records/{record_id}",
    summary="Revise an open candidate (file-backed records: edit them in Git)",
    **typed(CandidateShown),
)
def revise(record_id: RecordId, body: ReviseRequest, scope: Scope):
    return ops.Candidates.for_handle(scope).revise(record_id, body)


@router.delete(
    "/records/{record_id}",
    summary="Forget an open candidate its recorder names (file-backed records: remove them in Git)",
    responses={403: {"model": ErrorBody, "description": "Workspace not granted, or another agent's candidate"}},
    **typed(Forgotten),
)
def forget(record_id: RecordId, scope: Scope, agent: ForgetAgent = None):
    """Only the agent that recorded it (`agent`, as sent when recording) forgets a candidate, and only while
    it is open: a rejected one keeps its reason, another agent's answers 403 `memory/not-owner`."""
    return ops.Candidates.for_handle(scope).forget(record_id, agent=agent)


def _conclude_route(action: str, summary: str) -> None:
    def conclude(candidate_id: RecordId, body: ConcludeRequest, scope: Scope):
        return ops.Candidates.for_handle(scope).conclude(candidate_id, action, body, reviewer="api")

    conclude.__name__ = f"{action}_candidate"
    router.post(f"/candidates/{{candidate_id}}/{action}", summary=summary, **typed(CandidateShown))(conclude)


for _action, (_, _summary) in ops.CONCLUSIONS.items():
    _conclude_route(_action, _summary)
