"""Every git (and gh) child process of ours: one runner with a timeout and no terminal prompt. Only this
package (jupiter_git_memory/git/) builds a git command line; the rest calls its named operations.

Why: a server, a hook or the watcher runs git without a terminal. A git that asks for a password (a
push, a fetch behind a credential helper) or waits on a lock would hold the request, the hook and the
process forever. So every call has a timeout and `GIT_TERMINAL_PROMPT=0` (gh: `GH_PROMPT_DISABLED`),
and a timeout is reported as `git/timeout` naming the command and the repository.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..base import error_codes as E
from ..base.errors import JgmError

GIT_TIMEOUT = 120.0  # seconds for local git commands (a big `git log` on two shared cores takes a few)
NETWORK_TIMEOUT = 300.0  # seconds for a push or `gh pr create`


class GitTimeout(JgmError, subprocess.SubprocessError):
    """A git or gh command did not finish in time (a SubprocessError too, for callers that catch those)."""

    entry = E.GIT_TIMEOUT


def child_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """`env` (default: ours) with every prompt off: a child of ours never waits for a terminal."""
    return {
        **(env if env is not None else os.environ),
        "GIT_TERMINAL_PROMPT": "0",
        "GCM_INTERACTIVE": "never",
        "GH_PROMPT_DISABLED": "1",
    }


def run(
    argv: Sequence[str],
    *,
    cwd: Path | str | None = None,
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run `argv` with its output captured (bytes), a timeout (default GIT_TIMEOUT) and no prompts;
    GitTimeout when it hangs."""
    timeout = GIT_TIMEOUT if timeout is None else timeout
    try:
        return subprocess.run(
            list(argv), cwd=cwd, input=input, capture_output=True, env=child_env(env), timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        where = f" in {cwd}" if cwd else ""
        raise GitTimeout(
            f"`{' '.join(argv[:4])}` did not finish within {timeout:.0f} s{where}; check the repository "
            "(a git lock, a credential prompt, a slow network) and try again",
            command=" ".join(argv[:4]),
        ) from None


def git_proc(
    repo: Path | str,
    *args: str,
    input: bytes | None = None,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """`git -C repo ARGS` as a finished process (the caller reads its exit code and stderr)."""
    return run(git_argv(repo, *args), input=input, timeout=timeout, env=env)


def git_argv(repo: Path | str | None, *args: str) -> list[str]:
    """The one place a git command line is built (`-C repo` when a repository is named)."""
    return ["git", *(("-C", str(repo)) if repo is not None else ()), *args]


def git(
    repo: Path | str,
    *args: str,
    input: bytes | None = None,
    check: bool = True,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> bytes:
    """`git -C repo ARGS`; stdout as bytes, CalledProcessError on a non-zero exit when `check`."""
    proc = git_proc(repo, *args, input=input, timeout=timeout, env=env)
    if check and proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, ["git", *args], proc.stdout, proc.stderr)
    return proc.stdout
