"""The root error: one class every failure a caller can act on derives from, carrying what each surface
needs to report it without a table of its own: a stable `code` (clients branch on it, never on prose),
the HTTP `status` (API), the process `exit_code` (CLI) and `details` (ids, paths) that never quote
user text. Codes, with their default status and exit code, come from the catalogue (base/error_codes.py). Each surface has one mapper (CLI: surfaces/cli/common.py, API: surfaces/api/errors.py, MCP:
surfaces/mcp/errors.py); an exception that is not a JgmError is a bug and is reported as an internal error.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from . import error_codes as E
from .error_codes import ErrorCode


class JgmError(Exception):
    """Subclasses name their catalogue `entry` (its code, status and exit code become the class defaults,
    unless the class body sets them itself); a raise site may pass another entry as `code`, and override
    `status`/`exit_code` per instance where a command's contract says so."""

    entry: ClassVar[ErrorCode] = E.JGM_ERROR
    code = E.JGM_ERROR.code
    status = 400
    exit_code = 2  # the CLI's usage/environment exit; recall's contract statuses use 3, 4 and 5
    retry_after: int | None = None  # seconds, for errors worth retrying (the API sends Retry-After)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own, entry = vars(cls), vars(cls).get("entry")
        if isinstance(entry, ErrorCode):
            cls.code = entry.code
            if "status" not in own:
                cls.status = entry.status
            if "exit_code" not in own and entry.exit_code is not None:
                cls.exit_code = entry.exit_code

    def __init__(
        self,
        message: str,
        *,
        code: ErrorCode | str | None = None,
        status: int | None = None,
        exit_code: int | None = None,
        **details: Any,
    ):
        super().__init__(message)
        self.message = message
        if isinstance(code, ErrorCode):  # the entry's status and exit code, unless the site says otherwise
            status = code.status if status is None else status
            exit_code = code.exit_code if exit_code is None else exit_code
            code = code.code
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        if exit_code is not None:
            self.exit_code = exit_code
        self.details = {k: v for k, v in details.items() if v is not None}  # e.g. path and commit to edit

    def to_dict(self) -> dict[str, Any]:
        """The one JSON error body every surface uses: {"code", "message", **details}."""
        return {"code": self.code, "message": self.message, **self.details}


class OperationError(JgmError):
    """A request the caller can fix or must know about (the code comes first: it is what callers test)."""

    def __init__(
        self,
        code: ErrorCode | str,
        message: str,
        status: int | None = None,
        exit_code: int | None = None,
        **details: Any,
    ):
        if status is None and not isinstance(code, ErrorCode):
            status = 400
        super().__init__(message, code=code, status=status, exit_code=exit_code, **details)


class StoreFull(JgmError):
    """The disk holding the store has no room: nothing was half-written (every write is one transaction)."""

    entry = E.STORE_DISK_FULL


class StoreReadOnly(JgmError):
    """The store cannot be written (a read-only mount, or no write permission)."""

    entry = E.STORE_READ_ONLY


_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
_READ_ONLY_ERRNOS = {errno.EROFS, errno.EACCES, errno.EPERM}
_SQLITE_FULL, _SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_CANTOPEN = 13, 8, 10, 14
_FULL_TEXT = ("database or disk is full", "no space left on device", "disk quota exceeded")
_READ_ONLY_TEXT = ("read-only file system", "readonly database")


def store_problem(exc: BaseException, path: str | os.PathLike | None = None) -> JgmError | None:
    """`exc` as StoreFull or StoreReadOnly when that is what it is, naming `path` (a file or folder of the
    store) and what to do; else None. SQLite often reports a full or read-only disk only as "disk I/O error"
    or "unable to open database file" (it could not create the `-shm` file a reader needs), so for those
    the file system of `path` is asked."""
    if isinstance(exc, JgmError):
        return exc if isinstance(exc, (StoreFull, StoreReadOnly)) else None
    where = str(path or getattr(exc, "filename", None) or "the store")
    text, number = str(exc).lower(), getattr(exc, "errno", None)
    code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
    full = number in _FULL_ERRNOS or code == _SQLITE_FULL or any(t in text for t in _FULL_TEXT)
    denied = _READ_ONLY_ERRNOS if path is not None else {errno.EROFS}  # a path of ours, or any file at all
    read_only = number in denied or code == _SQLITE_READONLY or any(t in text for t in _READ_ONLY_TEXT)
    if (
        not (full or read_only)
        and path is not None
        and (isinstance(exc, OSError) or code in (_SQLITE_IOERR, _SQLITE_CANTOPEN))
    ):
        full, read_only = _file_system_state(path)
    why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if full:
        return StoreFull(
            f"{where}: the disk holding the store is full ({why}); free space on it, or point JGM_HOME (or "
            "--home) at a store on another disk, then run the command again",
            path=where,
        )
    if read_only:
        return StoreReadOnly(
            f"{where}: the store cannot be written ({why}); remount it read-write or make it writable, or point "
            "JGM_HOME (or --home) at a writable store",
            path=where,
        )
    return None


@contextlib.contextmanager
def store_failures(
    path: str | os.PathLike,
    catch: type[BaseException] | tuple[type[BaseException], ...] = OSError,
    unless: Callable[[BaseException], bool] = lambda e: False,
) -> Iterator[None]:
    """Around a write (or open) of `path` in the store: a `catch` error that is a full or read-only disk
    leaves as StoreFull / StoreReadOnly naming `path`; anything else (and what `unless` keeps) as it came."""
    try:
        yield
    except catch as e:
        problem = None if isinstance(e, JgmError) or unless(e) else store_problem(e, path)
        if problem is None:
            raise
        raise problem from e


def _file_system_state(path: str | os.PathLike) -> tuple[bool, bool]:
    """(full, read-only) of the file system holding `path` (its nearest existing folder)."""
    p = os.path.abspath(path)
    while not os.path.exists(p) and os.path.dirname(p) != p:
        p = os.path.dirname(p)
    try:
        st = os.statvfs(p)
    except OSError:
        return False, False
    read_only = bool(st.f_flag & os.ST_RDONLY) or not os.access(p, os.W_OK)
    return st.f_bavail * st.f_frsize < _ROOM and not read_only, read_only


_ROOM = 64 * 1024  # bytes free under which a failed store write is taken for a full disk


def as_error(exc: BaseException) -> JgmError | None:
    """The JgmError a surface reports for `exc`: itself, a plain ValueError as a bad request (the message is
    ours and names the fix), a full or read-only store as such, anything else None: a bug, which each
    surface reports as an internal error."""
    if isinstance(exc, JgmError):
        return exc
    if isinstance(exc, ValueError):
        return JgmError(str(exc), code=E.REQUEST_BAD_REQUEST)
    return store_problem(exc)
