"""`jgm --help`, `--version` and `jgm GROUP --help` import only what help needs (issue 26, item 5): Typer and
the command modules' declarations, not rich, pydantic or the record, candidate and workspace code the
commands use when they run.

`sys.modules` is read at exit of the real entry (`python -m jupiter_git_memory`, what `jgm` runs) rather than
`-X importtime`: the command modules are loaded with `importlib.import_module`, which importtime does not
report, so it would not see what they import.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.e2e

# what the commands use when they run; help never needs them
NOT_FOR_HELP = (
    "numpy",
    "chromadb",
    "onnxruntime",
    "tokenizers",
    "pydantic",
    "pydantic_settings",
    "rich",
    "jupiter_git_memory.records.model",
    "jupiter_git_memory.records.text",
    "jupiter_git_memory.candidates.model",
    "jupiter_git_memory.git.workspace",
    "jupiter_git_memory.base.errors",
    "jupiter_git_memory.base.memory",
    "jupiter_git_memory.config",
)
ENTRY = """
import atexit, json, runpy, sys
atexit.register(lambda: sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
sys.argv = ["jgm", *sys.argv[1:]]
runpy.run_module("jupiter_git_memory", run_name="__main__", alter_sys=True)
"""


def _run(args: list[str], tmp_path) -> tuple[subprocess.CompletedProcess, set[str]]:
    env = dict(os.environ, JGM_HOME=str(tmp_path / "home"))  # no daemon to forward to
    p = subprocess.run(
        [sys.executable, "-c", ENTRY, *args], capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path
    )
    line = next(x for x in p.stderr.splitlines() if x.startswith("MODULES "))
    return p, set(json.loads(line.removeprefix("MODULES ")))


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        ["seed", "--help"],
        ["recall", "--help"],
        ["remember", "--help"],
        ["candidates", "--help"],
        ["model", "list", "--help"],
        ["hooks", "install", "--help"],
    ],
)
def test_help_and_version_load_only_what_help_needs(args, tmp_path):
    p, loaded = _run(args, tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.startswith("jgm " if args == ["--version"] else "Usage: jgm"), p.stdout[:200]
    assert "jupiter_git_memory.surfaces.cli.remember_cmd" in loaded  # the probe sees the command modules at all
    heavy = sorted(m for m in loaded if any(m == h or m.startswith(h + ".") for h in NOT_FOR_HELP))
    assert not heavy, f"jgm {' '.join(args)} imported {heavy}"


def test_a_command_prints_through_the_console_made_on_first_use(tmp_path):
    """The console is made on the first print and still shows hidden characters escaped (records/text.py)."""
    odd = tmp_path / "not\x1b]0;a-repo"
    odd.mkdir()
    p, loaded = _run(["check", "--repo", str(odd)], tmp_path)
    assert p.returncode == 4 and "not inside a git repository" in p.stderr, p.stderr[-2000:]
    assert "not\\x1b]0;a-repo" in p.stderr and "\x1b" not in p.stderr, p.stderr[-2000:]
    assert {"rich", "jupiter_git_memory.records.text", "jupiter_git_memory.git.workspace"} <= loaded
