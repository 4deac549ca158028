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

from ..base import error_codes as E
from ..base.errors import JgmError
from .damage import is_corruption


class CatalogCorrupt(JgmError, RuntimeError):
    entry = E.INDEX_CATALOG_CORRUPT

    def __init__(self, path: Path, cause: BaseException):
        self.path = path
        self.cause = " ".join(str(cause).split())
        super().__init__(
            f"{path}: the catalog is corrupt ({self.cause}); run `jgm doctor --repair` (or `jgm seed`), "
            "which moves it aside and rebuilds it from the record files"
        )


_RETRYABLE_CODES = {10, 17}  # SQLITE_IOERR, SQLITE_SCHEMA (primary codes; extended ones carry more bits)


def stale_read_error(e: BaseException) -> sqlite3.DatabaseError | None:
    """The catalog error behind `e` (itself, or its cause, e.g. inside a RecallError) that a reader may meet
    once after another process changed the file under its connection, or None. A read on a reopened
    connection either succeeds or meets the same damage again (then the catalog is really corrupt)."""
    seen: set[int] = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, JgmError) and e.code != E.MEMORY_RETRIEVAL_FAILED.code:
            return None  # already understood (a full disk, say): nothing a reopen would change
        if isinstance(e, sqlite3.DatabaseError) and (
            is_corruption(e) or (getattr(e, "sqlite_errorcode", 0) or 0) & 0xFF in _RETRYABLE_CODES
        ):
            return e
        e = e.__cause__ or e.__context__  # type: ignore[assignment]
    return None


class TornCatalog(sqlite3.DatabaseError):
    """Damage `damaged` found: a corruption like the ones SQLite raises (is_corruption says yes)."""

    sqlite_errorcode = 11


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
        cat = Catalog(path, view, write=write)
        try:
            check(cat)
        except BaseException:
            cat.close()
            raise
        return cat, None
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


def check(cat) -> None:
    """What every open of the catalog reads before it is used: the file whole (`damaged`) and its `meta`
    table, the first thing any command reads (the generation, the collection, the identity). Damage there
    surfaced as a raw traceback from `get_meta` when a daemon's `-wal` stayed beside a torn file, a path
    the open itself did not cover (issue 35); it raises here, where `open_catalog` handles it."""
    problem = cat.damage()
    if problem:
        raise TornCatalog(f"database disk image is malformed: {problem}")
    if not cat.blank:
        cat.get_meta("generation")
        cat.get_meta("collection")


def salvage_candidates(moved: Path) -> tuple[list, str | None]:
    """The candidates (store-only rows: nothing else holds them) still readable in a catalog moved aside as
    corrupt, for the rebuilding seed to carry over; and why some could not be read, if so. Row by row, so one
    damaged page costs only the rows on it."""
    from .migrations import SHARED_VIEW
    from .queries import record_row

    cols = (
        "v.id, v.content_hash, v.effective, v.path, v.commit_sha, v.dirty, v.origin, v.error, c.kind, c.status, "
        "c.title, c.data FROM view_records v JOIN contents c ON c.id = v.id AND c.content_hash = v.content_hash"
    )
    rows, problem = [], None
    try:
        db = sqlite3.connect(f"file:{moved}?mode=ro", uri=True)
    except sqlite3.Error as e:
        return [], str(e)
    try:
        db.row_factory = sqlite3.Row
        keys = [r[0] for r in db.execute("SELECT rowid FROM view_records WHERE view=?", (SHARED_VIEW,))]
        for key in keys:
            try:
                got = db.execute(f"SELECT {cols} WHERE v.rowid=?", (key,)).fetchone()
                if got is not None:
                    rows.append(record_row(got))
            except (sqlite3.Error, ValueError) as e:
                problem = str(e)
    except sqlite3.Error as e:
        problem = str(e)
    finally:
        db.close()
    return rows, problem


def is_chroma_corruption(cause: BaseException) -> bool:
    text = str(cause).lower()
    return any(s in text for s in ("malformed", "not a database", "(code: 11)", "(code: 26)", "file is not a db"))


def move_chroma_aside(location: str) -> Path:
    """Rename a corrupt Chroma directory to `chroma.corrupt-<time>-<pid>`; the seed that follows re-embeds
    what the catalog lists (candidates included), so nothing but embedding time is lost."""
    src = Path(location)
    dest = src.with_name(f"{src.name}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}")
    os.replace(src, dest)
    from ..base.store import log

    log(f"Chroma directory {src} was corrupt; moved aside to {dest}; the seed re-embeds its vectors")
    return dest


class ChromaUnavailable(JgmError, RuntimeError):
    """Chroma could not be opened or written; `reason` and `fix` name the directory's real problem."""

    entry = E.INDEX_CHROMA_UNAVAILABLE

    def __init__(self, location: str, cause: BaseException):
        self.location = location
        text = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
        local = not location.startswith(("http://", "https://"))
        self.corrupt = local and is_chroma_corruption(cause)
        if _read_only(location, cause):
            self.reason = f"the Chroma directory is read-only ({text})"
            self.fix = f"make it writable (`chmod -R u+w {location}`) or point JGM_HOME at a writable store"
        elif self.corrupt:
            self.reason = f"the Chroma directory is corrupt ({type(cause).__name__}: {text})"
            self.fix = "run `jgm doctor --repair` (or `jgm seed`): it moves the directory aside and re-embeds"
        else:
            self.reason = f"Chroma could not be opened ({type(cause).__name__}: {text})"
            self.fix = "check the directory (or the server); `jgm doctor` tells what it sees"
        super().__init__(f"{location}: {self.reason}; {self.fix}")


def _read_only(location: str, cause: BaseException) -> bool:
    text = str(cause).lower()
    if isinstance(cause, PermissionError) or "readonly" in text or "read-only" in text or "permission denied" in text:
        return True
    paths = [Path(location), *Path(location).glob("*")] if not location.startswith(("http://", "https://")) else []
    return any(p.exists() and not os.access(p, os.W_OK) for p in paths)
