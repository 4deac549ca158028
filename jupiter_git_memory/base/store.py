"""The store: `$JGM_HOME` (resolved by `git/home.py`; default: the platform's user data dir) holding
models, tokens, logs and one folder per workspace. Also the one-writer lock: Chroma's local client is not safe for several
processes, so every write holds an exclusive flock on the workspace, and reads hold a shared one.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import logging.handlers
import os
import time
import traceback
from pathlib import Path

from . import error_codes as E
from .environment import HOME
from .errors import JgmError, store_failures
from .files import file_lock
from .home import chosen, default_home


class LockTimeout(JgmError, RuntimeError):
    """Another process holds the workspace lock: retryable (the API answers 409 with Retry-After)."""

    entry, retry_after = E.INDEX_BUSY, 5


def private_dir(d: Path) -> Path:
    """Create `d` (0700), or take group/other access away from an existing one: the store holds record
    text, candidates and receipts with raw queries, which are nobody else's business."""
    with store_failures(d):  # a read-only or full disk, named as such
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        if d.stat().st_mode & 0o077:
            os.chmod(d, 0o700)
    except OSError:  # not ours to change (e.g. a shared mount): the files inside are still 0600
        pass
    return d


def store_path() -> Path:
    """Where the store is, without creating it: for readers (`jgm workspaces`, `jgm model list`), which
    must leave the disk as they found it. The one `use_store` chose, else $JGM_HOME, else the default."""
    picked = chosen()
    return picked[0] if picked else Path(HOME.get() or default_home())


def store_root() -> Path:
    """The store, created (0700) if missing: for writers."""
    return private_dir(store_path())


def workspace_dir(wsid: str, store: Path | None = None, create: bool = True) -> Path:
    """A workspace's folder in the store; `create=False` for readers, which must leave a store as they found it."""
    path = (store or store_root()) / "workspaces" / wsid
    return private_dir(private_dir(path.parent) / wsid) if create else path


def log_path(store: Path | None = None) -> Path:
    return (store or store_root()) / "jgm.log"


LOG_MAX_BYTES = 1024 * 1024  # jgm.log rolls over to jgm.log.1 (… .3) past this size
LOG_BACKUPS = 3
_LOG_FORMAT = logging.Formatter("%(asctime)s [%(process)d] %(message)s", datefmt="%Y-%m-%dT%H:%M:%S")


class _StoreLog(logging.handlers.RotatingFileHandler):
    """stdlib rotation, with the store's rules: the file is 0600 and never a symlink, and a line that cannot
    be written raises (callers such as the hooks fall back to another log), where logging would print."""

    def _open(self):
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
        return open(os.open(self.baseFilename, flags, 0o600), "a", encoding="utf-8")

    def handleError(self, record: logging.LogRecord) -> None:
        raise  # noqa: PLE0704 - called inside emit's except block: re-raise what failed


def log(message: str, store: Path | None = None) -> None:
    """Append a line to the store's log (hooks and the watcher report errors here, never to git). The log is
    bounded: LOG_BACKUPS old files of LOG_MAX_BYTES at most; processes take turns under `jgm.log.lock`, so
    two never rotate at once."""
    path = log_path(store)
    handler = _StoreLog(path, maxBytes=LOG_MAX_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8", delay=True)
    handler.setFormatter(_LOG_FORMAT)
    try:
        with file_lock(path.with_name(path.name + ".lock")):
            handler.emit(logging.LogRecord("jgm", logging.INFO, __file__, 0, message, None, None))
    finally:
        handler.close()


def try_log(message: str, store: Path | None = None) -> None:
    """`log` for error paths: a log that cannot be written (a full disk, say) must not replace the error
    being reported."""
    with contextlib.suppress(Exception):
        log(message, store)


def trace(e: BaseException) -> str:
    """`e` with its traceback, for the log: an internal error reported without one cannot be fixed."""
    return "".join(traceback.format_exception(e))


@contextlib.contextmanager
def workspace_lock(wsdir: Path, exclusive: bool, timeout: float | None = None):
    """Readers-writer lock across processes. `timeout=None` waits as long as it takes."""
    path = wsdir / "lock"
    if not exclusive and not path.exists():  # nothing was ever written here: a reader has nothing to wait for
        yield
        return
    if exclusive:
        private_dir(wsdir)  # a writer's first lock makes the workspace folder
    with store_failures(path):  # a reader opens it read-only: reading a store on a read-only mount writes nothing
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600) if exclusive else os.open(path, os.O_RDONLY)
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    try:
        if timeout is None:
            fcntl.flock(fd, mode)
        else:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(fd, mode | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise LockTimeout(f"another jgm process holds the index lock {path}; try again") from None
                    time.sleep(0.05)
        yield
    finally:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
