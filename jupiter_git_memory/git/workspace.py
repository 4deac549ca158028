"""Workspace identity: one per repository, shared by all its worktrees.

Identity is the normalised remote URL when there is one (so two clones of one project share a memory
namespace only if they share a store), else the git common dir (so worktrees share it and removing a
worktree loses nothing).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from ..base import error_codes as E
from ..base.errors import JgmError
from .config import origin_url
from .runner import git


class NotARepo(JgmError, RuntimeError):
    """Not inside a Git repository: recall answers status `no-workspace` (exit 4), never `no-matches`."""

    entry = E.MEMORY_NO_WORKSPACE


class BareRepository(NotARepo):
    """A bare repository has commits but no working tree: only what reads commits works there."""

    def __init__(self, git_dir: str | Path):
        super().__init__(
            f"{git_dir} is a bare repository (no working tree): `jgm seed --rev REV` indexes a commit of it and "
            "`jgm recall --at REV` answers from it; for the rest clone it or add a worktree (`git worktree add`)"
        )


@dataclass(frozen=True)
class Workspace:
    id: str
    name: str
    repo_root: Path  # the working tree in use (a worktree's own root; a bare repository's git dir)
    key: str  # what the id was derived from
    bare: bool = False  # no working tree: only commits can be read (`seed --rev`, `recall --at`)


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


def _locate(start: Path) -> tuple[str, bool, str | None]:
    """(common git dir, bare, top-level or None). One `git rev-parse` for a working tree, which every recall
    through the daemon pays; anything else (bare, inside .git, not a repository, an odd path) asks one
    question at a time, as the answer there depends on which one fails."""
    ask = ("rev-parse", "--path-format=absolute", "--git-common-dir", "--is-bare-repository", "--show-toplevel")
    try:
        try:
            lines = git(start, *ask).decode().split("\n")
        except subprocess.CalledProcessError:
            lines = []
        if len(lines) == 4 and lines[1] == "false" and lines[0] and lines[2] and not lines[3]:
            return lines[0], False, lines[2]
        common = git(start, "rev-parse", "--path-format=absolute", "--git-common-dir").decode().strip()
        bare = git(start, "rev-parse", "--is-bare-repository").decode().strip() == "true"
        return common, bare, None if bare else git(start, "rev-parse", "--show-toplevel").decode().strip()
    except (subprocess.CalledProcessError, FileNotFoundError, NotADirectoryError):
        raise NotARepo(
            f"{start} is not inside a git repository: cd into your repository or pass --repo PATH "
            "(`git init` starts one)"
        ) from None


def find_workspace(path: Path | str | None = None, bare_ok: bool = False) -> Workspace:
    """The workspace of the repository at `path`. A bare repository (no working tree) is one only where the
    caller reads commits (`bare_ok`: seeding with --rev, recall --at); elsewhere BareRepository says so."""
    start = Path(path or ".").resolve()
    common, bare, top = _locate(start)
    if top is None and not bare_ok:
        raise BareRepository(common)
    remote = origin_url(start)
    key = f"remote:{normalise_remote(remote)}" if remote else f"dir:{Path(common).resolve()}"
    if remote:
        base = normalise_remote(remote).rsplit("/", 1)[-1]
    else:
        base = Path(common).resolve().name.removesuffix(".git") if top is None else Path(common).resolve().parent.name
    slug = re.sub(r"[^a-z0-9]+", "-", base.lower()).strip("-")[:32] or "repo"
    wsid = f"{slug}-{hashlib.sha256(key.encode()).hexdigest()[:10]}"
    return Workspace(id=wsid, name=base or slug, repo_root=Path(top or common), key=key, bare=top is None)


# git's discovery reads these: a cached answer is only for the same values
GIT_LOCATION_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_CONFIG_GLOBAL")
RACY_NS = 2_000_000_000  # metadata this fresh may not show the next change (coarse file system timestamps)


def _depends_on(start: Path, ws: Workspace) -> tuple | None:
    """The metadata find_workspace's answer for `start` rests on: every folder from `start` up to the working
    tree's top (a `.git` made in one of them changes its mtime), the top's `.git` and the repository's
    config (the remote names the workspace), and the global and system config files (so may they). None when it
    cannot be trusted to show a change: a config that includes another file, configuration in the environment,
    metadata too fresh to show the next change."""
    chain = [start, *start.parents]
    if ws.bare or ws.repo_root not in chain:
        return None
    paths = [*chain[: chain.index(ws.repo_root) + 1], ws.repo_root / ".git"]
    dotgit = ws.repo_root / ".git"
    if dotgit.is_file():  # a linked worktree: `gitdir: <common>/worktrees/<name>`
        try:
            gitdir = ws.repo_root / dotgit.read_text("utf-8").removeprefix("gitdir:").strip()
            common = gitdir / (gitdir / "commondir").read_text("utf-8").strip()
        except OSError:
            return None
        paths += [gitdir, gitdir / "commondir", common / "config"]
    else:
        paths.append(dotgit / "config")
    if any(k.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_PARAMETERS")) for k in os.environ):
        return None  # configuration given in the environment: nothing on disk to watch
    now, out = time.time_ns(), []
    for p in paths:
        try:
            st = os.lstat(p)
        except OSError:
            return None
        if st.st_mtime_ns > now - RACY_NS:
            return None
        out.append((str(p), st.st_ino, st.st_mtime_ns, st.st_size))
    for p in [paths[-1], *_user_configs()]:  # the remote may come from any of them (issue 35, item 15)
        try:
            st = os.stat(p)
            text = Path(p).read_bytes().lower()
        except FileNotFoundError:
            out.append((str(p), "absent"))  # made later: the answer changes
            continue
        except OSError:
            return None
        if b"[include" in text or st.st_mtime_ns > now - RACY_NS:
            return None  # an included file changes without any of these changing: ask git every time
        out.append((str(p), st.st_ino, st.st_mtime_ns, st.st_size))
    return tuple(out)


def _user_configs() -> list[Path]:
    """The global and system git config files git reads besides the repository's own (git-config(1))."""
    env = os.environ
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    found = (
        [Path(env["GIT_CONFIG_GLOBAL"])]
        if env.get("GIT_CONFIG_GLOBAL")
        else [home / ".gitconfig", Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "git" / "config"]
    )
    if env.get("GIT_CONFIG_NOSYSTEM", "") in ("", "0", "false"):
        found.append(Path(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"))
    return found


class RememberedWorkspaces:
    """find_workspace for a process that asks about the same folders again and again (the daemon: each
    forwarded recall named its caller's folder, and asking git cost two processes). An answer is reused
    while the metadata it rests on (`_depends_on`) is unchanged; anything else asks git again."""

    def __init__(self) -> None:
        self._seen: dict[tuple, tuple[Workspace, tuple]] = {}

    def find(self, path: Path | str | None = None, bare_ok: bool = False) -> Workspace:
        start = Path(path or ".").resolve()
        key = (str(start), bare_ok, tuple(os.environ.get(k) for k in GIT_LOCATION_ENV))
        got = self._seen.get(key)
        if got is not None and _depends_on(start, got[0]) == got[1]:
            return got[0]
        ws = find_workspace(start, bare_ok)
        stats = _depends_on(start, ws)
        if stats is None:
            self._seen.pop(key, None)
        else:
            self._seen[key] = (ws, stats)
        return ws
