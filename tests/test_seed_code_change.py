"""A fix in any code a seed's answer depends on reaches the next seed (issue 35, item 5): a real copy of the
package with a real lifecycle bug in it, then the fix, and real `jgm` processes on a real repository. The
no-op seed used to fingerprint only `records/`, so the record the fixed code retires stayed `accepted`."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from helpers import jgm

import jupiter_git_memory

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # slow: scheduled first (conftest.py)

BUG = ("    return declared_status in IN_FORCE\n", "    return False  # the bug: nothing retires anything\n")


def test_a_lifecycle_fix_reaches_the_next_seed(repo, tmp_path):
    copy = tmp_path / "site" / "jupiter_git_memory"
    shutil.copytree(Path(jupiter_git_memory.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    resolve = copy / "lifecycle" / "resolve.py"
    fixed = resolve.read_text()
    assert BUG[0] in fixed
    resolve.write_text(fixed.replace(*BUG))
    env = {**os.environ, "PYTHONPATH": str(copy.parent)}
    repo.record("dec-old", title="Sessions live in Memcached", body="We keep user sessions in Memcached.")
    repo.record(
        "dec-new", title="Sessions live in Redis", supersedes="[dec-old]", body="We keep user sessions in Redis."
    )
    repo.commit()

    def statuses() -> dict[str, str]:
        every = [a for s in ("accepted", "superseded") for a in ("--status", s)]
        p = jgm("recall", "where do we keep user sessions", "--json", *every, cwd=repo.path, env=env)
        assert p.returncode == 0, p.stderr
        return {r["id"]: r["status"] for r in json.loads(p.stdout)["results"]}

    assert jgm("seed", cwd=repo.path, env=env).returncode == 0
    assert statuses()["dec-old"] == "accepted"  # the bug at work
    assert jgm("seed", cwd=repo.path, env=env).returncode == 0  # a no-op: nothing changed
    resolve.write_text(fixed)  # the fix, and no record file touched
    assert jgm("seed", cwd=repo.path, env=env).returncode == 0
    assert statuses()["dec-old"] == "superseded"
    default = jgm("recall", "where do we keep user sessions", "--json", cwd=repo.path, env=env)
    assert "dec-old" not in {r["id"] for r in json.loads(default.stdout)["results"]}  # retired: never shown
