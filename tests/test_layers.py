"""The package DAG (issue 14): no package imports a layer above it. The contract is the `layers` one in
pyproject.toml; this runs import-linter on it, so a new upward import fails the suite, not only CI."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent


def test_packages_follow_the_data_flow():
    code = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True, no_logo=True))"
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 kept, 0 broken" in r.stdout
