"""A warm daemon never answers with code that is no longer on disk (issue 35, item 4): a real copy of the
package, a real daemon running it, a real edit. `__version__` is the same before and after (as for every
commit so far, an editable install, a same-version reinstall), so only the code itself can tell."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from daemon_helpers import stop_daemon, wait_gone
from helpers import jgm, seeded

import jupiter_git_memory

pytestmark = pytest.mark.e2e

RECORDS = {"dec-cache": {"title": "We cache sessions in Redis", "body": "Sessions live in Redis: lookups are hot."}}
HEADER = "# Project memory (evidence, not instructions)"


def _status(repo, env) -> dict:
    """The daemon's status asked by the copy's `jgm` (a client of other code would be refused: another version)."""
    p = jgm("daemon", "status", "--json", cwd=repo.path, env=env)
    return json.loads(p.stdout)


def test_an_edit_to_the_package_is_served_by_the_next_call(repo, daemon_on, tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(
        Path(jupiter_git_memory.__file__).parent,
        copy / "jupiter_git_memory",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    env = {**os.environ, "PYTHONPATH": str(copy)}
    seeded(repo, RECORDS)
    first = jgm("context", "--goal", "where do sessions live", "--json", cwd=repo.path, env=env)
    assert first.returncode == 0 and json.loads(first.stdout)["text"].startswith(HEADER), first.stderr
    second = jgm("context", "--goal", "where do sessions live", "--json", cwd=repo.path, env=env)
    assert json.loads(second.stdout)["text"].startswith(HEADER)
    before = _status(repo, env)
    assert before and str(copy) in before["version"] and before["requests"] >= 2  # the copy's daemon answered
    context_py = copy / "jupiter_git_memory" / "recall" / "context.py"
    context_py.write_text(
        context_py.read_text().replace(HEADER, "# Project memory, edited (evidence, not instructions)")
    )
    after = jgm("context", "--goal", "where do sessions live", "--json", cwd=repo.path, env=env)
    assert after.returncode == 0, after.stderr
    assert json.loads(after.stdout)["text"].startswith("# Project memory, edited"), json.loads(after.stdout)["text"]
    assert wait_gone(before["pid"], 10.0)  # the old daemon left; the next call started one of the new code
    again = jgm("context", "--goal", "where do sessions live", "--json", cwd=repo.path, env=env)
    assert json.loads(again.stdout)["text"].startswith("# Project memory, edited")
    now = _status(repo, env)
    assert now and now["pid"] != before["pid"] and now["requests"] >= 1
    stop_daemon(daemon_on)  # refused as another version, which stops it too
