"""Which knowledge files the git command behind a hook changed: what hook_run.py reseeds for.

The reference-transaction hook (dec-reference-transaction-freshness): the shim already dropped everything
but committed moves of HEAD or a branch; `ref_moves` keeps the moves of this worktree's HEAD or checked-out
branch that no other jgm hook will see. A merge or pull (post-merge), a rebase (post-rewrite, once at its
end instead of once per picked commit) and an amend (post-rewrite) are left to those hooks, so one git
command reseeds once.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from ..git.listing import diff_names, tree_paths
from ..git.revisions import commit_of, last_move, parent, symbolic_head
from ..git.state import git_paths

HOOKS = ("post-merge", "post-checkout", "post-rewrite", "post-commit", "reference-transaction")  # the last: git >= 2.28
STDIN_HOOKS = ("post-rewrite", "reference-transaction")  # git feeds these "old new [ref]" lines


# -- post-checkout, post-merge, post-rewrite -------------------------------------------------------
def _null(sha: str) -> bool:
    return not sha.strip("0")


def _diff(top: Path, roots: tuple[str, ...], *revs: str) -> list[str]:
    try:
        return diff_names(top, revs, roots)
    except subprocess.CalledProcessError:  # e.g. an old commit already pruned: reseed rather than guess
        return tree_paths(top, "HEAD", roots)


def changed_paths(top: Path, hook: str, args: list[str], stdin: str, roots: tuple[str, ...]) -> list[str]:
    """Paths under the knowledge roots that the git command changed in the working tree."""
    if hook == "post-checkout":
        old, new, flag = (args + ["", "", "1"])[:3]
        if flag == "0":  # a file checkout (`git checkout -- path`): not a branch switch
            return []
        new = new or "HEAD"
        return tree_paths(top, new, roots) if not old or _null(old) else _diff(top, roots, old, new)
    if hook == "post-merge":
        if args[:1] == ["1"]:  # squash: HEAD did not move, the changes sit in the index and tree
            return _diff(top, roots, "HEAD")
        orig = commit_of(top, "ORIG_HEAD")
        return _diff(top, roots, orig, "HEAD") if orig else tree_paths(top, "HEAD", roots)
    if hook == "post-rewrite":
        if args[:1] == ["rebase"] and (orig := commit_of(top, "ORIG_HEAD")):
            return _diff(top, roots, orig, "HEAD")  # the whole move of the working tree
        for line in stdin.splitlines():
            pair = line.split()
            if len(pair) >= 2 and (paths := _diff(top, roots, pair[0], pair[1])):
                return paths
        return []
    if hook == "reference-transaction":  # dec-reference-transaction-freshness
        return ref_moves(top, args, stdin, roots)
    if hook == "post-commit":
        return committed(top, roots)
    raise ValueError(f"unknown hook {hook!r}; jgm handles {', '.join(HOOKS)}")


# -- post-commit: a commit, cherry-pick or revert --------------------------------------------------
def committed(top: Path, roots: tuple[str, ...]) -> list[str]:
    """Record paths under `roots` the new HEAD commit changed against its first parent; none for an amend
    (post-rewrite speaks for it) or a commit inside a rebase (post-rewrite, once at its end)."""
    if _rebasing(top) or last_move(top).startswith("commit (amend)"):
        return []
    was = parent(top, "HEAD")
    return _diff(top, roots, was, "HEAD") if was else tree_paths(top, "HEAD", roots)


def _rebasing(top: Path) -> bool:
    return any(Path(d).is_dir() for d in git_paths(top, "rebase-merge", "rebase-apply"))


# -- the reference-transaction hook ----------------------------------------------------------------
LEFT_TO_OTHER_HOOKS = ("merge", "pull", "rebase")  # GIT_REFLOG_ACTION of commands that fire post-merge/-rewrite


def ref_moves(top: Path, args: list[str], stdin: str, roots: tuple[str, ...]) -> list[str]:
    """Record paths under `roots` that the committed ref transaction on `stdin` moved in this worktree."""
    action = os.environ.get("GIT_REFLOG_ACTION", "").split(" ", 1)[0]
    if args[:1] != ["committed"] or action in LEFT_TO_OTHER_HOOKS:
        return []
    if _rebasing(top):
        return []
    branch = symbolic_head(top)
    moves = {
        (old, new)
        for old, new, ref in (line.split()[:3] for line in stdin.splitlines() if len(line.split()) >= 3)
        if ref in ("HEAD", branch) and old != new
    }
    paths: set[str] = set()
    for old, new in moves:
        if _null(old):
            paths.update(tree_paths(top, new, roots))
        elif (was := parent(top, old)) is None or was != parent(top, new):  # same parent: an amend
            paths.update(_diff(top, roots, old, new))
    return sorted(paths)
