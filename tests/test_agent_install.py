"""`jgm agent install|uninstall|status`: merged into a repository's own client settings, idempotent, and
undone byte for byte (a file jgm created is removed)."""

from __future__ import annotations

import json
import sys

import pytest
from cli_helpers import jgm_in

pytestmark = pytest.mark.e2e

USER_SETTINGS = (
    b'{\n    "permissions": {"allow": ["Bash(make test)"]},\n    "hooks": {\n      "UserPromptSubmit": [\n'
    b'        {"hooks": [{"type": "command", "command": "./scripts/lint-prompt.sh"}]}\n      ],\n'
    b'      "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]\n    },\n    "model": "opus"\n}'
)  # no trailing newline, 4-space indent, inline objects: jgm's own formatting must not survive uninstall
USER_MCP = b'{"mcpServers": {"db": {"command": "db-mcp", "args": ["--ro"]}}}\r\n'


def _hooks(settings: dict, event: str) -> list[dict]:
    return [h for g in settings["hooks"][event] for h in g["hooks"]]


def test_claude_code_install_merges_reinstall_is_a_noop_uninstall_restores_bytes(repo):
    repo.write(".claude/settings.json", USER_SETTINGS)
    repo.write("README.md", "hi\n")
    repo.commit()
    p = jgm_in("agent", "install", "claude-code", "--repo", str(repo.path), check=True)
    assert ".mcp.json" in p.stdout and ".claude/settings.json" in p.stdout

    mcp = json.loads((repo.path / ".mcp.json").read_text())
    server = mcp["mcpServers"]["jupiter-git-memory"]
    assert server == {"command": "jgm", "args": ["mcp"]}  # portable: no path of this machine in a committed file
    settings = json.loads((repo.path / ".claude/settings.json").read_text())
    assert settings["permissions"] == {"allow": ["Bash(make test)"]} and settings["model"] == "opus"
    assert settings["hooks"]["Stop"] == [{"hooks": [{"type": "command", "command": "say done"}]}]
    prompt_hooks = _hooks(settings, "UserPromptSubmit")
    assert prompt_hooks[0]["command"] == "./scripts/lint-prompt.sh"  # the user's hook stays, first
    assert prompt_hooks[1]["command"] == "jgm hook claude-code prompt"
    assert _hooks(settings, "SessionStart")[0]["command"].endswith("hook claude-code session-start")
    assert prompt_hooks[1]["command"].startswith(server["command"] + " ")
    (edit_group,) = settings["hooks"]["PreToolUse"]  # the edit hook, before Edit/Write/MultiEdit/NotebookEdit
    assert edit_group["matcher"] == "Edit|Write|MultiEdit|NotebookEdit"
    assert edit_group["hooks"][0]["command"] == "jgm hook claude-code edit"
    assert sys.executable not in (repo.path / ".claude/settings.json").read_text()

    installed = {f: (repo.path / f).read_bytes() for f in (".mcp.json", ".claude/settings.json")}
    again = jgm_in("agent", "install", "claude-code", "--repo", str(repo.path), check=True)
    assert "nothing to change" in again.stdout
    assert {f: (repo.path / f).read_bytes() for f in installed} == installed
    st = json.loads(jgm_in("agent", "status", "claude-code", "--repo", str(repo.path), "--json", check=True).stdout)
    assert {r["file"]: r["state"] for r in st["clients"]} == {
        ".mcp.json": "installed",
        ".claude/settings.json": "installed",
    }
    assert repo.git("status", "--porcelain", "--ignored").stdout.count("jgm") == 0  # the backup is in the git dir

    jgm_in("agent", "uninstall", "claude-code", "--repo", str(repo.path), check=True)
    assert (repo.path / ".claude/settings.json").read_bytes() == USER_SETTINGS
    assert not (repo.path / ".mcp.json").exists()  # jgm created it
    st = json.loads(jgm_in("agent", "status", "--repo", str(repo.path), "--json", check=True).stdout)
    assert {r["state"] for r in st["clients"]} == {"not installed"}
    assert repo.git("status", "--porcelain").stdout == ""


def test_a_folder_and_file_jgm_created_go_and_an_existing_mcp_json_comes_back(repo):
    from jupiter_git_memory.surfaces.agent.install import install, uninstall

    repo.write(".mcp.json", USER_MCP)
    repo.commit()
    # an entry an older jgm wrote (this machine's interpreter) is replaced in place by the portable one
    repo.write(
        ".claude/settings.json",
        json.dumps(
            {
                "hooks": {
                    "SessionStart": [
                        {
                            "hooks": [
                                {
                                    "type": "command",
                                    "command": "/opt/py/bin/python3 -P -m jupiter_git_memory hook claude-code session-start",
                                }
                            ]
                        }
                    ]
                }
            }
        ),
    )
    res = install(repo.path, "claude-code", python="/opt/py/bin/python3")  # project scope: `python` not used
    assert res["changed"] == [".mcp.json", ".claude/settings.json"]
    assert json.loads((repo.path / ".mcp.json").read_text())["mcpServers"]["db"] == {
        "command": "db-mcp",
        "args": ["--ro"],
    }
    settings = json.loads((repo.path / ".claude/settings.json").read_text())
    assert [h["command"] for h in _hooks(settings, "SessionStart")] == ["jgm hook claude-code session-start"]
    assert install(repo.path, "claude-code", python="/other/python")["changed"] == []  # the same bytes anywhere
    out = uninstall(repo.path, "claude-code")
    assert out["restored"] == [".mcp.json", ".claude/settings.json"]
    assert (repo.path / ".mcp.json").read_bytes() == USER_MCP
    assert "jupiter_git_memory" in (repo.path / ".claude/settings.json").read_text()  # the old entry, as it was


def test_uninstall_after_the_user_edited_the_file_removes_only_jgms_entries(repo):
    from jupiter_git_memory.surfaces.agent.install import install, uninstall

    repo.write(".claude/settings.json", USER_SETTINGS)
    install(repo.path, "claude-code")
    path = repo.path / ".claude/settings.json"
    edited = json.loads(path.read_text())
    edited["env"] = {"FOO": "1"}
    path.write_text(json.dumps(edited))
    out = uninstall(repo.path, "claude-code")
    assert out["edited"] == [".claude/settings.json"] and out["removed"] == [".mcp.json"]
    expect = json.loads(USER_SETTINGS)
    expect["env"] = {"FOO": "1"}
    assert json.loads(path.read_text()) == expect  # the user's edit kept, jgm's hooks gone, nothing else lost


def _tree(root) -> dict[str, bytes | None]:
    """Every file and folder under `root`, the git dir included (where jgm keeps its backups and manifest),
    with each file's bytes: what a refused install must leave exactly as it was."""
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
        if not p.is_symlink()
    }


def test_bad_settings_json_names_the_file_and_line_and_changes_nothing(repo):
    repo.write(".claude/settings.json", '{\n  "hooks": {,\n}\n')
    repo.commit()
    before = _tree(repo.path)
    p = jgm_in("agent", "install", "claude-code", "--repo", str(repo.path))
    assert p.returncode == 2 and ".claude/settings.json:2: invalid JSON" in p.stderr, p.stderr
    assert _tree(repo.path) == before  # no .mcp.json, no manifest, no backup: nothing created or changed
    p = jgm_in("agent", "uninstall", "claude-code", "--repo", str(repo.path))
    assert p.returncode == 0 and _tree(repo.path) == before
    p = jgm_in("agent", "install", "vim", "--repo", str(repo.path))
    assert p.returncode == 2 and "unknown client 'vim'" in p.stderr and "claude-code" in p.stderr


def test_cursor_gets_the_mcp_server_and_hooks_in_its_project_files(repo):
    from jupiter_git_memory.surfaces.agent.install import install, uninstall
    from jupiter_git_memory.surfaces.agent.readiness import status

    own = b'{"version": 1, "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}]}}'
    repo.write(".cursor/hooks.json", own)
    repo.write(".cursor/rules/style.mdc", "use tabs\n")
    install(repo.path, "cursor", python="/py/bin/python")
    assert json.loads((repo.path / ".cursor/mcp.json").read_text()) == {
        "mcpServers": {"jupiter-git-memory": {"command": "jgm", "args": ["mcp"]}}
    }
    hooks = json.loads((repo.path / ".cursor/hooks.json").read_text())
    assert hooks == {
        "version": 1,
        "hooks": {
            "afterFileEdit": [{"command": "./fmt.sh"}],  # the user's hook, kept
            "sessionStart": [{"command": "jgm hook cursor session-start"}],
            "postToolUse": [{"command": "jgm hook cursor edit"}],  # no prompt hook: beforeSubmitPrompt can't inject
        },
    }
    assert not (repo.path / ".cursor/rules/jupiter-git-memory.mdc").exists()  # hooks now: no rule block
    assert [r["state"] for r in status(repo.path, "cursor")] == ["installed", "installed"]
    uninstall(repo.path, "cursor")
    assert not (repo.path / ".cursor/mcp.json").exists() and (repo.path / ".cursor/hooks.json").read_bytes() == own
    assert (repo.path / ".cursor/rules/style.mdc").read_text() == "use tabs\n"


def test_codex_gets_a_toml_block_and_hooks_and_both_come_out_exactly(repo):
    import tomllib

    from jupiter_git_memory.surfaces.agent.install import install, uninstall
    from jupiter_git_memory.surfaces.agent.readiness import status

    toml = b'model = "o4"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'
    own_hooks = b'{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}'
    repo.write(".codex/config.toml", toml)
    repo.write(".codex/hooks.json", own_hooks)
    res = install(repo.path, "codex", python="/py/bin/python")
    assert res["changed"] == [".codex/config.toml", ".codex/hooks.json"]
    doc = tomllib.loads((repo.path / ".codex/config.toml").read_text())
    assert doc["model"] == "o4" and doc["mcp_servers"]["docs"] == {"command": "docs-mcp"}
    assert doc["mcp_servers"]["jupiter-git-memory"] == {"command": "jgm", "args": ["mcp"]}
    hooks = json.loads((repo.path / ".codex/hooks.json").read_text())["hooks"]
    assert hooks["Stop"] == [{"hooks": [{"type": "command", "command": "notify"}]}]
    assert hooks["PostToolUse"] == [
        {"matcher": "apply_patch", "hooks": [{"type": "command", "command": "jgm hook codex edit", "timeout": 30}]}
    ]
    assert [g["hooks"][0]["command"] for e in ("SessionStart", "UserPromptSubmit") for g in hooks[e]] == [
        "jgm hook codex session-start",
        "jgm hook codex prompt",
    ]
    assert not (repo.path / "AGENTS.md").exists()  # hooks now: no instructions block
    assert install(repo.path, "codex", python="/py/bin/python")["changed"] == []
    assert {r["state"] for r in status(repo.path, "codex")} == {"installed"}
    uninstall(repo.path, "codex")
    assert (repo.path / ".codex/config.toml").read_bytes() == toml
    assert (repo.path / ".codex/hooks.json").read_bytes() == own_hooks


def test_an_agents_md_block_an_older_jgm_wrote_comes_out_at_uninstall(repo):
    """Before Codex had hooks, install wrote a managed block into AGENTS.md: uninstall still takes it out."""
    from jupiter_git_memory.surfaces.agent.install import uninstall
    from jupiter_git_memory.surfaces.agent.merge_text import MD_END, MD_START
    from jupiter_git_memory.surfaces.agent.readiness import status

    agents = "# Agents\n\nRun `make test` before pushing.\n"
    repo.write("AGENTS.md", f"{agents}\n{MD_START}\n## Project memory\n{MD_END}\n")
    assert [(r["file"], r["state"]) for r in status(repo.path, "codex") if r["file"] == "AGENTS.md"] == [
        ("AGENTS.md", "installed")
    ]
    assert uninstall(repo.path, "codex")["edited"] == ["AGENTS.md"]
    assert (repo.path / "AGENTS.md").read_text() == agents


def test_codex_refuses_a_server_of_the_same_name_the_user_wrote(repo):
    repo.write(".codex/config.toml", '[mcp_servers.jupiter-git-memory]\ncommand = "jgm"\n')
    p = jgm_in("agent", "install", "codex", "--repo", str(repo.path))
    assert p.returncode == 2 and ".codex/config.toml" in p.stderr and "already defined" in p.stderr, p.stderr


# per client: a user file in its first slot (kept byte for byte), and its second file unreadable (not UTF-8 or
# not JSON), so the refusal comes after the first file was planned
REFUSED_SECOND = {
    "claude-code": ((".mcp.json", USER_MCP), (".claude/settings.json", b'{"hooks": [}\n')),
    "codex": ((".codex/config.toml", b'model = "o4"\n'), (".codex/hooks.json", b'{"hooks": [}\n')),
    "cursor": ((".cursor/mcp.json", USER_MCP), (".cursor/hooks.json", b"\xff\xfe\n")),
    "vscode": (
        (".vscode/mcp.json", b'{"servers": {"db": {"command": "db"}}}\n'),
        (".github/hooks/jupiter-git-memory.json", b"[]\n"),
    ),
}


@pytest.mark.parametrize("client", sorted(REFUSED_SECOND))
def test_every_client_refuses_before_writing_anything(repo, client):
    for rel, data in REFUSED_SECOND[client]:
        repo.write(rel, data)
    repo.commit()
    before = _tree(repo.path)
    p = jgm_in("agent", "install", client, "--repo", str(repo.path))
    second = REFUSED_SECOND[client][1][0]
    assert p.returncode == 2 and second in p.stderr, p.stderr
    assert _tree(repo.path) == before


@pytest.mark.parametrize("client", sorted(REFUSED_SECOND))
def test_a_write_that_fails_midway_puts_everything_back(repo, client, monkeypatch):
    """The second file's write fails (a full disk, injected): the first file gets its bytes back, the folders
    and the git dir's backups and manifest jgm made are gone, and a later install works."""
    from jupiter_git_memory.surfaces.agent import install as agent_install

    first = REFUSED_SECOND[client][0]
    repo.write(first[0], first[1])
    repo.write("README.md", "hi\n")
    repo.commit()
    before = _tree(repo.path)
    real, calls = agent_install._write, []

    def full_disk(path, data, executable=False):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device", str(path))
        real(path, data, executable)

    monkeypatch.setattr(agent_install, "_write", full_disk)
    with pytest.raises(agent_install.AgentWriteFailed) as got:  # the repository's disk, not the store's
        agent_install.install(repo.path, client, python="/py/bin/python")
    assert got.value.code == "agent/write-failed" and "No space left" in str(got.value)
    assert "nothing was changed" in str(got.value) and str(calls[1]) in str(got.value)
    assert _tree(repo.path) == before  # the first file was written, then put back
    monkeypatch.setattr(agent_install, "_write", real)
    assert len(agent_install.install(repo.path, client, python="/py/bin/python")["changed"]) == 2
    agent_install.uninstall(repo.path, client)
    assert _tree(repo.path) == before


def test_uninstall_refuses_before_touching_any_file(repo):
    """The second file was broken after install (and still names jgm's hook): uninstall names it and leaves
    the first file, the manifest and the backups as they were, so fixing the file and running it again works."""
    repo.write(".mcp.json", USER_MCP)
    repo.commit()
    jgm_in("agent", "install", "claude-code", "--repo", str(repo.path), check=True)
    settings = repo.path / ".claude/settings.json"
    good = settings.read_bytes()
    settings.write_bytes(good.replace(b"{", b"{,", 1))
    before = _tree(repo.path)
    p = jgm_in("agent", "uninstall", "claude-code", "--repo", str(repo.path))
    assert p.returncode == 2 and ".claude/settings.json:1: invalid JSON" in p.stderr, p.stderr
    assert _tree(repo.path) == before
    settings.write_bytes(good)
    jgm_in("agent", "uninstall", "claude-code", "--repo", str(repo.path), check=True)
    assert (repo.path / ".mcp.json").read_bytes() == USER_MCP and not settings.exists()


def test_cline_gets_executable_hook_scripts_and_refuses_one_of_the_users_own(repo):
    import os

    from jupiter_git_memory.surfaces.agent.install import install, uninstall
    from jupiter_git_memory.surfaces.agent.readiness import readiness

    res = install(repo.path, "cline")
    assert res["changed"] == [
        ".clinerules/hooks/TaskStart",
        ".clinerules/hooks/UserPromptSubmit",
        ".clinerules/hooks/PostToolUse",
    ]
    script = repo.path / ".clinerules/hooks/PostToolUse"
    assert script.read_text().startswith("#!/bin/sh\n") and "\nexec jgm hook cline edit\n" in script.read_text()
    assert os.access(script, os.X_OK) and install(repo.path, "cline")["changed"] == []
    script.chmod(0o644)  # a checkout that dropped the bit: Cline would skip it silently
    (row,) = readiness(repo.path, "cline")
    assert row["state"] == "not executable" and "chmod +x .clinerules/hooks/PostToolUse" in row["problems"][0]["step"]
    uninstall(repo.path, "cline")
    assert not (repo.path / ".clinerules").exists()

    repo.write(".clinerules/hooks/TaskStart", "#!/bin/sh\necho '{}'\n")
    p = jgm_in("agent", "install", "cline", "--repo", str(repo.path))
    assert p.returncode == 2 and "TaskStart" in p.stderr and "a hook script of your own" in p.stderr, p.stderr
    assert sorted(x.name for x in (repo.path / ".clinerules/hooks").iterdir()) == ["TaskStart"]


OWN_SETTINGS = {  # per client: a file of the user's own where jgm merges (kept byte for byte by uninstall)
    "claude-code": (
        ".claude/settings.json",
        b'{"model": "opus",\n "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}',
    ),
    "codex": (".codex/hooks.json", b'{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}\n'),
    "cursor": (".cursor/hooks.json", b'{"version": 1, "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}]}}\n'),
    "gemini": (
        ".gemini/settings.json",
        b'{\n  "ui": {"theme": "GitHub"},\n  "mcpServers": {"db": {"command": "db-mcp"}}\n}\n',
    ),
    "vscode": (".vscode/mcp.json", b'{"servers": {"docs": {"type": "stdio", "command": "docs-mcp"}}, "inputs": []}'),
    "cline": (".clinerules/style.md", b"Use tabs.\n"),
}


@pytest.mark.parametrize("client", sorted(OWN_SETTINGS))
def test_every_client_installs_once_and_uninstalls_byte_for_byte(repo, client):
    from jupiter_git_memory.surfaces.agent.install import install, uninstall
    from jupiter_git_memory.surfaces.agent.readiness import status

    rel, own = OWN_SETTINGS[client]
    repo.write(rel, own)
    repo.commit()
    before = _tree(repo.path)
    first = install(repo.path, client)
    assert first["changed"] and install(repo.path, client)["changed"] == []  # idempotent
    assert {r["state"] for r in status(repo.path, client)} == {"installed"}
    text = (repo.path / rel).read_bytes()
    if rel in first["changed"]:  # merged beside the user's keys, never over them
        mine, theirs = json.loads(text), json.loads(own)
        assert all(mine[k] == v or isinstance(v, dict) and v.items() <= mine[k].items() for k, v in theirs.items())
    uninstall(repo.path, client)
    assert _tree(repo.path) == before


@pytest.mark.parametrize("client", sorted(OWN_SETTINGS))
def test_uninstall_on_a_clone_without_the_manifest_takes_out_only_jgms_entries(repo, tmp_path, client):
    """A teammate's clone has the committed files but not the installer's git dir: uninstall there removes
    jgm's entries by their marker and keeps the user's."""
    import subprocess

    from jupiter_git_memory.surfaces.agent.install import install, uninstall

    rel, own = OWN_SETTINGS[client]
    repo.write(rel, own)
    install(repo.path, client)
    repo.git("add", "-A")
    repo.commit("agents")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo.path), str(clone)], check=True, timeout=60)
    res = uninstall(clone, client)
    assert res["edited"] or res["removed"], res
    left = [p for p in clone.rglob("*") if p.is_file() and ".git" not in p.parts]
    assert all("jgm hook" not in p.read_text() and '"jupiter-git-memory"' not in p.read_text() for p in left)
    assert json.loads((clone / rel).read_text()) == json.loads(own) if rel.endswith(".json") else True
