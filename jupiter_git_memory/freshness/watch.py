"""`jgm watch`: reindex as record files change on disk.

Why this shape:
- watchdog watches only the knowledge roots (recursively), never the whole repo, so a build tree or
  `.git` churn costs nothing; a missing root is awaited by a non-recursive watch on its nearest existing
  parent, and a root deleted and recreated (a branch switch) is watched again;
- events are reduced to "something under the roots changed" and debounced: an editor's atomic save
  (write a temp file, rename it over the record), a `git checkout` touching fifty files or a moved folder
  all become one incremental seed of the whole working tree, which is correct whatever the event order;
- the seed itself is `Seeder.seed`, the one write path, under the workspace's exclusive lock; the model
  is loaded once. A file that does not parse is reported and the watch goes on (the seed keeps the last
  good record of a file that breaks);
- the watcher follows its config: the repo's top folder is watched too (not recursively), and a change to
  `jgm.toml` or `pyproject.toml` goes through the same debounce, is re-read, re-plans the watched roots and
  reseeds (which adds what entered the roots and removes what left). A broken config is reported and the
  watch goes on with the last good one;
- without `roots` in the config the roots are discovered (knowledge/ plus conventional or tool-declared ADR
  folders), so the places discovery looks at are watched too: creating `docs/adr/` or `.adr-dir` while
  the watch runs re-plans the roots as a config edit would. A folder created during the watch (in the top
  folder or another watched one) is watched whole until it becomes a root, and a Markdown file there re-runs
  discovery: a collection started in `proposals/` is found without a restart. A new folder inside an
  existing ordinary one (`docs/` holding no root) is not seen until the settings are reloaded.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..base.store import LockTimeout, log
from ..config import CONFIG_FILES, Settings, load_settings
from ..config.discover import CONVENTIONAL, DISCOVERY_FILES, MAX_DEPTH, SKIP_DIRS, tool_roots
from ..recall.calibrate import after_seed
from ..records.text import escape_nonprintable
from ..seed.seeder import Seeder, SeedReport
from ..seed.sources import is_record_path

EVENT_TYPES = {"created", "modified", "deleted", "moved", "closed"}  # not opened/closed_no_write: our own reads


@dataclass
class Reseed:
    """One reseed the watcher ran: why, when, and the seed's report or the error that stopped it."""

    trigger: str  # "initial" or "change"
    paths: list[str] = field(default_factory=list)  # repo-relative paths whose events led to it
    started: float = 0.0  # wall clock before the seed read any file
    finished: float = 0.0
    report: SeedReport | None = None
    error: str | None = None
    config: dict | None = None  # when the batch touched the config: {"source", "roots", "error"}

    def to_json(self) -> dict:
        d = {
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
    worker thread after every seed (initial one included)."""

    def __init__(
        self,
        repo: Path | str | None = None,
        on_reseed: Callable[[Reseed], None] | None = None,
        debounce: float = 0.3,
        max_delay: float = 3.0,
        initial_seed: bool = True,
        seeder: Seeder | None = None,
    ):
        self.seeder = seeder or Seeder(repo, calibrate=after_seed)
        self.top = self.seeder.workspace.repo_root
        self.settings = self.seeder.settings
        self.on_reseed = on_reseed
        self.debounce, self.max_delay, self.initial_seed = debounce, max_delay, initial_seed
        self._cond = threading.Condition()
        self._pending: set[str] = set()
        self._first_at = self._last_at = 0.0
        self._stopping = False
        self._watches: dict[Path, tuple[object, bool, int]] = {}  # dir -> (watch, recursive, inode)
        self._fresh: set[str] = (
            set()
        )  # folders created during the watch (roots discovered): a collection may grow there
        self._observer = None
        self._handler = _Handler(self)
        self._thread: threading.Thread | None = None

    # -- events -----------------------------------------------------------------------------------
    def _candidates(self) -> tuple[str, ...]:
        """Folders that would become roots if created: discovery's places, when `roots` is not configured."""
        return () if self.settings.roots_configured else (*CONVENTIONAL, *tool_roots(self.top))

    def _in_fresh(self, rel: str) -> bool:
        return any(rel == f or rel.startswith(f + "/") for f in self._fresh)

    def _could_hold_collection(self, rel: str) -> bool:
        """A new folder discovery would read (roots discovered): not hidden, no dependency or test folder,
        within discovery's depth, not inside a root already."""
        parts = PurePosixPath(rel).parts
        return (
            not self.settings.roots_configured
            and 0 < len(parts) <= MAX_DEPTH
            and not any(p.startswith((".", "_")) or p in SKIP_DIRS for p in parts)
            and not any(
                _on_the_way(parts, r) and len(parts) >= len(PurePosixPath(r).parts) for r in self.settings.roots
            )
        )

    def relevant(self, rel: str, is_dir: bool) -> bool:
        """A record file, the config, or a folder that is, holds or lies on the way to a knowledge root; with
        roots discovered, also a folder created during the watch and the Markdown files in it."""
        if not is_dir:
            return (
                rel in CONFIG_FILES
                or is_record_path(rel, self.settings)
                or (rel in DISCOVERY_FILES and not self.settings.roots_configured)
                or (rel.lower().endswith((".md", ".markdown")) and self._in_fresh(rel))
            )
        if self._in_fresh(rel):
            return True
        parts = PurePosixPath(rel).parts
        if any(p.startswith(".") for p in parts):
            return False
        return any(_on_the_way(parts, root) for root in (*self.settings.roots, *self._candidates()))

    def _replans(self, rel: str) -> bool:
        """Would this path change the roots? A config file, or (roots discovered) a discovery file, a folder on
        the way to a place discovery looks at (created or deleted), or a folder created during the watch and
        the Markdown files in it."""
        if rel in CONFIG_FILES:
            return True
        if self.settings.roots_configured:
            return False
        parts = PurePosixPath(rel).parts
        if self._in_fresh(rel):
            return True  # a new folder, or a Markdown file in one: discovery may find a collection there
        return rel in DISCOVERY_FILES or any(
            _on_the_way(parts, c) and len(parts) <= len(PurePosixPath(c).parts) for c in self._candidates()
        )

    def _on_event(self, event) -> None:
        if event.event_type not in EVENT_TYPES or (event.is_directory and event.event_type in ("modified", "closed")):
            return
        hits = []
        for raw in (event.src_path, event.dest_path):
            if not raw:
                continue
            rel = os.path.relpath(os.fsdecode(raw), self.top)
            if rel.startswith("..") or rel == ".":
                continue
            rel = Path(rel).as_posix()
            if event.is_directory and raw == (event.dest_path or event.src_path) and self._could_hold_collection(rel):
                if event.event_type in ("created", "moved") and (self.top / rel).is_dir():
                    with self._cond:
                        self._fresh.add(rel)
            if self.relevant(rel, event.is_directory):
                hits.append(rel)
        if hits:
            with self._cond:
                now = time.monotonic()
                if not self._pending:
                    self._first_at = now
                self._last_at = now
                self._pending.update(hits)
                self._cond.notify_all()

    def _sync_watches(self) -> None:
        """Watch each existing root recursively, else the nearest existing parent of a missing one."""
        wanted: dict[Path, bool] = {}
        for root in self.settings.roots:
            p = self.top / root
            if p.is_dir():
                wanted[p] = True
                continue
            while p != self.top and not p.is_dir():
                p = p.parent
            wanted.setdefault(p, False)
        for cand in self._candidates():  # discovery's places: watch the nearest existing parent
            p = self.top / cand
            while p != self.top and not p.is_dir():
                p = p.parent
            if p != self.top / cand:
                wanted.setdefault(p, False)
        with self._cond:
            self._fresh = {f for f in self._fresh if (self.top / f).is_dir() and self._could_hold_collection(f)}
            fresh = sorted(self._fresh)
        for f in fresh:  # new folders: watched whole, so a collection growing there is seen
            wanted.setdefault(self.top / f, True)
        wanted.setdefault(self.top, False)  # the config files
        for path, (watch, rec, inode) in list(self._watches.items()):
            if wanted.get(path) != rec or _inode(path) != inode:  # gone, recreated, or root appeared
                self._observer.unschedule(watch)
                del self._watches[path]
        for path, rec in wanted.items():
            if path not in self._watches:
                try:
                    watch = self._observer.schedule(self._handler, str(path), recursive=rec)
                except OSError:  # vanished in between: the next event or batch tries again
                    continue
                self._watches[path] = (watch, rec, _inode(path))

    # -- lifecycle --------------------------------------------------------------------------------
    def start(self) -> None:
        from watchdog.observers import Observer

        self._observer = Observer()
        self._sync_watches()
        self._observer.start()
        self._thread = threading.Thread(target=self._loop, name="jgm-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = 60) -> None:
        """Stop watching; a seed in progress finishes first, changes not yet seeded are left for later."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout)
        if self._thread is not None:
            self._thread.join(timeout)

    def __enter__(self) -> Watcher:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _next_batch(self) -> list[str] | None:
        with self._cond:
            while not self._pending and not self._stopping:
                self._cond.wait()
            while not self._stopping:
                left = min(self._last_at + self.debounce, self._first_at + self.max_delay) - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            if self._stopping:
                return None
            batch = sorted(self._pending)
            self._pending.clear()
            return batch

    def _loop(self) -> None:
        if self.initial_seed:
            self._reseed("initial", [])
        while (batch := self._next_batch()) is not None:
            config = None
            if any(p in CONFIG_FILES for p in batch):
                config = self._reload_config()
            elif any(self._replans(p) for p in batch):  # a discovered root appeared or went
                self._sync_watches()  # watch new folders first: a file written while discovery runs is seen
                roots = self.settings.roots
                config = self._reload_config()
                config = config if config["error"] or self.settings.roots != roots else None
            self._sync_watches()
            self._reseed("change", batch, config)

    def _reload_config(self) -> dict:
        """Re-read the settings after a config edit; a broken config keeps the last good settings."""
        error = None
        try:
            new = load_settings(self.top)
        except Exception as e:  # ConfigError, or whatever a validator raises: reported, never fatal
            error = f"{e}; watching with the last good config"
            _safe_log(f"watch {self.top}: {error}")
        else:
            self._apply_settings(new)
        return {"source": self.settings.source, "roots": list(self.settings.roots), "error": error}

    def _apply_settings(self, new: Settings) -> None:
        if new == self.settings:
            return
        if new.model != self.settings.model:  # another model: a seeder with its embedder
            self.seeder = Seeder(self.top, settings=new, store_root=self.seeder.store_root, calibrate=after_seed)
        else:
            self.seeder.settings = new
        self.settings = new

    def _reseed(self, trigger: str, paths: list[str], config: dict | None = None) -> None:
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
                _safe_log(f"watch {self.top}: reseed failed: {r.error}")
                break
        r.finished = time.time()
        if self.on_reseed:
            try:
                self.on_reseed(r)
            except Exception as e:
                _safe_log(f"watch {self.top}: on_reseed callback failed: {type(e).__name__}: {e}")


class _Handler:
    """watchdog's dispatch calls `dispatch(event)`; everything goes to the Watcher."""

    def __init__(self, watcher: Watcher):
        self.watcher = watcher

    def dispatch(self, event) -> None:
        self.watcher._on_event(event)


def _on_the_way(parts: tuple[str, ...], root: str) -> bool:
    """`parts` is the root, lies inside it, or is a folder on the way to it."""
    rparts = PurePosixPath(root).parts
    n = min(len(parts), len(rparts))
    return parts[:n] == rparts[:n]


def _inode(path: Path) -> int:
    try:
        return os.stat(path).st_ino
    except OSError:
        return -1


def _safe_log(message: str) -> None:
    try:
        log(message)
    except OSError:
        pass


# -- the CLI loop ------------------------------------------------------------------------------------
def run_cli(repo: Path | None, debounce: float, as_json: bool, emit: Callable[[str], None] | None = None) -> int:
    """Watch until SIGINT/SIGTERM, printing one line per reseed (JSON lines with `as_json`). Returns 0."""
    import sys

    def say(text: str) -> None:  # a line may carry a config key or a record's text: nothing unprintable goes out raw
        (emit or (lambda t: (sys.stdout.write(t + "\n"), sys.stdout.flush())))(escape_nonprintable(text))

    def on_reseed(r: Reseed) -> None:
        if as_json:
            say(json.dumps(r.to_json(), default=str))
            return
        stamp = time.strftime("%H:%M:%S", time.localtime(r.finished))
        if r.config:
            say(
                f"{stamp} config error: {r.config['error']}"
                if r.config["error"]
                else f"{stamp} config reloaded: watching {', '.join(x + '/' for x in r.config['roots'])}"
            )
        if r.error:
            say(f"{stamp} could not reindex: {r.error}")
            return
        c = r.report.to_json()["counts"]
        why = "initial seed" if r.trigger == "initial" else f"{len(r.paths)} change{'s' if len(r.paths) != 1 else ''}"
        say(f"{stamp} reindexed ({why}): {r.report.summary()}, {c['errors']} errors")
        for e in r.report.errors:
            where = f"{e['path']}:{e['line']}" if e.get("line") else e["path"]
            say(f"  {where}: {e['message']} — fix: {e['fix']}")

    stop = threading.Event()
    previous = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        watcher = Watcher(repo, on_reseed=on_reseed, debounce=debounce)
        watcher.start()
        roots = list(watcher.settings.roots)
        if as_json:
            say(
                json.dumps(
                    {
                        "event": "ready",
                        "workspace": watcher.seeder.workspace.id,
                        "repo": str(watcher.top),
                        "roots": roots,
                        "pid": os.getpid(),
                    }
                )
            )
        else:
            say(f"watching {', '.join(r + '/' for r in roots)} in {watcher.top} (Ctrl-C to stop)")
        while not stop.wait(0.5):
            pass
        watcher.stop()
        say(json.dumps({"event": "stopped"}) if as_json else "stopped")
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    return 0
