"""Issue 38 item 3: every client with hooks gets jgm's hooks in its own files, and they work on a teammate's
machine. Machine one installs all six clients into a repository with settings of each client's own and commits;
a teammate clones it into another folder, with another store and HOME and a PATH whose only `jgm` is a shim of
their own. Each client's committed hook commands, read from its files as the client reads them and run through a
shell (Cline: the executable script itself), are fed that client's documented payloads: session start gives a
brief; a prompt (where the client can take context for one) gives the matching record; an edit of a cited file
gives exactly its governing in-force records, once per session; an uncited file gives nothing; a broken store
exits 0 with nothing."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from cli_helpers import jgm_in
from conftest import GIT_ENV
from helpers import JGM_EXE, seeded

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CLIENTS = ("claude-code", "codex", "cursor", "gemini", "vscode", "cline")
RECORDS = {
    "dec-cache-ttl": {
        "title": "Cache entries expire after ten minutes",
        "body": "The response cache evicts entries with LRU and a ten minute TTL, because stale prices cost more.",
        "source": "src/cache.py",
        "supersedes": "[dec-cache-forever]",
    },
    "dec-cache-forever": {
        "title": "Cache entries never expire",
        "body": "Kept until restart.",
        "source": "src/cache.py",
    },
    "dec-src-layout": {"title": "Source code lives under src", "body": "One module per component.", "source": "src/"},
    "dec-postgres": {"title": "We store orders in PostgreSQL", "body": "Orders live in PostgreSQL 16 for reporting."},
}
GOVERNING = ["dec-cache-ttl", "dec-src-layout"]  # src/cache.py: the exact citation, then the folder
OWN = {  # each client's settings of the repository's own, committed before jgm came
    ".claude/settings.json": {"model": "opus"},
    ".codex/hooks.json": {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}},
    ".cursor/hooks.json": {"version": 1, "hooks": {"afterFileEdit": [{"command": "true"}]}},
    ".gemini/settings.json": {"ui": {"theme": "GitHub"}},
    ".vscode/mcp.json": {"servers": {"docs": {"type": "stdio", "command": "docs-mcp"}}},
    ".github/hooks/format.json": {"hooks": {"PostToolUse": [{"type": "command", "command": "true"}]}},
}
PROMPT = "How long do cached entries live?"


@pytest.fixture(scope="module")
def teammate(tmp_path_factory):
    from conftest import Repo

    base = tmp_path_factory.mktemp("clients")
    mp = pytest.MonkeyPatch()
    mp.setenv("JGM_HOME", str(base / "store-one"))
    repo = Repo(base / "one")
    for rel, data in OWN.items():
        repo.write(rel, json.dumps(data, indent=2) + "\n")
    repo.write("src/cache.py", "TTL = 600\n")
    repo.write("README.md", "hello\n")
    seeded(repo, RECORDS)
    for client in CLIENTS:  # in process: what is installed is under test, not how the installer starts
        p = jgm_in("agent", "install", client, "--repo", str(repo.path))
        assert p.returncode == 0, p.stderr
    repo.git("add", "-A")
    repo.commit("Connect every coding agent")

    mate = base / "teammate"
    shims = mate / "tools"
    shims.mkdir(parents=True)
    (shims / "jgm").write_text(f'#!/bin/sh\nexec {JGM_EXE} "$@"\n')
    (shims / "jgm").chmod(0o755)
    clone = mate / "src" / "shop"
    keep = {k: v for k, v in os.environ.items() if k in ("PYTHONPATH", "LANG", "LC_ALL", "TMPDIR")}
    subprocess.run(["git", "clone", "-q", str(repo.path), str(clone)], check=True, timeout=120, env={**keep, **GIT_ENV})
    (mate / "home").mkdir()
    env = {
        **keep,
        **GIT_ENV,
        "PATH": f"{shims}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(mate / "home"),
        "JGM_HOME": str(mate / "store"),
        "JGM_NO_DAEMON": "1",
        # what is checked here is each hook's answer; the deadline's own behaviour is tests/test_agent_hooks.py's.
        # At load 7-9 a cold `jgm` hook once took longer than the default 10 s and failed open with nothing
        "JGM_HOOK_DEADLINE": "120",
    }
    jgm_in("seed", "--repo", str(clone), env=env, check=True)  # the teammate's own store (the hooks run `jgm`)
    yield clone, env
    mp.undo()


def _json(clone: Path, rel: str) -> dict:
    return json.loads((clone / rel).read_text())


def commands(clone: Path, client: str) -> dict[str, str]:
    """The client's event -> the command it runs, read from the committed files the way the client reads them."""
    grouped = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json", "gemini": ".gemini/settings.json"}
    if client in grouped:
        hooks = _json(clone, grouped[client])["hooks"]
        return {e: h["command"] for e, gs in hooks.items() for g in gs for h in g["hooks"] if " hook " in h["command"]}
    if client == "cline":
        return {p.name: str(p) for p in (clone / ".clinerules/hooks").iterdir()}
    rel = ".cursor/hooks.json" if client == "cursor" else ".github/hooks/jupiter-git-memory.json"
    return {e: h["command"] for e, hs in _json(clone, rel)["hooks"].items() for h in hs if " hook " in h["command"]}


def payload(client: str, kind: str, clone: Path, session: str, rel: str = "src/cache.py") -> tuple[str, dict]:
    """(the client's event name, its documented stdin) for a session start, a prompt or an edit of `rel`."""
    path, root = str(clone / rel), str(clone)
    patch = f"*** Begin Patch\n*** Update File: {rel}\n@@\n-TTL = 600\n+TTL = 60\n*** End Patch\n"
    common = {"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": root}
    table = {
        "claude-code": {
            "session-start": ("SessionStart", {**common, "hook_event_name": "SessionStart", "source": "startup"}),
            "prompt": ("UserPromptSubmit", {**common, "hook_event_name": "UserPromptSubmit", "prompt": PROMPT}),
            "edit": (
                "PreToolUse",
                {**common, "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": {"file_path": path}},
            ),
        },
        "codex": {
            "session-start": ("SessionStart", {**common, "hook_event_name": "SessionStart", "model": "gpt-5"}),
            "prompt": ("UserPromptSubmit", {**common, "hook_event_name": "UserPromptSubmit", "prompt": PROMPT}),
            "edit": (
                "PostToolUse",
                {
                    **common,
                    "hook_event_name": "PostToolUse",
                    "model": "gpt-5",
                    "permission_mode": "default",
                    "turn_id": "t1",
                    "tool_use_id": "c1",
                    "tool_name": "apply_patch",
                    "tool_input": {"command": patch},
                    "tool_response": "Success. Updated the following files:\nM src/cache.py",
                },
            ),
        },
        "gemini": {
            "session-start": ("SessionStart", {**common, "hook_event_name": "SessionStart", "source": "startup"}),
            "prompt": ("BeforeAgent", {**common, "hook_event_name": "BeforeAgent", "prompt": PROMPT}),
            "edit": (
                "AfterTool",
                {
                    **common,
                    "hook_event_name": "AfterTool",
                    "tool_name": "replace",
                    "tool_input": {"file_path": path, "old_string": "600", "new_string": "60"},
                    "tool_response": {"llmContent": "ok", "returnDisplay": "ok"},
                },
            ),
        },
        "cursor": {
            "session-start": (
                "sessionStart",
                {"conversation_id": session, "hook_event_name": "sessionStart", "workspace_roots": [root]},
            ),
            "edit": (
                "postToolUse",
                {
                    "conversation_id": session,
                    "generation_id": "g1",
                    "hook_event_name": "postToolUse",
                    "workspace_roots": [root],
                    "tool_name": "Write",
                    "tool_input": {"file_path": path},
                },
            ),
        },
        "vscode": {
            "session-start": (
                "SessionStart",
                {
                    "timestamp": "2026-12-04T10:00:00Z",
                    "cwd": root,
                    "sessionId": session,
                    "hookEventName": "SessionStart",
                },
            ),
            "edit": (
                "PreToolUse",
                {
                    "timestamp": "2026-12-04T10:00:01Z",
                    "cwd": root,
                    "sessionId": session,
                    "hookEventName": "PreToolUse",
                    "tool_name": "replace_string_in_file",
                    "tool_input": {"filePath": path, "oldString": "600", "newString": "60"},
                    "tool_use_id": "v1",
                },
            ),
        },
        "cline": {
            "session-start": ("TaskStart", {"hookName": "TaskStart", "taskId": session, "workspaceRoots": [root]}),
            "prompt": (
                "UserPromptSubmit",
                {
                    "hookName": "UserPromptSubmit",
                    "taskId": session,
                    "workspaceRoots": [root],
                    "userPromptSubmit": {"prompt": PROMPT},
                },
            ),
            "edit": (
                "PostToolUse",
                {
                    "clineVersion": "3.36.0",
                    "hookName": "PostToolUse",
                    "taskId": session,
                    "workspaceRoots": [root],
                    "postToolUse": {"toolName": "replace_in_file", "parameters": {"path": rel}, "success": True},
                },
            ),
        },
    }
    return table[client][kind]


def run(clone: Path, env: dict, command: str, stdin: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        command, shell=True, cwd=clone, env=env, input=json.dumps(stdin), capture_output=True, text=True, timeout=300
    )


def context(client: str, stdout: str) -> str:
    """What the client hands the model, from the client's answer shape."""
    out = json.loads(stdout)
    if client == "cursor":
        return out["additional_context"]
    if client == "cline":
        assert out["cancel"] is False
        return out["contextModification"]
    return out["hookSpecificOutput"]["additionalContext"]


def _ids(text: str) -> list[str]:
    return re.findall(r"^- (\S+) — ", text, re.MULTILINE)


@pytest.mark.parametrize("client", CLIENTS)
def test_each_clients_committed_hooks_answer_its_payloads_on_a_teammates_clone(teammate, client):
    clone, env = teammate
    cmds = commands(clone, client)
    kinds = ["session-start", "prompt", "edit"] if client not in ("cursor", "vscode") else ["session-start", "edit"]
    assert len(cmds) == len(kinds), cmds  # one hook per event the client can take context on, no more
    session = f"{client}-s1"
    for kind in kinds:
        event, stdin = payload(client, kind, clone, session)
        p = run(clone, env, cmds[event], stdin)
        assert p.returncode == 0 and p.stdout, (client, kind, p.stderr)
        text = context(client, p.stdout)
        if kind == "session-start":
            assert "[receipt rcpt_" in text, text
        elif kind == "prompt":
            assert "dec-cache-ttl" in text, text
        else:
            assert _ids(text) == GOVERNING and "dec-cache-forever" not in text, text
            assert text.startswith("# Project memory governing src/cache.py")
    event, stdin = payload(client, "edit", clone, session)
    assert run(clone, env, cmds[event], stdin).stdout == ""  # the same file again in this session: nothing
    event, stdin = payload(client, "edit", clone, f"{client}-s2", rel="README.md")
    p = run(clone, env, cmds[event], stdin)
    assert p.returncode == 0 and p.stdout == "", p.stdout  # no record cites it: nothing at all


def test_a_broken_store_exits_0_with_nothing_in_every_client(teammate):
    clone, env = teammate
    catalogs = list(Path(env["JGM_HOME"]).rglob("catalog.sqlite"))
    assert len(catalogs) == 1
    good = catalogs[0].read_bytes()
    try:
        catalogs[0].write_bytes(b"not a database" * 100)
        for client in CLIENTS:
            event, stdin = payload(client, "edit", clone, f"{client}-broken")
            p = run(clone, env, commands(clone, client)[event], stdin)
            assert (p.returncode, p.stdout) == (0, ""), (client, p.stdout, p.stderr)
    finally:
        catalogs[0].write_bytes(good)


def test_claude_codes_hooks_run_by_vscode_or_cursor_stay_quiet_when_they_have_their_own(teammate):
    """VS Code's agent reads `.claude/settings.json` too, and Cursor can: with their own jgm hooks installed,
    the Claude Code hook they run says nothing, so no record arrives twice."""
    clone, env = teammate
    claude = commands(clone, "claude-code")
    for client in ("vscode", "cursor"):
        _event, stdin = payload(client, "edit", clone, f"{client}-via-claude")
        assert run(clone, env, claude["PreToolUse"], {**stdin, "tool_name": "Edit"}).stdout == ""
        _event, stdin = payload(client, "session-start", clone, f"{client}-via-claude")
        assert run(clone, env, claude["SessionStart"], stdin).stdout == ""
    event, stdin = payload("claude-code", "edit", clone, "claude-itself")  # Claude Code itself: answered
    assert _ids(context("claude-code", run(clone, env, claude[event], stdin).stdout)) == GOVERNING


def test_reinstall_in_the_clone_changes_nothing_and_status_covers_every_client(teammate):
    clone, env = teammate
    for client in CLIENTS:  # in process, in the clone with the teammate's environment; status below runs `jgm`
        p = jgm_in("agent", "install", client, cwd=clone, env=env)
        assert p.returncode == 0 and "nothing to change" in p.stdout, p.stdout + p.stderr
    st = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True, timeout=60)
    assert st.stdout == ""
    p = subprocess.run(
        ["jgm", "agent", "status", "--json"], cwd=clone, env=env, capture_output=True, text=True, timeout=300
    )
    ready = {r["client"]: r for r in json.loads(p.stdout)["readiness"]}
    assert set(ready) == set(CLIENTS) and all(r["scope"] == "project" for r in ready.values())
    for client in ("cursor", "gemini", "vscode", "cline"):
        assert ready[client]["state"] == "installed" and ready[client]["note"], ready[client]
    bare = {**env, "PATH": "/usr/bin:/bin"}  # no `jgm` on this PATH: every client's hooks would fail: said
    p = subprocess.run(
        [JGM_EXE, "agent", "status", "--json"], cwd=clone, env=bare, capture_output=True, text=True, timeout=300
    )
    assert {r["state"] for r in json.loads(p.stdout)["readiness"]} == {"command not found"}
