"""The drift queue: in-force records whose cited code changed since they were last committed, or whose
cited paths are gone, beside the candidate queue (docs/drift.md). Read-only: a reviewer updates,
supersedes or confirms a record in Git (re-committing it makes it fresh).

The rows are `jgm drift`'s report (app/drift.py), so the page, the CLI and CI agree. Each row's
diff is the `git diff` from the record's baseline to the view's commit over the cited paths, and a
compare link when `origin` is a GitHub remote.
"""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse

from ...app.drift import DriftRequest, drift
from ...app.workspace_handle import WorkspaceHandle
from ...git.config import remote_url
from ...recall import evidence
from .pages import page, require_workspace

router = APIRouter()
Handle = Annotated[WorkspaceHandle, Depends(require_workspace)]
_GITHUB = re.compile(r"^(?:https://github\.com/|git@github\.com:)([\w.-]+/[\w.-]+?)(?:\.git)?/?$")


def _github(root) -> str | None:
    url = remote_url(root, "origin")
    m = _GITHUB.match(url)
    return f"https://github.com/{m.group(1)}" if m else None


@router.get("/drift", response_class=HTMLResponse)
def drift_queue(request: Request, handle: Handle, state: str = "queue"):
    rep = handle.read(lambda recaller: drift(recaller, DriftRequest()))
    shown = {"queue": ("drifted", "missing"), "fresh": ("fresh",), "external": ("external",)}.get(state)
    rows = [r for r in rep["records"] if shown is None or r["state"] in shown]
    rows.sort(key=lambda r: (r["state"] != "missing", -r.get("commits", 0), r["id"]))
    gh = _github(handle.workspace.repo_root)
    head = rep["commit"] or "HEAD"
    for r in rows:
        r["diff_cmd"] = evidence.diff_command(r["commit"], head, r["cited"])  # each path quoted for a shell
        r["diff_url"] = f"{gh}/compare/{r['commit']}...{head}" if gh and r["commit"] and rep["commit"] else None
    return page(
        request,
        "drift.html",
        ws=handle.id,
        rows=rows,
        counts=rep["counts"],
        state=state,
        states=("queue", "fresh", "external", "all"),
        commit=rep["commit"],
    )
