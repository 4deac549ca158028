"""Issue 38 items 1-2: what `jgm agent install` writes into files a team commits works on a teammate's machine,
and `jgm agent status` tells each machine the truth. Machine one installs every client in a repository with
settings of its own and commits; a teammate clones it into another folder, with another store and HOME and a
PATH whose only `jgm` is a shim in a folder of their own, and the committed hook and MCP command lines work as
the clients run them (a shell; the MCP SDK's stdio client). Re-installing in the clone changes no byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import jgm_in
from conftest import GIT_ENV
from helpers import JGM_EXE, seeded

pytestmark = pytest.mark.e2e

CLIENTS = ("claude-code", "codex", "cursor")
COMMITTED = (".mcp.json", ".claude/settings.json", ".codex/config.toml", ".codex/hooks.json", ".cursor/mcp.json")
RECORDS = {
    "dec-cache-ttl": {
        "title": "Cache entries expire after ten minutes",
        "body": "The response cache evicts entries with LRU and a ten minute TTL, because stale prices cost more.",
    },
    "dec-postgres": {"title": "We store orders in PostgreSQL", "body": "Orders live in PostgreSQL 16 for reporting."},
}
OWN_SETTINGS = b'{\n  "permissions": {"allow": ["Bash(make test)"]},\n  "model": "opus"\n}\n'


@pytest.fixture
def teammate(repo, tmp_path):
    """Machine one installs and commits; returns the teammate's clone, their environment and committed bytes."""
    repo.write(".claude/settings.json", OWN_SETTINGS)
    seeded(repo, RECORDS)
    for client in CLIENTS:  # in process: what is written is under test, not how the installer starts
        jgm_in("agent", "install", client, "--repo", str(repo.path), check=True)
    repo.git("add", "-A")
    repo.commit("Connect the coding agents")
    committed = {f: (repo.path / f).read_bytes() for f in COMMITTED}
    for f, data in committed.items():  # nothing of machine one: no interpreter, venv, home or checkout path
        for here in (sys.executable, sys.prefix, str(Path(JGM_EXE).parent), str(repo.path), str(Path.home())):
            assert here.encode() not in data, (f, here)

    mate = tmp_path / "teammate"
    shims = mate / "tools"
    shims.mkdir(parents=True)
    shim = shims / "jgm"  # their own install of jgm, found on their PATH (no path of machine one)
    shim.write_text(f'#!/bin/sh\nexec {JGM_EXE} "$@"\n')
    shim.chmod(0o755)
    clone = mate / "src" / "shop"
    subprocess.run(["git", "clone", "-q", str(repo.path), str(clone)], check=True, timeout=120, env=_git_env())
    env = {
        **_git_env(),
        "PATH": f"{shims}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(mate / "home"),
        "JGM_HOME": str(mate / "store"),
        "JGM_NO_DAEMON": "1",
    }
    (mate / "home").mkdir()
    jgm_in("seed", "--repo", str(clone), env=env, check=True)  # the teammate's own store (the hooks run `jgm`)
    return clone, env, committed


def _git_env() -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PYTHONPATH", "LANG", "LC_ALL", "TMPDIR")}
    return {**keep, **GIT_ENV}


def _payload(clone, event: str, **kw) -> dict:
    return {"session_id": "t1", "transcript_path": "/tmp/t.jsonl", "cwd": str(clone), "hook_event_name": event, **kw}


def _hook(clone, env, command: str, payload: dict) -> dict:
    p = subprocess.run(
        command, shell=True, cwd=clone, env=env, input=json.dumps(payload), capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0 and p.stdout, (command, p.returncode, p.stderr)
    return json.loads(p.stdout)


def _tools(clone, env, entry: dict) -> set[str]:
    """The MCP server as a client starts it (command and args from the committed file, in the clone)."""
    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env, cwd=str(clone))

    async def main():
        with anyio.fail_after(600):
            async with Client(stdio_client(params), read_timeout_seconds=300) as client:
                return {t.name for t in (await client.list_tools()).tools}

    return anyio.run(main)


def test_a_teammates_clone_runs_the_committed_hooks_and_servers(teammate):
    import tomllib

    clone, env, _committed = teammate
    settings = json.loads((clone / ".claude/settings.json").read_text())
    assert settings["model"] == "opus"  # the repository's own settings, committed beside jgm's hooks
    cmds = {e: settings["hooks"][e][0]["hooks"][0]["command"] for e in ("SessionStart", "UserPromptSubmit")}
    out = _hook(clone, env, cmds["SessionStart"], _payload(clone, "SessionStart", source="startup"))
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "[receipt rcpt_" in out["hookSpecificOutput"]["additionalContext"]
    out = _hook(
        clone,
        env,
        cmds["UserPromptSubmit"],
        _payload(clone, "UserPromptSubmit", prompt="How long do cached entries live?"),
    )
    assert "[dec-cache-ttl · decision/accepted" in out["hookSpecificOutput"]["additionalContext"]

    entries = {
        "claude-code": json.loads((clone / ".mcp.json").read_text())["mcpServers"]["jupiter-git-memory"],
        "codex": tomllib.loads((clone / ".codex/config.toml").read_text())["mcp_servers"]["jupiter-git-memory"],
        "cursor": json.loads((clone / ".cursor/mcp.json").read_text())["mcpServers"]["jupiter-git-memory"],
    }
    assert all(e == {"command": "jgm", "args": ["mcp"]} for e in entries.values()), entries
    assert {"recall", "recall_for_task", "context"} <= _tools(clone, env, entries["claude-code"])


def test_reinstall_in_the_clone_changes_no_committed_byte(teammate):
    clone, env, committed = teammate
    for client in CLIENTS:  # in process, in the clone with the teammate's environment (PATH, HOME, store)
        p = jgm_in("agent", "install", client, cwd=clone, env=env)
        assert p.returncode == 0 and "nothing to change" in p.stdout, p.stdout + p.stderr
    assert {f: (clone / f).read_bytes() for f in COMMITTED} == committed
    st = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True, timeout=60)
    assert st.stdout == ""


def _readiness(clone, env) -> dict[str, dict]:
    """`jgm agent status` in process with the teammate's environment: it reads files and PATH, as a process would
    (the PATH without `jgm` below runs the real one)."""
    p = jgm_in("agent", "status", "--json", cwd=clone, env=env)
    assert p.returncode == 0, p.stderr
    return {f"{r['client']}/{r['scope']}": r for r in json.loads(p.stdout)["readiness"]}


def test_status_says_what_stands_between_each_client_and_jgm(teammate):
    clone, env, _ = teammate
    home = Path(env["HOME"])
    st = _readiness(clone, env)
    assert st["claude-code/project"]["state"] == "needs approval"
    assert "enabledMcpjsonServers" in st["claude-code/project"]["problems"][0]["step"]
    assert st["codex/project"]["state"] == "untrusted project"
    assert f'[projects."{clone}"]\ntrust_level = "trusted"' in st["codex/project"]["problems"][0]["step"]
    assert st["cursor/project"]["state"] == "installed" and "Cursor Settings" in st["cursor/project"]["note"]

    # the approvals, where each client keeps them
    (home / ".claude.json").write_text(
        json.dumps({"projects": {str(clone): {"enabledMcpjsonServers": ["jupiter-git-memory"]}}})
    )
    (home / ".codex").mkdir()
    (home / ".codex/config.toml").write_text(f'[projects."{clone}"]\ntrust_level = "trusted"\n')
    st = _readiness(clone, env)
    mine = {k: r["state"] for k, r in st.items() if r["scope"]}  # the clients installed here
    assert set(mine) == {f"{c}/project" for c in CLIENTS} and set(mine.values()) == {"installed"}, mine

    # declined in the repository's local settings: needs approval again, and says where
    (clone / ".claude/settings.local.json").write_text(json.dumps({"disabledMcpjsonServers": ["jupiter-git-memory"]}))
    (home / ".codex/config.toml").write_text(f'[projects."{clone}"]\ntrust_level = "untrusted"\n')
    st = _readiness(clone, env)
    assert "disabledMcpjsonServers" in st["claude-code/project"]["problems"][0]["step"]
    assert (
        st["codex/project"]["state"] == "untrusted project"
        and "marked untrusted" in st["codex/project"]["problems"][0]["step"]
    )

    # a machine whose PATH has no `jgm`: every client says so, with the step
    bare = {**env, "PATH": "/usr/bin:/bin"}
    p = subprocess.run(
        [JGM_EXE, "agent", "status", "--json"], cwd=clone, env=bare, capture_output=True, text=True, timeout=300
    )
    rows = [r for r in json.loads(p.stdout)["readiness"] if r["scope"]]
    assert len(rows) == len(CLIENTS) and {r["state"] for r in rows} == {"command not found"}, rows
    assert all("`jgm` is on the PATH" in r["problems"][0]["step"] for r in rows)


CLAUDE_JSON = (
    b'{\n  "numStartups": 7,\n  "projects": {\n    "/elsewhere": {"mcpServers": {"db": {"command": "db-mcp"}}}\n  }\n}'
)


@pytest.mark.integration  # in process: no process but git
def test_local_scope_keeps_this_machines_paths_out_of_committed_files(repo, tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (home / ".claude.json").write_bytes(CLAUDE_JSON)  # Claude Code's own file, with another project's server
    repo.write(".claude/settings.json", OWN_SETTINGS)
    repo.commit()
    res = json.loads(
        jgm_in(
            "agent", "install", "claude-code", "--scope", "local", "--repo", str(repo.path), "--json", check=True
        ).stdout
    )
    assert res["changed"] == ["~/.claude.json", ".claude/settings.local.json"] and res["command"] == sys.executable
    data = json.loads((home / ".claude.json").read_text())
    assert data["numStartups"] == 7 and data["projects"]["/elsewhere"] == {"mcpServers": {"db": {"command": "db-mcp"}}}
    server = data["projects"][str(repo.path)]["mcpServers"]["jupiter-git-memory"]
    assert server == {"command": sys.executable, "args": ["-P", "-m", "jupiter_git_memory", "mcp"]}
    local = json.loads((repo.path / ".claude/settings.local.json").read_text())
    assert local["hooks"]["SessionStart"][0]["hooks"][0]["command"].startswith(
        f"{sys.executable} -P -m jupiter_git_memory hook"
    )
    assert (repo.path / ".claude/settings.json").read_bytes() == OWN_SETTINGS and not (repo.path / ".mcp.json").exists()
    (ready,) = res["readiness"]  # git would commit settings.local.json: said, with the fix
    assert ready["state"] == "local file not ignored" and ".gitignore" in ready["problems"][0]["step"]
    repo.write(".gitignore", ".claude/settings.local.json\n")
    st = json.loads(jgm_in("agent", "status", "claude-code", "--repo", str(repo.path), "--json", check=True).stdout)
    assert [(r["scope"], r["state"]) for r in st["readiness"]] == [("local", "installed")]  # no approval in local scope
    assert jgm_in(
        "agent", "install", "claude-code", "--scope", "local", "--repo", str(repo.path), check=True
    ).stdout.count("nothing to change")

    jgm_in(
        "agent", "install", "claude-code", "--repo", str(repo.path), check=True
    )  # the project scope too: hooks twice
    st = json.loads(jgm_in("agent", "status", "claude-code", "--repo", str(repo.path), "--json", check=True).stdout)
    local_row = next(r for r in st["readiness"] if r["scope"] == "local")
    assert [p["state"] for p in local_row["problems"]] == ["installed twice"]
    jgm_in("agent", "uninstall", "claude-code", "--repo", str(repo.path), check=True)

    jgm_in("agent", "uninstall", "claude-code", "--scope", "local", "--repo", str(repo.path), check=True)
    assert (home / ".claude.json").read_bytes() == CLAUDE_JSON  # byte for byte
    assert not (repo.path / ".claude/settings.local.json").exists()
    assert (repo.path / ".claude/settings.json").read_bytes() == OWN_SETTINGS


@pytest.mark.integration  # in process: no process but git
def test_clients_without_an_uncommitted_project_file_refuse_local_scope(repo):
    for client, where in (
        ("codex", "~/.codex"),
        ("cursor", "~/.cursor"),
        ("gemini", "~/.gemini/settings.json"),
        ("vscode", ".vscode/mcp.json"),
        ("cline", ".clinerules/hooks/"),
    ):
        p = jgm_in("agent", "install", client, "--scope", "local", "--repo", str(repo.path))
        assert p.returncode == 2 and "agent/no-such-scope" in p.stderr and where in p.stderr, p.stderr
    p = jgm_in("agent", "install", "claude-code", "--scope", "team", "--repo", str(repo.path))
    assert p.returncode == 2 and "unknown scope 'team'" in p.stderr
    assert repo.git("status", "--porcelain", "--ignored").stdout == ""


@pytest.mark.integration  # in process: no process but git
def test_status_names_an_entry_an_older_jgm_wrote_with_one_machines_path(repo, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    old = {
        "mcpServers": {
            "jupiter-git-memory": {
                "command": "/home/ann/.venv/bin/python3",
                "args": ["-P", "-m", "jupiter_git_memory", "mcp"],
            }
        }
    }
    repo.write(".cursor/mcp.json", json.dumps(old))
    st = json.loads(jgm_in("agent", "status", "cursor", "--repo", str(repo.path), "--json", check=True).stdout)
    (row,) = st["readiness"]
    assert [(p["state"], p["command"]) for p in row["problems"]] == [
        ("command not found", "/home/ann/.venv/bin/python3"),
        ("not portable", "/home/ann/.venv/bin/python3"),
    ]
    assert "jgm agent install cursor" in row["problems"][1]["step"]
    jgm_in("agent", "install", "cursor", "--repo", str(repo.path), check=True)  # rewritten in place
    assert json.loads((repo.path / ".cursor/mcp.json").read_text())["mcpServers"]["jupiter-git-memory"] == {
        "command": "jgm",
        "args": ["mcp"],
    }
