"""What the reference-transaction hook reseeds for (dec-reference-transaction-freshness).

The shim already dropped everything but committed moves of HEAD or a branch; this keeps the moves of this
worktree's HEAD or checked-out branch that no other jgm hook will see. A merge or pull (post-merge), a
rebase (post-rewrite, once at its end instead of once per picked commit) and an amend (post-rewrite) are
left to those hooks, so one git command reseeds once.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..git.revisions import parent, symbolic_head
from ..git.state import git_paths
from . import hook_run

LEFT_TO_OTHER_HOOKS = ("merge", "pull", "rebase")  # GIT_REFLOG_ACTION of commands that fire post-merge/-rewrite


def ref_moves(top: Path, args: list[str], stdin: str, roots: tuple[str, ...]) -> list[str]:
    """Record paths under `roots` that the committed ref transaction on `stdin` moved in this worktree."""
    action = os.environ.get("GIT_REFLOG_ACTION", "").split(" ", 1)[0]
    if args[:1] != ["committed"] or action in LEFT_TO_OTHER_HOOKS:
        return []
    if any(Path(d).is_dir() for d in git_paths(top, "rebase-merge", "rebase-apply")):
        return []
    branch = symbolic_head(top)
    moves = {
        (old, new)
        for old, new, ref in (line.split()[:3] for line in stdin.splitlines() if len(line.split()) >= 3)
        if ref in ("HEAD", branch) and old != new
    }
    paths: set[str] = set()
    for old, new in moves:
        if hook_run._null(old):
            paths.update(hook_run._tree(top, roots, new))
        elif (was := parent(top, old)) is None or was != parent(top, new):  # same parent: an amend
            paths.update(hook_run._diff(top, roots, old, new))
    return sorted(paths)
