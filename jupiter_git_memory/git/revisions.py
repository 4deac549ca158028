"""Revisions: what a name points at, and how commits relate (ancestry, parents)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..base import error_codes as E
from ..base.errors import JgmError
from .runner import git, git_proc


class UnknownRevision(JgmError, ValueError):
    """`--at` / `at` names no commit of the repository."""

    entry = E.REVISION_NOT_FOUND


def resolve_commit(root: Path, rev: str) -> str:
    """The commit `rev` names (a sha, tag or branch), or UnknownRevision naming it."""
    try:
        return git(root, "rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}").decode().strip()
    except subprocess.CalledProcessError:
        raise UnknownRevision(f"{rev!r} is not a commit in {root} (use a sha, tag or branch)") from None


def head_commit(root: Path) -> str | None:
    """HEAD's commit, None before the first commit."""
    try:
        return git(root, "rev-parse", "--verify", "HEAD").decode().strip()
    except subprocess.CalledProcessError:
        return None


def commit_of(root: Path, ref: str) -> str | None:
    """The commit `ref` names, None when it names none (no error)."""
    out = git(root, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}", check=False).decode().strip()
    return out or None


def parent(root: Path, sha: str) -> str | None:
    """The first parent of `sha`, None for a root commit."""
    return git(root, "rev-parse", "-q", "--verify", f"{sha}^", check=False).decode().strip() or None


def last_move(root: Path) -> str:
    """The subject of HEAD's newest reflog entry (`commit (amend): ...`, `cherry-pick: ...`), '' without one."""
    return git(root, "log", "-g", "-1", "--format=%gs", "HEAD", check=False).decode("utf-8", "replace").strip()


def is_ancestor(root: Path, old: str, new: str) -> bool:
    return git_proc(root, "merge-base", "--is-ancestor", old, new).returncode == 0


def symbolic_head(root: Path) -> str:
    """The ref HEAD points at (`refs/heads/main`), '' when detached."""
    return git(root, "symbolic-ref", "-q", "HEAD", check=False).decode().strip()


def in_history(root: Path, names: list[str], tip: str) -> dict[str, str]:
    """name -> its full commit sha, for each of `names` (hex, possibly abbreviated) that names a commit in
    `tip`'s history (`tip` itself or an ancestor); the others (no such object, not a commit, ambiguous, off
    that history, beyond a shallow clone's boundary) are left out. Two git calls, whatever the number."""
    names = sorted({n for n in names if n and all(c in "0123456789abcdef" for c in n.lower())})
    if not names:
        return {}
    asked = "".join(f"{n}^{{commit}}\n" for n in names).encode()
    out = git(root, "cat-file", "--batch-check=%(objectname) %(objecttype)", input=asked, check=False).decode()
    full: dict[str, str] = {}
    for name, line in zip(names, out.splitlines()):
        sha, _, kind = line.partition(" ")
        if kind == "commit":
            full[name] = sha
    if not full:
        return {}
    walk = "".join(f"{s}\n" for s in sorted(set(full.values()))) + f"^{tip}\n"
    proc = git_proc(root, "rev-list", "--stdin", input=walk.encode())
    if proc.returncode != 0:
        return {}
    off = set(proc.stdout.decode().split())
    return {n: s for n, s in full.items() if s not in off}
