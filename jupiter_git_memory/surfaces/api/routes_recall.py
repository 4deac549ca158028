"""Recall endpoints: plain recall, recall for a task, context packs. Each builds the operation's request
(app/recall.py, the body itself) and returns its answer; errors are the operation's own."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from ...app import recall as ops
from ...recall.answers import ContextPack, RecallAnswer, TaskAnswer
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
    return dict(scope.read(lambda recaller: ops.recall(recaller, body)).to_json(), workspace=scope.id)


@router.post(
    "/recall-task",
    summary="Memories for a task (goal and its concerns, error signatures, files and the records governing them)",
    **typed(TaskAnswer),
)
def recall_task(body: TaskRequest, scope: Scope, token: Annotated[TokenInfo, Depends(require_token)]) -> dict[str, Any]:
    return scope.read(
        lambda recaller: ops.recall_task(recaller, body, store_root=scope.store_root, may_read=token.may_read)
    )


@router.post("/context", summary="A context pack: the best records trimmed to a token budget", **typed(ContextPack))
def context(body: ContextRequest, scope: Scope) -> dict[str, Any]:
    return scope.read(lambda recaller: ops.context(recaller, body))
