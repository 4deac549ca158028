"""MCP tools of the candidate flow: record_candidate, validate_candidate, revise, forget.

An agent's observation only ever becomes a candidate: the answer says created / merged / skipped /
rejected and whether anything was written (`written`), so a successful call is never mistaken for a
new project rule. revise/forget work on candidates only; a file-backed record answers
`[memory/file-backed]` with the file and commit to edit. Errors are ToolErrors with a stable code.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Annotated, Any

from mcp.types import ToolAnnotations
from pydantic import Field

from ...app import candidates as ops
from ...app.candidate_requests import CANDIDATE_FIELDS, REVISE_FIELDS, CandidateRequest, FieldSpec, Name, ReviseRequest
from ...base.errors import JgmError
from ...candidates.answers import CandidateAnswer, CandidateShown, Forgotten
from ...candidates.errors import CandidateRejected
from ...candidates.fields import MAX_ID_CHARS
from .errors import tool_error

RECORD = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
VALIDATE = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
REVISE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
FORGET = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)
CandidateId = Annotated[str, Field(max_length=MAX_ID_CHARS, description="Candidate id (cand-…)")]


def with_fields(specs: Iterable[FieldSpec], *first: inspect.Parameter) -> Callable[[Callable[..., Any]], Any]:
    """Give a tool taking `**fields` the candidate fields as its arguments (app/candidate_requests.py):
    the SDK reads the signature for the tool's input schema, so the fields and their bounds are never
    spelled here."""

    def apply(fn: Callable[..., Any]) -> Callable[..., Any]:
        params = [
            inspect.Parameter(
                s.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if s.required else s.default,
                annotation=s.annotated(),
            )
            for s in specs
        ]
        ret = inspect.signature(fn, eval_str=True).return_annotation
        fn.__signature__ = inspect.Signature([*first, *params], return_annotation=ret)  # type: ignore[attr-defined]
        return fn

    return apply


def register_candidate_tools(server, handle) -> None:
    def candidates() -> ops.Candidates:
        return ops.Candidates.for_handle(handle)  # a JgmError: each tool maps it with its own code

    @server.tool(annotations=RECORD, title="Record a candidate observation")
    @with_fields(CANDIDATE_FIELDS)
    def record_candidate(**fields: Any) -> CandidateAnswer:
        """Record what you learned as a *candidate* (status candidate, out of default recall) for a human to
        review. Answer: decision created | merged (added to a candidate that says the same) | skipped (an
        accepted record already says it) | rejected (failed checks: secrets, placeholders, missing rationale or
        evidence), with the reason, warnings and `written`. Secrets are rejected and never stored. Optional
        structure: trigger, change, verification, scope (project | transferable), files, and `supersedes` (an
        in-force record it proposes to retire); a reused run key with other content is rejected `run-key-reused`;
        `rejected_before` carries a reviewer's reason when this was rejected before."""
        try:
            return candidates().record(CandidateRequest.model_construct(**fields), note=ops.NOT_A_RULE)
        except CandidateRejected as e:
            return e.answer  # a rejection is the tool's answer: its reason is what the agent fixes
        except JgmError as e:
            raise tool_error(e) from None

    @server.tool(annotations=VALIDATE, title="Validate a candidate without writing")
    @with_fields(CANDIDATE_FIELDS)
    def validate_candidate(**fields: Any) -> CandidateAnswer:
        """The same checks as record_candidate (content per kind, low signal, secrets, near-duplicates), writing
        nothing: says what record_candidate would answer."""
        try:
            return candidates().validate(CandidateRequest.model_construct(**fields), note=ops.NOT_A_RULE)
        except JgmError as e:
            raise tool_error(e) from None

    @server.tool(annotations=REVISE, title="Revise a candidate")
    @with_fields(
        REVISE_FIELDS, inspect.Parameter("id", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=CandidateId)
    )
    def revise(id: str, **fields: Any) -> CandidateShown:
        """Edit an open candidate in the store (checked again like a new one). A file-backed record cannot be
        changed here: the error names the file and commit to edit in Git."""
        try:
            return candidates().revise(id, ReviseRequest.model_construct(**fields))
        except JgmError as e:
            raise tool_error(e) from None

    @server.tool(annotations=FORGET, title="Forget a candidate")
    def forget(id: CandidateId, agent: Name | None = None) -> Forgotten:
        """Delete an open candidate you recorded (`agent`: the name you recorded it with). A rejected one is
        kept (its reason warns the next agent), another agent's gives memory/not-owner; file-backed records
        are removed in Git, not here."""
        try:
            return candidates().forget(id, agent=agent)
        except JgmError as e:
            raise tool_error(e) from None
