"""What `jgm agent install` writes for each client: its files, each with the merge that puts jgm's entries in
and the unmerge that takes them out (merge_json.py, merge_text.py), and which file names the MCP server.
Which hook events each client gets, and why: hook_events.py and decision dec-agent-hooks-per-client."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from .hook_events import EVENTS
from .launch import (  # noqa: F401 - re-exported: where the rest of the package has always found them
    ENTRY_MODULE,
    HOOK_TIMEOUT_SECONDS,
    PORTABLE_COMMAND,
    SERVER_NAME,
    STALE_NOTE,
    Launch,
    hook_command,
    hook_marker,
    mcp_entry,
)
from .merge_json import (
    holds_local_server,
    hooks_of,
    merge_gemini,
    merge_local_server,
    merge_server,
    merge_vscode_server,
    unmerge_gemini,
    unmerge_local_server,
    unmerge_server,
    unmerge_vscode_server,
)
from .merge_text import (
    CLINE_EVENTS,
    MD_START,
    TOML_START,
    merge_cline_script,
    merge_codex_toml,
    refuse_retired,
    unmerge_agents_md,
    unmerge_cline_script,
    unmerge_codex_toml,
    unmerge_cursor_rule,
)

# (jgm hook event, Claude Code event, matcher): what `.claude/settings.json` gets
CLAUDE_HOOKS = tuple(
    (event, name, EVENTS["claude-code"].matchers.get(event)) for event, name in EVENTS["claude-code"].names.items()
)


@dataclass(frozen=True)
class ManagedFile:
    path: str  # relative to the repository's top; `~/…`: relative to the user's home (a client's own file)
    merge: Callable[[Any, Launch], Any]  # (parsed JSON | text, launch) -> the same with jgm's entries
    unmerge: Callable[[Any, Any, Launch], Any]  # (current, original, launch) -> current without them
    marker: str  # present in the file exactly when jgm's entries are
    text: bool = False  # a text file with a managed block (else a JSON object)
    holds: Callable[[str, str], bool] | None = None  # (text, repo top) -> jgm's entries there; else `marker in text`
    mcp: bool = False  # the file naming the MCP server's command (what `status` checks is on this machine)
    executable: bool = False  # created with the execute bits (Cline runs its hook files directly)

    def present(self, text: str, root: str) -> bool:
        return self.holds(text, root) if self.holds else self.marker in text


def _hooks(path: str, client: str) -> ManagedFile:
    merge, unmerge = hooks_of(client)
    return ManagedFile(path, merge, unmerge, hook_marker(client))


def _cline(event: str, name: str) -> ManagedFile:
    return ManagedFile(
        f".clinerules/hooks/{name}",
        partial(merge_cline_script, event=event),
        unmerge_cline_script,
        hook_marker("cline"),
        text=True,
        executable=True,
    )


SERVER = f'"{SERVER_NAME}"'
SCOPES = ("project", "local")
CLIENTS: dict[str, tuple[ManagedFile, ...]] = {  # project scope: portable entries, in files a team commits
    "claude-code": (
        ManagedFile(".mcp.json", merge_server, unmerge_server, SERVER, mcp=True),
        _hooks(".claude/settings.json", "claude-code"),
    ),
    "codex": (
        ManagedFile(".codex/config.toml", merge_codex_toml, unmerge_codex_toml, TOML_START, text=True, mcp=True),
        _hooks(".codex/hooks.json", "codex"),
    ),
    "cursor": (
        ManagedFile(".cursor/mcp.json", merge_server, unmerge_server, SERVER, mcp=True),
        _hooks(".cursor/hooks.json", "cursor"),
    ),
    "gemini": (ManagedFile(".gemini/settings.json", merge_gemini, unmerge_gemini, SERVER, mcp=True),),
    "vscode": (
        ManagedFile(".vscode/mcp.json", merge_vscode_server, unmerge_vscode_server, SERVER, mcp=True),
        _hooks(f".github/hooks/{SERVER_NAME}.json", "vscode"),
    ),
    "cline": tuple(_cline(event, name) for event, name in CLINE_EVENTS.items()),
}
RETIRED: dict[str, tuple[ManagedFile, ...]] = {  # written by older versions, before the client had hooks:
    "codex": (ManagedFile("AGENTS.md", refuse_retired, unmerge_agents_md, MD_START, text=True),),  # uninstall only
    "cursor": (
        ManagedFile(".cursor/rules/jupiter-git-memory.mdc", refuse_retired, unmerge_cursor_rule, MD_START, text=True),
    ),
}
LOCAL: dict[str, tuple[ManagedFile, ...]] = {  # local scope: this machine's interpreter, in files never committed
    "claude-code": (
        ManagedFile(
            "~/.claude.json", merge_local_server, unmerge_local_server, SERVER, holds=holds_local_server, mcp=True
        ),
        _hooks(".claude/settings.local.json", "claude-code"),
    ),
}
NO_LOCAL_SCOPE = {  # why a client has no local scope: it keeps MCP servers per project only in a committable file
    "codex": "Codex reads MCP servers and hooks from ~/.codex (every project) or a trusted project's .codex/ "
    "(committable): it has no uncommitted per-project file",
    "cursor": "Cursor reads MCP servers and hooks from ~/.cursor (every project) or the project's .cursor/ "
    "(committable): it has no uncommitted per-project file",
    "gemini": "Gemini CLI reads settings from ~/.gemini/settings.json (every project) or the project's "
    ".gemini/settings.json (committable): it has no uncommitted per-project file",
    "vscode": "VS Code reads workspace hooks and MCP servers from .github/hooks/ and .vscode/mcp.json "
    "(committable); its user profile applies to every project",
    "cline": "Cline reads hooks from the workspace's .clinerules/hooks/ (committable) or ~/Documents/Cline/Hooks/ "
    "(every project)",
}
NOTES = {  # what stands between an installed client and jgm that jgm cannot read from a file: said by status
    "codex": "Codex runs a project's hooks only once you have reviewed them: run `/hooks` in `codex` in the "
    "repository and trust jgm's three (Codex keeps that trust per hook definition in ~/.codex/config.toml)",
    "cursor": "Cursor keeps each server's on/off switch in its own database, which jgm does not read: "
    f"check that `{SERVER_NAME}` is on in Cursor Settings → MCP",
    "gemini": "Gemini CLI reads a project's settings only in a trusted folder and runs hooks only with its hooks "
    "system on: check `/hooks panel` (hooks) and `/mcp` (the server) in the repository",
    "vscode": "VS Code asks you to trust the workspace's MCP server when it first starts it; agent hooks are a "
    "Preview feature your organization may turn off (check the Hooks view in Chat customizations)",
    "cline": f"Cline keeps MCP servers in its own settings, not in the repository: add `{SERVER_NAME}` there "
    "(command `jgm`, args `mcp`); turn on Hooks in Cline's settings (Feature Settings → Enable Hooks)",
}
