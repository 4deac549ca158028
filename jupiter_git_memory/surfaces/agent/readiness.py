"""`jgm agent status`: whether each client will really use jgm on this machine, not only whether its files hold
jgm's entries. Installed is not switched on: Claude Code asks before it starts a project `.mcp.json` server and
keeps the answer in settings (`enabledMcpjsonServers`, `disabledMcpjsonServers`, `enableAllProjectMcpServers`:
`.claude/settings.local.json`, `.claude/settings.json`, `~/.claude/settings.json`, or the project's table in
`~/.claude.json`); Codex reads a project's `.codex/config.toml` only when `~/.codex/config.toml` (or
`$CODEX_HOME`) trusts the project (`[projects."<path>"] trust_level = "trusted"`); and every entry names a
command that must be found on this machine. Each problem comes with the step that fixes it. Reads only."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tomllib
from pathlib import Path
from typing import Any

from ...git.state import is_committable
from ...git.workspace import find_workspace
from .clients import CLIENTS, LOCAL, NOTES, RETIRED, SERVER_NAME, TOML_START, ManagedFile, hook_marker
from .install import AgentConfigError, _client, _manifest, _read, _sha, locate, state_dir

NEEDS_APPROVAL, UNTRUSTED, NOT_FOUND = "needs approval", "untrusted project", "command not found"
COMMITTABLE, TWICE, MACHINE_PATH = "local file not ignored", "installed twice", "not portable"
NOT_EXECUTABLE = "not executable"


def _scopes(name: str) -> list[str]:
    return ["project", "local"] if name in LOCAL else ["project"]


def _text(path: Path | None) -> str | None:
    raw = _read(path) if path is not None else None
    try:
        return raw.decode("utf-8") if raw is not None else None
    except UnicodeDecodeError:
        return None


def _json(path: Path | None) -> dict:
    return _json_of(_text(path))


def _json_of(text: str | None) -> dict:
    """A client file's JSON object; {} for none, a broken file or another JSON value (nothing to read there)."""
    try:
        data = json.loads(text or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _safe(root: Path, rel: str) -> Path | None:
    try:
        return locate(root, rel)
    except AgentConfigError:  # a link or a folder where a file goes: never read through it
        return None


def status(repo: Path | str | None, client: str | None = None) -> list[dict]:
    """Per file: does it hold jgm's entries, and was it edited since install. Local-scope files are listed
    once something of the local scope is installed."""
    root = find_workspace(repo).repo_root
    rows = []
    for name in [client] if client else list(CLIENTS):
        for scope in _scopes(name):
            files = _client(name, scope)
            man = _manifest(state_dir(root, name, scope))
            scope_rows = []
            retired = [mf for mf in RETIRED.get(name, ()) if scope == "project"]
            for mf in [*files, *retired]:
                path = _safe(root, mf.path)
                if path is None:
                    scope_rows.append(
                        {
                            "client": name,
                            "scope": scope,
                            "file": mf.path,
                            "state": "refused (not a real file)",
                            "exists": True,
                        }
                    )
                    continue
                raw = _read(path)
                text = _text(path) or ""
                entry = man["files"].get(mf.path)
                present = mf.present(text, str(root))
                if mf in retired and not present:
                    continue  # an older jgm's file, not there: nothing to say
                state = "installed" if present else "not installed"
                if present and entry and _sha(raw) != entry.get("installed_sha256"):
                    state = "installed (edited since)"
                scope_rows.append(
                    {"client": name, "scope": scope, "file": mf.path, "state": state, "exists": raw is not None}
                )
            if scope == "project" or man["files"] or any(r["state"].startswith("installed") for r in scope_rows):
                rows.extend(scope_rows)
    return rows


def readiness(repo: Path | str | None, client: str | None = None) -> list[dict]:
    """Per client and installed scope: `state` is `installed` (nothing stands in the way that jgm can see),
    or the first problem (`command not found`, `not portable`, `needs approval`, `untrusted project`,
    `local file not ignored`, `installed twice`); `problems` lists each with its `step`. A client with nothing
    installed: `not installed`, and the command that installs it."""
    root = find_workspace(repo).repo_root
    out = []
    for name in [client] if client else list(CLIENTS):
        rows = []
        for scope in _scopes(name):
            files = _client(name, scope)
            texts = {mf.path: _text(_safe(root, mf.path)) or "" for mf in files}
            if not any(mf.present(texts[mf.path], str(root)) for mf in files):
                continue
            problems = _missing_commands(root, files, texts, name, scope)
            server_here = any(mf.mcp and mf.present(texts[mf.path], str(root)) for mf in files)
            if name == "claude-code" and scope == "project" and server_here:
                problems += _claude_approval(root)
            if name == "codex" and scope == "project" and server_here:
                problems += _codex_trust(root)
            if scope == "local":
                problems += _committable(root, files)
            if name == "claude-code":
                problems += _plugin_too(root)
            problems += _not_executable(root, files)
            if rows:  # the project scope is installed too: every hook would run twice
                problems.append({"state": TWICE, "step": f"keep one: `jgm agent uninstall {name} --scope local`"})
            row: dict[str, Any] = {
                "client": name,
                "scope": scope,
                "state": problems[0]["state"] if problems else "installed",
                "problems": problems,
            }
            if name in NOTES:
                row["note"] = NOTES[name]
            rows.append(row)
        out.extend(
            rows
            or [
                {
                    "client": name,
                    "scope": None,
                    "state": "not installed",
                    "problems": [{"state": "not installed", "step": f"run `jgm agent install {name}`"}],
                }
            ]
        )
    return out


def _commands(mf: ManagedFile, text: str, root: str, client: str) -> set[str]:
    """The programs jgm's entries in this file run (the first word of each): its MCP server's command, and
    every hook command that carries jgm's marker, wherever the client's shape keeps it."""
    marker = hook_marker(client)
    if mf.marker == TOML_START:
        try:
            server = tomllib.loads(text).get("mcp_servers", {}).get(SERVER_NAME, {})
        except tomllib.TOMLDecodeError:
            return set()
        return {server["command"]} if isinstance(server.get("command"), str) else set()
    if mf.text:  # Cline's scripts: `exec jgm hook cline …`
        return {_first(line[5:]) for line in text.splitlines() if line.startswith("exec ") and marker in line}
    data = _json_of(text)
    found: set[str] = set()
    holder = data.get("projects", {}).get(root, {}) if mf.path.startswith("~/") else data
    for key in ("mcpServers", "servers"):
        server = (holder.get(key) or {}).get(SERVER_NAME) if isinstance(holder, dict) else None
        if isinstance(server, dict) and isinstance(server.get("command"), str):
            found.add(server["command"])
    found |= {_first(c) for c in _hook_commands(data.get("hooks")) if marker in c}
    return found


def _hook_commands(node: Any) -> list[str]:
    """Every `command` string under a `hooks` object, in any of the clients' shapes (grouped or flat)."""
    if isinstance(node, dict):
        own = [node["command"]] if isinstance(node.get("command"), str) else []
        return own + [c for v in node.values() if isinstance(v, dict | list) for c in _hook_commands(v)]
    if isinstance(node, list):
        return [c for v in node for c in _hook_commands(v)]
    return []


def _first(command: str) -> str:
    try:
        return shlex.split(command)[0]
    except (ValueError, IndexError):
        return command


def _missing_commands(
    root: Path, files: tuple[ManagedFile, ...], texts: dict[str, str], name: str, scope: str
) -> list[dict]:
    """Each program jgm's entries run that this machine (this PATH) cannot find: the client fails the same way.
    In the project scope, an absolute path (an older jgm wrote one) works on one machine only: said too."""
    commands = {c for mf in files for c in _commands(mf, texts[mf.path], str(root), name)}
    fixed = [
        {
            "state": MACHINE_PATH,
            "command": c,
            "step": f"`{c}` is one machine's path in a file the team commits: run `jgm agent install {name}` to "
            "write the portable `jgm` instead",
        }
        for c in sorted(commands)
        if scope == "project" and "/" in c
    ]
    return [
        {
            "state": NOT_FOUND,
            "command": c,
            "step": (
                f"`{c}` is not on this machine's PATH: install jupiter-git-memory so that `jgm` is on the PATH the "
                "client starts with (e.g. `pipx install jupiter-git-memory`, or the virtualenv's bin folder on PATH)"
                if "/" not in c
                else f"`{c}` does not exist here: run `jgm agent install --scope local` again on this machine"
            ),
        }
        for c in sorted(commands)
        if not shutil.which(c)
    ] + fixed


def _claude_approval(root: Path) -> list[dict]:
    """Claude Code's answer to "use this project's `.mcp.json` server?", wherever it keeps it."""
    home = Path.home()
    sources = {
        ".claude/settings.local.json": _json(_safe(root, ".claude/settings.local.json")),
        ".claude/settings.json": _json(_safe(root, ".claude/settings.json")),
        "~/.claude/settings.json": _json(_safe(root, "~/.claude/settings.json")),
    }
    project = (_json(home / ".claude.json").get("projects") or {}).get(str(root))
    if isinstance(project, dict):
        sources[f'~/.claude.json (projects["{root}"])'] = project
    for where, data in sources.items():
        if SERVER_NAME in _names(data, "disabledMcpjsonServers"):
            return [
                {
                    "state": NEEDS_APPROVAL,
                    "step": f"it was declined: remove {json.dumps(SERVER_NAME)} from `disabledMcpjsonServers` in "
                    f"{where}, or enable it in Claude Code's `/mcp`",
                }
            ]
    if any(
        data.get("enableAllProjectMcpServers") is True or SERVER_NAME in _names(data, "enabledMcpjsonServers")
        for data in sources.values()
    ):
        return []
    return [
        {
            "state": NEEDS_APPROVAL,
            "step": f"start `claude` in {root} and approve the project server `{SERVER_NAME}` when asked (later: "
            f'`/mcp`), or add "enabledMcpjsonServers": [{json.dumps(SERVER_NAME)}] to .claude/settings.local.json',
        }
    ]


def _not_executable(root: Path, files: tuple[ManagedFile, ...]) -> list[dict]:
    """A hook script the client runs directly (Cline's) that lost its execute bit: a checkout with
    `core.fileMode=false`, or a copy that dropped it. The client skips it without a word."""
    return [
        {"state": NOT_EXECUTABLE, "file": mf.path, "step": f"make it executable: `chmod +x {mf.path}`"}
        for mf in files
        if mf.executable and (root / mf.path).is_file() and not os.access(root / mf.path, os.X_OK)
    ]


def _plugin_too(root: Path) -> list[dict]:
    """jgm's Claude Code plugin enabled (`enabledPlugins` in any settings file) beside the entries install wrote:
    the same hooks would run twice, the plugin's and the repository's."""
    for where in (".claude/settings.local.json", ".claude/settings.json", "~/.claude/settings.json"):
        enabled = _json(_safe(root, where)).get("enabledPlugins")
        if isinstance(enabled, dict) and any(k.startswith(f"{SERVER_NAME}@") and v for k, v in enabled.items()):
            return [
                {
                    "state": TWICE,
                    "step": f"jgm's Claude Code plugin is enabled too ({where}): keep one, "
                    "`jgm agent uninstall claude-code` or `claude plugin disable jupiter-git-memory`",
                }
            ]
    return []


def _committable(root: Path, files: tuple[ManagedFile, ...]) -> list[dict]:
    """A local-scope file in the repository holds this machine's interpreter path: it must stay uncommitted."""
    return [
        {
            "state": COMMITTABLE,
            "file": mf.path,
            "step": f"{mf.path} names this machine's paths and git would commit it: add it to .gitignore "
            "(or .git/info/exclude)",
        }
        for mf in files
        if not mf.path.startswith("~/") and (root / mf.path).exists() and is_committable(root, mf.path)
    ]


def _names(data: dict, key: str) -> list[str]:
    names = data.get(key)
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def _codex_trust(root: Path) -> list[dict]:
    """Codex's trust in this project, from its user config (`$CODEX_HOME/config.toml`, default ~/.codex)."""
    cfg = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex") / "config.toml"
    try:
        projects = tomllib.loads(_text(cfg) or "").get("projects") or {}
    except tomllib.TOMLDecodeError:
        projects = {}
    levels = {
        (projects.get(key) or {}).get("trust_level")
        for key in {str(root), os.path.realpath(root)}
        if isinstance(projects.get(key), dict)
    }
    if "trusted" in levels:
        return []
    how = f'add to {cfg}:\n[projects."{root}"]\ntrust_level = "trusted"'
    step = (
        f"Codex ignores .codex/config.toml here: the project is marked untrusted; {how.replace('add to', 'set in', 1)}"
        if "untrusted" in levels
        else f"Codex ignores .codex/config.toml until you trust the project: start `codex` in {root} and trust it "
        f"when asked, or {how}"
    )
    return [{"state": UNTRUSTED, "step": step}]
