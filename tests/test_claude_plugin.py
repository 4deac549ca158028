"""Issue 38 item 7: the Claude Code plugin in this repository (`plugins/claude-code/`, listed by the marketplace
file `.claude-plugin/marketplace.json`), a second way in beside `jgm agent install claude-code`. Its hooks and
MCP server are exactly what install writes into committed files (`jgm` from PATH), so the two never drift; the
real `claude` validates both manifests, installs the plugin from the marketplace and connects its server
(skipped when Claude Code is not installed)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from jupiter_git_memory.surfaces.agent.launch import Launch, mcp_entry
from jupiter_git_memory.surfaces.agent.merge_json import merge_hooks

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
MARKET = ROOT / ".claude-plugin/marketplace.json"


def _plugin_dir() -> Path:
    market = json.loads(MARKET.read_text())
    (entry,) = market["plugins"]
    assert entry["source"].startswith("./")
    return ROOT / entry["source"]


def test_the_marketplace_lists_the_plugin_and_the_plugin_says_what_install_writes():
    import tomllib

    market = json.loads(MARKET.read_text())
    assert market["name"] == "jupiter-git-memory" and market["owner"]["name"]
    plugin = json.loads((_plugin_dir() / ".claude-plugin/plugin.json").read_text())
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert plugin["name"] == market["plugins"][0]["name"] == "jupiter-git-memory"
    assert plugin["version"] == market["plugins"][0]["version"] == version  # released together
    assert plugin["mcpServers"] == {"jupiter-git-memory": mcp_entry(Launch.portable())}  # `jgm mcp` from PATH
    hooks = json.loads((_plugin_dir() / "hooks/hooks.json").read_text())
    assert hooks["hooks"] == merge_hooks({}, Launch.portable(), "claude-code")["hooks"]
    commands = [h["command"] for groups in hooks["hooks"].values() for g in groups for h in g["hooks"]]
    assert commands == [
        "jgm hook claude-code session-start",
        "jgm hook claude-code prompt",
        "jgm hook claude-code edit",
    ]


CLAUDE = os.environ.get("JGM_CLAUDE_BIN") or shutil.which("claude")


@pytest.mark.e2e
@pytest.mark.skipif(not CLAUDE, reason="Claude Code is not installed")
def test_claude_validates_installs_and_connects_the_plugin(repo, tmp_path):
    from helpers import jgm_on_path

    env = {**jgm_on_path(), "HOME": str(tmp_path / "home")}

    def claude(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([CLAUDE, *args], cwd=repo.path, env=env, capture_output=True, text=True, timeout=180)

    for path in (ROOT, _plugin_dir()):
        p = claude("plugin", "validate", str(path))
        assert p.returncode == 0 and "Validation passed" in p.stdout, p.stdout + p.stderr
    assert claude("plugin", "marketplace", "add", str(ROOT)).returncode == 0
    p = claude("plugin", "install", "jupiter-git-memory@jupiter-git-memory")
    assert p.returncode == 0, p.stdout + p.stderr
    p = claude("mcp", "list")
    line = next((x for x in p.stdout.splitlines() if x.startswith("plugin:jupiter-git-memory:")), "")
    assert "jgm mcp" in line and "Connected" in line, p.stdout + p.stderr


@pytest.mark.integration
def test_status_says_when_the_plugin_and_the_installed_hooks_would_both_run(repo, tmp_path, monkeypatch):
    from jupiter_git_memory.surfaces.agent.install import install
    from jupiter_git_memory.surfaces.agent.readiness import readiness

    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    install(repo.path, "claude-code")
    (repo.path / ".claude/settings.local.json").write_text(
        json.dumps({"enabledMcpjsonServers": ["jupiter-git-memory"]})
    )
    (row,) = readiness(repo.path, "claude-code")
    assert row["state"] == "installed", row
    (home / ".claude/settings.json").write_text(
        json.dumps({"enabledPlugins": {"jupiter-git-memory@jupiter-git-memory": True}})
    )
    (row,) = readiness(repo.path, "claude-code")
    assert row["state"] == "installed twice" and "claude plugin disable" in row["problems"][0]["step"], row
