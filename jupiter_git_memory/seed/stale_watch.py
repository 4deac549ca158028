"""A resident reader's stale check without statting every record file on every recall (Linux inotify).

Why: seed/stale.py's look stats each record file a seed read (a folder's metadata does not move on an
in-place edit), 20,100 stats per recall at 50,000 chunks: 16 % of a warm recall. A process that answers
many recalls (`jgm serve`, the MCP server, the daemon) instead asks the kernel to queue an event for every
entry written, created, deleted or moved in each folder the look walks. A check that found nothing is then
still true while no event came: the kernel queues an event within the write itself, so a recall that reads
the queue (without blocking) after an edit always sees it. Any event, a lost queue (overflow) or a folder
gone makes the next check the full look again; a new folder is watched from then on.

Where the kernel cannot tell (no inotify, a record file that is a symlink or has a second hard link whose
writes land in another folder, a missing root whose creation no watched folder would see, a watch limit
reached), `arm` returns None and every check is the full look, as before.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct
import threading
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..config import Settings
from .sources import walk_root

# <sys/inotify.h>
_MODIFY, _ATTRIB, _CLOSE_WRITE, _MOVED_FROM, _MOVED_TO, _CREATE, _DELETE = 0x2, 0x4, 0x8, 0x40, 0x80, 0x100, 0x200
_DELETE_SELF, _MOVE_SELF, _Q_OVERFLOW, _ISDIR = 0x400, 0x800, 0x4000, 0x40000000
_MASK = _MODIFY | _ATTRIB | _CLOSE_WRITE | _MOVED_FROM | _MOVED_TO | _CREATE | _DELETE | _DELETE_SELF | _MOVE_SELF
_NONBLOCK, _CLOEXEC = os.O_NONBLOCK, 0o2000000
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then len bytes of name)


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        lib = ctypes.CDLL(name, use_errno=True)
        lib.inotify_init1, lib.inotify_add_watch  # noqa: B018 - absent off Linux
    except (OSError, AttributeError, TypeError):
        return None
    return lib


_LIBC = _libc()


class Watch:
    """An inotify queue over the folders a root's record files live in. `moved()` drains it without blocking."""

    def __init__(self, fd: int, root: Path, settings: Settings):
        self._fd, self._root, self._settings = fd, root, settings
        self._lock = threading.Lock()
        self._close = weakref.finalize(self, os.close, fd)

    def close(self) -> None:
        self._close()

    def watch_folders(self) -> bool:
        """Watch every folder the look walks now (again: adding a watched folder is a no-op); False when the
        kernel refused one (the watch limit): the caller then looks in full."""
        for folder in folders(self._root, self._settings):
            if _LIBC is None or _LIBC.inotify_add_watch(self._fd, os.fsencode(folder), _MASK) < 0:
                return False
        return True

    def moved(self) -> bool:
        """Whether anything happened in a watched folder since the last call; a new folder is watched first."""
        with self._lock:
            any_event = new_folder = False
            while True:
                try:
                    buf = os.read(self._fd, 65536)
                except BlockingIOError:
                    break
                off = 0
                while off < len(buf):
                    _wd, mask, _cookie, size = _EVENT.unpack_from(buf, off)
                    off += _EVENT.size + size
                    any_event = True
                    new_folder |= bool(mask & _Q_OVERFLOW) or (
                        bool(mask & _ISDIR) and bool(mask & (_CREATE | _MOVED_TO))
                    )
            if new_folder and not self.watch_folders():
                raise OSError("inotify: a new folder could not be watched")
            return any_event


def folders(root: Path, settings: Settings) -> Iterable[str]:
    """The folders seed/stale.py's look walks, as seeding walks them (sources.walk_root)."""
    for r in settings.roots:
        base = root / r
        if base.is_dir():
            for dirpath, _dirs, _files in walk_root(base, r in settings.shallow_roots):
                yield dirpath


def arm(root: Path, settings: Settings, kept_files: Iterable[str]) -> Watch | None:
    """A watch over `root`'s record folders, or None where events could miss a change (module docstring).
    `kept_files` are the repo-relative record files the last seed read."""
    if _LIBC is None or any(not (root / r).is_dir() for r in settings.roots):
        return None
    for rel in kept_files:
        try:
            st = os.lstat(root / rel)
        except OSError:
            continue  # gone already: the full look reports it
        if not os.path.isfile(root / rel) or os.path.islink(root / rel) or st.st_nlink > 1:
            return None
    fd = _LIBC.inotify_init1(_NONBLOCK | _CLOEXEC)
    if fd < 0:
        return None
    w = Watch(fd, root, settings)
    if not w.watch_folders():
        w.close()
        return None
    return w


class QuietSince:
    """The stale check of one resident reader: the full look once, then again only after an event.

    `check` runs `look()` (seed/stale.py `changes`) unless the last one found nothing under the same `key`
    (the view, the settings' roots and the version of the kept look) and no event came since. Armed on the
    second check, so a one-shot command (one recall) pays no walk for the watch."""

    def __init__(self) -> None:
        self._watch: Watch | None = None
        self._key: object = None
        self._last: Any = None  # what the last full look under _key returned, when it found nothing
        self._quiet = False
        self._checks = 0
        self._armed: object = None  # the key the watch was set up (or refused) for: once per key

    def check(
        self, key: object, root: Path, settings: Settings, kept: Callable[[], Iterable[str]], look: Callable[[], Any]
    ) -> Any:
        self._checks += 1
        try:
            if self._watch is not None and key == self._key and self._quiet and not self._watch.moved():
                return self._last
            if self._checks >= 2 and key != self._armed:
                self.close()
                self._armed, self._watch = key, arm(root, settings, kept())
            elif self._watch is not None:
                self._watch.moved()  # drained before the look: an event from now on shows at the next check
        except OSError:
            self.close()
        self._key, self._quiet = key, False
        found = look()
        self._last, self._quiet = found, self._watch is not None and not found
        return found

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()
        self._watch, self._quiet = None, False
