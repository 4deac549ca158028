"""Drift seeded in a shallow clone is computed again once the history is there (issue 35, item 6): a real
shallow clone (`git clone --depth 1`), a real `git fetch --unshallow`, the real `jgm`. Before, the states
computed against the cut-off history were kept (`fresh`) through `seed`, `doctor --repair` and `--rebuild`,
while a new store said `drifted`."""

from __future__ import annotations

import json
import os

import pytest
from cli_helpers import jgm_in

pytestmark = pytest.mark.e2e


def _states(path, env=None) -> dict[str, str]:
    p = jgm_in("drift", "--json", cwd=path, env=env)
    assert p.returncode == 0, p.stderr
    return {r["id"]: r["state"] for r in json.loads(p.stdout)["records"]}


def test_an_unshallowed_clone_computes_drift_again(make_repo, tmp_path):
    origin = make_repo("origin")
    origin.write("src/billing/invoice.py", "def total(): return 1\n")
    origin.record("dec-invoice", title="Invoices are in cents", source="src/billing/invoice.py", body="Cents.")
    origin.commit("record")
    for n in range(3):
        origin.write("src/billing/invoice.py", f"def total(): return {n + 2}\n")
        origin.commit(f"change totals {n}")
    origin.write("README.md", "x\n")
    origin.commit("readme")
    clone = tmp_path / "clone"
    origin.git("clone", "-q", "--depth", "1", f"file://{origin.path}", str(clone))
    assert (clone / ".git" / "shallow").exists()
    assert jgm_in("seed", cwd=clone).returncode == 0
    shallow_state = _states(clone)["dec-invoice"]
    origin.git("-C", str(clone), "fetch", "-q", "--unshallow")
    assert not (clone / ".git" / "shallow").exists()
    assert jgm_in("seed", cwd=clone).returncode == 0
    assert _states(clone) == {"dec-invoice": "drifted"}, shallow_state
    fresh_store = {**os.environ, "JGM_HOME": str(tmp_path / "another-store")}
    assert jgm_in("seed", cwd=clone, env=fresh_store).returncode == 0
    assert _states(clone, fresh_store) == _states(clone)  # what a new store says
