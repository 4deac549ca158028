"""Branches written without touching the user's checkout (what `propose` commits), and pushing them.

Why plumbing (hash-object, a temporary index, commit-tree, update-ref) instead of checkout+commit: the user's
branch, index and working tree, including uncommitted work, stay exactly as they were, and no hook of theirs
runs for a commit they did not make. A failing step raises CalledProcessError (`cmd[1]` names it).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .runner import git, git_argv


def _out(root: Path, *args: str, env: dict | None = None, input: bytes | None = None, check: bool = True) -> str:
    return git(root, *args, env=env, input=input, check=check).decode("utf-8", "replace").strip()


def write_branch(root: Path, base: str, path: str, content: bytes, branch: str, message: str) -> str:
    """Commit `content` at `path` on top of `base` as new branch `branch`; returns the commit sha.
    Only the object store and the new ref change: a temporary index stands in for the user's."""
    return write_files(root, base, {path: content}, branch, message)


def write_files(root: Path, base: str, files: dict[str, bytes], branch: str, message: str) -> str:
    """write_branch for several files in one commit (`jgm drift confirm --branch`); a file keeps the mode
    `base` gives it (an executable stays executable), a new one is 100644."""
    with tempfile.TemporaryDirectory(prefix="jgm-propose-") as tmp:
        env = dict(os.environ, GIT_INDEX_FILE=str(Path(tmp) / "index"))
        _out(root, "read-tree", base, env=env)
        for path, content in sorted(files.items()):
            blob = _out(root, "hash-object", "-w", "--stdin", input=content)
            mode = _out(root, "ls-files", "-s", "--", path, env=env).split(" ", 1)[0] or "100644"
            _out(root, "update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}", env=env)
        tree = _out(root, "write-tree", env=env)
    commit = _out(root, "commit-tree", tree, "-p", base, "-F", "-", input=message.encode("utf-8"))
    _out(root, "update-ref", "-m", f"jgm: {branch}", f"refs/heads/{branch}", commit, "0" * 40)
    return commit


def branch_exists(root: Path, branch: str) -> bool:
    return bool(_out(root, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", check=False))


def current_branch(root: Path) -> str:
    """The checked-out branch's short name, '' when HEAD is detached."""
    return _out(root, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)


def remotes(root: Path) -> list[str]:
    return _out(root, "remote", check=False).split()


def push_argv(remote: str, branch: str, root: Path | None = None) -> list[str]:
    """`git push -u REMOTE BRANCH` (in `root` when given): to run, or to show the user."""
    return git_argv(root, "push", "-u", remote, branch)
