"""`git config` reads and writes, and the remote a workspace is named after."""

from __future__ import annotations

import subprocess
from pathlib import Path

from .runner import git, git_proc

CONFIG_TIMEOUT = 30.0  # seconds: a config read sits on the path of every hook and MCP start


def git_config(repo: Path | str, *args: str) -> subprocess.CompletedProcess[bytes]:
    """`git config ARGS` in `repo` (get, set, --unset: the caller reads the exit code)."""
    return git_proc(repo, "config", *args, timeout=CONFIG_TIMEOUT)


def get_all(repo: Path | str, key: str) -> tuple[str, ...]:
    """Every value of `key` the repository sees (local, global, system); none on any error."""
    try:
        p = git_config(repo, "--get-all", key)
    except (OSError, subprocess.SubprocessError):
        return ()
    lines = p.stdout.decode(errors="replace").splitlines()
    return tuple(v.strip() for v in lines if v.strip()) if p.returncode == 0 else ()


def origin_url(start: Path) -> str:
    """`remote.origin.url` as configured, '' when there is none."""
    return git(start, "config", "--get", "remote.origin.url", check=False).decode().strip()


def remote_url(root: Path, name: str = "origin") -> str:
    """The URL git uses for remote `name` (insteadOf rules applied), '' when there is none."""
    return git(root, "remote", "get-url", name, check=False).decode().strip()
