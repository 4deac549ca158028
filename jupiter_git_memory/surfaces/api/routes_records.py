"""Record endpoints: list (filtered, paged), get one, its supersede relations."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from ...app import records_ops as ops
from ...app.limits import MAX_OFFSET, MAX_PAGE
from ...app.record_answers import RecordAnswer, RecordPage, Relations
from ...records.model import ID_PATTERN
from .deps import Scope
from .errors import COMMON_RESPONSES, typed
from .schemas import Kind, Status

router = APIRouter(tags=["records"], responses=COMMON_RESPONSES)
RecordId = Annotated[str, Path(pattern=ID_PATTERN, max_length=128, description="Record id")]
TAG_PATTERN = r"^[^\x00-\x1f]{1,128}$"


@router.get(
    "/records", summary="List records (filter by kind, effective status, tag; paged by offset)", **typed(RecordPage)
)
def list_records(
    scope: Scope,
    kind: Kind | None = None,
    status: Status | None = None,
    tag: Annotated[str | None, Query(pattern=TAG_PATTERN)] = None,
    origin: Annotated[str | None, Query(pattern=r"^[a-z]{1,32}$", description="file | candidate origin")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> dict[str, Any]:
    page = scope.read_catalog(lambda cat: ops.list_records(cat, kind, status, tag, origin, limit, offset))
    return dict(page, workspace=scope.id)


@router.get(
    "/records/{record_id}", summary="One record with its body, effective status and provenance", **typed(RecordAnswer)
)
def get_record(record_id: RecordId, scope: Scope) -> dict[str, Any]:
    rec = scope.read_catalog(lambda cat: ops.get_record(cat, record_id, scope.id))
    return {"record": rec, "workspace": scope.id, "note": ops.EVIDENCE_NOTE}


@router.get(
    "/records/{record_id}/relations",
    summary="What the record supersedes or amends, and what supersedes or amends it",
    **typed(Relations),
)
def relations(record_id: RecordId, scope: Scope) -> dict[str, Any]:
    return dict(scope.read_catalog(lambda cat: ops.relations(cat, record_id, scope.id)), workspace=scope.id)
