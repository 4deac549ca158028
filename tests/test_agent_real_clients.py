"""Optional: the real clients list the MCP server `jgm agent install` wrote. Skipped unless the client's
binary is there (`JGM_CLAUDE_BIN` / `JGM_CODEX_BIN`, else `claude` / `codex` on PATH; both install from npm:
`npm install --prefix DIR @anthropic-ai/claude-code @openai/codex`). Neither needs a login for this.

The client runs with a throwaway HOME that approves the project's server (Claude Code asks before it starts a
`.mcp.json` server; Codex reads `.codex/config.toml` only in a trusted project): what a user does once."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from helpers import jgm, jgm_on_path, seeded

pytestmark = pytest.mark.e2e


def _bin(env_var: str, name: str) -> str | None:
    return os.environ.get(env_var) or shutil.which(name)


def _installed(repo, client: str) -> None:
    seeded(repo, 1)
    p = jgm("agent", "install", client, cwd=repo.path)
    assert p.returncode == 0, p.stderr


def _run(argv: list[str], home, cwd) -> subprocess.CompletedProcess:
    env = {**jgm_on_path(), "HOME": str(home)}  # the installed entries run `jgm` from PATH
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=180)


@pytest.mark.skipif(not _bin("JGM_CLAUDE_BIN", "claude"), reason="Claude Code is not installed")
def test_claude_code_lists_the_server_as_connected(repo, tmp_path):
    _installed(repo, "claude-code")
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude/settings.json").write_text(json.dumps({"enabledMcpjsonServers": ["jupiter-git-memory"]}))
    p = _run([_bin("JGM_CLAUDE_BIN", "claude"), "mcp", "list"], home, repo.path)
    line = next((x for x in p.stdout.splitlines() if x.startswith("jupiter-git-memory:")), "")
    assert "jgm mcp" in line and "Connected" in line, p.stdout + p.stderr


@pytest.mark.skipif(not _bin("JGM_CODEX_BIN", "codex"), reason="Codex is not installed")
def test_codex_lists_the_server_as_enabled(repo, tmp_path):
    _installed(repo, "codex")
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex/config.toml").write_text(f'[projects."{repo.path}"]\ntrust_level = "trusted"\n')
    p = _run([_bin("JGM_CODEX_BIN", "codex"), "mcp", "list"], home, repo.path)
    line = next((x for x in p.stdout.splitlines() if x.startswith("jupiter-git-memory ")), "")
    assert line.split()[1:3] == ["jgm", "mcp"] and "enabled" in line, p.stdout + p.stderr  # a table


@pytest.mark.skipif(not _bin("JGM_GEMINI_BIN", "gemini"), reason="Gemini CLI is not installed")
def test_gemini_cli_connects_the_server_and_accepts_the_hooks(repo, tmp_path):
    """Gemini CLI validates `.gemini/settings.json` when it loads it (a malformed `hooks` is refused with
    "Please fix the configuration") and reads a project's settings only in a trusted folder."""
    _installed(repo, "gemini")
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini/trustedFolders.json").write_text(json.dumps({str(repo.path): "TRUST_FOLDER"}))
    p = _run([_bin("JGM_GEMINI_BIN", "gemini"), "mcp", "list"], home, repo.path)
    out = p.stdout + p.stderr
    # listed (its connection check races jgm's cold start under load: not asserted), settings accepted
    assert "jupiter-git-memory: jgm mcp (stdio)" in out and "fix the configuration" not in out, out
    settings = json.loads((repo.path / ".gemini/settings.json").read_text())
    assert set(settings["hooks"]) == {"SessionStart", "BeforeAgent", "AfterTool"}


def _codex_start(home, cwd) -> str:
    """What `codex exec` prints while it loads the project's config, before it gives up reaching a model (no
    login here): the first seconds of its output."""
    argv = [_bin("JGM_CODEX_BIN", "codex"), "exec", "--skip-git-repo-check", "say hi"]
    env = {**jgm_on_path(), "HOME": str(home)}
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=15, stdin=subprocess.DEVNULL)
        return p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        return "".join(x.decode() if isinstance(x, bytes) else x for x in (e.stdout or "", e.stderr or ""))


@pytest.mark.skipif(not _bin("JGM_CODEX_BIN", "codex"), reason="Codex is not installed")
def test_codex_parses_the_installed_hooks(repo, tmp_path):
    """Codex parses a trusted project's `.codex/hooks.json` when a session starts and warns `failed to parse
    hooks config` when it cannot (checked too, so the test can fail)."""
    _installed(repo, "codex")
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex/config.toml").write_text(f'[projects."{repo.path}"]\ntrust_level = "trusted"\n')
    out = _codex_start(home, repo.path)
    assert "session id:" in out and "failed to parse hooks config" not in out, out
    good = (repo.path / ".codex/hooks.json").read_text()
    (repo.path / ".codex/hooks.json").write_text(good.replace('"timeout": 30', '"timeout": "soon"', 1))
    assert "failed to parse hooks config" in _codex_start(home, repo.path)
