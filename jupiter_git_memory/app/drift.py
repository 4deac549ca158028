"""Evidence drift and the records governing files: each operation's request and its one run, under `jgm
drift` / `jgm governs` and the web drift queue, so the page, the CLI and CI read one report.

Answers are recall/answers.py's DriftAnswer and GovernsAnswer. Errors are typed (recall.typed_errors): an
unknown revision keeps its code, a bad one is request/bad-request.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from .limits import MAX_GOVERNS
from .paths import CWD_DOC, missing_in_view, repo_paths
from .recall import typed_errors


class DriftRequest(BaseModel):
    at: str | None = Field(None, description="Answer as of this commit, tag or branch.")
    base: str | None = Field(
        None, description="Only records whose cited code changes between this revision and HEAD (a PR)."
    )


class GovernsRequest(BaseModel):
    paths: list[str] = Field(description="Repository files (e.g. the files a change touches).")
    cwd: str | None = Field(None, description=CWD_DOC.replace("`files`", "`paths`"))
    k: int = Field(50, ge=1, le=MAX_GOVERNS, description="How many records at most.")
    at: str | None = Field(None, description="Answer as of this commit, tag or branch.")


@typed_errors
def drift(recaller, req: DriftRequest) -> dict[str, Any]:
    """Each in-force record that cites repository paths: fresh, drifted or missing (a DriftAnswer)."""
    from ..recall import evidence

    return dict(evidence.report(recaller, at=req.at, base=req.base), workspace=recaller.workspace.id)


@typed_errors
def governs(recaller, req: GovernsRequest) -> dict[str, Any]:
    """The in-force records citing `paths` (a file, a folder above it, or a glob covering it), each with how
    it covers them (a GovernsAnswer). The paths are read as app/paths.py says (one outside the repository is
    refused); one that names nothing in the view gets a warning, so an empty list means "nothing cites it"."""
    from ..recall.files import governing
    from ..records.model import IN_FORCE

    root = recaller.workspace.repo_root
    files = repo_paths(root, req.paths, req.cwd)
    got = governing(recaller, files, sorted(IN_FORCE), req.k, at=req.at)
    records = [dict(g["result"], governs=g["governs"]) for g in got.values()]
    warnings = missing_in_view(root, files, req.at)
    return {"files": files, "records": records, "warnings": warnings, "workspace": recaller.workspace.id}


class ConfirmRequest(BaseModel):
    ids: list[str] = Field(min_length=1, max_length=MAX_GOVERNS, description="The records a person re-read.")
    branch: bool = Field(
        False, description="Commit the lines on a new branch (as `candidates propose` does), not the working tree."
    )


@typed_errors
def confirm(recaller, req: ConfirmRequest) -> dict[str, Any]:
    """Record in Git that a person re-read each record against the code it cites now: one `reviewed: <HEAD>
    on <date>` line per record file (records/formats/reviewed.py), written to the working tree for the user
    to commit, or committed on a new branch. Refused, and nothing written, when any record is unknown, not in
    force, cites no code, or when a cited file (with `branch`: the record file) has uncommitted changes:
    the confirmation names a commit, so the code read must be that commit's (dec-drift-confirm)."""
    import datetime as _dt

    from ..base import error_codes as E
    from ..base.errors import OperationError
    from ..git import state
    from ..git.revisions import head_commit
    from ..records.checks import check_id
    from ..records.drift import PathSet
    from ..records.formats.reviewed import value

    ids = list(dict.fromkeys(check_id(rid) for rid in req.ids))
    root = recaller.workspace.repo_root
    head = head_commit(root)
    if not head:
        raise OperationError(E.CONFIRM_NO_COMMIT, f"{root} has no commit yet: commit the code and the records first")
    report = {r["id"]: r for r in drift(recaller, DriftRequest())["records"]}
    rows = _rows(recaller, ids)
    dirty = PathSet(state.status_paths(state.status(root)))
    for rid in ids:
        _refusal(rid, rows.get(rid), report.get(rid), dirty, req.branch, recaller.workspace.id)
    val = value(head, _dt.date.today().isoformat())
    edits = {rid: _edited(recaller, root, head, rows[rid], val, req.branch) for rid in ids}
    done = [
        dict(id=rid, path=rows[rid].path, line=e[1], text=e[2], state=report[rid]["state"]) for rid, e in edits.items()
    ]
    answer: dict[str, Any] = {"commit": head, "reviewed": val, "records": done, "workspace": recaller.workspace.id}
    paths = sorted({d["path"] for d in done})
    message = f"Confirm {', '.join(ids)} against {head[:12]}"
    if req.branch:
        return dict(
            answer, mode="branch", **_on_branch(root, head, {rows[r].path: e[0] for r, e in edits.items()}, ids)
        )
    for rid, (content, _line, _text, before) in edits.items():
        _write(root / rows[rid].path, before, content)
    import shlex

    add = f"git add -- {shlex.join(paths)} && git commit -m {shlex.quote(message)} -- {shlex.join(paths)}"
    answer["next"] = f"cd {shlex.quote(str(root))} && {add}"  # paths are the repository's, wherever one stands
    answer["warnings"] = _reseed(recaller)
    return dict(answer, mode="worktree")


def _rows(recaller, ids: list[str]) -> dict[str, Any]:
    from ..base.store import workspace_lock

    view, _ = recaller.prepare(None)
    with workspace_lock(recaller.wsdir, exclusive=False), recaller.index().catalog.viewing(view):
        cat = recaller.ensure_seeded().catalog
        return {rid: row for rid in ids if (row := cat.record(rid)) is not None}


def _refusal(rid: str, row, drifted: dict | None, dirty, branch: bool, ws: str) -> None:
    """Raise the reason `rid` cannot be confirmed, naming what to do; nothing when it can."""
    from ..base import error_codes as E
    from ..base.errors import OperationError
    from ..records.model import IN_FORCE

    if row is None:
        raise OperationError(E.MEMORY_NOT_FOUND, f"no record {rid!r} in workspace {ws}; `jgm drift` lists the records")
    if row.origin != "file" or row.effective_status not in IN_FORCE:
        what = "a candidate: review it with `jgm candidates`" if row.origin != "file" else f"{row.effective_status}"
        raise OperationError(
            E.CONFIRM_NOT_IN_FORCE,
            f"{rid} is {what}, not in force: drift follows in-force records only, so there is nothing to confirm "
            "(confirm the record in force instead)",
        )
    cited = [c for c in (drifted or {}).get("cited", []) if c != row.path]
    if not cited:
        raise OperationError(
            E.CONFIRM_UNCITED,
            f"{rid} ({row.path}) cites no repository path but its own file: name the code it is about in "
            "`evidence:` (files, folders, globs), then it can drift and be confirmed",
        )
    changed = sorted({p for ref in cited for p in dirty.covered(ref) if p != row.path})
    if changed:
        raise OperationError(
            E.CONFIRM_UNCOMMITTED,
            f"{rid}: cited files have uncommitted changes ({', '.join(changed[:5])}); a confirmation names the "
            "commit the code was read at, so commit (or stash) them first, then confirm",
        )
    if branch and (row.dirty or dirty.names_any(row.path)):
        raise OperationError(
            E.CONFIRM_UNCOMMITTED,
            f"{rid}: its file {row.path} has uncommitted changes, which a branch made from HEAD would not carry; "
            "commit them first, or confirm on the working tree (without --branch)",
        )


def _edited(recaller, root, head: str, row, val: str, branch: bool) -> tuple[bytes, int, str, bytes]:
    """(new content, line, line text, content it was made from) of the record's file with its reviewed line."""
    from ..base import error_codes as E
    from ..base.errors import OperationError
    from ..git.listing import blobs
    from ..records.formats import read_record
    from ..records.formats.reviewed import NoPlace, reviewed_commit, write
    from ..seed.sources import worktree_sidecar

    try:
        raw = blobs(root, [f"{head}:{row.path}"])[0] if branch else (root / row.path).read_bytes()
    except (OSError, ValueError, IndexError) as e:
        raise OperationError(E.CONFIRM_UNWRITABLE, f"{row.path} cannot be read ({e}); run `jgm seed`") from None
    options = recaller.settings.adapter_options()
    before = read_record(row.path, raw, options, worktree_sidecar(root, row.path)).outcome.record
    try:
        if before is None or before.id != row.id:
            raise NoPlace(f"it no longer holds record {row.id} (changed since the last seed: run `jgm seed`)")
        content, line = write(raw, before.format, val)
    except (NoPlace, UnicodeDecodeError) as e:
        raise OperationError(E.CONFIRM_UNWRITABLE, f"{row.path}: no `reviewed` line can be written: {e}") from None
    after = read_record(row.path, content, options, worktree_sidecar(root, row.path)).outcome.record
    if after is None or after.id != row.id or reviewed_commit(after.to_dict()) != head:  # a bug, never a guess
        raise OperationError(E.CONFIRM_UNWRITABLE, f"{row.path}: the written line does not read back; nothing written")
    return content, line, content.decode("utf-8").split("\n")[line - 1].rstrip("\r"), raw


def _write(path, before: bytes, content: bytes) -> None:
    """Write `content` over `path` unless someone changed it since it was read (their edit is never lost)."""
    from ..base import error_codes as E
    from ..base.errors import OperationError

    if path.read_bytes() != before:
        raise OperationError(E.CONFIRM_UNWRITABLE, f"{path} changed while it was being confirmed; run it again")
    path.write_bytes(content)


def _on_branch(root, head: str, files: dict[str, bytes], ids: list[str]) -> dict[str, Any]:
    """Commit the edited files on a new branch from HEAD with propose's plumbing (the checkout untouched)."""
    import secrets

    from ..candidates.propose import BRANCH_PREFIX, pr_command, slug, write_files
    from ..git import branches

    more = f"-and-{len(ids) - 1}-more" if len(ids) > 1 else ""
    branch = f"{BRANCH_PREFIX}confirm-{slug(ids[0])}{more}-{secrets.token_hex(2)}"
    message = (
        f"Confirm {', '.join(ids)} against {head[:12]}\n\nA person re-read "
        f"{'these records' if len(ids) > 1 else 'this record'} against the code at {head}; "
        "`jgm drift confirm` wrote one `reviewed` line per record file.\n"
    )
    commit = write_files(root, head, files, branch, message)
    _remote, command = pr_command(root, branch, branches.current_branch(root) or None)
    return {"branch": branch, "branch_commit": commit, "next": command}


def _reseed(recaller) -> list[str]:
    """Reseed so every reader sees the edited files at once (an edited record is fresh until committed)."""
    from ..base.errors import JgmError

    try:
        recaller.views.seeder().seed()
    except (JgmError, OSError) as e:  # the lines are written: a busy or failing seed is said, the next catches up
        return [f"the index was not refreshed ({e.__class__.__name__}: {e}); `jgm seed` refreshes it"]
    return []
