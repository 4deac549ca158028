"""jgm's entries merged into a client's JSON settings and taken out again: MCP servers and hooks. Entries are
known by the server's name or the marker in a hook's command, so a re-install replaces ours in place and never
touches a user's own servers or hooks; taking them out keeps every key the user had.

Hook files come in two shapes (hook_events.EVENTS says which events each client gets):
- grouped (Claude Code, Codex, Gemini CLI): `{"hooks": {Event: [{"matcher": …, "hooks": [handler]}]}}`;
- flat (VS Code's `.github/hooks/*.json`, Cursor's `.cursor/hooks.json`): `{"hooks": {Event: [handler]}}`,
  Cursor's with `"version": 1` beside it.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from .hook_events import EVENTS
from .launch import HOOK_TIMEOUT_SECONDS, SERVER_NAME, Launch, hook_command, hook_marker, mcp_entry

GROUPED = ("claude-code", "codex", "gemini")


def merge_server(data: dict, launch: Launch, key: str = "mcpServers", stdio: bool = False) -> dict:
    """`{key: {NAME: entry}}`: `mcpServers` in Claude Code's `.mcp.json`, Cursor's `.cursor/mcp.json` and Gemini
    CLI's settings; `servers` (with `"type": "stdio"`) in VS Code's `.vscode/mcp.json`."""
    servers = data.setdefault(key, {})
    if not isinstance(servers, dict):
        raise TypeError(f"`{key}` is not an object")
    servers[SERVER_NAME] = {"type": "stdio", **mcp_entry(launch)} if stdio else mcp_entry(launch)
    return data


def unmerge_server(data: dict, original: dict, launch: Launch, key: str = "mcpServers") -> dict:
    servers = data.get(key)
    if isinstance(servers, dict) and SERVER_NAME in servers:
        if SERVER_NAME in (original.get(key) or {}):  # the user's own entry was there first: put it back
            servers[SERVER_NAME] = original[key][SERVER_NAME]
        else:
            del servers[SERVER_NAME]
        if not servers and key not in original:
            del data[key]
    return data


def _handler(client: str, event: str, command: str) -> dict:
    if client == "cursor":
        return {"command": command}
    if client == "gemini":  # a name for `/hooks disable`; its timeout is in milliseconds
        return {"name": f"{SERVER_NAME}-{event}", "type": "command", "command": command, "timeout": 30_000}
    return {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}


def _ours(entry: Any, marker: str) -> bool:
    return isinstance(entry, dict) and marker in str(entry.get("command", ""))


def merge_hooks(data: dict, launch: Launch, client: str) -> dict:
    """jgm's hook for each of the client's events: one already there (same command: unchanged; another
    interpreter: replaced in place), else appended after the user's."""
    if client == "cursor":
        data.setdefault("version", 1)  # Cursor's hooks.json format version
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise TypeError("`hooks` is not an object")
    marker, spec = hook_marker(client), EVENTS[client]
    for event, name in spec.names.items():
        want = _handler(client, event, hook_command(launch, client, event))
        matcher = spec.matchers.get(event)
        entries = hooks.setdefault(name, [])
        if not isinstance(entries, list):
            raise TypeError(f"`hooks.{name}` is not a list")
        if client in GROUPED:
            slots = [
                (g["hooks"], i)
                for g in entries
                if isinstance(g, dict) and isinstance(g.get("hooks"), list)
                for i, h in enumerate(g["hooks"])
                if _ours(h, marker)
            ]
            new: dict = {"matcher": matcher, "hooks": [want]} if matcher else {"hooks": [want]}
        else:
            slots = [(entries, i) for i, h in enumerate(entries) if _ours(h, marker)]
            new = want
        if slots:
            where, i = slots[0]
            where[i] = want
        else:
            entries.append(new)
    return data


def unmerge_hooks(data: dict, original: dict, launch: Launch, client: str) -> dict:
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return data
    marker = hook_marker(client)
    before = original.get("hooks") if isinstance(original.get("hooks"), dict) else {}
    for name in EVENTS[client].names.values():
        entries = hooks.get(name)
        if not isinstance(entries, list):
            continue
        kept = []
        for g in entries:
            if client not in GROUPED:
                if not _ours(g, marker):
                    kept.append(g)
                continue
            if isinstance(g, dict) and isinstance(g.get("hooks"), list):
                left = [h for h in g["hooks"] if not _ours(h, marker)]
                if not left and g["hooks"]:
                    continue  # a group only jgm's hook was in
                g = dict(g, hooks=left)
            kept.append(g)
        if kept or name in before:
            hooks[name] = kept
        else:
            del hooks[name]
    if not hooks and "hooks" not in original:
        del data["hooks"]
        if client == "cursor" and "version" not in original and set(data) == {"version"}:
            del data["version"]
    return data


def hooks_of(client: str) -> tuple[Any, Any]:
    """(merge, unmerge) of `client`'s hooks, as ManagedFile takes them."""
    return partial(merge_hooks, client=client), partial(unmerge_hooks, client=client)


def merge_gemini(data: dict, launch: Launch) -> dict:
    """Gemini CLI keeps both in `.gemini/settings.json`: `mcpServers` and `hooks`."""
    return merge_hooks(merge_server(data, launch), launch, "gemini")


def unmerge_gemini(data: dict, original: dict, launch: Launch) -> dict:
    return unmerge_hooks(unmerge_server(data, original, launch), original, launch, "gemini")


def merge_vscode_server(data: dict, launch: Launch) -> dict:
    return merge_server(data, launch, "servers", stdio=True)


def unmerge_vscode_server(data: dict, original: dict, launch: Launch) -> dict:
    return unmerge_server(data, original, launch, "servers")


def merge_local_server(data: dict, launch: Launch) -> dict:
    """Claude Code's local MCP scope: `~/.claude.json` → `projects[<repo top>].mcpServers` (what
    `claude mcp add --scope local` writes): this machine, this project, never committed, no approval asked."""
    projects = data.setdefault("projects", {})
    if not isinstance(projects, dict):
        raise TypeError("`projects` is not an object")
    project = projects.setdefault(launch.root, {})
    if not isinstance(project, dict):
        raise TypeError(f"`projects.{launch.root}` is not an object")
    merge_server(project, launch)
    return data


def unmerge_local_server(data: dict, original: dict, launch: Launch) -> dict:
    project = (data.get("projects") or {}).get(launch.root)
    if isinstance(project, dict):
        before = ((original.get("projects") or {}).get(launch.root)) or {}
        unmerge_server(project, before if isinstance(before, dict) else {}, launch)
        if not project and launch.root not in (original.get("projects") or {}):
            del data["projects"][launch.root]
            if not data["projects"] and "projects" not in original:
                del data["projects"]
    return data


def holds_local_server(text: str, root: str) -> bool:
    import json

    try:
        data = json.loads(text or "{}")
        return SERVER_NAME in data["projects"][root]["mcpServers"]
    except (ValueError, KeyError, TypeError):
        return False
