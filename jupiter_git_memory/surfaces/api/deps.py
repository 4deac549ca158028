"""Shared state and dependencies of the API routers (the candidates router reuses them).

Interface for routers:
    scope: WorkspaceHandle = Depends(workspace_scope)   # auth + grant + served check, in that order
    scope.read(lambda recaller: ...)                    # Recaller, serialised per workspace
    scope.read_catalog(lambda cat: ...)                 # Catalog, under the shared workspace lock
    (both run once more on a reopened index after a stale read; `reading()` / `catalog()` do not)
    scope.seeder()                                      # Seeder (its seed() takes the exclusive lock)
    state: ApiState = Depends(get_state)                # all handles, the token store, settings
    token: TokenInfo = Depends(require_token)           # when a route is not workspace-scoped
Routers mounted under `/v1/workspaces/{workspace}` get `workspace` from the path automatically.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Annotated

from fastapi import Depends, Path, Request, Security
from fastapi.security import HTTPBearer

from ...app.workspace_handle import WorkspaceHandle
from ...base import error_codes as E
from .errors import ApiError
from .tokens import TokenInfo, TokenStore, bearer_secret

WS_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"


@dataclass
class ApiState:
    handles: dict[str, WorkspaceHandle]
    tokens: TokenStore
    store_root: FsPath | None = None  # the store (None: $JGM_HOME)
    seed_lock_timeout: float = 120.0
    extra: dict = field(default_factory=dict)  # room for other routers' per-process state

    def handle(self, wsid: str) -> WorkspaceHandle | None:
        return self.handles.get(wsid)

    def grant_id(self, key: str) -> str:
        """The workspace id a served key is granted under: every served worktree of a workspace shares its
        store, so a grant on the workspace covers them all. An unknown key is checked as given (403 first)."""
        h = self.handles.get(key)
        return h.workspace.id if h is not None else key

    def close(self) -> None:
        for h in self.handles.values():
            h.close()


def get_state(request: Request) -> ApiState:
    return request.app.state.jgm


class Bearer(HTTPBearer):
    """The OpenAPI `bearer` scheme; the header itself is read by tokens.bearer_secret, as MCP reads it."""

    async def __call__(self, request: Request) -> str | None:  # type: ignore[override]
        return bearer_secret(request.headers.get("Authorization"))


bearer = Bearer(
    auto_error=False,
    scheme_name="bearer",
    description="The token from `$JGM_HOME/api-token` (or one made with `jgm token create`).",
)


def require_token(
    state: Annotated[ApiState, Depends(get_state)],
    secret: Annotated[str | None, Security(bearer)],
) -> TokenInfo:
    if not secret:
        raise ApiError(
            E.AUTH_MISSING_TOKEN,
            "send `Authorization: Bearer <token>`; the default token is in $JGM_HOME/api-token",
            headers={"WWW-Authenticate": "Bearer"},
        )
    info = state.tokens.authenticate(secret)
    if info is None:
        raise ApiError(
            E.AUTH_INVALID_TOKEN,
            "unknown bearer token; `jgm token list` shows the valid ones",
            headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
        )
    return info


WorkspaceId = Annotated[
    str,
    Path(
        pattern=WS_PATTERN,
        max_length=128,
        description="Served workspace id (`GET /v1/workspaces` lists them; a further "
        "worktree of a served workspace is `<id>.<folder>`)",
    ),
]


def workspace_scope(
    workspace: WorkspaceId,
    token: Annotated[TokenInfo, Depends(require_token)],
    state: Annotated[ApiState, Depends(get_state)],
) -> WorkspaceHandle:
    """403 before 404: a token never learns whether a workspace it was not granted exists."""
    granted = state.grant_id(workspace)
    if not token.may_read(granted):
        raise ApiError(
            E.WORKSPACE_FORBIDDEN,
            f"token {token.name!r} is not granted workspace {workspace!r}; "
            f"grant it with `jgm token grant {token.name} {granted}`",
        )
    handle = state.handle(workspace)
    if handle is None:
        raise ApiError(
            E.WORKSPACE_NOT_FOUND,
            f"workspace {workspace!r} is not served by this server; restart `jgm serve` with `--repo` pointing at it",
        )
    return handle


Scope = Annotated[WorkspaceHandle, Depends(workspace_scope)]
