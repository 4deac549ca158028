"""Views: which record versions, at which effective status, are in force for one checkout.

A worktree's view (`wt:<root>`) follows its HEAD plus uncommitted changes; an `--at` view (`at:<sha>`)
is a commit read from Git objects. Views share content and vectors (dec-views-over-shared-vectors), so a
view costs one small row per record. Freshness: a worktree view stores a fingerprint of the git state it
was built from (HEAD, the branch ref, packed-refs, the index file); a read that finds another fingerprint
refreshes the view first, so `git reset --hard` or a cherry-pick without hooks is still seen.
"""

from __future__ import annotations

import functools
import hashlib
import subprocess
from pathlib import Path

from ..base import error_codes as E
from ..base.errors import JgmError
from .workspace import git


def worktree_view(root: Path | str) -> str:
    return f"wt:{Path(root).resolve()}"


def at_view(commit: str) -> str:
    return f"at:{commit}"


@functools.lru_cache(maxsize=64)
def _git_dirs(root: str) -> tuple[Path, Path]:
    out = git(Path(root), "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir").decode().split("\n")
    return Path(out[0]), Path(out[1])


def _read(p: Path) -> str:
    try:
        return p.read_text("utf-8", "replace").strip()
    except OSError:
        return "-"


def _stat(p: Path) -> str:
    try:
        st = p.stat()
        return f"{st.st_mtime_ns}:{st.st_size}"
    except OSError:
        return "-"


def fingerprint(root: Path | str) -> str:
    """What a worktree's git state looks like now, from a few file reads (no git process: every read pays it)."""
    try:
        gitdir, common = _git_dirs(str(Path(root).resolve()))
    except (subprocess.CalledProcessError, FileNotFoundError, IndexError):
        return ""
    head = _read(gitdir / "HEAD")
    parts = [head]
    if head.startswith("ref: "):
        parts.append(_read(common / head[5:].strip()))
    parts += [_stat(common / "packed-refs"), _stat(gitdir / "index"), _stat(common / "shallow")]  # an unshallow
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]


class UnknownRevision(JgmError, ValueError):
    """`--at` / `at` names no commit of the repository."""

    entry = E.REVISION_NOT_FOUND


def resolve_commit(root: Path, rev: str) -> str:
    """The commit `rev` names (a sha, tag or branch), or UnknownRevision naming it."""
    try:
        return git(root, "rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}").decode().strip()
    except subprocess.CalledProcessError:
        raise UnknownRevision(f"{rev!r} is not a commit in {root} (use a sha, tag or branch)") from None


def stale_views(views: list[dict], keep_at: int, current: str | None) -> list[str]:
    """Views to drop: worktree views whose folder is gone (`git worktree remove`), and `--at` views beyond
    the `keep_at` most recently used. Dropping a view deletes only what no other view holds."""
    drop = [
        v["name"]
        for v in views
        if v["kind"] == "worktree" and v["name"] != current and not (v.get("root") and Path(v["root"]).is_dir())
    ]
    ats = sorted((v for v in views if v["kind"] == "at" and v["name"] != current), key=lambda v: -v["used_at"])
    budget = max(keep_at - (1 if current and current.startswith("at:") else 0), 0)
    return drop + [v["name"] for v in ats[budget:]]
