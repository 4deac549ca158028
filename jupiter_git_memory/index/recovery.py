"""A corrupt catalog: detect it, name the file, and (for writers) move it aside and start afresh.

Why this is safe: the catalog is derived data. Record files rebuild it, and the vectors are
content-addressed (`record_id#sha(text)`), so a seed into a fresh catalog reuses every vector Chroma
still holds instead of re-embedding. What only the catalog held (candidates, receipts) stays in the
moved-aside file, which the warning names.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

_CORRUPT_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB


class CatalogCorrupt(RuntimeError):
    def __init__(self, path: Path, cause: BaseException):
        self.path = path
        super().__init__(f"{path}: the catalog is corrupt ({cause}); run `jgm doctor --repair` (or `jgm seed`), "
                         "which moves it aside and rebuilds it from the record files")


def is_corruption(e: BaseException) -> bool:
    if not isinstance(e, sqlite3.DatabaseError) or isinstance(e, sqlite3.OperationalError):
        return False  # "database is locked" and friends are not damage
    code = getattr(e, "sqlite_errorcode", None)
    return code in _CORRUPT_CODES or any(s in str(e) for s in ("malformed", "not a database"))


def move_aside(path: Path) -> Path:
    """Rename the catalog (and its WAL/SHM files) to `catalog.sqlite.corrupt-<time>`; return the new name."""
    dest = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}")
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(path) + suffix)
        if src.exists():
            os.replace(src, Path(str(dest) + suffix))
    return dest


def open_catalog(path: Path, recover: bool = False, view: str | None = None):
    """(Catalog, moved-aside path or None). A corrupt catalog raises CatalogCorrupt, or with `recover`
    (a writer holding the exclusive lock) is moved aside and replaced by an empty one."""
    from .catalog import Catalog

    try:
        return Catalog(path, view), None
    except sqlite3.DatabaseError as e:
        if not is_corruption(e):
            raise
        if not recover:
            raise CatalogCorrupt(path, e) from None
    moved = move_aside(path)
    from .store import log

    log(f"catalog {path} was corrupt; moved aside to {moved} and rebuilt from the record files")
    return Catalog(path, view), moved
