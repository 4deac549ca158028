"""What `jgm agent install` writes for each client: the files, and how jgm's entries are merged into a
user's JSON and taken out again. Entries are recognised by a name (the MCP server) or a marker in the hook
command, so a re-install replaces ours in place and never touches a user's own servers or hooks."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

SERVER_NAME = "jupiter-git-memory"
ENTRY_MODULE = "jupiter_git_memory"
HOOK_TIMEOUT_SECONDS = 30  # the client kills the hook after this; the hook gives up earlier (hook.py)


def mcp_entry(python: str) -> dict[str, Any]:
    """`jgm mcp` through the installing interpreter (-P: a checked-out branch can never shadow the package);
    the store is found from the repository's `git config jgm.home`, as the git hooks find it."""
    return {"command": python, "args": ["-P", "-m", ENTRY_MODULE, "mcp"]}


def hook_marker(client: str) -> str:
    return f"-m {ENTRY_MODULE} hook {client} "


def hook_command(python: str, client: str, event: str) -> str:
    return f"{shlex.quote(python)} -P {hook_marker(client)}{event}"


# -- one merge per file shape -------------------------------------------------------------------------
def merge_server(data: dict, python: str) -> dict:
    """`{"mcpServers": {NAME: entry}}`: the shape of Claude Code's `.mcp.json` and Cursor's `.cursor/mcp.json`."""
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise TypeError("`mcpServers` is not an object")
    servers[SERVER_NAME] = mcp_entry(python)
    return data


def unmerge_server(data: dict, original: dict) -> dict:
    servers = data.get("mcpServers")
    if isinstance(servers, dict) and SERVER_NAME in servers:
        if SERVER_NAME in (original.get("mcpServers") or {}):  # the user's own entry was there first: put it back
            servers[SERVER_NAME] = original["mcpServers"][SERVER_NAME]
        else:
            del servers[SERVER_NAME]
        if not servers and "mcpServers" not in original:
            del data["mcpServers"]
    return data


CLAUDE_EVENTS = {"session-start": "SessionStart", "prompt": "UserPromptSubmit"}


def merge_claude_hooks(data: dict, python: str) -> dict:
    """`{"hooks": {Event: [{"hooks": [{"type": "command", "command": ...}]}]}}` in `.claude/settings.json`.
    Ours already there with the same command: unchanged (idempotent); with another interpreter: replaced in place."""
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise TypeError("`hooks` is not an object")
    marker = hook_marker("claude-code")
    for event, name in CLAUDE_EVENTS.items():
        want = {
            "type": "command",
            "command": hook_command(python, "claude-code", event),
            "timeout": HOOK_TIMEOUT_SECONDS,
        }
        groups = hooks.setdefault(name, [])
        if not isinstance(groups, list):
            raise TypeError(f"`hooks.{name}` is not a list")
        ours = [
            (g, i)
            for g in groups
            if isinstance(g, dict) and isinstance(g.get("hooks"), list)
            for i, h in enumerate(g["hooks"])
            if isinstance(h, dict) and marker in str(h.get("command", ""))
        ]
        if ours:
            g, i = ours[0]
            g["hooks"][i] = want
        else:
            groups.append({"hooks": [want]})
    return data


def unmerge_claude_hooks(data: dict, original: dict) -> dict:
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return data
    marker = hook_marker("claude-code")
    before = original.get("hooks") if isinstance(original.get("hooks"), dict) else {}
    for name in CLAUDE_EVENTS.values():
        groups = hooks.get(name)
        if not isinstance(groups, list):
            continue
        kept = []
        for g in groups:
            if isinstance(g, dict) and isinstance(g.get("hooks"), list):
                left = [h for h in g["hooks"] if not (isinstance(h, dict) and marker in str(h.get("command", "")))]
                if not left and len(left) != len(g["hooks"]):
                    continue  # a group only jgm's hook was in
                g = dict(g, hooks=left)
            kept.append(g)
        if kept or name in before:
            hooks[name] = kept
        else:
            del hooks[name]
    if not hooks and "hooks" not in original:
        del data["hooks"]
    return data


@dataclass(frozen=True)
class ManagedFile:
    path: str  # relative to the repository's top
    merge: Callable[[dict, str], dict]
    unmerge: Callable[[dict, dict], dict]


CLIENTS: dict[str, tuple[ManagedFile, ...]] = {
    "claude-code": (
        ManagedFile(".mcp.json", merge_server, unmerge_server),
        ManagedFile(".claude/settings.json", merge_claude_hooks, unmerge_claude_hooks),
    ),
    "cursor": (ManagedFile(".cursor/mcp.json", merge_server, unmerge_server),),
}
