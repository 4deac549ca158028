"""The review queue and a candidate's page, with propose / reject / revise / forget and the reviewer's
conclusions: duplicate of, merge into, supersedes.

Every action builds the request of the operation the CLI, API and MCP call (app/candidates.py: the request
models of app/candidate_requests.py) and renders its typed answer, so its checks and answers are the same.
Every POST answers 303 to a page (post/redirect/get): a reload shows the result again and never runs the
action twice; what only the POST knew (the PR it opened) is kept in the session. The candidate page shows
every field the agent sent (candidates/said.py, from CandidateInput's declaration), escaped.
"""

from __future__ import annotations

import shutil
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import ValidationError

from ...app.candidate_requests import ConcludeRequest, ProposeRequest, RejectRequest, ReviseRequest
from ...app.candidates import Candidates
from ...app.records_ops import check_id
from ...app.workspace_handle import WorkspaceHandle
from ...base import error_codes as E
from ...base.store import workspace_lock
from ...candidates import dedup
from ...candidates.model import STATES
from ...candidates.said import candidate_values, said
from ...candidates.warngroups import grouped
from ...candidates.worddiff import compare, word_diff
from .pages import Form, Refused, base, page, require_workspace

router = APIRouter()
Handle = Annotated[WorkspaceHandle, Depends(require_workspace)]
MAX_NEIGHBOURS = 3


def _ops(handle: WorkspaceHandle) -> Candidates:
    return Candidates.for_handle(handle)  # its JgmErrors keep their own codes on the error page


# An observation's line on the page already names these; its other fields are listed under it.
OBSERVATION_LINE = ("agent", "session", "work_item", "source", "evidence", "title", "body")


def _reviewer(request: Request) -> str:
    return f"reviewer:{request.state.session.token_name}"


@router.get("/", response_class=HTMLResponse)
def queue(request: Request, handle: Handle, state: str = "queue", done: str = ""):
    if state not in ("queue", "all", *STATES):
        raise Refused(E.REQUEST_BAD_FILTER, f"unknown state {state!r}")
    rows = [c.model_dump() for c in _ops(handle).listing(state).candidates]
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
    chunker = _ops(handle).svc.seeder.chunker
    with handle.reading() as recaller, workspace_lock(recaller.wsdir, exclusive=False):
        index = recaller.index()
        matches = dedup.nearest(index, recaller.embedder, chunker, cand["title"], cand["body"], exclude={cand["id"]})
    text = f"{cand['title']}\n\n{cand['body']}"
    out = []
    for m in matches[:MAX_NEIGHBOURS]:
        body = m.row.data.get("body", "")
        titles, bodies = compare(cand["title"], m.row.title), compare(cand["body"], body)
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


def what_was_said(cand: dict[str, Any]) -> dict[str, Any]:
    """The fields the agent sent (candidates/said.py): the candidate's, but its title and body (the page's
    headline and Text panel), and under each later observation what its line does not name already."""
    observations = cand.get("evidence") or []
    return {
        "said": said(candidate_values(cand), skip=("title", "body")),
        "observed": [[] if i == 0 else said(e, skip=OBSERVATION_LINE) for i, e in enumerate(observations)],
    }


def _candidate_page(request: Request, handle: WorkspaceHandle, cid: str, status: int = 200, **extra):
    cand = _ops(handle).show(check_id(cid)).candidate.model_dump()
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
        **what_was_said(cand),
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
    result = _ops(handle).propose(check_id(cid), body).model_dump(mode="json")
    return _to_candidate(request, handle, cid, f"?shown={request.state.session.keep(result)}")


def _conclude(request: Request, handle: WorkspaceHandle, cid: str, action: str, form: Form) -> dict[str, Any]:
    """A reviewer's conclusion (app/candidates.CONCLUSIONS), by this session's reviewer; the operation checks
    the target, as it does for the API."""
    req = ConcludeRequest.model_construct(target=str(form.get("target") or "").strip(), reviewer=None)
    return _ops(handle).conclude(check_id(cid), action, req, _reviewer(request)).candidate.model_dump()


@router.post("/candidates/{cid}/reject")
def do_reject(request: Request, handle: Handle, cid: str, form: Form):
    _ops(handle).reject(check_id(cid), RejectRequest.model_construct(why=str(form.get("why") or "")))
    return _to_queue(request, handle, f"rejected {cid}")


@router.post("/candidates/{cid}/duplicate")
def do_duplicate(request: Request, handle: Handle, cid: str, form: Form):
    out = _conclude(request, handle, cid, "duplicate", form)
    return _to_queue(request, handle, f"closed {cid} as a duplicate of {out['duplicate_of']}")


@router.post("/candidates/{cid}/merge")
def do_merge(request: Request, handle: Handle, cid: str, form: Form):
    out = _conclude(request, handle, cid, "merge", form)
    return _to_queue(request, handle, f"merged {cid} into {out['merged_into']}")


@router.post("/candidates/{cid}/supersede")
def do_supersede(request: Request, handle: Handle, cid: str, form: Form):
    target = str(form.get("target") or "").strip()
    _conclude(request, handle, cid, "supersede", form)
    return _to_candidate(request, handle, cid, f"?done={quote(f'its proposal will supersede {target}')}")


@router.post("/candidates/{cid}/revise")
def do_revise(request: Request, handle: Handle, cid: str, form: Form):
    tags = [t.strip() for t in str(form.get("tags") or "").split(",") if t.strip()]
    req = ReviseRequest.model_construct(
        title=str(form.get("title") or ""),
        body=str(form.get("body") or ""),
        tags=tags,
        source=str(form.get("source") or "").strip() or None,
        agent=_reviewer(request),
    )
    _ops(handle).revise(check_id(cid), req)
    return _to_candidate(request, handle, cid, "?revised=1")


@router.post("/candidates/{cid}/forget")
def do_forget(request: Request, handle: Handle, cid: str, form: Form):
    _ops(handle).forget(check_id(cid), reviewer=True)  # the UI's session is the reviewer's
    return _to_queue(request, handle, f"forgot {cid}")
