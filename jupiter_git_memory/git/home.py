"""Which store a process uses: one resolution order for every entry point.

`--home` > `JGM_HOME` > the repository's `git config jgm.home` > the platform's user data dir.

Why a per-repo setting: MCP clients start servers with a short allow-list of environment variables and
git runs hooks with whatever environment the user's shell had, so `JGM_HOME` does not reach every
process. Git config is readable by every process that can read the repository. `jgm seed` and
`jgm hooks install` record the store there whenever a non-default one is in use. The choice is kept in
base/home.py (`keep`, `chosen`), which base/store.py reads.
"""

from __future__ import annotations

from pathlib import Path

from ..base.environment import HOME
from ..base.home import chosen, default_home, is_default, keep

TYPE_CHECKING = False  # not typing's: the thin client resolves the store on every warm call
if TYPE_CHECKING:
    import subprocess

# the git runner is imported where it is used: with `JGM_HOME` or `--home` given, the thin client
# (surfaces/daemon/thin.py) resolves the store on every warm call and does not need it.

GIT_KEY = "jgm.home"


def _git_config(repo: Path | str | None, *args: str) -> subprocess.CompletedProcess:
    import subprocess

    from .config import git_config

    where = Path(repo or ".")
    if not where.is_dir():
        where = where.parent
    proc = git_config(where, *args)
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
    if HOME.get():
        return Path(HOME.get() or "").expanduser().absolute(), HOME.name
    configured = repo_home(repo)
    if configured:
        return configured.absolute(), f"git config {GIT_KEY}"
    return default_home(), "default"


def use_store(home: Path | str | None = None, repo: Path | str | None = None, fresh: bool = False) -> Path:
    """Resolve the store for this process and keep it (`base.home.chosen`); children get it through
    `base.home.store_env`. `fresh`: a command starting (the CLI's leaf commands), so an earlier command's
    `--home` does not carry over; a nested entry point (`jgm hooks run` calling the hook runner) keeps the
    command's choice."""
    path, source = resolve_home(home, repo, fresh)
    keep(path, source)
    return path


def current_store() -> dict:
    """The store in use and why, for `jgm doctor` and `jgm workspaces`."""
    path, source = resolve_home()
    return {"path": str(path), "source": source}


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
