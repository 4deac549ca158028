"""Which store a process uses: one resolution order for every entry point.

`--home` > `JGM_HOME` > the repository's `git config jgm.home` > the platform's user data dir.

Why a per-repo setting: MCP clients start servers with a short allow-list of environment variables and
git runs hooks with whatever environment the user's shell had, so `JGM_HOME` does not reach every
process. Git config is readable by every process that can read the repository. `jgm seed` and
`jgm hooks install` record the store there whenever a non-default one is in use.

An entry point resolves once (`use_store`) and keeps the answer in this module (`chosen`, which
`base/store.store_path` reads), so everything after it in the process agrees without asking again. It is
not written into `os.environ`: a child we start (a hook's background reseed, the daemon, the web UI's
doctor run) gets it in the env we pass it (`store_env`). A JGM_HOME changed after the choice wins.
"""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False  # not typing's (nor collections.abc): the thin client resolves the store on every warm call
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Mapping

# platformdirs and the git runner are imported where they are used: with `JGM_HOME` or `--home` given, the
# thin client (surfaces/daemon/thin.py) resolves the store on every warm call and needs neither.

GIT_KEY = "jgm.home"
_chosen: tuple[Path, str, str | None] | None = None  # what use_store picked, why, and JGM_HOME when it did


def default_home() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("jupiter-git-memory", appauthor=False))


def _git_config(repo: Path | str | None, *args: str) -> subprocess.CompletedProcess:
    import subprocess

    from .git import run

    where = Path(repo or ".")
    if not where.is_dir():
        where = where.parent
    proc = run(["git", "-C", str(where), "config", *args], timeout=30)
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode("utf-8", "replace"), "")


def repo_home(repo: Path | str | None) -> Path | None:
    """The store recorded in the repository's git config, if any (None outside a repository)."""
    import subprocess

    try:
        p = _git_config(repo, "--get", GIT_KEY)
    except (OSError, subprocess.SubprocessError):
        return None
    value = p.stdout.strip()
    return Path(value).expanduser() if p.returncode == 0 and value else None


def chosen() -> tuple[Path, str] | None:
    """(store, why) as use_store picked it in this process, while JGM_HOME is what it was then."""
    if _chosen and os.environ.get("JGM_HOME") == _chosen[2]:
        return _chosen[0], _chosen[1]
    return None


def resolve_home(
    home: Path | str | None = None, repo: Path | str | None = None, fresh: bool = False
) -> tuple[Path, str]:
    """(store path, where it came from: "--home" | "JGM_HOME" | "git config jgm.home" | "default").
    This process's earlier choice stands unless `fresh` (a new command asks again)."""
    if home:
        return Path(home).expanduser().absolute(), "--home"
    picked = None if fresh else chosen()
    if picked:
        return picked
    if os.environ.get("JGM_HOME"):
        return Path(os.environ["JGM_HOME"]).expanduser().absolute(), "JGM_HOME"
    configured = repo_home(repo)
    if configured:
        return configured.absolute(), f"git config {GIT_KEY}"
    return default_home(), "default"


def use_store(home: Path | str | None = None, repo: Path | str | None = None, fresh: bool = False) -> Path:
    """Resolve the store for this process and keep it (`chosen`); children get it through `store_env`.
    `fresh`: a command starting (the CLI's leaf commands), so an earlier command's `--home` does not carry
    over; a nested entry point (`jgm hooks run` calling the hook runner) keeps the command's choice."""
    global _chosen
    path, source = resolve_home(home, repo, fresh)
    _chosen = (path, source, os.environ.get("JGM_HOME"))
    return path


def store_env(store: Path | str, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """`env` (default: ours) with JGM_HOME naming `store`: what a child of ours is started with."""
    return {**(env if env is not None else os.environ), "JGM_HOME": str(store)}


def current_store() -> dict:
    """The store in use and why, for `jgm doctor` and `jgm workspaces`."""
    path, source = resolve_home()
    return {"path": str(path), "source": source}


def is_default(path: Path) -> bool:
    return Path(path).absolute() == default_home().absolute()


def record_home(repo_root: Path, store: Path) -> str | None:
    """Remember a non-default store in the repository's git config (and forget it when the default is
    back in use), so hooks and MCP clients without JGM_HOME find the same index. Returns what changed."""
    current = repo_home(repo_root)
    if is_default(store):
        if current is None:
            return None
        _git_config(repo_root, "--unset", GIT_KEY)
        return f"removed git config {GIT_KEY} (the default store is in use)"
    if current is not None and current.absolute() == Path(store).absolute():
        return None
    p = _git_config(repo_root, GIT_KEY, str(Path(store).absolute()))
    if p.returncode != 0:
        return None
    return f"recorded the store in git config {GIT_KEY} = {Path(store).absolute()}"


def seed_command(repo_root: Path | str, store: Path | str | None = None) -> str:
    """The exact command that seeds `repo_root` into `store` (the store flag only when it is not implied)."""
    store = Path(store) if store else resolve_home()[0]
    flag = "" if is_default(store) or repo_home(repo_root) == store else f" --home {store}"
    return f"jgm seed --repo {repo_root}{flag}"
