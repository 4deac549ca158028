"""The edit hook as Claude Code runs it (the installed PreToolUse command through a shell, the documented
payload on stdin), answered by the warm daemon: the same note as in process, once per file per session."""

from __future__ import annotations

import json
import os

import pytest
from daemon_helpers import normalised
from helpers import jgm, seeded
from helpers import run_hook as _run

from jupiter_git_memory.surfaces.daemon.client import control

pytestmark = pytest.mark.e2e

RECORDS = {
    "dec-cache-ttl": {"title": "Cache entries expire after ten minutes", "body": "LRU, ten minutes.", "source": "src/"},
}


def test_the_installed_edit_hook_answers_through_the_daemon(repo, daemon_on):
    repo.write("src/cache.py", "TTL = 600\n")
    seeded(repo, RECORDS)
    jgm("agent", "install", "claude-code", "--repo", str(repo.path), check=True)
    settings = json.loads((repo.path / ".claude/settings.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]

    def edit(session: str) -> dict:
        return {
            "session_id": session,
            "transcript_path": "/tmp/t.jsonl",
            "cwd": str(repo.path),
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": str(repo.path / "src/cache.py"), "content": "TTL = 60\n"},
        }

    env = dict(os.environ)
    warm = _run(command, edit("warm"), env)
    assert warm.returncode == 0, warm.stderr
    assert control("status", daemon_on)["requests"] >= 1  # the daemon answered it
    text = json.loads(warm.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "- dec-cache-ttl — Cache entries expire after ten minutes" in text and "src/cache.py: cites src/" in text
    assert _run(command, edit("warm"), env).stdout == ""  # once per file per session
    here = _run(command, edit("here"), {**env, "JGM_NO_DAEMON": "1"})
    assert normalised(here.stdout) == normalised(warm.stdout)
