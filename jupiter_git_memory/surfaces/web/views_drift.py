"""The drift queue: in-force records whose cited code changed since their baseline, or whose cited paths
are gone, beside the candidate queue (docs/drift.md). A reviewer updates or supersedes a record in Git, or
presses Confirm: `jgm drift confirm`'s operation (app/drift.confirm) writes the record's `reviewed` line in
the served working tree, and the page says what to commit (a POST with the session's CSRF token, answered
303 to the page: post/redirect/get, as the review queue's actions).

The rows are `jgm drift`'s report (app/drift.py), so the page, the CLI and CI agree. Each row's
diff is the `git diff` from the record's baseline to the view's commit over the cited paths, and a
compare link when `origin` is a GitHub remote.
"""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from ...app.drift import ConfirmRequest, DriftRequest, confirm, drift
from ...app.workspace_handle import WorkspaceHandle
from ...git.config import remote_url
from ...recall import evidence
from ...records.checks import check_id
from .pages import Form, base, page, require_workspace

router = APIRouter()
Handle = Annotated[WorkspaceHandle, Depends(require_workspace)]
_GITHUB = re.compile(r"^(?:https://github\.com/|git@github\.com:)([\w.-]+/[\w.-]+?)(?:\.git)?/?$")


def _github(root) -> str | None:
    url = remote_url(root, "origin")
    m = _GITHUB.match(url)
    return f"https://github.com/{m.group(1)}" if m else None


@router.get("/drift", response_class=HTMLResponse)
def drift_queue(request: Request, handle: Handle, state: str = "queue", shown: str = ""):
    rep = handle.read(lambda recaller: drift(recaller, DriftRequest()))
    wanted = {"queue": ("drifted", "missing"), "fresh": ("fresh",), "external": ("external",)}.get(state)
    rows = [r for r in rep["records"] if wanted is None or r["state"] in wanted]
    rows.sort(key=lambda r: (r["state"] != "missing", -r.get("commits", 0), r["id"]))
    gh = _github(handle.workspace.repo_root)
    head = rep["commit"] or "HEAD"
    for r in rows:
        since = r.get("baseline") or r["commit"]  # a confirmed record counts from its reviewed commit
        r["diff_cmd"] = evidence.diff_command(since, head, r["cited"])  # each path quoted for a shell
        r["diff_url"] = f"{gh}/compare/{since}...{head}" if gh and since and rep["commit"] else None
    return page(
        request,
        "drift.html",
        ws=handle.id,
        rows=rows,
        counts=rep["counts"],
        state=state,
        states=("queue", "fresh", "external", "all"),
        commit=rep["commit"],
        confirmed=request.state.session.kept(shown) if shown else None,
    )


@router.post("/drift/{rid}/confirm")
def do_confirm(request: Request, handle: Handle, rid: str, form: Form):
    """Write the record's `reviewed` line in the working tree (refusals render as an error page with their
    code); the page it redirects to shows the line and the command that commits it."""
    req = ConfirmRequest(ids=[check_id(rid)])
    result = handle.read(lambda recaller: confirm(recaller, req))
    back = f"{base(request)}/w/{handle.id}/drift?shown={request.state.session.keep(result)}"
    return RedirectResponse(back, status_code=303)
