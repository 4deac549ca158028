"""A corrupt catalog: detect it, name the file, and (for writers) move it aside and start afresh.

Why this is safe: the catalog is derived data. Record files rebuild it, and the vectors are
content-addressed (`record_id#sha(text)`), so a seed into a fresh catalog reuses every vector Chroma
still holds instead of re-embedding. What only the catalog held (candidates, receipts) stays in the
moved-aside file, which the warning names.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path

from ..base.errors import JgmError

_CORRUPT_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB


class CatalogCorrupt(JgmError, RuntimeError):
    code, status, exit_code = "index/catalog-corrupt", 503, 2

    def __init__(self, path: Path, cause: BaseException):
        self.path = path
        super().__init__(
            f"{path}: the catalog is corrupt ({cause}); run `jgm doctor --repair` (or `jgm seed`), "
            "which moves it aside and rebuilds it from the record files"
        )


def is_corruption(e: BaseException) -> bool:
    if not isinstance(e, sqlite3.DatabaseError) or isinstance(e, sqlite3.OperationalError):
        return False  # "database is locked" and friends are not damage
    code = getattr(e, "sqlite_errorcode", None)
    return code in _CORRUPT_CODES or any(s in str(e) for s in ("malformed", "not a database"))


_RETRYABLE_CODES = {10, 17}  # SQLITE_IOERR, SQLITE_SCHEMA (primary codes; extended ones carry more bits)


def stale_read_error(e: BaseException) -> sqlite3.DatabaseError | None:
    """The catalog error behind `e` (itself, or its cause, e.g. inside a RecallError) that a reader may meet
    once after another process changed the file under its connection, or None. A read on a reopened
    connection either succeeds or meets the same damage again (then the catalog is really corrupt)."""
    seen: set[int] = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, JgmError) and e.code != "memory/retrieval-failed":
            return None  # already understood (a full disk, say): nothing a reopen would change
        if isinstance(e, sqlite3.DatabaseError) and (
            is_corruption(e) or (getattr(e, "sqlite_errorcode", 0) or 0) & 0xFF in _RETRYABLE_CODES
        ):
            return e
        e = e.__cause__ or e.__context__  # type: ignore[assignment]
    return None


def move_aside(path: Path) -> Path:
    """Rename the catalog (and its WAL/SHM files) to `catalog.sqlite.corrupt-<time>`; return the new name."""
    dest = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}")
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(path) + suffix)
        if src.exists():
            os.replace(src, Path(str(dest) + suffix))
    return dest


def _private_file(path: Path) -> None:
    """Create the catalog 0600 before SQLite does (its WAL and SHM files copy the mode), or fix an old one.

    Never opens an existing catalog: closing any descriptor of a file drops every POSIX lock this process
    holds on it, SQLite's included. A server whose reader connection lost its lock this way let another
    process's last close delete the WAL and SHM under it: it then read stale pages ("database disk image
    is malformed", or worse, an old answer: tests/test_outside_writes.py)."""
    try:
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))  # a new file: nobody holds it
        for suffix in ("", "-wal", "-shm"):
            p = Path(str(path) + suffix)
            if p.exists() and p.stat().st_mode & 0o077:
                os.chmod(p, 0o600)
    except OSError:  # read-only store: opening reports the real problem
        pass


def open_catalog(path: Path, recover: bool = False, view: str | None = None, write: bool = False):
    """(Catalog, moved-aside path or None). A corrupt catalog raises CatalogCorrupt, or with `recover`
    (a writer holding the exclusive lock) is moved aside and replaced by an empty one. Only a writer
    (`write`) creates the file or fixes its mode."""
    from .catalog import Catalog

    if write:
        _private_file(path)
    try:
        return Catalog(path, view, write=write), None
    except sqlite3.DatabaseError as e:
        if not is_corruption(e):
            raise
        if not recover:
            raise CatalogCorrupt(path, e) from None
    moved = move_aside(path)
    _private_file(path)
    from ..base.store import log

    log(f"catalog {path} was corrupt; moved aside to {moved} and rebuilt from the record files")
    return Catalog(path, view, write=True), moved


class ChromaUnavailable(JgmError, RuntimeError):
    """Chroma could not be opened or written; `reason` and `fix` name the directory's real problem."""

    code, status, exit_code = "index/chroma-unavailable", 503, 2

    def __init__(self, location: str, cause: BaseException):
        self.location = location
        text = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
        if _read_only(location, cause):
            self.reason = f"the Chroma directory is read-only ({text})"
            self.fix = f"make it writable (`chmod -R u+w {location}`) or point JGM_HOME at a writable store"
        else:
            self.reason = f"Chroma could not be opened ({type(cause).__name__}: {text})"
            self.fix = "check the directory; `jgm seed --rebuild` re-creates the vectors"
        super().__init__(f"{location}: {self.reason}; {self.fix}")


def _read_only(location: str, cause: BaseException) -> bool:
    text = str(cause).lower()
    if isinstance(cause, PermissionError) or "readonly" in text or "read-only" in text or "permission denied" in text:
        return True
    paths = [Path(location), *Path(location).glob("*")] if not location.startswith(("http://", "https://")) else []
    return any(p.exists() and not os.access(p, os.W_OK) for p in paths)
