"""Where a store's daemon listens, and the lock that keeps it one per store.

Why a fallback path: an AF_UNIX socket path is at most 107 bytes on Linux (104 on macOS), and a store
under a deep home or a temp dir passes that. Then the socket lives in a private runtime folder
(`$XDG_RUNTIME_DIR`, else `/tmp/jgm-<uid>`, 0700 and ours) under a hash of the store path, so it is still
one socket per store. The lock and the pid stay in the store itself.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_SOCKET_PATH = 100  # bytes: below every platform's sun_path limit (104 on macOS, 108 on Linux) with room
SOCKET_NAME = "daemon.sock"
LOCK_NAME = "daemon.lock"  # held (flock) by the running daemon; holds its pid


def lock_path(store: Path) -> Path:
    return Path(store) / LOCK_NAME


def _runtime_dir() -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and os.path.isdir(base) and os.access(base, os.W_OK):
        return Path(base) / "jgm"
    import tempfile  # here: the thin client (thin.py) reaches this module on every warm call

    return Path(tempfile.gettempdir()) / f"jgm-{os.getuid()}"


def socket_path(store: Path, create: bool = False) -> Path:
    """The store's socket: in the store when the path fits, else in the private runtime folder. `create`
    makes that folder (0700), refusing one that another user owns or others can enter."""
    inside = Path(store).absolute() / SOCKET_NAME
    if len(os.fsencode(str(inside))) <= MAX_SOCKET_PATH:
        return inside
    import hashlib  # here: only a store path too long for a socket needs it

    folder = _runtime_dir()
    digest = hashlib.sha256(os.fsencode(str(Path(store).absolute()))).hexdigest()[:24]
    if create:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        problem = folder_problem(folder)
        if problem:
            raise PermissionError(f"{problem}; remove it")
    return folder / f"{digest}.sock"


def in_store(store: Path, path: Path) -> bool:
    return path.parent == Path(store).absolute()


def folder_problem(folder: Path) -> str | None:
    """Why `folder` must not hold this user's socket, or None: it must be a real folder (not a symbolic
    link), owned by this user and closed to everyone else (no group or other bits). A predictable name in
    /tmp that another user made first would otherwise receive our requests and answer them (issue 35):
    the daemon refuses to bind there, and every client refuses to connect there."""
    try:
        st = os.lstat(folder)
    except OSError as e:
        return f"{folder} cannot be checked ({e.strerror})"
    if stat.S_ISLNK(st.st_mode):
        return f"{folder} is a symbolic link, not a private folder"
    if not stat.S_ISDIR(st.st_mode):
        return f"{folder} is not a folder"
    if st.st_uid != os.getuid():
        return f"{folder} belongs to uid {st.st_uid}, not to you (uid {os.getuid()})"
    if st.st_mode & 0o077:
        return f"{folder} is open to other users (mode {stat.S_IMODE(st.st_mode):o}, not 700)"
    return None


def daemon_pid(store: Path) -> int | None:
    """The pid written by the daemon that holds (or last held) the lock; None when there is none."""
    try:
        return int(lock_path(store).read_text().strip() or 0) or None
    except (OSError, ValueError):
        return None
