"""Record endpoints: list (filtered, paged), get one, its supersede relations. Each builds its request
(app/record_requests.py) from the path or query and renders the answer."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from ...app import record_requests as reads
from ...app.record_answers import RecordAnswer, RecordPage, Relations
from ...app.record_requests import RecordRef, RecordsQuery
from ...app.records_ops import EVIDENCE_NOTE
from .deps import Scope
from .errors import COMMON_RESPONSES, typed
from .queries import path_request, request_from

router = APIRouter(tags=["records"], responses=COMMON_RESPONSES)
Listing = Annotated[RecordsQuery, Depends(request_from(RecordsQuery))]
Ref = Annotated[RecordRef, Depends(path_request(RecordRef, id="record_id"))]


@router.get(
    "/records", summary="List records (filter by kind, effective status, tag; paged by offset)", **typed(RecordPage)
)
def list_records(scope: Scope, req: Listing) -> dict[str, Any]:
    return dict(scope.read_catalog(lambda cat: reads.page(cat, req)), workspace=scope.id)


@router.get(
    "/records/{record_id}", summary="One record with its body, effective status and provenance", **typed(RecordAnswer)
)
def get_record(scope: Scope, req: Ref) -> dict[str, Any]:
    rec = scope.read_catalog(lambda cat: reads.get(cat, req, scope.id))
    return {"record": rec, "workspace": scope.id, "note": EVIDENCE_NOTE}


@router.get(
    "/records/{record_id}/relations",
    summary="What the record supersedes or amends, and what supersedes or amends it",
    **typed(Relations),
)
def relations(scope: Scope, req: Ref) -> dict[str, Any]:
    return dict(scope.read_catalog(lambda cat: reads.relations(cat, req, scope.id)), workspace=scope.id)
