"""The review queue and a candidate's page, with propose / reject / revise / forget.

Every action calls the candidate service the CLI, API and MCP call (`candidates.service.for_handle`,
`candidates.propose.propose`), so its checks and answers are the same; the UI only renders them.
"""

from __future__ import annotations

import shutil
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import ValidationError

from ...base import error_codes as E
from ...base.store import workspace_lock
from ...candidates import dedup
from ...candidates import service as candidate_service
from ...candidates.model import STATES
from ...candidates.propose import propose
from ..api.routes_candidates import ProposeRequest
from ..records_ops import check_id
from ..workspace_handle import WorkspaceHandle
from .app import Form, Refused, base, page, require_workspace

router = APIRouter()
Handle = Annotated[WorkspaceHandle, Depends(require_workspace)]
MAX_NEIGHBOURS = 3


def _svc(handle: WorkspaceHandle):
    return candidate_service.for_handle(handle)  # its JgmErrors keep their own codes on the error page


@router.get("/", response_class=HTMLResponse)
def queue(request: Request, handle: Handle, state: str = "queue", done: str = ""):
    if state not in ("queue", "all", *STATES):
        raise Refused(E.REQUEST_BAD_FILTER, f"unknown state {state!r}")
    rows = _svc(handle).list(state)
    return page(
        request,
        "queue.html",
        ws=handle.id,
        candidates=rows,
        state=state,
        states=("queue", *STATES, "all"),
        done=done[:200],
    )


def _neighbours(handle: WorkspaceHandle, cand: dict) -> list[dict]:
    """The records nearest to the candidate's text right now (what the near-duplicate check compares)."""
    svc = _svc(handle)
    with handle.reading() as recaller, workspace_lock(recaller.wsdir, exclusive=False):
        index = recaller.index()
        matches = dedup.nearest(
            index, recaller.embedder, svc.seeder.chunker, cand["title"], cand["body"], exclude={cand["id"]}
        )
    text = f"{cand['title']}\n\n{cand['body']}"
    out = []
    for m in matches[:MAX_NEIGHBOURS]:
        out.append(
            dict(
                m.summary(),
                body=m.row.data.get("body", ""),
                differs=dedup.disagreement(text, dedup.row_text(m.row)),
                duplicate=m.cos >= dedup.DUPLICATE_COS,
            )
        )
    return out


def _candidate_page(request: Request, handle: WorkspaceHandle, cid: str, status: int = 200, **extra):
    cand = _svc(handle).show(check_id(cid))
    try:
        near = _neighbours(handle, cand)
        near_error = None
    except Exception as e:  # the page still shows the candidate; the comparison says why it is missing
        near, near_error = [], f"{e.__class__.__name__}: {e}"
    return page(
        request,
        "candidate.html",
        status,
        ws=handle.id,
        c=cand,
        near=near,
        near_error=near_error,
        duplicate_cos=dedup.DUPLICATE_COS,
        similar_cos=dedup.SIMILAR_COS,
        gh=bool(shutil.which("gh")),
        **extra,
    )


@router.get("/candidates/{cid}", response_class=HTMLResponse)
def candidate(request: Request, handle: Handle, cid: str):
    return _candidate_page(request, handle, cid)


@router.post("/candidates/{cid}/propose", response_class=HTMLResponse)
def do_propose(request: Request, handle: Handle, cid: str, form: Form):
    try:  # the API's own request model: the same limits on status and base
        body = ProposeRequest(
            status=str(form.get("status") or "proposed"),
            base=str(form.get("base") or "").strip() or None,
            open_pr=form.get("open_pr") == "on",
        )
    except ValidationError as e:
        raise Refused(
            E.REQUEST_INVALID, "; ".join(f"{'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors())
        ) from None
    result = propose(_svc(handle), check_id(cid), body.status, body.base, body.open_pr)
    return _candidate_page(request, handle, cid, proposed=result)


@router.post("/candidates/{cid}/reject")
def do_reject(request: Request, handle: Handle, cid: str, form: Form):
    _svc(handle).reject(check_id(cid), str(form.get("why") or ""))
    return RedirectResponse(f"{base(request)}/w/{handle.id}/?done={quote(f'rejected {cid}')}", status_code=303)


@router.post("/candidates/{cid}/revise", response_class=HTMLResponse)
def do_revise(request: Request, handle: Handle, cid: str, form: Form):
    tags = [t.strip() for t in str(form.get("tags") or "").split(",") if t.strip()]
    _svc(handle).revise(
        check_id(cid),
        title=str(form.get("title") or ""),
        body=str(form.get("body") or ""),
        tags=tags,
        source=str(form.get("source") or "").strip() or None,
        agent=f"reviewer:{request.state.session.token_name}",
    )
    return RedirectResponse(f"{base(request)}/w/{handle.id}/candidates/{cid}?revised=1", status_code=303)


@router.post("/candidates/{cid}/forget")
def do_forget(request: Request, handle: Handle, cid: str, form: Form):
    _svc(handle).forget(check_id(cid))
    return RedirectResponse(f"{base(request)}/w/{handle.id}/?done={quote(f'forgot {cid}')}", status_code=303)
