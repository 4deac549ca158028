"""`jgm agent install` never follows a link a repository commits (issue 35, item 7): real repos, real
symlinks to a stand-in home, the real `jgm`. Each is refused with the path named, and nothing outside the
repository (nor the link's target copied into it) is read or written."""

from __future__ import annotations

import json

import pytest
from cli_helpers import jgm_in

pytestmark = pytest.mark.e2e

SECRET = b"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----\n"

CASES = {
    # name: (client, link in the repo, target in the stand-in home, target is a folder)
    "claude-folder": ("claude-code", ".claude", ".claude", True),
    "mcp-json": ("claude-code", ".mcp.json", ".docker/config.json", False),
    "codex-hooks": ("codex", ".codex/hooks.json", ".ssh/id_ed25519", False),
    "cursor-folder": ("cursor", ".cursor", "elsewhere", True),
    "gemini-folder": ("gemini", ".gemini", ".gemini", True),
    "vscode-hooks": ("vscode", ".github/hooks", ".config", True),
    "cline-hooks": ("cline", ".clinerules", "elsewhere", True),
}


def _snapshot(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case", list(CASES))
def test_install_refuses_a_committed_symlink_and_touches_nothing(repo, tmp_path, case):
    client, link, target, folder = CASES[case]
    home = tmp_path / "home"
    t = home / target
    if folder:
        t.mkdir(parents=True)
        (t / "settings.json").write_text('{"theirs": true}\n')
    else:
        t.parent.mkdir(parents=True)
        t.write_bytes(SECRET if "ssh" in target else b'{"auths": {"registry.example": {"auth": "dXNlcjpwdw=="}}}\n')
    (repo.path / link).parent.mkdir(parents=True, exist_ok=True)
    (repo.path / link).symlink_to(t)
    repo.write("README.md", "a repository someone else wrote\n")
    repo.git("add", "-A")
    repo.git("commit", "-qm", "links")
    home_before = _snapshot(home)
    p = jgm_in("agent", "install", client, "--repo", str(repo.path), "--json")
    assert p.returncode != 0, p.stdout
    message = json.loads(p.stdout)["error"]["message"] if p.stdout.strip() else p.stderr
    assert f"{repo.path / link}: is a symbolic link" in message and "run this again" in message, message
    assert _snapshot(home) == home_before  # nothing written through the link
    written = [k for k in _snapshot(repo.path) if not k.startswith((".git/", link)) and k != "README.md"]
    assert written == [], written  # nothing copied in, no partial install: every file is checked first
    rows = json.loads(jgm_in("agent", "status", client, "--repo", str(repo.path), "--json").stdout)["clients"]
    assert any(r["state"] == "refused (not a real file)" for r in rows), rows
    assert jgm_in("agent", "uninstall", client, "--repo", str(repo.path)).returncode != 0
    assert _snapshot(home) == home_before


def test_install_still_writes_real_files(repo):
    repo.write("README.md", "x\n")
    repo.git("add", "-A")
    repo.git("commit", "-qm", "x")
    p = jgm_in("agent", "install", "cursor", "--repo", str(repo.path))
    assert p.returncode == 0, p.stderr
    assert (repo.path / ".cursor/hooks.json").is_file() and not (repo.path / ".cursor/hooks.json").is_symlink()
