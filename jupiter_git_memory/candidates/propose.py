"""`propose`: turn a candidate into a record file on a new branch, ready for a pull request.

The commit only adds one file on top of the base commit, written with Git plumbing so the user's branch,
index and working tree stay as they were (git/branches.py says why); review and promotion then happen
through the ordinary PR and merge.
"""

from __future__ import annotations

import datetime as _dt
import re
import secrets
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml

from ..base import error_codes as E
from ..git import branches
from ..git.listing import object_exists
from ..git.revisions import commit_of
from ..git.runner import NETWORK_TIMEOUT, GitTimeout, run
from ..records.kinds import CHOSEN_STATUSES, REGISTRY, chosen_status
from ..records.parse import parse_record
from ..records.row import RecordRow
from ..seed.sources import is_record_path
from .errors import CandidateError, invalid_state
from .model import OPEN, PROMOTED, PROPOSED, REJECTED

BRANCH_PREFIX = "jgm/"


def record_status(kind: str, chosen: str) -> str:
    """The reviewer's choice in the kind's own vocabulary (facts are verified, not accepted)."""
    if chosen not in CHOSEN_STATUSES:
        raise CandidateError(
            E.REQUEST_BAD_STATUS, f"--status must be one of {', '.join(CHOSEN_STATUSES)}, not {chosen!r}"
        )
    return chosen_status(kind, chosen)


def slug(title: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    if len(s) > 40:  # cut at a word boundary when there is one
        s = s[:41].rsplit("-", 1)[0] if "-" in s[:41] else s[:40]
    return s.strip("-") or "record"


def _git_failed(root: Path, e: subprocess.CalledProcessError) -> CandidateError:
    """A plumbing step of git/branches.py that failed, as propose's error (`cmd` is `git STEP ...`)."""
    step = e.cmd[1]
    msg = (e.stderr or b"").decode("utf-8", "replace").strip().splitlines()
    return CandidateError(
        E.PROPOSE_GIT_FAILED,
        f"`git {step}` failed in {root}: {msg[-1] if msg else 'no output'}"
        + ("; set `git config user.name` and `user.email`" if step == "commit-tree" else ""),
    )


def render(row: RecordRow, record_id: str, status: str, today: str) -> str:
    """The record file: frontmatter with provenance (so the reseed can mark the promotion) + body + evidence."""
    d = row.data
    prov = d.get("provenance") or {}
    fm: dict[str, Any] = {"id": record_id, "kind": row.kind, "status": status, "title": row.title, "date": today}
    if d.get("tags"):
        fm["tags"] = list(d["tags"])
    sources = list(dict.fromkeys([*([d["source"]] if d.get("source") else []), *(d.get("files") or [])]))
    if sources:  # the files it is about are cited, so task recall finds the record for them
        fm["source"] = sources[0] if len(sources) == 1 else sources
    backing = list(
        dict.fromkeys(x for e in d.get("evidence") or [] for x in (e.get("evidence") or []) if isinstance(x, str))
    )
    if backing:
        fm["evidence"] = backing
    if d.get("scope"):
        fm["scope"] = d["scope"]
    if d.get("proposed_supersedes"):  # retires the record(s) once merged as accepted (verified)
        fm["supersedes"] = list(d["proposed_supersedes"])
    fm["candidate"] = row.id
    for key in ("agent", "session", "work_item", "run_key"):
        if prov.get(key):
            fm[key] = prov[key]
    body = d.get("body", "").strip()
    lines = []
    for e in d.get("evidence") or []:
        who = ", ".join(f"{k} `{e[k]}`" for k in ("agent", "session", "work_item", "run_key") if e.get(k))
        backing = "; ".join(x for x in [e.get("source"), *(e.get("evidence") or [])] if x)
        line = f"- {who or 'unknown agent'}" + (f": {backing}" if backing else "")
        if e.get("title"):
            line += f" — also observed as “{e['title']}”"
        lines.append(line)
    text = "---\n" + yaml.safe_dump(fm, sort_keys=False, allow_unicode=True, width=10_000) + "---\n" + body + "\n"
    text += sections(d)
    if lines:
        text += "\n## Evidence\n\n" + "\n".join(lines) + "\n"
    return text


SCOPE_TEXT = {
    "project": "Project-specific: it holds for this repository.",
    "transferable": "Transferable: it holds beyond this repository.",
}


def sections(d: dict[str, Any]) -> str:
    """The structured write-back fields as the record's sections, in the order a reader checks them."""
    out = ""
    for key, heading in (("trigger", "Trigger"), ("change", "Change"), ("verification", "Verification")):
        if d.get(key):
            out += f"\n## {heading}\n\n{str(d[key]).strip()}\n"
    if d.get("scope"):
        out += f"\n## Scope\n\n{SCOPE_TEXT.get(d['scope'], d['scope'])}\n"
    if d.get("files"):
        out += "\n## Files\n\n" + "".join(f"- `{f}`\n" for f in d["files"])
    if d.get("proposed_supersedes"):
        out += "\n## Supersedes\n\n" + "".join(
            f"- {i}: merging this record as accepted retires it\n" for i in d["proposed_supersedes"]
        )
    return out


def commit_message(row: RecordRow, record_id: str, status: str) -> str:
    prov = row.data.get("provenance") or {}
    trailers = [f"Candidate: {row.id}"] + [
        f"{label}: {prov[k]}"
        for k, label in (("agent", "Agent"), ("session", "Session"), ("work_item", "Work-Item"), ("run_key", "Run-Key"))
        if prov.get(k)
    ]
    trailers += [f"Supersedes: {i}" for i in row.data.get("proposed_supersedes") or []]
    trailers.append(f"Status: {status}")
    return (
        f"Propose {row.kind} {record_id}: {row.title}\n\n"
        f"Recorded as candidate {row.id} by {prov.get('agent', 'an unknown agent')}. Merging this pull request\n"
        "makes it a project record; the post-merge reseed marks the candidate promoted.\n\n"
        + "\n".join(trailers)
        + "\n"
    )


def write_branch(root: Path, base: str, path: str, content: bytes, branch: str, message: str) -> str:
    """Commit `content` at `path` on top of `base` as new branch `branch`; returns the commit sha."""
    return write_files(root, base, {path: content}, branch, message)


def write_files(root: Path, base: str, files: dict[str, bytes], branch: str, message: str) -> str:
    """Commit `files` (path -> content) on top of `base` as new branch `branch` (also `jgm drift confirm
    --branch`); a failing git step is `propose/git-failed` quoting it."""
    try:
        return branches.write_files(root, base, files, branch, message)
    except subprocess.CalledProcessError as e:
        raise _git_failed(root, e) from None


def pr_command(root: Path, branch: str, base_branch: str | None) -> tuple[str | None, str]:
    remotes = branches.remotes(root)
    remote = "origin" if "origin" in remotes else (remotes[0] if remotes else None)
    gh = ["gh", "pr", "create", "--head", branch, "--fill"] + (["--base", base_branch] if base_branch else [])
    push = branches.push_argv(remote or "origin", branch)
    return remote, f"{shlex.join(push)} && {shlex.join(gh)}"


def open_pr(root: Path, remote: str | None, branch: str, base_branch: str | None, command: str) -> dict[str, Any]:
    """Push and open the PR with `gh`; failures are reported (the branch stays), never raised."""
    if not shutil.which("gh"):
        return {"opened": False, "error": f"the GitHub CLI `gh` is not installed; push and open the PR with: {command}"}
    if remote is None:
        return {"opened": False, "error": f"the repository has no remote to push to; add one, then run: {command}"}
    steps = [
        branches.push_argv(remote, branch, root),
        ["gh", "pr", "create", "--head", branch, "--fill"] + (["--base", base_branch] if base_branch else []),
    ]
    for cmd in steps:
        try:  # a push or gh that hangs (a prompt, the network) is reported like any failure
            proc = run(cmd, cwd=root, timeout=NETWORK_TIMEOUT)
        except GitTimeout as e:
            return {"opened": False, "error": f"{e.message}; retry with: {command}"}
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).decode("utf-8", "replace").strip().splitlines()
            return {
                "opened": False,
                "error": f"`{shlex.join(cmd[:3])}` failed: {tail[-1] if tail else 'no output'}; retry with: {command}",
            }
    url = proc.stdout.decode("utf-8", "replace").strip().splitlines()
    return {"opened": True, "url": url[-1] if url else None}


def propose(
    service,
    cid: str,
    status: str = "proposed",
    base: str | None = None,
    open_pull_request: bool = False,
    today: str | None = None,
) -> dict[str, Any]:
    row = service.row(cid)
    state = row.data.get("state")
    root: Path = service.workspace.repo_root
    if state == REJECTED:
        raise invalid_state(cid, state, f"rejected ({row.data.get('reason')}); record a new candidate instead")
    if state == PROMOTED:
        raise invalid_state(cid, state, f"already promoted to {row.data.get('promoted_to')}")
    chosen = record_status(row.kind, status)
    prior = row.data.get("proposal") or {}
    if state == PROPOSED and prior.get("branch") and branches.branch_exists(root, prior["branch"]):
        return dict(prior, candidate=cid, already_proposed=True)
    if state not in (OPEN, PROPOSED):
        raise invalid_state(cid, str(state), "only open candidates can be proposed")
    base_commit = commit_of(root, base or "HEAD")
    if not base_commit:
        raise CandidateError(
            E.PROPOSE_NO_BASE,
            f"{base or 'HEAD'} is not a commit in {root}; commit something first or pass --base REV",
        )
    base_branch = base if base else (branches.current_branch(root) or None)
    settings = service.seeder.settings
    today = today or _dt.date.today().isoformat()
    for _ in range(8):
        kind = REGISTRY[row.kind]
        record_id = f"{kind.prefix}-{slug(row.title)}-{secrets.token_hex(2)}"
        path = f"{settings.roots[0].rstrip('/')}/{kind.folder}/{record_id}.md"
        branch = BRANCH_PREFIX + record_id
        taken = (
            service.exists(record_id)
            or branches.branch_exists(root, branch)
            or object_exists(root, f"{base_commit}:{path}")
        )
        if not taken:
            break
    else:
        raise CandidateError(E.PROPOSE_NO_ID, "could not find a free record id; try again")
    if not is_record_path(path, settings):
        raise CandidateError(
            E.PROPOSE_IGNORED_PATH,
            f"{path} would be ignored by the knowledge settings "
            f"({settings.source or 'defaults'}); check `roots` and `ignore`",
        )
    content = render(row, record_id, chosen, today).encode("utf-8")
    parsed = parse_record(path, content)
    if parsed.record is None:  # our own rendering must always be a valid record
        raise CandidateError(
            E.PROPOSE_INVALID_RECORD,
            f"the rendered record does not parse: {'; '.join(i.render() for i in parsed.issues) or parsed.skipped}",
        )
    commit = write_branch(root, base_commit, path, content, branch, commit_message(row, record_id, chosen))
    remote, command = pr_command(root, branch, base_branch)
    proposal = {
        "record_id": record_id,
        "path": path,
        "branch": branch,
        "commit": commit,
        "base": base_commit,
        "base_branch": base_branch,
        "status": chosen,
        "pr_command": command,
    }
    service.mark_proposed(cid, proposal)
    out = dict(proposal, candidate=cid, already_proposed=False)
    if open_pull_request:
        out["pr"] = open_pr(root, remote, branch, base_branch, command)
    return out
