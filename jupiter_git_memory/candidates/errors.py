"""Errors of the candidate flow, with stable codes every surface (CLI, API, MCP) reports as is.

They are OperationErrors (base/errors.py), so every surface maps them without a handler of its own.
Messages never quote candidate text (it may hold a secret); they name ids, paths and fixes.
"""

from __future__ import annotations

from typing import Any

from ..base import error_codes as E
from ..base.errors import OperationError


class CandidateError(OperationError):
    """An OperationError of the candidate flow (the API renders both alike). CLI exit 1: rejected."""

    exit_code = 1


def not_found(rid: str, workspace: str) -> CandidateError:
    return CandidateError(
        E.MEMORY_NOT_FOUND,
        f"no record or candidate {rid!r} in workspace {workspace}; `jgm candidates list` shows the candidates",
        id=rid,
        exit_code=2,
    )


def file_backed(rid: str, path: str | None, commit: str | None, dirty: bool) -> CandidateError:
    """Records that live in files change only through Git, so review and history stay in one place."""
    where = f"{path}" + (f" (last changed in commit {commit[:12]})" if commit else " (not committed yet)")
    extra = "; it also has uncommitted changes in the working tree" if dirty else ""
    return CandidateError(
        E.MEMORY_FILE_BACKED,
        f"{rid} is a file-backed record: edit {where} and commit{extra}. The next `jgm seed` "
        "(or the post-merge hook) reindexes it; only candidates are revised or forgotten in the store.",
        id=rid,
        path=path,
        commit=commit,
        dirty=dirty,
    )


def invalid_state(rid: str, state: str, fix: str) -> CandidateError:
    return CandidateError(E.MEMORY_INVALID_STATE, f"candidate {rid} is {state}: {fix}", id=rid, state=state)


def not_owner(rid: str, caller: str, recorder: str) -> CandidateError:
    """Agents share one store: one agent's mistake must not delete another's observation."""
    return CandidateError(
        E.MEMORY_NOT_OWNER,
        f"candidate {rid} was recorded by agent {recorder!r}, not {caller!r}: only its recorder (name it as "
        "when recording: --agent / JGM_AGENT, `agent`) or a reviewer can forget it; a reviewer can reject it",
        id=rid,
        agent=caller,
        recorded_by=recorder,
    )


def unavailable(cause: BaseException) -> CandidateError:
    """The candidate service could not start (the model or the workspace is unavailable)."""
    return CandidateError(
        E.MEMORY_UNAVAILABLE,
        f"the candidate service could not start: {cause.__class__.__name__}: {cause}",
    )


class CandidateRejected(CandidateError):
    """The checks refused an observation (app/candidates.record raises it): the code is `candidate/<reason>`,
    and `answer` is the full answer (its reason, offending fields, a reviewer's earlier reason) that every
    surface still shows: the API in its 422 body, the CLI on its output, MCP as the tool's result."""

    def __init__(self, reason_code: str, reason: str, answer: Any):
        super().__init__(E.rejection(reason_code), reason)
        self.answer = answer
