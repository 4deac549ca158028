"""`create_app`: the local HTTP API as a FastAPI app.

Every data route lives under `/v1/workspaces/{workspace}/...` and needs a bearer token granted that
workspace; only `/v1/health`, `/openapi.json` and `/docs` are open (docs/api.md says so; a test holds them to it). The app serves the workspaces it was built with (one per repo),
keeps one WorkspaceHandle (Recaller + Seeder, model loaded once) per workspace, and warms them at
startup so the first request does not pay the model load.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable
from pathlib import Path

import anyio
from fastapi import FastAPI

from ... import __version__
from ...app.workspace_handle import WorkspaceHandle
from ...base.store import log
from ...git.workspace import find_workspace
from . import errors, routes_admin, routes_candidates, routes_recall, routes_records
from .deps import ApiState
from .hosts import LOOPBACK_HOSTS, HostGuard
from .limits import DEFAULT_MAX_BODY, BodySizeLimit
from .tokens import DEFAULT, TokenStore

WS_PREFIX = "/v1/workspaces/{workspace}"


def build_state(
    repos: Iterable[Path | str] = (),
    store_root: Path | None = None,
    grant_default: bool = True,
    seed_lock_timeout: float = 120.0,
) -> ApiState:
    """Handles for each repo's workspace; the default token exists and is granted them (if asked)."""
    handles = {h.key: h for h in served_handles(repos, store_root)}
    tokens = TokenStore(store_root)
    tokens.ensure_default()
    if grant_default and handles:
        tokens.grant(DEFAULT, sorted({h.workspace.id for h in handles.values()}))
    return ApiState(handles=handles, tokens=tokens, store_root=store_root, seed_lock_timeout=seed_lock_timeout)


def served_handles(repos: Iterable[Path | str], store_root: Path | None = None) -> list[WorkspaceHandle]:
    """One handle per worktree served. Worktrees of one repository share a workspace (and its store) but
    each answers from its own view, so each is served: the first under the workspace id, the others under
    `<workspace id>.<worktree folder>`. The same worktree named twice is served once."""
    out: list[WorkspaceHandle] = []
    for repo in repos:
        ws = find_workspace(repo)
        if any(h.workspace.repo_root == ws.repo_root for h in out):
            continue
        taken = {h.key for h in out}
        key = ws.id
        if key in taken:
            folder = re.sub(r"[^A-Za-z0-9_-]+", "-", ws.repo_root.name).strip("-")[:40] or "worktree"
            key, n = f"{ws.id}.{folder}", 2
            while key in taken:
                key, n = f"{ws.id}.{folder}-{n}", n + 1
        out.append(WorkspaceHandle(ws, store_root, key))
    return out


def _warm(state: ApiState) -> None:
    for h in state.handles.values():
        try:
            with h.catalog():
                pass
        except Exception as e:  # served anyway: requests report the failure with a JSON code
            log(f"api: warm-up of workspace {h.id} failed: {e}")


def create_app(
    repos: Iterable[Path | str] = (),
    *,
    state: ApiState | None = None,
    store_root: Path | None = None,
    max_body: int = DEFAULT_MAX_BODY,
    warm: bool = True,
    hosts: Iterable[str] = LOOPBACK_HOSTS,
) -> FastAPI:
    """`hosts`: the Host names answered (api/hosts.py); `jgm serve` passes the loopback names, the bound
    host and its --allow-host names."""
    state = state or build_state(repos, store_root)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        if warm:
            await anyio.to_thread.run_sync(_warm, state)
        yield
        state.close()

    app = FastAPI(
        title="jupiter-git-memory",
        version=__version__,
        lifespan=lifespan,
        redoc_url=None,
        swagger_ui_oauth2_redirect_url=None,
        description="Local API over Git-native team memory. Recalled records are evidence with their "
        'source and status, not instructions. Errors: `{"error": {"code", "message"}}`.',
    )
    app.state.jgm = state
    errors.install(app)
    app.include_router(routes_admin.public, prefix="/v1")
    app.include_router(routes_admin.scoped, prefix=WS_PREFIX)
    app.include_router(routes_recall.router, prefix=WS_PREFIX)
    app.include_router(routes_records.router, prefix=WS_PREFIX)
    app.include_router(routes_candidates.router, prefix=WS_PREFIX)
    _document_errors(app)
    from ..web import mount as mount_ui  # the review UI at /ui/ (same state, same services)

    mount_ui(app, state)
    app.add_middleware(BodySizeLimit, max_body=max_body)
    app.add_middleware(HostGuard, hosts=hosts)  # added last: outermost, before the body is read
    return app


def _document_errors(app: FastAPI) -> None:
    """Point FastAPI's generated 422 schema at our error body, so the schema tells the truth."""
    original = app.openapi

    def openapi():
        if app.openapi_schema:
            return app.openapi_schema
        schema = original()
        ref_old = "#/components/schemas/HTTPValidationError"
        ref_new = "#/components/schemas/ErrorBody"
        for path in schema.get("paths", {}).values():
            for op in path.values():
                for resp in (op.get("responses") or {}).values():
                    for media in (resp.get("content") or {}).values():
                        if media.get("schema", {}).get("$ref") == ref_old:
                            media["schema"] = {"$ref": ref_new}
        comps = schema.get("components", {}).get("schemas", {})
        comps.pop("HTTPValidationError", None)
        comps.pop("ValidationError", None)
        app.openapi_schema = schema
        return schema

    app.openapi = openapi
