"""MCP tools of the candidate flow: record_candidate, validate_candidate, revise, forget.

An agent's observation only ever becomes a candidate: the answer says created / merged / skipped /
rejected and whether anything was written (`written`), so a successful call is never mistaken for a
new project rule. revise/forget work on candidates only; a file-backed record answers
`[memory/file-backed]` with the file and commit to edit. Errors are ToolErrors with a stable code.
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.types import ToolAnnotations
from pydantic import Field

from ...app.candidate_fields import (
    MAX_ID_CHARS,
    Body,
    CandidateScope,
    Change,
    Evidence,
    Files,
    Name,
    Short,
    Supersedes,
    Tags,
    Title,
    Trigger,
    Verification,
)
from ...base.errors import JgmError
from ...candidates import service as candidate_service
from ...candidates.answers import CandidateAnswer, CandidateShown, Forgotten
from ...candidates.model import REQUESTABLE_KINDS, CandidateInput
from .errors import tool_error

RequestedKind = Literal[REQUESTABLE_KINDS]  # type: ignore[valid-type]
RECORD = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
VALIDATE = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
REVISE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
FORGET = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)


def register_candidate_tools(server, handle) -> None:
    wsid = handle.id

    def svc():
        return candidate_service.for_handle(handle)  # a JgmError: each tool maps it with its own code

    def run(
        dry_run: bool, kind, title, body, tags, source, evidence, agent, session, work_item, run_key, **structured
    ) -> CandidateAnswer:
        inp = CandidateInput(
            kind, title, body, list(tags), source, list(evidence), agent, session, work_item, run_key, **structured
        )
        try:
            a = svc().record(inp, dry_run=dry_run)
        except JgmError as e:
            raise tool_error(e) from None
        return CandidateAnswer.model_validate(
            dict(
                a.to_json(),
                workspace=wsid,
                note="A candidate is not a project rule: a reviewer promotes it by merging a pull request.",
            )
        )

    @server.tool(annotations=RECORD, title="Record a candidate observation")
    def record_candidate(
        kind: Annotated[RequestedKind, Field(description="Requested kind; the result is a candidate.")],
        title: Title,
        body: Body,
        tags: Tags = [],  # noqa: B006
        source: Annotated[Short | None, Field(description="Path, URL or command it comes from.")] = None,
        evidence: Evidence = [],  # noqa: B006
        agent: Annotated[Name | None, Field(description="Who you are (agent name).")] = None,
        session: Name | None = None,
        work_item: Annotated[Name | None, Field(description="Work item or bundle id.")] = None,
        run_key: Annotated[
            Name | None, Field(description="Idempotency key: retrying with the same agent + run_key never duplicates.")
        ] = None,
        trigger: Trigger | None = None,
        change: Change | None = None,
        verification: Verification | None = None,
        scope: CandidateScope | None = None,
        files: Files = [],  # noqa: B006
        supersedes: Supersedes = [],  # noqa: B006
    ) -> CandidateAnswer:
        """Record what you learned as a *candidate* (status candidate, out of default recall) for a human to
        review. Answer: decision created | merged (added to a candidate that says the same) | skipped (an
        accepted record already says it) | rejected (failed checks: secrets, placeholders, missing rationale or
        evidence), with the reason, warnings and `written`. Secrets are rejected and never stored. Optional
        structure: trigger, change, verification, scope (project | transferable), files, and `supersedes` (an
        in-force record it proposes to retire); a reused run key with other content is rejected `run-key-reused`;
        `rejected_before` carries a reviewer's reason when this was rejected before."""
        return run(
            False,
            kind,
            title,
            body,
            tags,
            source,
            evidence,
            agent,
            session,
            work_item,
            run_key,
            trigger=trigger,
            change=change,
            verification=verification,
            scope=scope,
            files=list(files),
            supersedes=list(supersedes),
        )

    @server.tool(annotations=VALIDATE, title="Validate a candidate without writing")
    def validate_candidate(
        kind: Annotated[RequestedKind, Field(description="Requested kind.")],
        title: Title,
        body: Body,
        tags: Tags = [],  # noqa: B006
        source: Short | None = None,
        evidence: Evidence = [],  # noqa: B006
        agent: Name | None = None,
        session: Name | None = None,
        work_item: Name | None = None,
        run_key: Name | None = None,
        trigger: Trigger | None = None,
        change: Change | None = None,
        verification: Verification | None = None,
        scope: CandidateScope | None = None,
        files: Files = [],  # noqa: B006
        supersedes: Supersedes = [],  # noqa: B006
    ) -> CandidateAnswer:
        """The same checks as record_candidate (content per kind, low signal, secrets, near-duplicates), writing
        nothing: says what record_candidate would answer."""
        return run(
            True,
            kind,
            title,
            body,
            tags,
            source,
            evidence,
            agent,
            session,
            work_item,
            run_key,
            trigger=trigger,
            change=change,
            verification=verification,
            scope=scope,
            files=list(files),
            supersedes=list(supersedes),
        )

    @server.tool(annotations=REVISE, title="Revise a candidate")
    def revise(
        id: Annotated[str, Field(max_length=MAX_ID_CHARS, description="Candidate id (cand-…)")],
        title: Title | None = None,
        body: Body | None = None,
        tags: Tags | None = None,
        source: Short | None = None,
        agent: Name | None = None,
    ) -> CandidateShown:
        """Edit an open candidate in the store (checked again like a new one). A file-backed record cannot be
        changed here: the error names the file and commit to edit in Git."""
        try:
            c = svc().revise(id, title=title, body=body, tags=tags, source=source, agent=agent)
        except JgmError as e:
            raise tool_error(e) from None
        return CandidateShown(candidate=c, workspace=wsid)

    @server.tool(annotations=FORGET, title="Forget a candidate")
    def forget(
        id: Annotated[str, Field(max_length=MAX_ID_CHARS, description="Candidate id (cand-…)")],
        agent: Name | None = None,
    ) -> Forgotten:
        """Delete an open candidate you recorded (`agent`: the name you recorded it with). A rejected one is
        kept (its reason warns the next agent), another agent's gives memory/not-owner; file-backed records
        are removed in Git, not here."""
        try:
            res = svc().forget(id, agent=agent)
        except JgmError as e:
            raise tool_error(e) from None
        return Forgotten.model_validate(dict(res, workspace=wsid))
