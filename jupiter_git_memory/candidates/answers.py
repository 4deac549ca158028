"""The typed answers of the candidate flow, shared by the HTTP API (response models), the MCP tools (output
schemas) and `--json`. Open models, like every answer: a field added to an answer reaches clients before
its model names it, and validation never drops one.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ..base.answer import OpenModel as _Open


class CandidateAnswer(_Open):
    """What record/validate decided. `written` says whether the store changed: a successful call is never
    mistaken for a new project rule."""

    decision: Literal["created", "merged", "skipped", "rejected"]
    reason_code: str
    reason: str
    ok: bool
    written: bool
    dry_run: bool = False
    id: str | None = Field(None, description="The candidate created or merged into.")
    matched: dict[str, Any] | None = Field(None, description="The record or candidate that made it merged/skipped.")
    warnings: list[str] = Field(default_factory=list)
    indexed: bool | None = None
    index_error: str | None = None
    pending: Literal["index"] | None = Field(None, description="Saved, but its indexing is still owed.")
    retry: str | None = None
    replayed: bool = False
    agent: str | None = None
    run_key: str | None = None
    fields: list[str] = Field(default_factory=list, description="For a rejection: the offending fields.")
    rejected_before: dict[str, Any] | None = Field(
        None, description="A reviewer rejected this observation before: the candidate id and the reviewer's reason."
    )
    workspace: str | None = None
    note: str | None = None


class Candidate(_Open):
    """A candidate as reviewers and agents see it: its review state, provenance and evidence."""

    id: str
    kind: str
    status: str = Field(description="The status it would have as a record.")
    effective: str
    state: str = Field(description="open | proposed | promoted | rejected")
    title: str
    body: str = ""
    tags: list[str] = Field(default_factory=list)
    source: Any = None
    trigger: str | None = None
    change: str | None = None
    verification: str | None = None
    scope: str | None = Field(None, description="project | transferable")
    files: list[str] = Field(default_factory=list)
    supersedes: list[str] = Field(default_factory=list, description="In-force records it proposes to retire.")
    provenance: dict[str, Any] = Field(default_factory=dict)
    evidence: list[Any] = Field(default_factory=list)
    revisions: list[dict[str, Any]] = Field(
        default_factory=list, description="Edits after it was recorded: {at, agent, fields}, oldest first."
    )
    reason: str | None = None
    proposal: dict[str, Any] | None = None
    promoted_to: Any = None
    warnings: list[str] = Field(default_factory=list)
    created_at: float | None = None
    updated_at: float | None = None
    run_keys: list[dict[str, Any]] = Field(default_factory=list)
    indexed: bool | None = None
    index_error: str | None = None


class CandidateList(_Open):
    candidates: list[Candidate]
    workspace: str


class CandidateShown(_Open):
    candidate: Candidate
    workspace: str


class Forgotten(_Open):
    id: str
    forgotten: bool
    state: str | None = None
    workspace: str | None = None


class Proposal(_Open):
    """The record file written on a new branch; the served checkout is not touched."""

    candidate: str
    already_proposed: bool
    record_id: str | None = None
    path: str | None = None
    branch: str | None = None
    commit: str | None = None
    base: str | None = None
    base_branch: str | None = None
    status: str | None = None
    pr_command: str | None = None
    pr: dict[str, Any] | None = None
    workspace: str | None = None
