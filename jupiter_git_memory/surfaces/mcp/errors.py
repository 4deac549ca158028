"""The MCP surface's one error mapper: every anticipated failure becomes a ToolError whose text starts
with the error's stable code, `[memory/not-found] ...`, the same code the API and `--json` CLI report."""

from __future__ import annotations

import logging
from pathlib import Path

from mcp.server.mcpserver.exceptions import ToolError

from ...base import error_codes as E
from ...base.errors import as_error
from ...base.store import log

SDK_LOGGER = "mcp.server.mcpserver"  # where the SDK reports a tool that crashed, with its traceback


def tool_error(e: BaseException) -> ToolError:
    err = as_error(e)
    if err is None:  # a bug: name the class, never quote text that may be a caller's
        return ToolError(f"[{E.INTERNAL_ERROR.code}] {e.__class__.__name__}")
    return ToolError(f"[{err.code}] {err.message}")


class StoreLogHandler(logging.Handler):
    """The SDK answers a crashed tool with only `Error executing tool <name>` and logs the traceback to stderr,
    which an MCP client usually discards. This copies it to the store log, where `jgm doctor` and people look."""

    def __init__(self, store_root: Path | None):
        super().__init__(logging.ERROR)
        self.store_root = store_root
        self.setFormatter(logging.Formatter("mcp: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            log(self.format(record), self.store_root)
        except Exception:  # the store log is unwritable: never fail a call over its report
            self.handleError(record)


def log_crashes(store_root: Path | None) -> None:
    """Send the SDK's crash reports to the store log too (once per process and store)."""
    logger = logging.getLogger(SDK_LOGGER)
    if not any(isinstance(h, StoreLogHandler) and h.store_root == store_root for h in logger.handlers):
        logger.addHandler(StoreLogHandler(store_root))
