"""The recall inspector: ask through the same operation every surface uses (app/recall.py) and show its evidence,
what it left out and why, and the receipt; look up and verify a stored receipt. An asked question answers
303 to the page showing it (kept in the session), so a reload does not ask again (and store a second receipt)."""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from ...app.limits import MAX_K
from ...app.recall import RecallRequest
from ...app.recall import recall as run
from ...app.workspace_handle import WorkspaceHandle
from ...base import error_codes as E
from ...recall.ranking import DEFAULT_STATUSES, MODES
from ...recall.receipts import get_receipt
from ...recall.verify import verify_receipt
from ...records.model import ALL_EFFECTIVE, ID_PATTERN, KINDS
from .inspect import cuts, embed_once
from .pages import Form, Refused, base, page, require_workspace

router = APIRouter()
Handle = Annotated[WorkspaceHandle, Depends(require_workspace)]


def _form_page(request, handle, status: int = 200, **ctx):
    ctx.setdefault("ask", {"q": "", "mode": "hybrid", "statuses": list(DEFAULT_STATUSES), "kinds": [], "k": 5})
    return page(
        request, "recall.html", status, ws=handle.id, modes=MODES, all_statuses=ALL_EFFECTIVE, kinds=KINDS, **ctx
    )


@router.get("/recall", response_class=HTMLResponse)
def recall_form(request: Request, handle: Handle, shown: str = ""):
    kept = request.state.session.kept(shown) if shown else None
    if kept and kept.get("ws") == handle.id:  # the answer a POST computed: shown again, never recomputed
        return _form_page(request, handle, ask=kept["ask"], res=kept["res"], cut=kept["cut"])
    return _form_page(request, handle)


@router.post("/recall")
def recall(request: Request, handle: Handle, form: Form):
    q = str(form.get("q") or "").strip()[:2000]
    mode = str(form.get("mode") or "hybrid")
    statuses = [s for s in form.getlist("status") if s in ALL_EFFECTIVE] or list(DEFAULT_STATUSES)
    kinds = [k for k in form.getlist("kind") if k in KINDS]
    try:
        k = max(1, min(MAX_K, int(str(form.get("k") or 5))))
    except ValueError:
        k = 5
    ask = {"q": q, "mode": mode, "statuses": statuses, "kinds": kinds, "k": k}
    if not q or mode not in MODES:
        return _form_page(request, handle, 400, ask=ask, error="ask a question and pick a mode")
    with handle.reading() as recaller, embed_once(recaller):
        res = run(
            recaller, RecallRequest.model_construct(query=q, k=k, kinds=kinds, statuses=statuses, mode=mode, at=None)
        )
        res = res.to_json()
        left_out = cuts(recaller, q, k, kinds or None, statuses, mode, [r["id"] for r in res["results"]])
    key = request.state.session.keep({"ws": handle.id, "ask": ask, "res": res, "cut": left_out})
    return RedirectResponse(f"{base(request)}/w/{handle.id}/recall?shown={key}", status_code=303)


@router.get("/receipts", response_class=HTMLResponse)
def receipt_lookup(request: Request, handle: Handle, id: str = "", verify: bool = False):
    rid = id.strip()
    if not rid:
        return page(request, "receipt.html", ws=handle.id, receipt=None, verified=None, rid="")
    if not re.match(ID_PATTERN, rid):
        raise Refused(E.REQUEST_BAD_ID, f"receipt id {rid!r} is not valid")
    with handle.catalog() as cat:
        receipt = get_receipt(cat, rid)
    if receipt is None:
        raise Refused(E.MEMORY_NOT_FOUND, f"no receipt {rid!r} in workspace {handle.id}")
    verified = None
    if verify:
        with handle.reading() as recaller:
            verified = verify_receipt(recaller, rid)
    return page(request, "receipt.html", ws=handle.id, receipt=receipt, verified=verified, rid=rid)
