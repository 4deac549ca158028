"""The root error: one class every failure a caller can act on derives from, carrying what each surface
needs to report it without a table of its own: a stable `code` (clients branch on it, never on prose),
the HTTP `status` (API), the process `exit_code` (CLI) and `details` (ids, paths) that never quote
user text. Each surface has one mapper (CLI: surfaces/cli/common.py, API: surfaces/api/errors.py, MCP:
surfaces/mcp_errors.py); an exception that is not a JgmError is a bug and is reported as an internal error.
"""

from __future__ import annotations

from typing import Any


class JgmError(Exception):
    """Subclasses set class defaults; a raise site may override `code`/`status`/`exit_code` per instance."""

    code = "jgm/error"
    status = 400
    exit_code = 2  # the CLI's usage/environment exit; recall's contract statuses use 3, 4 and 5
    retry_after: int | None = None  # seconds, for errors worth retrying (the API sends Retry-After)

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status: int | None = None,
        exit_code: int | None = None,
        **details: Any,
    ):
        super().__init__(message)
        self.message = message
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

    def __init__(self, code: str, message: str, status: int = 400, exit_code: int | None = None, **details: Any):
        super().__init__(message, code=code, status=status, exit_code=exit_code, **details)


def as_error(exc: BaseException) -> JgmError | None:
    """The JgmError a surface reports for `exc`: itself, a plain ValueError as a bad request (the message is
    ours and names the fix), anything else None: a bug, which each surface reports as an internal error."""
    if isinstance(exc, JgmError):
        return exc
    if isinstance(exc, ValueError):
        return JgmError(str(exc), code="request/bad-request", status=400, exit_code=2)
    return None
