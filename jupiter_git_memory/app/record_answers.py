"""The typed answers of record reads (get, list, relations) and of the MCP evidence wrapper: pydantic models
shared by the HTTP API (response models, so OpenAPI shows success bodies), the MCP server (output schemas)
and `--json`. Open like the recall answers (recall/answers.py): a record carries its own front-matter keys,
and a client must never lose a field it knows to validation.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ..base.answer import OpenModel as _Open
from ..recall.answers import FALLBACK_DOC, TASK_FALLBACK_DOC, PackedRecord, RecalledRecord


class RecordSummary(_Open):
    """A listed record: no body (get_record returns it)."""

    id: str
    kind: str
    status: str = Field(description="Effective status (after supersession and invalidation).")
    declared_status: str | None = Field(None, description="The status the file declares.")
    title: str
    path: str | None = None
    tags: list[str] | None = None
    date: str | None = None
    source: Any = None
    commit: str | None = None
    dirty: bool = False
    origin: str = "file"
    citations: list[str] = Field(
        default_factory=list, description="`source:` and `evidence:` as a list (paths, folders, globs, URLs, commits)."
    )
    supersedes: list[str] | None = None
    superseded_by: list[str] | None = Field(
        None, description="Every record that claims to supersede this one, whichever side wrote the link."
    )
    current: list[str] | None = Field(None, description="The in-force record(s) to read now (itself when in force).")
    read_instead: list[dict[str, Any]] | None = Field(
        None,
        description="For a retired record: the in-force record(s) that replace it (id, title, kind, status, path).",
    )
    content_hash: str | None = None
    stale_error: str | None = Field(None, description="The file's current parse error; the last good version is shown.")


class RecordDetail(RecordSummary):
    """One record with its body and every front-matter key."""

    body: str = ""


class RecordAnswer(_Open):
    """The API's one-record answer."""

    record: RecordDetail
    workspace: str
    note: str


class RecordPage(_Open):
    records: list[RecordSummary]
    total: int
    limit: int
    offset: int
    next_offset: int | None = Field(None, description="Offset of the next page; null on the last one.")
    workspace: str | None = None


class RelationEdge(_Open):
    id: str
    title: str | None = None
    kind: str | None = None
    status: str | None = None
    declared_status: str | None = None
    path: str | None = None
    retires: bool = Field(description="True when this link retires the older record (the newer one is in force).")
    declared_on: str = Field(description="The record whose file declares the link.")
    missing: bool = Field(description="The linked id names no record in this view.")


class Relations(_Open):
    id: str
    title: str
    kind: str
    status: str
    declared_status: str | None = None
    supersedes: list[RelationEdge]
    superseded_by: list[RelationEdge]
    amends: list[RelationEdge] = Field(default_factory=list)
    amended_by: list[RelationEdge] = Field(default_factory=list)
    current: list[str] = Field(description="The in-force records to read instead (itself when nothing replaces it).")
    read_instead: list[dict[str, Any]] = Field(
        default_factory=list, description="The in-force records replacing this one, named (empty when it is in force)."
    )
    note: str
    workspace: str | None = None


class WorkspaceInfo(_Open):
    """One served workspace: what its catalog holds, as the served worktree sees it."""

    id: str
    workspace: str | None = Field(None, description="The workspace id grants name (differs for a second worktree).")
    name: str | None = None
    root: str | None = None
    records: int
    candidates: int
    views: int = 0
    last_seeded_commit: str | None = None
    last_seed_at: float | None = None
    dirty: bool = False
    generation: int = 0
    error: str | None = None


class WorkspaceList(_Open):
    workspaces: list[WorkspaceInfo]
    token: str


class _Evidence(_Open):
    """What every record-bearing MCP result is: evidence with provenance, to weigh rather than obey."""

    kind: Literal["evidence"] = "evidence"
    note: str
    workspace: str


class RecallEvidence(_Evidence):
    records: list[RecalledRecord]
    status: Literal["ok", "no-matches"]
    receipt_id: str
    floor: float
    warnings: list[str] = Field(default_factory=list)
    fallback: Literal["proposed"] | None = Field(None, description=FALLBACK_DOC)


class TaskEvidence(_Evidence):
    records: list[RecalledRecord]
    global_records: list[RecalledRecord] = Field(default_factory=list)
    status: Literal["ok", "no-matches"]
    receipt_id: str | None = None
    warnings: list[str] = Field(default_factory=list)
    fallback: list[str] = Field(default_factory=list, description=TASK_FALLBACK_DOC)
    files: list[str] = Field(default_factory=list, description="The task's files as read: repository-relative.")


class RecordEvidence(_Evidence):
    records: list[RecordDetail]


class PageEvidence(_Evidence):
    records: list[RecordSummary]
    total: int
    limit: int
    offset: int
    next_offset: int | None = None


class RelationsEvidence(_Open):
    kind: Literal["relations"] = "relations"
    note: str
    workspace: str
    relations: Relations


class ContextEvidence(_Evidence):
    records: list[PackedRecord]
    text: str = Field(description="The records as Markdown, trimmed to the token budget.")
    status: Literal["ok", "no-matches"]
    used_tokens: int
    truncated: list[str]
    receipt_id: str
    warnings: list[str] = Field(default_factory=list)
