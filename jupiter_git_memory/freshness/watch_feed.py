"""The watcher's eyes: `watchfiles.watch` over the planned folders, one thread per group, restarted when
the plan changes.

Why this shape: watchfiles (the Rust `notify` crate) does the event work and the batching: a batch is
yielded once no change came for `settle` seconds, or after `max_delay` at most, so an editor's atomic save
or a `git checkout` arrives as one set. Its `recursive` flag is per call, so the recursive folders (roots)
and the flat ones (the top folder, parents of missing roots) are two calls. A new plan restarts only the
group that changed: the new watch is started and seen running (its first yield; `yield_on_timeout` makes
one after `HEARTBEAT_MS` of quiet) before the old one is stopped with its stop event, and the reseed that
follows runs after both, so a change in that window is either reported or already on disk for the seed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import watchfiles
from watchfiles import Change

from .watch_plan import Target, WatchTargets

Changes = set[tuple[Change, str]]
HEARTBEAT_MS = 200  # an empty yield after this much quiet: proves a new watch is in place, bounds a restart
RETRY_SECONDS = 1.0  # a watch that failed asks for a re-plan after this long (a failing one does not spin)
MIN_SETTLE_MS = 20  # watchfiles sleeps `step` between looks: never a busy loop, even with --debounce 0


class Feed:
    """One `watchfiles.watch` over a group of folders, in its own thread. Each batch goes to `sink`; `None`
    means the watch stopped by itself (a folder vanished, the OS refused a watch): plan again."""

    def __init__(
        self,
        targets: frozenset[Target],
        recursive: bool,
        matters: Callable[[Change, str], bool],
        sink: Callable[[Changes | None], None],
        settle: float,
        max_delay: float,
        on_error: Callable[[str], None],
    ):
        self.targets, self.recursive = targets, recursive
        self._matters, self._sink, self._on_error = matters, sink, on_error
        self.step_ms = max(int(settle * 1000), MIN_SETTLE_MS)
        self.debounce_ms = max(int(max_delay * 1000), self.step_ms)
        self.stop_event = threading.Event()
        self.live = threading.Event()  # set on the first yield: the OS watches are in place
        self.failed = False
        self._thread = threading.Thread(target=self._run, name="jgm-watch-feed", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        paths = sorted(str(p) for p, _ in self.targets)
        try:
            for changes in watchfiles.watch(
                *paths,
                watch_filter=self._matters,
                debounce=self.debounce_ms,
                step=self.step_ms,
                stop_event=self.stop_event,
                rust_timeout=HEARTBEAT_MS,
                yield_on_timeout=True,
                raise_interrupt=False,  # Ctrl-C belongs to the main thread (run_cli)
                recursive=self.recursive,
                ignore_permission_denied=True,  # an unreadable folder must not end the watch
            ):
                self.live.set()
                if changes:
                    self._sink(changes)
        except Exception as e:  # reported and retried; the seed that follows the re-plan catches up
            self.failed = True
            self.live.set()
            if not isinstance(e, FileNotFoundError):  # a folder that vanished since the plan is no news
                self._on_error(f"watching {', '.join(paths)} failed: {type(e).__name__}: {e}")
            if not self.stop_event.wait(RETRY_SECONDS):
                self._sink(None)

    def stop(self, timeout: float | None = 10) -> None:
        self.stop_event.set()
        self._thread.join(timeout)


class Feeds:
    """The two groups' feeds, following the plan."""

    def __init__(self, make: Callable[[frozenset[Target], bool], Feed]):
        self._make = make
        self._feeds: dict[bool, Feed] = {}  # recursive? -> its feed

    def follow(self, targets: WatchTargets, timeout: float = 10) -> bool:
        """Watch `targets`; returns whether any watch was restarted. A new watch is running before the old
        one stops."""
        old, started = [], []
        for recursive, group in ((True, targets.recursive), (False, targets.flat)):
            current = self._feeds.get(recursive)
            if current is not None and current.targets == group and not current.failed:
                continue
            if current is not None:
                old.append(self._feeds.pop(recursive))
            if group:
                self._feeds[recursive] = feed = self._make(group, recursive)
                started.append(feed)
        for feed in started:
            feed.live.wait(timeout)
        for feed in old:
            feed.stop()
        return bool(old or started)

    def stop(self) -> None:
        for feed in self._feeds.values():
            feed.stop_event.set()
        for feed in self._feeds.values():
            feed.stop()
        self._feeds.clear()
