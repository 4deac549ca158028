"""Recall endpoints: plain recall, recall for a task, context packs."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from ...base.errors import as_error
from ...recall.answers import ContextPack, RecallAnswer, TaskAnswer
from ...recall.service import NotSeeded, RecallError
from .deps import Scope, require_token
from .errors import COMMON_RESPONSES, typed
from .schemas import ContextRequest, RecallRequest, TaskRequest
from .tokens import TokenInfo

router = APIRouter(
    tags=["recall"],
    responses={
        **COMMON_RESPONSES,
        409: {
            "description": "`memory/not-seeded`: the store holds no "
            "records for this workspace (the message says what to run)"
        },
        503: {"description": "Model or index unavailable"},
    },
)


@router.post("/recall", summary="Recall records for a question under the memory contract", **typed(RecallAnswer))
def recall(body: RecallRequest, scope: Scope) -> dict[str, Any]:
    try:
        res = scope.read(
            lambda recaller: recaller.recall(
                body.query,
                k=body.k,
                kinds=list(body.kinds) or None,
                statuses=list(body.statuses) or None,
                mode=body.mode,
                at=body.at,
            )
        )
    except ValueError as e:  # an UnknownRevision keeps its own code and status
        raise as_error(e) from None
    return dict(res.to_json(), workspace=scope.id)


@router.post(
    "/recall-task",
    summary="Memories for a task (goal and its concerns, error signatures, files and the records governing them)",
    **typed(TaskAnswer),
)
def recall_task(body: TaskRequest, scope: Scope, token: Annotated[TokenInfo, Depends(require_token)]) -> dict[str, Any]:
    from ...recall.task import recall_task as run

    try:
        res = scope.read(
            lambda recaller: run(
                recaller,
                body.goal,
                body.errors,
                body.files,
                k=body.k,
                include_global=body.include_global,
                global_k=body.global_k,
                store_root=scope.store_root,
                may_read=token.may_read,
                statuses=list(body.statuses) or None,
            )
        )
    except ValueError as e:
        raise as_error(e) from None
    if res["status"] == "not-seeded":
        raise NotSeeded(res["message"])
    if res["status"] == "retrieval-failed":
        raise RecallError("; ".join(res.get("warnings") or ["recall could not run"]))
    return res


@router.post("/context", summary="A context pack: the best records trimmed to a token budget", **typed(ContextPack))
def context(body: ContextRequest, scope: Scope) -> dict[str, Any]:
    from ...recall.context import build_context

    try:
        return scope.read(
            lambda recaller: build_context(
                recaller,
                body.goal,
                body.budget_tokens,
                k=body.k,
                files=body.files,
                errors=body.errors,
                statuses=list(body.statuses) or None,
            )
        )
    except ValueError as e:
        raise as_error(e) from None
