"""One served workspace inside a long-lived process (the HTTP API, the MCP server).

Why a handle: a server answers many requests with one loaded model, so it keeps one Recaller and one
Seeder per workspace. A Recaller owns one SQLite connection and one Chroma collection handle, and it
reopens them when a writer bumped the catalog generation; two threads using it at once could close
the index under each other. So every read goes through `reading()` / `catalog()`, which serialise use
of the Recaller per workspace (different workspaces run in parallel). Seeding is not serialised here:
Seeder.seed takes the exclusive cross-process workspace lock itself.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Iterator

from ..index.catalog import Catalog
from ..index.store import workspace_lock
from ..index.workspace import Workspace, find_workspace
from ..recall.service import Recaller


class WorkspaceHandle:
    """Lazily built Recaller/Seeder for one workspace, safe to share between request threads."""

    def __init__(self, workspace: Workspace, root: Path | None = None):
        self.workspace = workspace
        self.root = root  # the store root (None: $JGM_HOME)
        self._lock = threading.RLock()
        self._recaller: Recaller | None = None
        self._seeder = None

    @classmethod
    def for_repo(cls, repo: Path | str | None, root: Path | None = None) -> "WorkspaceHandle":
        return cls(find_workspace(repo), root)

    @property
    def id(self) -> str:
        return self.workspace.id

    def recaller(self) -> Recaller:
        """The shared Recaller (raises RecallError when the model cannot load). Use inside `reading()`."""
        with self._lock:
            if self._recaller is None:
                self._recaller = Recaller(workspace=self.workspace, root=self.root)
            return self._recaller

    def seeder(self):
        from ..seed.seeder import Seeder

        with self._lock:
            if self._seeder is None:
                self._seeder = Seeder(self.workspace.root, root=self.root)
                if self._seeder.workspace.id != self.workspace.id:  # the repo's remote changed under us
                    raise RuntimeError(f"{self.workspace.root} is now workspace {self._seeder.workspace.id}, "
                                       f"not {self.workspace.id}; restart the server")
            return self._seeder

    @contextlib.contextmanager
    def reading(self) -> Iterator[Recaller]:
        """Exclusive use of the Recaller for one request (recall, task recall, context, verify)."""
        with self._lock:
            yield self.recaller()

    @contextlib.contextmanager
    def catalog(self) -> Iterator[Catalog]:
        """The current catalog, read through this worktree's view (refreshed first when its git state moved),
        under the shared cross-process lock (a seed in progress is waited for)."""
        with self._lock:
            recaller = self.recaller()
            recaller.prepare()
            with workspace_lock(recaller.wsdir, exclusive=False):
                yield recaller.index().catalog

    def close(self) -> None:
        with self._lock:
            if self._recaller is not None:
                self._recaller.close()
                self._recaller = None
