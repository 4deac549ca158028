"""Records: a filtered, paged list and a record's page (Markdown, status and why, relations, receipts)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from ...app import records_ops as ops
from ...app.workspace_handle import WorkspaceHandle
from ...base import error_codes as E
from ...candidates import review
from ...git.listing import commit_info
from ...lifecycle.promote import CANDIDATE_ID_PREFIX
from ...records.model import ALL_EFFECTIVE, KINDS
from . import graph, render
from .pages import Refused, base, page, require_workspace

router = APIRouter()
Handle = Annotated[WorkspaceHandle, Depends(require_workspace)]
PAGE = 50
RECEIPT_WINDOW = 5000  # the newest receipts searched for ones that returned a record
SHOWN_RECEIPTS = 10


@router.get("/records", response_class=HTMLResponse)
def records(
    request: Request,
    handle: Handle,
    kind: str = "",
    status: str = "",
    tag: str = "",
    q: Annotated[str, Query(max_length=200)] = "",
    offset: Annotated[int, Query(ge=0)] = 0,
):
    if kind and kind not in KINDS or status and status not in ALL_EFFECTIVE:
        raise Refused(E.REQUEST_BAD_FILTER, f"unknown kind {kind!r} or status {status!r}")
    listing = handle.read_catalog(
        lambda cat: ops.list_records(cat, kind or None, status or None, tag.strip() or None, None, PAGE, offset, q)
    )
    filters = {"kind": kind, "status": status, "tag": tag, "q": q}
    return page(
        request,
        "records.html",
        ws=handle.id,
        listing=listing,
        filters=filters,
        kinds=KINDS,
        statuses=ALL_EFFECTIVE,
        page_size=PAGE,
    )


def receipts_returning(cat, rid: str) -> list[dict]:
    """The newest receipts (of the last RECEIPT_WINDOW) whose answer included `rid`."""
    out = []
    for d in cat.receipts_returning(rid, RECEIPT_WINDOW, SHOWN_RECEIPTS):
        ids = d.get("ids") or []
        out.append(
            {
                "id": d.get("id"),
                "query": d.get("query") or (d.get("request") or {}).get("goal") or "",
                "rank": ids.index(rid) + 1 if rid in ids else None,
                "of": len(ids),
                "mode": d.get("mode"),
                "timestamp": d.get("timestamp"),
            }
        )
    return out


@router.get("/records/{rid}", response_class=HTMLResponse)
def record(request: Request, handle: Handle, rid: str):
    rec, rel, receipts, duplicates = handle.read_catalog(
        lambda cat: (
            ops.get_record(cat, rid, handle.id),
            ops.relations(cat, rid, handle.id),
            receipts_returning(cat, rid),
            review.duplicates_of(cat, rid),
        )
    )
    commit = commit_info(str(handle.workspace.repo_root), rec["commit"]) if rec.get("commit") else None
    href = lambda other: f"{base(request)}/w/{handle.id}/records/{other}"  # noqa: E731
    extra = {k: v for k, v in rec.items() if k in ("metadata",) and v}
    claimed = (rec.get("metadata") or {}).get("candidate")
    from_candidate = claimed if isinstance(claimed, str) and claimed.startswith(CANDIDATE_ID_PREFIX) else None
    return page(
        request,
        "record.html",
        ws=handle.id,
        r=rec,
        rel=rel,
        why=render.status_why(rec, rel),
        graph=graph.svg(rel, href),
        lists=graph.relation_lists(rel),
        receipts=receipts,
        commit=commit,
        extra=extra,
        root=Path(handle.workspace.repo_root),
        from_candidate=from_candidate,
        duplicates=duplicates,
    )
