"""Which store a process uses, once chosen: the choice kept for the process, the default, a child's env.

The resolution order (`--home` > `JGM_HOME` > the repository's `git config jgm.home` > the platform's user
data dir) asks git, so it lives in git/home.py; this keeps what base/store.py needs without git.

An entry point resolves once (`git.home.use_store`) and keeps the answer in this module (`chosen`, which
`base/store.store_path` reads), so everything after it in the process agrees without asking again. It is
not written into `os.environ`: a child we start (a hook's background reseed, the daemon, the web UI's
doctor run) gets it in the env we pass it (`store_env`). A JGM_HOME changed after the choice wins.
"""

from __future__ import annotations

import os
from pathlib import Path

from .environment import HOME

TYPE_CHECKING = False  # not typing's (nor collections.abc): the thin client resolves the store on every warm call
if TYPE_CHECKING:
    from collections.abc import Mapping

# platformdirs is imported where it is used: with `JGM_HOME` or `--home` given, the thin client
# (surfaces/daemon/thin.py) resolves the store on every warm call and does not need it.

_chosen: tuple[Path, str, str | None] | None = None  # what use_store picked, why, and JGM_HOME when it did


def default_home() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("jupiter-git-memory", appauthor=False))


def chosen() -> tuple[Path, str] | None:
    """(store, why) as use_store picked it in this process, while JGM_HOME is what it was then."""
    if _chosen and HOME.get() == _chosen[2]:
        return _chosen[0], _chosen[1]
    return None


def keep(path: Path, source: str) -> None:
    """Keep `path` (found through `source`) as this process's store, while JGM_HOME stays what it is now."""
    global _chosen
    _chosen = (path, source, HOME.get())


def store_env(store: Path | str, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """`env` (default: ours) with JGM_HOME naming `store`: what a child of ours is started with."""
    return {**(env if env is not None else os.environ), HOME.name: str(store)}


def is_default(path: Path) -> bool:
    return Path(path).absolute() == default_home().absolute()
