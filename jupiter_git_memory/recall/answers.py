"""The typed answers of recall: one pydantic model per result, shared by every surface. The HTTP API
declares them as response models (so the OpenAPI schema shows success bodies) and `--json` prints them.

Extra keys are allowed, not dropped: an answer may grow a field before its model does, and a client that
reads a field it knows must never lose it to validation.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ..base.answer import OpenModel as _Open

FALLBACK_DOC = (
    "`proposed` when no in-force record passed the floor and the proposed ones that did are returned instead "
    "(each keeps status `proposed`; not in force), or when records of a collection most of whose records carry "
    "one unmapped status word answer beside the in-force ones; each such result has `why.fallback`. null "
    "otherwise. Only when the caller chose no statuses."
)
TASK_FALLBACK_DOC = (
    "The lists (goal, `concern: …`, `error: …`) that hold proposed results marked `why.fallback`: no in-force "
    "record passed the floor, or a mostly unmapped collection answered beside the in-force ones."
)


class Receipt(_Open):
    """What was asked, against which index state, and what came back (stored append-only)."""

    id: str = Field(description="rcpt_…; `jgm receipt show|verify ID`")
    query_sha256: str
    query: str
    ids: list[str] = Field(description="The record ids returned, in order.")
    provider: dict[str, Any]
    index: dict[str, Any] = Field(description="view, worktree, at, commit, dirty, identity, floor, generation")
    workspace: str
    filters: dict[str, Any]
    k: int
    mode: str
    timestamp: float


class Evidence(_Open):
    """Evidence drift (docs/drift.md): whether the code a record cites changed since it was last committed."""

    state: Literal["fresh", "drifted", "missing", "external", "uncited"] = Field(
        description="fresh | drifted (what it cites changed since, at the granularity cited) | missing (a cited "
        "path or symbol that existed at the baseline is gone) | external (it cites only evidence outside the "
        "repository) | uncited"
    )
    cited: list[str] = Field(default_factory=list, description="The repository paths, folders and globs it cites.")
    citations: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Each repository citation's verdict: ref, kind (file, folder, glob, line, range, symbol), "
        "state (fresh, drifted, moved, missing, unresolved), `at` (where a region moved or shifted to), `lines` "
        "(significant lines changed, whole files).",
    )
    external: list[str] = Field(
        default_factory=list, description="Evidence outside the repository (URLs, tickets, commits, reports)."
    )
    unresolved: list[str] = Field(
        default_factory=list, description="Citations naming nothing now or at the baseline (`jgm check` warns)."
    )
    changed: list[dict[str, Any]] = Field(
        default_factory=list, description="Commits since (sha, author, date, subject, files), newest first."
    )
    commits: int = 0
    uncommitted: list[str] = Field(default_factory=list, description="Cited files with uncommitted changes.")
    diffstat: str = ""
    missing: list[str] = Field(default_factory=list, description="Cited paths that name nothing any more.")


class RecalledRecord(_Open):
    """One record of an answer: effective status, provenance and a snippet of the best chunk."""

    id: str
    kind: str
    status: str = Field(description="Effective status (after supersession and invalidation).")
    title: str
    score: float
    source: Any = None
    citations: list[str] = Field(
        default_factory=list, description="`source:` and `evidence:` as a list (paths, folders, globs, URLs, commits)."
    )
    path: str | None = None
    commit: str | None = None
    dirty: bool = False
    origin: str = "file"
    snippet: str = ""
    content_hash: str = ""
    why: dict[str, Any] = Field(
        default_factory=dict,
        description="How the score came about; `via` (e.g. `ADR-0002, superseded`) when the record is returned "
        "in place of the retired record that matched the question.",
    )
    governs: list[dict[str, str]] | None = Field(
        None, description="Task recall: the task's files this record governs, each with the reason."
    )
    read_instead: list[dict[str, Any]] | None = Field(
        None, description="For a retired record: the in-force record(s) that replace it."
    )
    evidence: Evidence | None = Field(None, description="Evidence drift of the code the record cites.")


class RecallAnswer(_Open):
    status: Literal["ok", "no-matches"]
    results: list[RecalledRecord]
    receipt: Receipt
    floor: float
    floor_source: str
    floor_provenance: dict[str, Any] = Field(default_factory=dict)
    why: dict[str, Any] | None = Field(None, description="For an empty answer: why nothing was admitted.")
    warnings: list[str] = Field(default_factory=list)
    fallback: Literal["proposed"] | None = Field(None, description=FALLBACK_DOC)
    note: str
    workspace: str | None = None


class TaskAnswer(_Open):
    status: Literal["ok", "no-matches", "no-workspace", "not-seeded", "retrieval-failed"]
    workspace: str | None = None
    results: list[RecalledRecord]
    global_results: list[RecalledRecord] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    receipt: Receipt | None = None
    note: str | None = None
    message: str | None = Field(None, description="When nothing was looked for: what is wrong and what to run.")
    concerns: list[str] = Field(default_factory=list, description="The goal's concerns, each asked on its own.")
    files: list[str] = Field(default_factory=list, description="The task's files, repository-relative.")
    fusion: dict[str, Any] | None = Field(None, description="The lists fused into the answer, and how.")
    fallback: list[str] = Field(default_factory=list, description=TASK_FALLBACK_DOC)


class PackedRecord(_Open):
    id: str
    kind: str | None = None
    status: str | None = None
    title: str | None = None
    source: Any = None
    citations: list[str] = Field(default_factory=list)
    governs: list[dict[str, str]] | None = None
    path: str | None = None
    commit: str | None = None
    score: float | None = None
    evidence: Evidence | None = None
    via: str | None = Field(None, description="`via ADR-0002, superseded`: returned in place of that retired record.")


class ContextPack(_Open):
    status: Literal["ok", "no-matches"]
    goal: str
    budget_tokens: int
    used_tokens: int
    records: list[PackedRecord]
    truncated: list[str] = Field(description="Ids whose text was cut to fit the budget.")
    text: str
    receipt: Receipt
    warnings: list[str] = Field(default_factory=list)


class Verification(_Open):
    """A receipt's request run again: the same ids or not, and why."""

    receipt: str
    same: bool
    old_ids: list[str]
    new_ids: list[str]
    reasons: list[str]
    changed_records: list[str] = Field(description="Records whose content changed since the receipt.")
    old_index: dict[str, Any]
    new_index: dict[str, Any]


def dump(model: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    """`data` checked against `model`, as JSON-ready data (what `--json` prints)."""
    return model.model_validate(data).model_dump(mode="json", exclude_unset=True)


class DriftRecord(Evidence):
    id: str
    title: str = ""
    kind: str = ""
    status: str = ""
    path: str | None = None
    commit: str | None = Field(None, description="The last commit that changed the record's file.")
    baseline: str | None = Field(
        None, description="The commit its drift counts from: the confirmed (`reviewed`) commit, else `commit`."
    )
    reviewed: str | None = Field(None, description="Its `reviewed` value as written (`jgm drift confirm`).")
    touched: list[str] | None = Field(None, description="With --base: the cited files the change touches.")


class DriftAnswer(_Open):
    """`jgm drift`: the in-force records that cite repository paths, with their evidence state."""

    view: str
    commit: str | None = None
    base: str | None = None
    records: list[DriftRecord]
    counts: dict[str, int]
    warnings: list[str] = Field(default_factory=list)
    workspace: str | None = None


class GovernsAnswer(_Open):
    """`jgm governs PATH...`: the in-force records that cite these files, each with how it covers them."""

    files: list[str] = Field(description="The paths asked about, repository-relative.")
    records: list[RecalledRecord]
    warnings: list[str] = Field(default_factory=list, description="A path that names no file in this view.")
    workspace: str | None = None


class ConfirmedRecord(_Open):
    id: str
    path: str = Field(description="The record's file, repository-relative.")
    line: int = Field(description="The 1-based line the `reviewed` value is on now.")
    text: str = Field(description="That line as written (`reviewed: <sha> on <date>`, an ADR's `Reviewed:` line).")
    state: str = Field(description="Its drift state before the confirmation.")


class ConfirmAnswer(_Open):
    """`jgm drift confirm ID...`: the `reviewed` line written per record, where, and what to run next."""

    mode: Literal["worktree", "branch"] = Field(description="Written in the working tree, or committed on a branch.")
    commit: str = Field(description="HEAD: the commit the records were re-read at (their new drift baseline).")
    reviewed: str = Field(description="The value written: `<sha> on <YYYY-MM-DD>`.")
    records: list[ConfirmedRecord]
    next: str = Field(description="The shell command that commits the lines (worktree) or pushes the branch.")
    branch: str | None = Field(None, description="With --branch: the new branch.")
    branch_commit: str | None = Field(None, description="With --branch: its commit.")
    warnings: list[str] = Field(default_factory=list)
    workspace: str | None = None
