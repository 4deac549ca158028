"""The MCP surface's one error mapper: every anticipated failure becomes a ToolError whose text starts
with the error's stable code, `[memory/not-found] ...`, the same code the API and `--json` CLI report."""

from __future__ import annotations

from mcp.server.mcpserver.exceptions import ToolError

from ..base.errors import as_error


def tool_error(e: BaseException) -> ToolError:
    err = as_error(e)
    if err is None:  # a bug: name the class, never quote text that may be a caller's
        return ToolError(f"[internal/error] {e.__class__.__name__}")
    return ToolError(f"[{err.code}] {err.message}")
