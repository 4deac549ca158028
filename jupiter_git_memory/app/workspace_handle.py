"""One served workspace inside a long-lived process (the HTTP API, the MCP server).

Why a handle: a server answers many requests with one loaded model, so it keeps one Recaller and one
Seeder per workspace. A Recaller owns one SQLite connection and one Chroma collection handle, and it
reopens them when a writer bumped the catalog generation; two threads using it at once could close
the index under each other. So every read goes through `reading()` / `catalog()`, which serialise use
of the Recaller per workspace (different workspaces run in parallel). Seeding is not serialised here:
Seeder.seed takes the exclusive cross-process workspace lock itself.

A server runs for weeks while people edit `jgm.toml`: each request stats the config files, and after an
edit the Recaller takes the new settings (weights, floor, mode...; a new model or Chroma URL builds a new
Recaller). A broken config is logged and reads keep the last good settings. A seed always reads the
settings afresh, as `jgm seed` would (discovered ADR folders included), and a broken config fails it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from ..base.errors import JgmError
from ..base.store import trace, try_log, workspace_dir, workspace_lock
from ..config import CONFIG_FILES, load_settings
from ..git.workspace import Workspace, find_workspace
from ..index.catalog import Catalog
from ..index.handle import location_for
from ..index.recovery import CatalogCorrupt, stale_read_error
from ..index.vectors import reset_clients
from ..recall.service import Recaller
from ..seed import model_choice

T = TypeVar("T")


class WorkspaceHandle:
    """Lazily built Recaller/Seeder for one workspace, safe to share between request threads."""

    def __init__(self, workspace: Workspace, store_root: Path | None = None, key: str | None = None):
        self.workspace = workspace
        self.store_root = store_root  # the store (None: $JGM_HOME); the repo is self.workspace.repo_root
        self.key = key or workspace.id  # the id URLs use: the workspace id or `<id>.<folder>` (api.app.served_handles)
        self._lock = threading.RLock()
        self._recaller: Recaller | None = None
        self._seeder = None
        self._stamp: tuple = ()

    @classmethod
    def for_repo(cls, repo: Path | str | None, store_root: Path | None = None) -> WorkspaceHandle:
        return cls(find_workspace(repo), store_root)

    @property
    def id(self) -> str:
        """The id this handle is served under (the workspace id unless several of its worktrees are served).
        Grants and the store are the workspace's: `workspace.id`."""
        return self.key

    def _follow_config(self) -> None:
        """Give the Recaller the repo's current settings when a config file changed since the last look."""
        wsdir = workspace_dir(self.workspace.id, self.store_root, create=False)
        stamp = _config_stamp(self.workspace.repo_root, model_choice.choice_path(wsdir))  # `jgm model use` too
        if stamp == self._stamp:
            return
        self._stamp = stamp
        r = self._recaller
        if r is None:
            return
        try:
            new = load_settings(self.workspace.repo_root)
            chosen = model_choice.resolve(new, self.workspace, self.store_root).model
        except Exception as e:  # ConfigError or a validator's error: reads go on with the last good settings
            try_log(
                f"serve {self.workspace.repo_root}: config not applied ({e}); answering with the last good one",
                self.store_root,
            )
            return
        if new == r.settings and chosen == r.model_choice.model:
            return
        if (chosen, new.chroma_url) != (r.model_choice.model, r.settings.chroma_url):
            r.close()
            self._recaller = None
        else:
            r.use_settings(new)

    def recaller(self) -> Recaller:
        """The shared Recaller (raises RecallError when the model cannot load). Use inside `reading()`."""
        with self._lock:
            self._follow_config()
            if self._recaller is None:
                self._recaller = Recaller(workspace=self.workspace, store_root=self.store_root)
            return self._recaller

    def seeder(self):
        from ..recall.calibrate import calibrating_seeder

        with self._lock:
            settings = load_settings(self.workspace.repo_root)  # as `jgm seed` would; a broken config fails the seed
            chosen = model_choice.resolve(settings, self.workspace, self.store_root)
            if self._seeder is not None and chosen.model != self._seeder.model_choice.model:
                self._seeder = None
            if self._seeder is not None:
                self._seeder.settings = settings
            else:
                self._seeder = calibrating_seeder(
                    self.workspace.repo_root, settings=settings, store_root=self.store_root
                )
                if self._seeder.workspace.id != self.workspace.id:  # the repo's remote changed under us
                    raise RuntimeError(
                        f"{self.workspace.repo_root} is now workspace {self._seeder.workspace.id}, "
                        f"not {self.workspace.id}; restart the server"
                    )
            return self._seeder

    @contextlib.contextmanager
    def reading(self) -> Iterator[Recaller]:
        """Exclusive use of the Recaller for one request (recall, task recall, context, verify)."""
        with self._lock, self._renewed_after_a_crash():
            yield self.recaller()

    @contextlib.contextmanager
    def catalog(self) -> Iterator[Catalog]:
        """The current catalog, read through this worktree's view (refreshed first when its git state moved),
        under the shared cross-process lock (a seed in progress is waited for)."""
        with self._lock, self._renewed_after_a_crash():
            recaller = self.recaller()
            recaller.prepare()
            with workspace_lock(recaller.wsdir, exclusive=False):
                yield recaller.index().catalog

    def read(self, fn: Callable[[Recaller], T]) -> T:
        """`fn(recaller)` inside `reading()`, run once more on a reopened index after a stale read."""
        return self._once_more(self.reading, fn)

    def read_catalog(self, fn: Callable[[Catalog], T]) -> T:
        """`fn(catalog)` inside `catalog()`, run once more on a reopened index after a stale read."""
        return self._once_more(self.catalog, fn)

    def _once_more(self, use: Callable[[], contextlib.AbstractContextManager[Any]], fn: Callable[[Any], T]) -> T:
        """Why a second try: a connection that another process's write left reading a changed file answers
        one DatabaseError (index.recovery.stale_read_error) and then, reopened, reads the file as it is now.
        Damage that is still there the second time is real: CatalogCorrupt names the file and the repair."""
        for second in (False, True):
            try:
                with use() as it:
                    return fn(it)
            except Exception as e:
                stale = stale_read_error(e)
                if stale is None:
                    raise
                if second:
                    raise CatalogCorrupt(self._catalog_path(), stale) from e
                try_log(
                    f"serve {self.workspace.repo_root}: stale read, reopening the index once\n{trace(e)}",
                    self.store_root,
                )
                self._reopen()
        raise AssertionError("unreachable: the second try returns or raises")

    def _reopen(self) -> None:
        """Drop the index and the Chroma epoch it read through (the model stays loaded)."""
        with self._lock:
            r = self._recaller
            if r is None:
                return
            with contextlib.suppress(Exception):  # already broken: close() forgot it before closing, enough
                r.close()
            reset_clients(location_for(r.wsdir, r.settings.chroma_url))

    def _catalog_path(self) -> Path:
        return workspace_dir(self.workspace.id, self.store_root, create=False) / "catalog.sqlite"

    @contextlib.contextmanager
    def _renewed_after_a_crash(self) -> Iterator[None]:
        """After an unexpected error (a bug, not a JgmError or a caller's ValueError) the Recaller is dropped and
        the next request builds a new one: a server that runs for weeks must not keep answering from an index
        a crash may have left half-closed (the 765-write soak saw MCP fail every call after one)."""
        try:
            yield
        except (JgmError, ValueError):
            raise
        except Exception as e:
            try_log(
                f"serve {self.workspace.repo_root}: {e.__class__.__name__} in a request; reopening the index\n{trace(e)}",
                self.store_root,
            )
            try:
                self.close()
            except Exception:  # already broken: dropping it is all we can do
                self._recaller = None
            raise

    def close(self) -> None:
        with self._lock:
            if self._recaller is not None:
                self._recaller.close()
                self._recaller = None


def _config_stamp(repo: Path, *more: Path) -> tuple:
    """(name, mtime_ns, size) of each config file (and of `more`: the workspace's model choice), None where
    absent: what tells a server the config moved."""
    out = []
    for path in [repo / name for name in CONFIG_FILES] + list(more):
        try:
            st = path.stat()
        except OSError:
            out.append((str(path), None, None))
        else:
            out.append((str(path), st.st_mtime_ns, st.st_size))
    return tuple(out)
