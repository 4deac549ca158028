"""The package DAG (issue 14): no package imports a layer above it. The contract is the `layers` one in
pyproject.toml; this runs import-linter on it, so a new upward import fails the suite, not only CI."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent


def test_packages_follow_the_data_flow():
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]["contracts"]
    assert any(c["type"] == "layers" for c in contracts)  # the data flow is among what is checked
    code = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True, no_logo=True))"
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    # every contract of pyproject.toml was checked and kept, none broken (however many there are)
    for c in contracts:
        assert re.search(rf"^{re.escape(c['name'])} KEPT$", r.stdout, re.M), (c["name"], r.stdout)
    counts = re.search(r"Contracts: (\d+) kept, (\d+) broken", r.stdout)
    assert counts and (int(counts[1]), int(counts[2])) == (len(contracts), 0), r.stdout
