"""A working tree's git state: where its git dirs are, a cheap fingerprint of them, and `git status`.

Freshness: a worktree view stores a fingerprint of the git state it was built from (HEAD, the branch ref,
packed-refs, the index file); a read that finds another fingerprint refreshes the view first, so
`git reset --hard` or a cherry-pick without hooks is still seen.
"""

from __future__ import annotations

import functools
import hashlib
import subprocess
from pathlib import Path

from .runner import git, git_proc

# a seed (hook, watcher) running next to a git command must not take index.lock
NO_LOCKS = "--no-optional-locks"


def status(root: Path, roots: tuple[str, ...] | list[str] | None = None) -> bytes:
    """`git status` of the worktree (every path, untracked ones included; no renames, so one path an entry),
    limited to the pathspecs `roots` when given. Read by status_paths."""
    spec = ["--", *roots] if roots is not None else []
    return git(
        root, NO_LOCKS, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", *spec, check=False
    )


def status_paths(out: bytes) -> list[str]:
    """The paths of `status` output (one path per entry: no renames)."""
    return [item[3:].decode("utf-8", "surrogateescape") for item in out.split(b"\0") if item]


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


@functools.cache
def has_reference_transaction() -> bool:
    """Whether this git runs the reference-transaction hook (git >= 2.28)."""
    words = git(Path("."), "--version", check=False).decode().split()
    try:
        major, minor = (int(x) for x in words[2].split(".")[:2])
    except (IndexError, ValueError):
        return False
    return (major, minor) >= (2, 28)


def git_paths(root: Path, *names: str, check: bool = True) -> list[str]:
    """Where git keeps each of `names` (`hooks`, `rebase-merge`, `shallow`), absolute (honours core.hooksPath
    and worktrees). Outside a repository: CalledProcessError when `check`, else no paths."""
    args = [a for n in names for a in ("--git-path", n)]
    return git(root, "rev-parse", "--path-format=absolute", *args, check=check).decode().splitlines()


def toplevel(here: Path) -> Path:
    """The top of the working tree `here` is in; CalledProcessError in a bare repository or outside one."""
    return Path(git(here, "rev-parse", "--show-toplevel").decode().strip())


def absolute_git_dir(root: Path) -> Path:
    """The worktree's own git dir; CalledProcessError (its stderr says why) when there is none."""
    return Path(git(root, "rev-parse", "--absolute-git-dir").decode().strip())


def is_committable(root: Path, rel: str) -> bool:
    """Would `git add` take `rel`: tracked already, or untracked and not ignored (`jgm agent status` warns when a
    file holding one machine's paths could be committed)."""
    if git_proc(root, "ls-files", "--error-unmatch", "--", rel).returncode == 0:
        return True
    return git_proc(root, "check-ignore", "-q", "--", rel).returncode != 0
