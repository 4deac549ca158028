"""Whether an error or a catalog file shows damage: detection only, below both the catalog (which asks on
every read, `Catalog.damage`) and recovery.py (which decides what to do about it).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

_CORRUPT_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB


def is_corruption(e: BaseException) -> bool:
    if not isinstance(e, sqlite3.DatabaseError) or isinstance(e, sqlite3.OperationalError):
        return False  # "database is locked" and friends are not damage
    code = getattr(e, "sqlite_errorcode", None)
    return code in _CORRUPT_CODES or any(s in str(e) for s in ("malformed", "not a database"))


_HEADER = 100  # bytes of the SQLite file header (https://www.sqlite.org/fileformat.html#the_database_header)


_HELD: dict[tuple[int, int], int] = {}  # (device, inode) -> a read-only descriptor kept for the process's life


def _header(path: Path) -> tuple[int, bytes] | None:
    """(size, first 100 bytes) of the file at `path`, read through a descriptor this process opens once per
    file and never closes: closing any descriptor of a file drops every POSIX lock this process holds on it,
    SQLite's included (see recovery.py `_private_file`), so a read-and-close here would let another process delete the
    WAL under our own connections. One descriptor per catalog file (inode) a process has seen."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (st.st_dev, st.st_ino)
    fd = _HELD.get(key)
    if fd is None:
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        got = os.fstat(fd)
        key = (got.st_dev, got.st_ino)  # the file as opened (it may have been swapped since the stat)
        fd = _HELD.setdefault(key, fd)  # a racing thread's descriptor wins; this one stays open, unused
    try:
        return os.fstat(fd).st_size, os.pread(fd, _HEADER, 0)
    except OSError:
        return None


def looks_torn(path: Path) -> str | None:
    """Why the catalog file looks cut short (a torn copy, a truncated file), or None: its header says more
    pages than the file holds, or it is no SQLite file at all. Cheap (one read of 100 bytes), so a long-lived
    reader can ask on every request: its own connection may keep answering from pages it has cached, or from
    its `-wal` beside the damaged file, and never see the damage (issue 35). Only a suspicion: a checkpoint
    cut off midway leaves the same shape while the `-wal` still holds the pages, so `damaged` confirms."""
    got = _header(path)
    if got is None:
        return None  # no file (never seeded, or moved aside): opening says what is wrong
    size, head = got
    if size == 0:
        return None  # created, not written yet: a writer makes it
    if len(head) < _HEADER or not head.startswith(b"SQLite format 3\x00"):
        return f"the file is not an SQLite database ({size} bytes)"
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(head[28:32], "big")
    valid = head[24:28] == head[92:96] and pages > 0  # the in-header size counts only then
    if valid and size < page * pages:
        return f"the file holds {size} bytes but its header counts {pages} pages of {page}"
    return None


def damaged(db: sqlite3.Connection, path: Path) -> str | None:
    """`looks_torn`, confirmed through `db` (which reads the `-wal` too): the damage, or None when the file
    is whole. The full check runs only on a suspicion, so a healthy catalog costs one small read."""
    suspicion = looks_torn(path)
    if suspicion is None:
        return None
    try:
        rows = [r[0] for r in db.execute("PRAGMA quick_check(1)")]
    except sqlite3.DatabaseError as e:
        return f"{suspicion}: {e}"[:300]
    if rows == ["ok"]:
        return None
    return f"{suspicion}: " + " ".join(str(rows[0] if rows else "unreadable").split())[:200]
