"""`jgm watch`: reindex as record files change on disk.

Why this shape:
- changes are reduced to "something under the roots changed": an editor's atomic save (write a temp file,
  rename it over the record), a `git checkout` touching fifty files or a moved folder all become one
  incremental seed of the whole working tree, which is correct whatever the event order. The batching is
  watchfiles' (watch_feed.py); what is watched and what matters is the plan's (watch_plan.py);
- the seed itself is `Seeder.seed`, the one write path, under the workspace's exclusive lock; the model
  is loaded once. A file that does not parse is reported and the watch goes on (the seed keeps the last
  good record of a file that breaks). A change that arrives during a seed is queued and seeded next;
- the watcher follows its config: the repo's top folder is watched too (not recursively), and a change to
  `jgm.toml` or `pyproject.toml` is re-read, re-plans the watched roots and reseeds (which adds what entered
  the roots and removes what left). A broken config is reported and the watch goes on with the last good
  one. Without `roots` in the config, creating a place discovery looks at (`docs/adr/`, `.adr-dir`) or a
  collection in a new folder re-plans the roots the same way. A new folder inside an existing ordinary one
  (`docs/` holding no root) is not seen until the settings are reloaded.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..base.store import LockTimeout, try_log
from ..config import CONFIG_FILES, Settings, load_settings
from ..recall.calibrate import calibrating_seeder
from ..seed.report import SeedReport
from ..seed.seeder import Seeder
from .watch_feed import Changes, Feed, Feeds
from .watch_plan import Target, WatchPlan

_STOP = object()  # queued by stop(): the worker ends after the seed in progress


@dataclass
class Reseed:
    """One reseed the watcher ran: why, when, and the seed's report or the error that stopped it."""

    trigger: str  # "initial" or "change"
    paths: list[str] = field(default_factory=list)  # repo-relative paths whose changes led to it
    started: float = 0.0  # wall clock before the seed read any file
    finished: float = 0.0
    report: SeedReport | None = None
    error: str | None = None
    config: dict[str, Any] | None = None  # when the batch touched the config: {"source", "roots", "error"}

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "event": "seed",
            "trigger": self.trigger,
            "paths": self.paths,
            "started": self.started,
            "finished": self.finished,
            "error": self.error,
        }
        if self.config:
            d["config"] = self.config
        if self.report:
            d.update(
                counts=self.report.to_json()["counts"],
                errors=self.report.errors,
                generation=self.report.generation,
                records=self.report.records,
            )
        return d


class Watcher:
    """Watch a repo's knowledge roots and reseed after changes settle. `on_reseed` runs in the watcher's
    worker thread after every seed (initial one included). `debounce` is the quiet time that ends a batch,
    `max_delay` the longest a batch waits under a stream of changes (watchfiles' `step` and `debounce`)."""

    def __init__(
        self,
        repo: Path | str | None = None,
        on_reseed: Callable[[Reseed], None] | None = None,
        debounce: float = 0.3,
        max_delay: float = 3.0,
        initial_seed: bool = True,
        seeder: Seeder | None = None,
    ):
        self.seeder = seeder or calibrating_seeder(repo)
        self.top: Path = self.seeder.workspace.repo_root
        self.plan = WatchPlan(self.top, self.seeder.settings)
        self.on_reseed = on_reseed
        self.debounce, self.max_delay, self.initial_seed = debounce, max_delay, initial_seed
        self._queue: queue.Queue[Changes | object | None] = queue.Queue()
        self._stopping = False
        self._feeds = Feeds(self._feed)
        self._thread: threading.Thread | None = None

    @property
    def settings(self) -> Settings:
        return self.plan.settings

    def relevant(self, rel: str, is_dir: bool) -> bool:
        """Would a change to this repo-relative path lead to a reseed (see WatchPlan.relevant)?"""
        return self.plan.relevant(rel, is_dir)

    # -- lifecycle --------------------------------------------------------------------------------
    def start(self) -> None:
        """Start watching (the watches are in place when this returns), then seed in the worker thread."""
        self._feeds.follow(self.plan.targets())
        self._thread = threading.Thread(target=self._loop, name="jgm-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = 60) -> None:
        """Stop watching; a seed in progress finishes first, changes not yet seeded are left for later."""
        self._stopping = True
        self._queue.put(_STOP)
        if self._thread is not None:
            self._thread.join(timeout)
        self._feeds.stop()

    def __enter__(self) -> Watcher:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the worker -------------------------------------------------------------------------------
    def _feed(self, targets: frozenset[Target], recursive: bool) -> Feed:
        return Feed(targets, recursive, self.plan.matters, self._queue.put, self.debounce, self.max_delay, self._log)

    def _next_batch(self) -> list[str] | None:
        """The paths of the changes queued: batched by watchfiles, plus what the other group's watch
        yields within one quiet time (a root deleted is seen by both) and what queued up during a seed.
        A watch that stopped by itself queues None: a batch without paths, so it is restarted and
        a seed catches up. None once stop() was called."""
        items = [self._queue.get()]
        grace = time.monotonic() + self.debounce  # the other watch's view of the same burst ends as quietly
        while _STOP not in items:
            try:
                items.append(self._queue.get(timeout=max(grace - time.monotonic(), 0)))
            except queue.Empty:
                break
        if self._stopping or _STOP in items:
            return None
        changes: Changes = set().union(*(i for i in items if isinstance(i, set)))
        self.plan.note_new_folders(changes)
        return self.plan.paths_of(changes)

    def _loop(self) -> None:
        if self.initial_seed:
            self._reseed("initial", [])
        while (paths := self._next_batch()) is not None:
            config = None
            if any(p in CONFIG_FILES for p in paths):
                config = self._reload_config()
            elif any(self.plan.replans(p) for p in paths):  # a discovered root appeared or went
                self._follow()  # watch new folders first: a file written while discovery runs is seen
                roots = self.settings.roots
                config = self._reload_config()
                config = config if config["error"] or self.settings.roots != roots else None
            self._follow()
            self._reseed("change", paths, config)

    def _follow(self) -> None:
        try:
            self._feeds.follow(self.plan.targets())
        except Exception as e:  # e.g. no thread to start: reported; the next batch tries again
            self._log(f"re-planning the watch failed: {type(e).__name__}: {e}")

    def _reload_config(self) -> dict[str, Any]:
        """Re-read the settings after a config edit; a broken config keeps the last good settings."""
        error = None
        try:
            new = load_settings(self.top)
        except Exception as e:  # ConfigError, or whatever a validator raises: reported, never fatal
            error = f"{e}; watching with the last good config"
            self._log(error)
        else:
            self._apply_settings(new)
        return {"source": self.settings.source, "roots": list(self.settings.roots), "error": error}

    def _apply_settings(self, new: Settings) -> None:
        if new == self.settings:
            return
        if new.model != self.settings.model:  # another model: a seeder with its embedder
            self.seeder = calibrating_seeder(self.top, settings=new, store_root=self.seeder.store_root)
        else:
            self.seeder.settings = new
        self.plan.settings = new

    def _reseed(self, trigger: str, paths: list[str], config: dict[str, Any] | None = None) -> None:
        r = Reseed(trigger, paths, started=time.time(), config=config)
        while True:
            try:
                r.report = self.seeder.seed(lock_timeout=0.5)
                break
            except LockTimeout:  # another writer: keep waiting, unless we are asked to stop
                if self._stopping:
                    r.error = "stopped while waiting for the index lock"
                    break
            except Exception as e:  # reported and logged; the next change (or `jgm seed`) catches up
                r.error = f"{type(e).__name__}: {e}"
                self._log(f"reseed failed: {r.error}")
                break
        r.finished = time.time()
        if self.on_reseed:
            try:
                self.on_reseed(r)
            except Exception as e:
                self._log(f"on_reseed callback failed: {type(e).__name__}: {e}")

    def _log(self, message: str) -> None:
        try_log(f"watch {self.top}: {message}", self.seeder.store_root)
