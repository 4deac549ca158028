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
WHERE_NAME = "daemon.where"  # the daemon's own socket folder, when the predictable one was taken by another user


def lock_path(store: Path) -> Path:
    return Path(store) / LOCK_NAME


def _runtime_dir() -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and os.path.isdir(base) and os.access(base, os.W_OK):
        return Path(base) / "jgm"
    import tempfile  # here: the thin client (thin.py) reaches this module on every warm call

    return Path(tempfile.gettempdir()) / f"jgm-{os.getuid()}"


def socket_path(store: Path, create: bool = False) -> Path:
    """The store's socket: in the store when the path fits, else in the private runtime folder. When another
    user took that folder's predictable name first (or left it open), the daemon makes a folder of its own
    under an unpredictable name (mkdtemp: 0700, ours) and writes where in the store (`daemon.where`, in the
    0700 store), and clients look there (issue 35, item 14): a squatter can neither listen for us nor keep
    the daemon from starting. `create` (the daemon) makes the folder."""
    inside = Path(store).absolute() / SOCKET_NAME
    if len(os.fsencode(str(inside))) <= MAX_SOCKET_PATH:
        return inside
    import hashlib  # here: only a store path too long for a socket needs it

    folder = _runtime_dir()
    name = hashlib.sha256(os.fsencode(str(Path(store).absolute()))).hexdigest()[:24] + ".sock"
    if create:
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError:
            pass  # e.g. a file by that name: folder_problem says what is wrong with it
        if folder_problem(folder) is None:
            return folder / name
        return _elsewhere(store, folder) / name
    if os.path.lexists(folder) and folder_problem(folder) is not None:
        published = _published(store)
        if published is not None:
            return published / name
    return folder / name


def _elsewhere(store: Path, squatted: Path) -> Path:
    """A new private folder beside the squatted one, its path published in the store."""
    import tempfile

    made = Path(tempfile.mkdtemp(prefix=f"{squatted.name}-", dir=str(squatted.parent)))  # 0700, ours
    tmp = Path(store) / f"{WHERE_NAME}.{os.getpid()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(str(made))
    os.replace(tmp, Path(store) / WHERE_NAME)
    return made


def _published(store: Path) -> Path | None:
    """The folder `daemon.where` names, when it is a private folder of ours; else None."""
    try:
        where = Path((Path(store) / WHERE_NAME).read_text().strip())
    except (OSError, ValueError):
        return None
    return where if where.is_absolute() and folder_problem(where) is None else None


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
