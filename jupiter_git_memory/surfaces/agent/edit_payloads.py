"""What each client sends when its agent edits a file, and how it takes context back: one small adapter per
client, so the edit hook (edit.py) reads one shape.

- Claude Code: PreToolUse/PostToolUse for `Edit`, `Write`, `MultiEdit` (`tool_input.file_path`) and
  `NotebookEdit` (`tool_input.notebook_path`); answers `hookSpecificOutput.additionalContext` under the
  event's own name (PreToolUse takes it since 2.1.9: it reaches the model before the edit runs).
- Codex: the same events and answer shape; its edits are `apply_patch` calls whose patch text names the
  files (`*** Update File: PATH`, `*** Add File:`, `*** Move to:`); a `file_path` is read as Claude Code's.
- Cursor: `afterFileEdit` (`file_path` at the top) and `postToolUse` (`tool_input.file_path`), session
  `conversation_id`, folder `workspace_roots[0]`; answers `additional_context`.
- Gemini CLI: AfterTool for `write_file` / `replace` (`tool_input.file_path`); answers
  `hookSpecificOutput.additionalContext`.
- VS Code (Copilot agent): PreToolUse/PostToolUse with `sessionId` and `hookEventName` (camelCase) beside
  snake_case `tool_name`/`tool_input`; its edit tools name the file as `filePath` (`create_file`,
  `replace_string_in_file`, `insert_edit_into_file`), a list (`editFiles`: `files`;
  `multi_replace_string_in_file`: `replacements[].filePath`) or a patch (`apply_patch`: `input`).
- Cline: PostToolUse as `{"taskId", "workspaceRoots", "postToolUse": {"toolName", "parameters": {"path"}}}`
  for `write_to_file` / `replace_in_file`; answers `contextModification`.
Pure: data in, data out. A payload that is not an edit gives None, and the hook says nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

CLAUDE_EDIT_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
CLAUDE_EDIT_MATCHER = "|".join(CLAUDE_EDIT_TOOLS)  # the matcher of the installed PreToolUse hook
GEMINI_EDIT_TOOLS = ("write_file", "replace")
CURSOR_EDIT_TOOLS = ("Write", "Edit", "StrReplace", "MultiEdit", "Delete", "edit_file", "write", "search_replace")
VSCODE_EDIT_TOOLS = (
    "create_file",
    "replace_string_in_file",
    "multi_replace_string_in_file",
    "insert_edit_into_file",
    "editFiles",
    "edit_notebook_file",
    "apply_patch",
)
CLINE_EDIT_TOOLS = ("write_to_file", "replace_in_file", "new_rule", "apply_patch")
MAX_FILES = 8  # one tool call edits a few files at most; a patch naming more is read up to here
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", re.MULTILINE)


@dataclass(frozen=True)
class Edit:
    """One edit as the hook needs it: who (session), where (the client's folder), which files, and the
    client's event name to answer under."""

    session: str | None
    cwd: str | None
    files: tuple[str, ...]  # as the client wrote them: absolute, or relative to `cwd`
    event: str


def _text(v: Any) -> str | None:
    return v if isinstance(v, str) and v.strip() else None


def _tool_input(payload: dict) -> dict:
    ti = payload.get("tool_input")
    return ti if isinstance(ti, dict) else {}


def _edit(payload: dict, files: list[str], event: str, session_key: str = "session_id", cwd: Any = None) -> Edit | None:
    files = [f for f in dict.fromkeys(files) if f][:MAX_FILES]
    if not files:
        return None
    return Edit(
        _text(payload.get(session_key)), _text(cwd if cwd is not None else payload.get("cwd")), tuple(files), event
    )


def claude_edit(payload: dict) -> Edit | None:
    if payload.get("tool_name") not in CLAUDE_EDIT_TOOLS:
        return None
    ti = _tool_input(payload)
    path = _text(ti.get("file_path")) or _text(ti.get("notebook_path"))
    return _edit(payload, [path] if path else [], _text(payload.get("hook_event_name")) or "PreToolUse")


def patch_files(patch: str) -> list[str]:
    """The files an `apply_patch` text adds, updates, deletes or moves to."""
    return [(m.group(1) or m.group(2)).strip() for m in _PATCH_FILE.finditer(patch)]


def codex_edit(payload: dict) -> Edit | None:
    ti = _tool_input(payload)
    event = _text(payload.get("hook_event_name")) or "PreToolUse"
    if payload.get("tool_name") in CLAUDE_EDIT_TOOLS:
        return claude_edit(payload)
    if payload.get("tool_name") != "apply_patch":
        return None
    texts = []
    for v in (ti.get("command"), ti.get("patch"), ti.get("input"), payload.get("tool_input")):
        if isinstance(v, list):  # `["apply_patch", "<patch>"]`, as the shell form writes it
            v = "\n".join(x for x in v if isinstance(x, str))
        if isinstance(v, str):
            texts.append(v)
    return _edit(payload, [f for t in texts for f in patch_files(t)], event)


def first_root(roots: Any) -> str | None:
    """The first of a payload's workspace folders (Cursor's `workspace_roots`, Cline's `workspaceRoots`)."""
    return roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None


def cursor_edit(payload: dict) -> Edit | None:
    event = _text(payload.get("hook_event_name")) or "afterFileEdit"
    cwd = first_root(payload.get("workspace_roots")) or payload.get("cwd")
    if event == "afterFileEdit":
        path = _text(payload.get("file_path"))
    elif event == "postToolUse" and payload.get("tool_name") in CURSOR_EDIT_TOOLS:
        path = _text(_tool_input(payload).get("file_path")) or _text(_tool_input(payload).get("target_file"))
    else:
        return None
    return _edit(payload, [path] if path else [], event, "conversation_id", cwd)


def gemini_edit(payload: dict) -> Edit | None:
    if payload.get("tool_name") not in GEMINI_EDIT_TOOLS:
        return None
    path = _text(_tool_input(payload).get("file_path"))
    return _edit(payload, [path] if path else [], _text(payload.get("hook_event_name")) or "AfterTool")


def vscode_edit(payload: dict) -> Edit | None:
    tool = payload.get("tool_name")
    if tool not in VSCODE_EDIT_TOOLS:
        return None
    ti = _tool_input(payload)
    files = [ti.get("filePath"), ti.get("file_path")]
    files += ti.get("files") if isinstance(ti.get("files"), list) else []
    files += [r.get("filePath") for r in ti.get("replacements") or [] if isinstance(r, dict)]
    if tool == "apply_patch" and isinstance(ti.get("input"), str):
        files += patch_files(ti["input"])
    event = _text(payload.get("hookEventName")) or _text(payload.get("hook_event_name")) or "PreToolUse"
    return _edit(payload, [f for f in files if _text(f)], event, "sessionId")


def cline_edit(payload: dict) -> Edit | None:
    data = payload.get("postToolUse") or payload.get("preToolUse")
    if not isinstance(data, dict) or data.get("toolName") not in CLINE_EDIT_TOOLS:
        return None
    params = data.get("parameters") if isinstance(data.get("parameters"), dict) else {}
    path = _text(params.get("path")) or _text(params.get("absolutePath"))
    files = [path] if path else patch_files(params["input"]) if isinstance(params.get("input"), str) else []
    cwd = first_root(payload.get("workspaceRoots"))
    event = _text(payload.get("hookName")) or "PostToolUse"
    return _edit(payload, files, event, "taskId", cwd)


# How each client takes context back, by its event's name and the text: the one definition of each shape,
# for the edit hook here and for the session and prompt hooks (hook_events.answer).
def hook_specific(event: str, text: str) -> dict:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def cursor_answer(event: str, text: str) -> dict:
    return {"additional_context": text}


def cline_answer(event: str, text: str) -> dict:
    return {"cancel": False, "contextModification": text, "errorMessage": ""}


@dataclass(frozen=True)
class Adapter:
    read: Callable[[dict], Edit | None]
    shape: Callable[[str, str], dict]

    def answer(self, edit: Edit, text: str) -> dict:
        """The client's answer to `edit`, named by the event the payload said it was."""
        return self.shape(edit.event, text)


ADAPTERS: dict[str, Adapter] = {
    "claude-code": Adapter(claude_edit, hook_specific),
    "codex": Adapter(codex_edit, hook_specific),
    "cursor": Adapter(cursor_edit, cursor_answer),
    "gemini": Adapter(gemini_edit, hook_specific),
    "vscode": Adapter(vscode_edit, hook_specific),
    "cline": Adapter(cline_edit, cline_answer),
}
