"""Listings: the files of a commit or a diff, blobs by sha, who touched what, and where work stands."""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Iterable
from pathlib import Path

from .runner import git, git_proc


def split_z(out: bytes) -> list[str]:
    """Paths of a `git … -z` listing (bytes that are not UTF-8 kept as surrogates, like os does)."""
    return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]


def tree_paths(root: Path, rev: str, roots: Iterable[str] | None = None) -> list[str]:
    """Every file path of commit `rev` (under the pathspecs `roots` when given)."""
    spec = ["--", *roots] if roots is not None else []
    return split_z(git(root, "ls-tree", "-r", "-z", "--name-only", "--full-tree", rev, *spec))


def tree_entries(root: Path, commit: str, roots: Iterable[str]) -> list[bytes]:
    """`ls-tree -r` entries (`mode type sha\\tpath`) of `commit` under `roots`."""
    return git(root, "ls-tree", "-r", "-z", "--full-tree", commit, "--", *roots).split(b"\0")


def blobs(root: Path, shas: list[str]) -> list[bytes]:
    """The contents of the objects `shas`, in order, from one `git cat-file --batch`."""
    out = git(root, "cat-file", "--batch", input="\n".join(shas).encode() + b"\n")
    datas, pos = [], 0
    for _sha in shas:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        datas.append(out[header_end + 1 : header_end + 1 + size])
        pos = header_end + 1 + size + 1
    return datas


def object_exists(root: Path, spec: str) -> bool:
    """Whether `spec` (`<commit>:<path>`, a sha) names an object."""
    return git_proc(root, "cat-file", "-e", spec).returncode == 0


def diff_names(root: Path, revs: Iterable[str], roots: Iterable[str] = ()) -> list[str]:
    """Paths that differ between `revs` (two commits, or `a...b`), under `roots`; CalledProcessError when a
    revision is unknown."""
    return split_z(git(root, "diff", "--name-only", "-z", "--no-renames", *revs, "--", *roots))


def tracked(root: Path, paths: Iterable[str]) -> list[str]:
    """Which of `paths` git tracks."""
    return split_z(git(root, "ls-files", "-z", "--", *paths, check=False))


def worktree_files(root: Path) -> list[str]:
    """Every file of the working tree git would show: tracked, and untracked but not ignored."""
    return split_z(git(root, "ls-files", "-z", "-c", "-o", "--exclude-standard", check=False))


def last_commits(root: Path, commit: str, roots: Iterable[str], since: str | None = None) -> dict[str, str]:
    """path -> the newest commit (reachable from `commit`) that touched it; only `since..commit` when given."""
    rng = f"{since}..{commit}" if since else commit
    out = git(root, "log", "--format=%x01%H", "--name-only", "--no-renames", "-z", rng, "--", *roots, check=False)
    result: dict[str, str] = {}
    current = None
    for token in out.split(b"\0"):
        for part in token.split(b"\n"):
            if part.startswith(b"\x01"):
                current = part[1:].decode()
            elif part and current:
                result.setdefault(part.decode("utf-8", "surrogateescape"), current)
    return result


@functools.lru_cache(maxsize=2048)
def commit_info(root: str, sha: str) -> dict | None:
    """Author, date and subject of commit `sha` (None when git cannot say)."""
    try:
        out = (
            git_proc(root, "log", "-1", "--format=%H%x00%an%x00%at%x00%s", sha, "--", timeout=10)
            .stdout.decode("utf-8", "replace")
            .strip()
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if not out:
        return None
    sha, author, at, subject = (out.split("\x00") + ["", "", "", ""])[:4]
    return {"sha": sha, "author": author, "at": float(at) if at else None, "subject": subject}


def _lines(root: Path, *args: str) -> list[str]:
    p = git_proc(root, *args, timeout=10)
    lines = p.stdout.decode(errors="replace").splitlines()
    return [line for line in lines if line.strip()] if p.returncode == 0 else []


def recent_work(root: Path, commits: int) -> tuple[str, list[str], list[str], list[str]]:
    """(branch, the last `commits` subjects, uncommitted files, files those commits touched); quick and
    forgiving (a hook's brief): whatever git cannot say is empty."""
    branch = next(iter(_lines(root, "rev-parse", "--abbrev-ref", "HEAD")), "HEAD")
    subjects = _lines(root, "log", f"-n{commits}", "--format=%s")
    dirty = [line[3:].split(" -> ")[-1] for line in _lines(root, "status", "--porcelain", "--untracked-files=no")]
    committed = _lines(root, "log", f"-n{commits}", "--name-only", "--format=")
    return branch, subjects, dirty, committed
