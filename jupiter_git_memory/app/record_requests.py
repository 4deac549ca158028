"""Record reads (get, list, relations): each one's request, its parameters with their bounds and descriptions
written once, and its run. As for recall (app/recall.py), a surface builds the request from its own inputs and
renders the answer (app/record_answers.py): the HTTP API from its path and query (FastAPI 0.110 has no
query-parameter models, so surfaces/api/queries.py derives the query parameters from `RecordsQuery`), the MCP
tools through `@takes`, `jgm relations` from its argument. A failure is a JgmError: `memory/not-found`,
`memory/not-seeded`, `request/bad-filter`, `request/bad-page`, or the id's own check.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ..index.catalog import Catalog
from ..records.model import ID_PATTERN
from . import records_ops as ops
from .limits import MAX_OFFSET, MAX_PAGE
from .recall import Kind, Status, Strict

TAG_PATTERN = r"^[^\x00-\x1f]{1,128}$"


class RecordRef(Strict):
    """One record by id: `get` and `relations`."""

    id: str = Field(max_length=128, pattern=ID_PATTERN, description="Record id, e.g. dec-db-engine")


class RecordsQuery(Strict):
    """A page of records ordered by id, filtered."""

    kind: Kind | None = Field(None, description="Only this kind.")
    status: Status | None = Field(None, description="Only this effective status (the one recall sees).")
    tag: str | None = Field(None, pattern=TAG_PATTERN, description="Only records with this tag.")
    origin: str | None = Field(None, pattern=r"^[a-z]{1,32}$", description="file | candidate origin")
    limit: int = Field(50, ge=1, le=MAX_PAGE, description="Records on the page.")
    offset: int = Field(0, ge=0, le=MAX_OFFSET, description="Records skipped (the last page's `next_offset`).")


def get(cat: Catalog, req: RecordRef, workspace: str) -> dict[str, Any]:
    """The record with its body, effective status, provenance and replacements."""
    return ops.get_record(cat, req.id, workspace)


def page(cat: Catalog, req: RecordsQuery) -> dict[str, Any]:
    """A RecordPage (without its workspace, which the surface adds)."""
    return ops.list_records(cat, req.kind, req.status, req.tag, req.origin, req.limit, req.offset)


def relations(cat: Catalog, req: RecordRef, workspace: str) -> dict[str, Any]:
    """The supersede and amend graph around the record, and what to read instead."""
    return ops.relations(cat, req.id, workspace)
