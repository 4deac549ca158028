"""Git hooks that keep the index in step with merges, checkouts, rewrites and other ref updates (reset,
cherry-pick: reference-transaction, see hook_paths.py): install, uninstall, status
(what a hook does when it runs is hook_run.py).

Why hooks at all: after `git pull` or a branch switch the files an agent recalls from have changed,
and nobody remembers to run `jgm seed`. Why this shape:
- the hook files are one tiny shell shim (`hook_scripts/jgm-hook`, copied verbatim to `hooks/` at the
  top of the repo), which records the installing interpreter and calls `python -P -m jupiter_git_memory
  hooks run <hook> ...` (-P: a checked-out branch can never shadow the package); that entry skips the
  full CLI so a checkout without knowledge changes costs a Python start and one `git diff`;
- a hook that is already there is renamed to `<hook>.jgm-chained` and run first by the shim (with its
  arguments and stdin, its exit status kept), the `.legacy` scheme pre-commit uses; uninstall renames
  it back, so it is restored byte for byte;
- the reseed runs detached so git returns at once (`JGM_HOOK_SYNC=1` runs it in the foreground), and
  errors go to the store log: a hook never fails or blocks the git command.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

from ..base import error_codes as E
from ..base.errors import JgmError
from ..base.files import atomic_write
from ..base.store import log_path, workspace_dir
from ..git.listing import tracked
from ..git.state import git_paths
from ..git.workspace import find_workspace
from .hook_paths import HOOKS
from .hook_run import LAST_RUN, running_jobs

SHIM_MARKER = b"jgm-hook-shim"
CHAINED_SUFFIX = ".jgm-chained"
PYTHON_LINE = 'JGM_PYTHON=""'


class HookConflict(JgmError, RuntimeError):
    entry = E.HOOKS_CONFLICT


# -- the shim ---------------------------------------------------------------------------------------
def shim_template() -> str:
    from importlib import resources

    return resources.files("jupiter_git_memory.freshness").joinpath("hook_scripts/jgm-hook").read_text("utf-8")


def render_shim(python: str | None) -> str:
    """The shim with `python` (an interpreter that has jupiter_git_memory) recorded; None keeps the
    template as is, which falls back to `jgm` on PATH."""
    text = shim_template()
    return text if not python else text.replace(PYTHON_LINE, f"JGM_PYTHON={shlex.quote(python)}", 1)


def is_shim(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return SHIM_MARKER in f.read(512)
    except OSError:
        return False


def shim_python(path: Path) -> str | None:
    for line in path.read_text("utf-8", "replace").splitlines():
        if line.startswith("JGM_PYTHON="):
            value = shlex.split(line.partition("=")[2] or "''")
            return value[0] if value and value[0] else None
    return None


# -- install / uninstall / status ------------------------------------------------------------------
def hooks_dir(repo: Path | str | None) -> Path:
    """Where git really runs hooks from (honours core.hooksPath and worktrees)."""
    top = find_workspace(repo).repo_root
    return Path(git_paths(top, "hooks")[0].strip())


def _write_executable(path: Path, text: str) -> None:
    atomic_write(path, text, mode=0o755)


def tracked_hooks(repo: Path | str | None, d: Path) -> list[str]:
    """The hook files install would write or rename that git tracks (a versioned `core.hooksPath`)."""
    top = find_workspace(repo).repo_root
    try:
        rel = d.resolve().relative_to(top.resolve())
    except ValueError:
        return []  # outside the working tree: nothing there is tracked
    names = [(rel / n).as_posix() for h in HOOKS for n in (h, h + CHAINED_SUFFIX)]
    return tracked(top, names)


def install(repo: Path | str | None, python: str | None = None, force: bool = False) -> list[dict]:
    """Install the shim for every hook; idempotent. Raises HookConflict (before changing anything) when
    a foreign hook is there and a chained one already exists, since chaining would overwrite it, and when
    the hooks directory is versioned (`core.hooksPath` inside the repo) and install would change tracked
    files, unless `force`: that change would land in everybody's next commit."""
    d = hooks_dir(repo)
    if not force and (tracked := tracked_hooks(repo, d)):
        raise HookConflict(
            f"core.hooksPath {d} is tracked by git and installing would modify tracked files "
            f"({', '.join(tracked)}); run `jgm hooks install --force` to do it anyway, or point "
            "core.hooksPath at an untracked directory"
        )
    d.mkdir(parents=True, exist_ok=True)
    text = render_shim(python or sys.executable)
    for name in HOOKS:
        p, chained = d / name, d / (name + CHAINED_SUFFIX)
        if os.path.lexists(p) and not is_shim(p) and os.path.lexists(chained):
            raise HookConflict(
                f"{p} is not jgm's hook and {chained} already exists; move one of them away, "
                "then run `jgm hooks install` again"
            )
    actions = []
    for name in HOOKS:
        p, chained = d / name, d / (name + CHAINED_SUFFIX)
        if is_shim(p):
            action = "unchanged" if p.read_text("utf-8", "replace") == text else "updated"
            if action == "updated":
                _write_executable(p, text)
        else:
            if os.path.lexists(p):
                os.rename(p, chained)
            _write_executable(p, text)
            action = "installed"
        if os.path.lexists(chained):
            action += f", chaining {chained.name}"
        actions.append({"hook": name, "path": str(p), "action": action})
    return actions


def uninstall(repo: Path | str | None) -> list[dict]:
    """Remove jgm's shims and rename chained hooks back; a hook that is not jgm's is left alone."""
    d = hooks_dir(repo)
    actions = []
    for name in HOOKS:
        p, chained = d / name, d / (name + CHAINED_SUFFIX)
        if os.path.lexists(p) and not is_shim(p):
            action = "left alone (not jgm's hook)"
        else:
            action = "removed" if os.path.lexists(p) else "not installed"
            if os.path.lexists(p):
                os.unlink(p)
            if os.path.lexists(chained):
                os.rename(chained, p)
                action += f", restored {name} from {chained.name}"
        actions.append({"hook": name, "path": str(p), "action": action})
    return actions


def status(repo: Path | str | None) -> dict:
    ws = find_workspace(repo)
    d = hooks_dir(ws.repo_root)
    hooks = []
    for name in HOOKS:
        p, chained = d / name, d / (name + CHAINED_SUFFIX)
        if is_shim(p):
            py = shim_python(p)
            state = "installed" if (py is None or os.access(py, os.X_OK)) else "installed (interpreter missing)"
            hooks.append({"hook": name, "state": state, "python": py, "chained": os.path.lexists(chained)})
        else:
            hooks.append(
                {
                    "hook": name,
                    "state": "foreign hook" if os.path.lexists(p) else "absent",
                    "python": None,
                    "chained": os.path.lexists(chained),
                }
            )
    wsdir = workspace_dir(ws.id, create=False)  # status reads: it creates no workspace folder
    last = None
    if (wsdir / LAST_RUN).is_file():
        last = json.loads((wsdir / LAST_RUN).read_text("utf-8"))
    return {
        "workspace": ws.id,
        "hooks_dir": str(d),
        "hooks": hooks,
        "running": running_jobs(wsdir),
        "last_run": last,
        "log": str(log_path()),
    }
