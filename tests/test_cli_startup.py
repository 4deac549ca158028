"""`jgm --help`, `--version` and the hook entry points start without the heavy libraries: a client hook runs
on every prompt, and numpy + Chroma + onnxruntime + pydantic cost most of a cold second (issue 24)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.e2e

HEAVY = ("numpy", "chromadb", "onnxruntime", "tokenizers", "pydantic_settings")
# Typer (0.29) converts parameters with pydantic; help leaves the unset ones unconverted (cli/group.py)
TOP_LEVEL_ALSO = ("pydantic",)
PROBE = """
import json, os, sys
from typer.testing import CliRunner
from jupiter_git_memory.surfaces.cli.main import app
r = CliRunner().invoke(app, sys.argv[1:])
heavy = sorted({m.split('.')[0] for m in sys.modules} & set(os.environ['HEAVY'].split()))
print(json.dumps({"exit": r.exit_code, "out": r.output[:200], "heavy": heavy}))
"""


def _probe(*args: str) -> dict:
    env = dict(os.environ, HEAVY=" ".join(HEAVY + TOP_LEVEL_ALSO))
    p = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        ["recall", "--help"],
        ["model", "list", "--help"],
        ["agent", "install", "--help"],
        ["hook", "--help"],
    ],
)
def test_cli_help_and_version_skip_heavy_imports(args):
    res = _probe(*args)
    assert res["exit"] == 0, res
    assert not res["heavy"], f"jgm {' '.join(args)} imported {res['heavy']}"


def test_hook_entry_without_a_store_skips_heavy_imports(tmp_path):
    """`python -m jupiter_git_memory hook ...` where memory is not set up answers before loading the model."""
    import subprocess as sp

    sp.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    payload = json.dumps({"cwd": str(tmp_path / "r"), "hook_event_name": "SessionStart", "source": "startup"})
    p = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "jupiter_git_memory", "hook", "claude-code", "session-start"],
        input=payload,
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, JGM_HOME=str(tmp_path / "h")),
    )
    assert p.returncode == 0 and "jgm seed" in json.loads(p.stdout)["systemMessage"], p.stdout
    loaded = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in p.stderr.splitlines() if "|" in line}
    assert not loaded & set(HEAVY + TOP_LEVEL_ALSO + ("typer",)), sorted(loaded & set(HEAVY + TOP_LEVEL_ALSO))


def test_edit_hook_of_a_file_already_answered_skips_heavy_imports(tmp_path):
    """The edit hook runs on every edit: with no store (or a file this session already saw) it answers from a
    Python start, silently (edit.py)."""
    import subprocess as sp

    sp.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    payload = {"session_id": "s", "cwd": str(tmp_path / "r"), "hook_event_name": "PreToolUse", "tool_name": "Edit"}
    payload["tool_input"] = {"file_path": str(tmp_path / "r" / "a.py"), "old_string": "a", "new_string": "b"}
    p = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "jupiter_git_memory", "hook", "claude-code", "edit"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, JGM_HOME=str(tmp_path / "h")),
    )
    assert p.returncode == 0 and p.stdout == "", p.stdout
    loaded = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in p.stderr.splitlines() if "|" in line}
    assert not loaded & set(HEAVY + TOP_LEVEL_ALSO + ("typer",)), sorted(loaded & set(HEAVY + TOP_LEVEL_ALSO))


def test_console_entry_help_skips_heavy_imports():
    """The real entry (`python -m jupiter_git_memory`, what the hooks and `jgm` run), seen by -X importtime."""
    p = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "jupiter_git_memory", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0 and p.stdout.startswith("jgm "), p.stderr[-2000:]
    loaded = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in p.stderr.splitlines() if "|" in line}
    assert "jupiter_git_memory" in loaded  # the probe sees our imports at all
    assert not loaded & set(HEAVY + TOP_LEVEL_ALSO), sorted(loaded & set(HEAVY + TOP_LEVEL_ALSO))


def test_the_console_script_is_the_light_entry():
    """`jgm` runs what `python -m jupiter_git_memory` runs, so the hook and thin-client fast paths
    (surfaces/daemon/thin.py) come before Typer is imported. An install made before the entry moved keeps
    its old script until reinstalled (`pip install -e .`)."""
    import tomllib
    from pathlib import Path

    pyproject = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    assert pyproject["project"]["scripts"]["jgm"] == "jupiter_git_memory.__main__:main"


def test_a_git_hook_for_a_checkout_that_changed_no_markdown_loads_no_settings(repo):
    """The installed git hook runs after every checkout; one that changed no Markdown file decides so from
    the diff alone, before the settings (pydantic) load (a checkout that changes a record: tests/test_hooks.py)."""
    repo.record("dec-a")
    repo.write("src/app.py", "x = 1\n")
    old = repo.commit("code")
    repo.write("src/app.py", "x = 2\n")
    new = repo.commit("more code")
    argv = [sys.executable, "-X", "importtime", "-m", "jupiter_git_memory", "hooks", "run", "post-checkout"]
    p = subprocess.run([*argv, old, new, "1"], cwd=repo.path, capture_output=True, text=True, timeout=120)
    loaded = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in p.stderr.splitlines() if "|" in line}
    assert p.returncode == 0 and not loaded & {"pydantic", "pydantic_settings", "numpy", "chromadb"}, sorted(loaded)
    assert "jgm:" not in p.stderr
