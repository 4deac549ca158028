"""Workspace identity: one per repository, shared by all its worktrees.

Identity is the normalised remote URL when there is one (so two clones of one project share a memory
namespace only if they share a store), else the git common dir (so worktrees share it and removing a
worktree loses nothing).
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..base.errors import JgmError


class NotARepo(JgmError, RuntimeError):
    """Not inside a Git repository: recall answers status `no-workspace` (exit 4), never `no-matches`."""

    code, status, exit_code = "memory/no-workspace", 404, 4


@dataclass(frozen=True)
class Workspace:
    id: str
    name: str
    repo_root: Path  # the working tree in use (a worktree's own root); the store is store_root elsewhere
    key: str  # what the id was derived from


def git(repo: Path, *args: str, input: bytes | None = None, check: bool = True) -> bytes:
    proc = subprocess.run(["git", "-C", str(repo), *args], input=input, capture_output=True)
    if check and proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, ["git", *args], proc.stdout, proc.stderr)
    return proc.stdout


def normalise_remote(url: str) -> str:
    """git@host:org/repo.git, https://user@host/org/repo and ssh://host/org/repo all become host/org/repo."""
    u = url.strip()
    u = re.sub(r"^[a-z+]+://", "", u)
    u = re.sub(r"^[^@/]+@", "", u)
    m = re.match(r"^([^/:]+):(?!\d+/)(.*)$", u)  # scp-like host:path
    if m:
        u = f"{m.group(1)}/{m.group(2)}"
    u = re.sub(r":\d+/", "/", u)
    u = re.sub(r"\.git/?$", "", u).rstrip("/")
    return u.lower()


def find_workspace(path: Path | str | None = None) -> Workspace:
    start = Path(path or ".").resolve()
    try:
        top = git(start, "rev-parse", "--show-toplevel").decode().strip()
        common = git(start, "rev-parse", "--path-format=absolute", "--git-common-dir").decode().strip()
    except (subprocess.CalledProcessError, FileNotFoundError, NotADirectoryError):
        raise NotARepo(
            f"{start} is not inside a git repository: cd into your repository or pass --repo PATH "
            "(`git init` starts one)"
        ) from None
    remote = git(start, "config", "--get", "remote.origin.url", check=False).decode().strip()
    key = f"remote:{normalise_remote(remote)}" if remote else f"dir:{Path(common).resolve()}"
    base = normalise_remote(remote).rsplit("/", 1)[-1] if remote else Path(common).resolve().parent.name
    slug = re.sub(r"[^a-z0-9]+", "-", base.lower()).strip("-")[:32] or "repo"
    wsid = f"{slug}-{hashlib.sha256(key.encode()).hexdigest()[:10]}"
    return Workspace(id=wsid, name=base or slug, repo_root=Path(top), key=key)
