"""Recall, task recall and context packs: each operation's request (parameters, bounds and descriptions,
written once), its one run, and typed errors instead of status strings.

The HTTP API takes these models as its bodies and the MCP server derives its tool parameters from them, so
both schemas say the same names, bounds and descriptions. The CLI and the daemon build them from options
that Typer already bounded (`model_construct`): their messages for a bad status or budget stay the
operation's own, as they always were. Answers are recall/answers.py's models.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..base.errors import JgmError, as_error
from ..git.workspace import NotARepo
from ..recall.errors import NotSeeded, RecallError
from ..recall.ranking import MODES
from ..recall.results import RecallResult
from ..records.model import ALL_EFFECTIVE, KINDS
from .limits import MAX_BUDGET, MAX_ERRORS, MAX_FILES, MAX_K, MAX_RECALL_K, MAX_TEXT, MIN_BUDGET
from .paths import CWD_DOC, missing_in_view, repo_paths

Kind = Literal[KINDS]  # type: ignore[valid-type]
Status = Literal[ALL_EFFECTIVE]  # type: ignore[valid-type]
Mode = Literal[MODES]  # type: ignore[valid-type]
# Text with a character that is not white space, in the schema too so clients (and schema-driven tests) know
# blank text is refused. One class for both readers: a JSON Schema `\s` (ECMA-262) lacks \x1c-\x1f and \x85,
# which Python's `\s` and str.strip() count as space, and Python's lacks \ufeff, which ECMA-262's has.
NOT_BLANK = r"[^\s\x1c-\x1f\x85\ufeff]"
Text = Annotated[str, Field(max_length=MAX_TEXT)]
STATUSES_DOC = "Replace the default statuses (accepted, verified, unverified)"
F = TypeVar("F", bound=Callable[..., Any])


def typed_errors(fn: F) -> F:
    """An operation raises JgmErrors only: a ValueError of the layers below (a bad filter, a blank goal, its
    message naming the fix) leaves as request/bad-request, so no surface translates it again."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ValueError as e:
            err = as_error(e)
            if err is e or err is None:  # a JgmError that is also a ValueError keeps its own code
                raise
            raise err from None

    return run  # type: ignore[return-value]


def _not_blank(v: str) -> str:
    if not re.search(NOT_BLANK, v):
        raise ValueError("must not be blank")
    return v


def _short(v: Any) -> Any:
    """Before the item bound, so the message stays the one the API always gave."""
    if isinstance(v, list) and any(isinstance(x, str) and len(x) > MAX_TEXT for x in v):
        raise ValueError(f"each entry must be at most {MAX_TEXT} characters")
    return v


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _statuses(example: str = "") -> Any:
    return Field(default_factory=list, max_length=len(ALL_EFFECTIVE), description=STATUSES_DOC + example + ".")


def _goal(what: str) -> Any:
    return Field(min_length=1, max_length=MAX_TEXT, pattern=NOT_BLANK, description=what)


class RecallRequest(Strict):
    query: str = _goal("What you want to know.")
    k: int = Field(5, ge=1, le=MAX_RECALL_K)
    kinds: list[Kind] = Field(default_factory=list, max_length=len(KINDS), description="Only these kinds.")
    statuses: list[Status] = _statuses()
    mode: Mode | None = Field(None, description="hybrid (default) | dense | lexical")
    at: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        pattern=r"^[^\s-][^\s]*$",
        description="Answer as of this commit, tag or branch (records and lifecycle then).",
    )

    _q = field_validator("query")(_not_blank)


class _ForATask(Strict):
    """What task recall and context packs share: the task's goal, error signatures, files and statuses."""

    goal: str
    errors: list[Text] = Field(default_factory=list, max_length=MAX_ERRORS, description="Error signatures seen.")
    files: list[Text] = Field(default_factory=list, max_length=MAX_FILES, description="Files the task touches.")
    cwd: str | None = Field(None, max_length=MAX_TEXT, description=CWD_DOC)
    statuses: list[Status] = _statuses(", e.g. add historical or proposed")

    _g = field_validator("goal")(_not_blank)
    _s = field_validator("errors", "files", mode="before")(_short)


class TaskRequest(_ForATask):
    goal: str = _goal("What the task is.")
    k: int = Field(5, ge=1, le=MAX_K)
    include_global: bool = False
    global_k: int = Field(3, ge=1, le=MAX_K)


class ContextRequest(_ForATask):
    goal: str = _goal("What the new task is.")
    budget_tokens: int = Field(1500, ge=MIN_BUDGET, le=MAX_BUDGET)
    k: int = Field(8, ge=1, le=MAX_K)


@typed_errors
def recall(recaller, req: RecallRequest) -> RecallResult:
    """Raises RecallError, NotSeeded, UnknownRevision, or ValueError on a bad filter."""
    return recaller.recall(
        req.query,
        k=req.k,
        kinds=list(req.kinds) or None,
        statuses=list(req.statuses) or None,
        mode=req.mode,
        at=req.at,
    )


@typed_errors
def recall_task(
    recaller,
    req: TaskRequest,
    *,
    store_root: Path | None = None,
    may_read=None,
    no_workspace: str = "",
) -> dict[str, Any]:
    """A TaskAnswer with status ok | no-matches. Nothing looked for is an error, never an empty answer:
    NotARepo (no workspace: `recaller` None), NotSeeded, RecallError. `may_read` limits the global
    workspaces to a token's grants."""
    from ..recall.task import recall_task as run

    files, notes = task_paths(recaller, req)
    res = run(
        recaller,
        req.goal,
        req.errors,
        files,
        k=req.k,
        include_global=req.include_global,
        global_k=req.global_k,
        store_root=store_root,
        may_read=may_read,
        no_workspace=no_workspace,
        statuses=list(req.statuses) or None,
    )
    failed = _FAILURES.get(res["status"])
    if failed is not None:
        raise failed(res.get("message") or "; ".join(res.get("warnings") or ["recall could not run"]))
    return _noted(res, notes)


def task_paths(recaller, req: _ForATask) -> tuple[list[str], list[str]]:
    """The task's files as repository paths (app/paths.py: read from `req.cwd`; one outside the repository
    is refused), and a note for each that names nothing in the view. Without a workspace, as given."""
    if recaller is None:
        return list(req.files), []
    root = recaller.workspace.repo_root
    files = repo_paths(root, req.files, req.cwd)
    return files, missing_in_view(root, files)


def _noted(answer: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """`notes` added to the answer's warnings: an empty answer about a file that is not there says so."""
    warnings = list(answer.get("warnings") or [])
    return dict(answer, warnings=warnings + [n for n in notes if n not in warnings]) if notes else answer


_FAILURES: dict[str, type[JgmError]] = {
    "no-workspace": NotARepo,
    "not-seeded": NotSeeded,
    "retrieval-failed": RecallError,
}


def task_failure(e: BaseException, workspace: str | None = None) -> dict[str, Any] | None:
    """The CLI's contract for task recall: a failure recall_task raises, printed as an answer whose status
    says it (exit 3-5); None for any other error."""
    from ..recall.task import empty_answer

    status = next((s for s, kind in _FAILURES.items() if type(e) is kind), None)
    if status is None:
        return None
    out = empty_answer(status, str(e))
    return dict(out, workspace=workspace) if status == "not-seeded" and workspace else out


@typed_errors
def context(recaller, req: ContextRequest) -> dict[str, Any]:
    """A ContextPack: the task's records (as task recall finds them) trimmed to the token budget."""
    from ..recall.context import build_context

    files, notes = task_paths(recaller, req)
    pack = build_context(
        recaller,
        req.goal,
        req.budget_tokens,
        k=req.k,
        files=files,
        errors=req.errors,
        statuses=list(req.statuses) or None,
    )
    return _noted(pack, notes)
