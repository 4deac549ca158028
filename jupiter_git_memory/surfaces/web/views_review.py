"""The review queue and a candidate's page, with propose / reject / revise / forget and the reviewer's
conclusions: duplicate of, merge into, supersedes.

Every action calls the candidate service the CLI, API and MCP call (`candidates.service.for_handle`,
`candidates.propose.propose`, `candidates.review`), so its checks and answers are the same; the UI only
renders them. Every POST answers 303 to a page (post/redirect/get): a reload shows the result again and
never runs the action twice; what only the POST knew (the PR it opened) is kept in the session.
"""

from __future__ import annotations

import shutil
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import ValidationError

from ...app.candidate_requests import ProposeRequest
from ...app.records_ops import check_id
from ...app.workspace_handle import WorkspaceHandle
from ...base import error_codes as E
from ...base.store import workspace_lock
from ...candidates import dedup, review
from ...candidates import service as candidate_service
from ...candidates.model import STATES
from ...candidates.propose import propose
from ...candidates.warngroups import grouped
from ...candidates.worddiff import word_diff
from .pages import Form, Refused, base, page, require_workspace

router = APIRouter()
Handle = Annotated[WorkspaceHandle, Depends(require_workspace)]
MAX_NEIGHBOURS = 3


def _svc(handle: WorkspaceHandle):
    return candidate_service.for_handle(handle)  # its JgmErrors keep their own codes on the error page


def _reviewer(request: Request) -> str:
    return f"reviewer:{request.state.session.token_name}"


@router.get("/", response_class=HTMLResponse)
def queue(request: Request, handle: Handle, state: str = "queue", done: str = ""):
    if state not in ("queue", "all", *STATES):
        raise Refused(E.REQUEST_BAD_FILTER, f"unknown state {state!r}")
    rows = _svc(handle).list(state)
    for c in rows:
        c["warning_groups"] = grouped(c["warnings"])
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
        body = m.row.data.get("body", "")
        titles, bodies = word_diff(cand["title"], m.row.title), word_diff(cand["body"], body)
        out.append(
            dict(
                m.summary(),
                body=body,
                differs=dedup.disagreement(text, dedup.row_text(m.row)),
                duplicate=m.cos >= dedup.DUPLICATE_COS,
                title_diff=titles,
                diff=bodies,
                numbers=[_once(a + b) for a, b in zip(titles.changed_numbers, bodies.changed_numbers)],
                negations=[_once(a + b) for a, b in zip(titles.changed_negations, bodies.changed_negations)],
            )
        )
    return out


def _once(words: list[str]) -> list[str]:
    return list(dict.fromkeys(words))


def _revisions(c: dict) -> list[dict[str, Any]]:
    """Each revision with a word diff of every text field it changed (before it → after it)."""
    revs = c.get("revisions") or []
    out = []
    for i, r in enumerate(revs):
        diffs = []
        for f, before in (r.get("before") or {}).items():
            if f not in ("title", "body") or before is None:
                continue
            later = [x["before"][f] for x in revs[i + 1 :] if f in (x.get("before") or {})]
            diffs.append((f, word_diff(str(before), str(later[0] if later else c.get(f) or ""))))
        out.append(dict(r, diffs=diffs))
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
        warning_groups=grouped(cand["warnings"]),
        revisions=_revisions(cand),
        duplicate_cos=dedup.DUPLICATE_COS,
        similar_cos=dedup.SIMILAR_COS,
        gh=bool(shutil.which("gh")),
        **extra,
    )


@router.get("/candidates/{cid}", response_class=HTMLResponse)
def candidate(request: Request, handle: Handle, cid: str, shown: str = "", done: str = ""):
    proposed = request.state.session.kept(shown) if shown else None
    return _candidate_page(request, handle, cid, proposed=proposed, done=done[:200])


def _to_candidate(request: Request, handle: WorkspaceHandle, cid: str, query: str = "") -> RedirectResponse:
    return RedirectResponse(f"{base(request)}/w/{handle.id}/candidates/{cid}{query}", status_code=303)


def _to_queue(request: Request, handle: WorkspaceHandle, done: str) -> RedirectResponse:
    return RedirectResponse(f"{base(request)}/w/{handle.id}/?done={quote(done)}", status_code=303)


@router.post("/candidates/{cid}/propose")
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
    return _to_candidate(request, handle, cid, f"?shown={request.state.session.keep(result)}")


@router.post("/candidates/{cid}/reject")
def do_reject(request: Request, handle: Handle, cid: str, form: Form):
    _svc(handle).reject(check_id(cid), str(form.get("why") or ""))
    return _to_queue(request, handle, f"rejected {cid}")


@router.post("/candidates/{cid}/duplicate")
def do_duplicate(request: Request, handle: Handle, cid: str, form: Form):
    out = review.duplicate_of(_svc(handle), check_id(cid), str(form.get("target") or ""), _reviewer(request))
    return _to_queue(request, handle, f"closed {cid} as a duplicate of {out['duplicate_of']}")


@router.post("/candidates/{cid}/merge")
def do_merge(request: Request, handle: Handle, cid: str, form: Form):
    out = review.merge_into(_svc(handle), check_id(cid), str(form.get("target") or ""), _reviewer(request))
    return _to_queue(request, handle, f"merged {cid} into {out['merged_into']}")


@router.post("/candidates/{cid}/supersede")
def do_supersede(request: Request, handle: Handle, cid: str, form: Form):
    target = str(form.get("target") or "").strip()
    review.supersedes(_svc(handle), check_id(cid), target, _reviewer(request))
    return _to_candidate(request, handle, cid, f"?done={quote(f'its proposal will supersede {target}')}")


@router.post("/candidates/{cid}/revise")
def do_revise(request: Request, handle: Handle, cid: str, form: Form):
    tags = [t.strip() for t in str(form.get("tags") or "").split(",") if t.strip()]
    _svc(handle).revise(
        check_id(cid),
        title=str(form.get("title") or ""),
        body=str(form.get("body") or ""),
        tags=tags,
        source=str(form.get("source") or "").strip() or None,
        agent=_reviewer(request),
    )
    return _to_candidate(request, handle, cid, "?revised=1")


@router.post("/candidates/{cid}/forget")
def do_forget(request: Request, handle: Handle, cid: str, form: Form):
    _svc(handle).forget(check_id(cid), reviewer=True)  # the UI's session is the reviewer's
    return _to_queue(request, handle, f"forgot {cid}")
