"""The store: `$JGM_HOME` (resolved by `base/home.py`; default: the platform's user data dir) holding
models, tokens, logs and one folder per workspace. Also the one-writer lock: Chroma's local client is not safe for several
processes, so every write holds an exclusive flock on the workspace, and reads hold a shared one.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
import traceback
from pathlib import Path

from .errors import JgmError, store_failures
from .home import default_home


class LockTimeout(JgmError, RuntimeError):
    """Another process holds the workspace lock: retryable (the API answers 409 with Retry-After)."""

    code, status, exit_code, retry_after = "index/busy", 409, 2, 5


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


def store_root() -> Path:
    root = Path(os.environ.get("JGM_HOME") or default_home())
    return private_dir(root)


def workspace_dir(wsid: str, store: Path | None = None, create: bool = True) -> Path:
    """A workspace's folder in the store; `create=False` for readers, which must leave a store as they found it."""
    path = (store or store_root()) / "workspaces" / wsid
    return private_dir(private_dir(path.parent) / wsid) if create else path


def log_path(store: Path | None = None) -> Path:
    return (store or store_root()) / "jgm.log"


def log(message: str, store: Path | None = None) -> None:
    """Append a line to the store's log (hooks and the watcher report errors here, never to git)."""
    with open(os.open(log_path(store), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "a", encoding="utf-8") as f:
        f.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} [{os.getpid()}] {message}\n")


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
