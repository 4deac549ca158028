"""Health, workspaces, seeding and receipts."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path
from pydantic import BaseModel

from ... import __version__
from ...app.record_answers import WorkspaceInfo, WorkspaceList
from ...app.workspaces import describe
from ...base.errors import as_error
from ...base.store import workspace_dir
from ...recall.answers import Receipt, Verification
from ...records.model import ID_PATTERN
from ...seed.answers import SeedAnswer
from .deps import ApiState, Scope, get_state, require_token
from .errors import COMMON_RESPONSES, typed
from .schemas import SeedRequest
from .tokens import TokenInfo

public = APIRouter(tags=["admin"])  # mounted at /v1
scoped = APIRouter(tags=["admin"], responses=COMMON_RESPONSES)  # mounted at /v1/workspaces/{workspace}
ReceiptId = Annotated[str, Path(pattern=ID_PATTERN, max_length=128, description="Receipt id (rcpt_…)")]


class Health(BaseModel):
    status: str
    version: str


@public.get("/health", summary="Liveness; needs no token and reveals no workspace")
def health() -> Health:
    return Health(status="ok", version=__version__)


def _info(state: ApiState, wsid: str) -> dict[str, Any]:
    h = state.handles[wsid]
    path = workspace_dir(h.workspace.id, state.store_root, create=False) / "catalog.sqlite"
    info = (
        describe(path, h.workspace.repo_root)
        if path.is_file()
        else {"id": wsid, "records": 0, "candidates": 0, "last_seeded_commit": None}
    )
    info.update(id=wsid, workspace=h.workspace.id, name=h.workspace.name, root=str(h.workspace.repo_root))
    return info


@public.get(
    "/workspaces",
    summary="The workspaces this server serves that the token may read",
    responses={401: COMMON_RESPONSES[401]},
    **typed(WorkspaceList),
)
def workspaces(
    token: Annotated[TokenInfo, Depends(require_token)], state: Annotated[ApiState, Depends(get_state)]
) -> dict[str, Any]:
    ids = sorted(w for w in state.handles if token.may_read(state.grant_id(w)))
    return {"workspaces": [_info(state, w) for w in ids], "token": token.name}


@scoped.get("", summary="One workspace: records count, last seeded commit, global flag", **typed(WorkspaceInfo))
def workspace(scope: Scope, state: Annotated[ApiState, Depends(get_state)]) -> dict[str, Any]:
    return _info(state, scope.id)


@scoped.post(
    "/seed",
    summary="Bring the index in line with the repo's knowledge files (incremental)",
    responses={409: {"description": "Another process holds the index lock"}},
    **typed(SeedAnswer),
)
def seed(
    scope: Scope, state: Annotated[ApiState, Depends(get_state)], body: SeedRequest | None = None
) -> dict[str, Any]:
    report = scope.seeder().seed(rebuild=bool(body and body.rebuild), lock_timeout=state.seed_lock_timeout)
    return report.to_json()


@scoped.get(
    "/receipts/{receipt_id}", summary="A stored receipt: what was asked, against which index state", **typed(Receipt)
)
def receipt(receipt_id: ReceiptId, scope: Scope) -> dict[str, Any]:
    from ...recall.receipts import require_receipt

    return scope.read_catalog(lambda cat: require_receipt(cat, receipt_id, scope.id))


@scoped.post(
    "/receipts/{receipt_id}/verify",
    summary="Re-run a receipt's request: same ids or not, and why",
    responses={503: {"description": "Model or index unavailable"}},
    **typed(Verification),
)
def verify(receipt_id: ReceiptId, scope: Scope, on_commit: bool = False) -> dict[str, Any]:
    from ...recall.receipts import require_receipt
    from ...recall.verify import verify_receipt

    scope.read_catalog(lambda cat: require_receipt(cat, receipt_id, scope.id))  # 404 before any model work
    try:
        return scope.read(lambda recaller: verify_receipt(recaller, receipt_id, on_commit=on_commit))
    except ValueError as e:
        raise as_error(e) from None
