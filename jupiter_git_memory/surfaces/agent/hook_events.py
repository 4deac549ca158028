"""Which of each client's hook events jgm answers, and how the client takes the answer back: one table, read by
install (what goes into the client's files) and by the hook (what it reads and prints). Read from each client's
documentation (decision dec-agent-hooks-per-client); where a client's docs leave a point open, the choice made
here is named in docs/agents.md.

jgm's events: `session-start` (a brief of the work's records), `prompt` (task recall on the prompt), `edit` (the
records governing the file being edited). A client lacking an event that can add context gets no hook for it:
Cursor's `beforeSubmitPrompt` and VS Code's `UserPromptSubmit` cannot inject context, so neither has a prompt hook.
Pure data; the hook imports it before anything heavy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .edit_payloads import (
    CLAUDE_EDIT_MATCHER,
    GEMINI_EDIT_TOOLS,
    cline_answer,
    cursor_answer,
    first_root,
    hook_specific,
)

HOOK_SPECIFIC, CURSOR, CLINE = hook_specific, cursor_answer, cline_answer  # the answer shapes (edit_payloads.py)


@dataclass(frozen=True)
class ClientEvents:
    names: dict[str, str]  # jgm event -> the client's event name
    answer: Callable[[str, str], dict]  # (the client's event name, text) -> what the client reads back
    matchers: dict[str, str] = field(default_factory=dict)  # jgm event -> the client's tool-name filter
    user_line: bool = True  # the client shows `systemMessage` to the user (a failure's one line)


EVENTS: dict[str, ClientEvents] = {
    # Claude Code: PreToolUse's additionalContext reaches the model before the edit runs (since 2.1.9)
    "claude-code": ClientEvents(
        {"session-start": "SessionStart", "prompt": "UserPromptSubmit", "edit": "PreToolUse"},
        HOOK_SPECIFIC,
        {"edit": CLAUDE_EDIT_MATCHER},
    ),
    # Codex: Claude Code's shape; edits are `apply_patch` (Edit/Write are its aliases). PostToolUse is the event
    # Codex's own tests show adding context to the next model request.
    "codex": ClientEvents(
        {"session-start": "SessionStart", "prompt": "UserPromptSubmit", "edit": "PostToolUse"},
        HOOK_SPECIFIC,
        {"edit": "apply_patch"},
    ),
    # Gemini CLI: BeforeAgent runs once per prompt; AfterTool's additionalContext is appended to the tool result
    "gemini": ClientEvents(
        {"session-start": "SessionStart", "prompt": "BeforeAgent", "edit": "AfterTool"},
        HOOK_SPECIFIC,
        {"edit": "|".join(GEMINI_EDIT_TOOLS)},
    ),
    # Cursor: sessionStart and postToolUse take `additional_context`; no matcher (its edit tools' names are not
    # documented as a list): the hook answers edits only and returns at once for any other tool
    "cursor": ClientEvents({"session-start": "sessionStart", "edit": "postToolUse"}, CURSOR, user_line=False),
    # VS Code's Copilot agent: Claude Code's output shape; its UserPromptSubmit answers with common fields only
    "vscode": ClientEvents({"session-start": "SessionStart", "edit": "PreToolUse"}, HOOK_SPECIFIC),
    # Cline (VS Code extension): one executable script per event in .clinerules/hooks/; `contextModification`
    "cline": ClientEvents(
        {"session-start": "TaskStart", "prompt": "UserPromptSubmit", "edit": "PostToolUse"}, CLINE, user_line=False
    ),
}


def answer(client: str, event: str, text: str | None, line: str | None = None) -> dict | None:
    """The JSON a client reads back: `text` as context for the model, `line` (when the client shows one) for
    the user. None: print nothing."""
    spec = EVENTS[client]
    out = spec.answer(spec.names[event], text) if text else {}
    if line and spec.user_line:
        out["systemMessage"] = line
    return out or None


def payload_context(client: str, payload: dict) -> tuple[str | None, str | None]:
    """(the folder the client works in, the prompt text) from a session or prompt payload, in its own keys."""
    if client == "cline":
        roots = payload.get("workspaceRoots")
        sub = payload.get("userPromptSubmit")
        prompt = sub.get("prompt") if isinstance(sub, dict) else None
    else:
        roots = payload.get("workspace_roots")  # Cursor's; the others send `cwd`
        prompt = payload.get("prompt")
    cwd = first_root(roots) or payload.get("cwd")
    return (cwd if isinstance(cwd, str) and cwd else None), (prompt if isinstance(prompt, str) else None)


# Claude Code's hooks in `.claude/settings*.json` are also run by VS Code's agent and (with third-party hooks
# on) by Cursor. When that client has jgm's own hooks in this repository, `jgm hook claude-code …` run by it
# says nothing, so no memory arrives twice. Told apart by the payload's keys (best effort: neither client
# documents what it sends to a Claude Code hook).
NATIVE_FILES = {"vscode": ".github/hooks/jupiter-git-memory.json", "cursor": ".cursor/hooks.json"}


def sender(payload: dict) -> str | None:
    """The client that sent a payload to a Claude Code hook, when it is not Claude Code."""
    if "cursor_version" in payload or "conversation_id" in payload:
        return "cursor"
    if "hookEventName" in payload and "hook_event_name" not in payload:
        return "vscode"
    return None


def answered_natively(client: str, payload: dict, root) -> bool:
    other = sender(payload) if client == "claude-code" else None
    if other is None:
        return False
    try:
        return f" hook {other} " in (root / NATIVE_FILES[other]).read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
