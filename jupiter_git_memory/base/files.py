"""Whole-file writes that readers never see half done, and a cross-process lock for read-modify-write.

Why one helper: four copies named their temp file after the pid, so two threads of one server (or a pid
reused) shared a temp file and one of them replaced the other's: FileNotFoundError and a lost update.
`tempfile.mkstemp` in the target's folder gives each writer its own file (created 0600), and
`os.replace` swaps it in atomically on the same file system.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


def atomic_write(path: Path, data: str | bytes, mode: int = 0o600) -> None:
    """Replace `path` with `data` (text is UTF-8) in one step; the file has `mode` from its first byte."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive flock on `path` (created 0600) for a read-modify-write of a file beside it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
